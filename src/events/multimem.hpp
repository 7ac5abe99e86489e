// Multimem ranges and multimem.cp.reduce.async.bulk (seed
// ptx-multimem-cp-reduce-async-bulk.txt). Private to the expansion.
#pragma once

#include <string>

#include "redscope/core/litmus.hpp"

namespace redscope::detail {

// Resolves the test's multimem ranges in place, before the memory layout: each
// range becomes one global location per replica (replica_name), a thread's
// ordinary access to a range reaches its own GPU's replica, and each bulk
// reduction learns its replicas (BulkSpec::replicas). Throws a located
// InputError for a thread on a GPU without a replica, a bulk reduction whose
// destination is not a multimem range or whose source is not a declared
// .shared::cta buffer, element types of another size than the declarations,
// misaligned addresses (16 bytes) and ranges that overflow (the seed: all
// undefined behaviour; here every address is static, so each is an error).
void resolve_multimem(LitmusTest& t);

}  // namespace redscope::detail
