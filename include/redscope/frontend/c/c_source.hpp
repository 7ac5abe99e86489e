// C and CUDA C++ thread bodies read as source (docs/model.md "The scoped C++
// model", docs/litmus-format.md "C tests"): each statement becomes events of
// its own meaning — an atomic operation with its memory_order and
// thread_scope, a fence, a plain or volatile access, control flow — never
// through a compiler. Two readers use it: herd7's C litmus tests (`C NAME`,
// herdtools7 herd/CSem.ml's reading of C) and the source side of a CUDA test
// (`redscope cuda-check`, docs/cuda.md), whose compiled side is nvcc's PTX.
//
// The body is lowered into the PTX IR's instructions (the PTX dialect's
// cells, redscope/frontend/ptx/ptx_instructions.hpp), each memory access and
// fence carrying Instruction::source: the order and scope as written. `sem`
// and `scope` hold their PTX reading, so the event-graph machinery (strong,
// morally strong, value sets) treats them as it treats PTX; a source-level
// model reads `source` (model/primitives.cpp: A, NA, RLX ... SC, CON, THREAD).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "redscope/core/litmus.hpp"

namespace redscope::csrc {

// Whose library a body's calls name.
enum class Library : std::uint8_t {
  StdAtomic,  // C11's <stdatomic.h> as herd7 reads it (atomic_load_explicit, ...)
  Libcuxx,    // CUDA C++: libcu++'s atomic_ref and fences, the runtime's atomicAdd, ...
};

// A memory location as a body names it: through a pointer parameter
// (`*x`, or `x` handed to an atomic operation) or, in CUDA, a __shared__
// variable by its own name (`s`).
struct MemoryName {
  std::string name;      // as the body writes it
  std::string location;  // the test's location
  DataType type = DataType::S32;
  bool by_pointer = true;
  bool is_volatile = false;  // declared `volatile T *x` (herd7's C header)
};

struct BodyContext {
  Library library = Library::StdAtomic;
  std::vector<MemoryName> memory;
  const LitmusTest* test = nullptr;  // header, init and thread row (for the PTX cells)
};

// Lowers one thread's body — the text between its braces, `at` the position
// of its first character — into `thread.code` (and `thread.labels`). Locals
// become registers named as declared (a shadowing local gets a fresh name),
// so a condition's `P1:r0` or `1:r0` reads the body's `r0`. InputError at the
// offending token (file:line:col) for what the reading does not cover.
void lower_body(std::string_view body, SourceLoc at, const std::string& file,
                const BodyContext& ctx, ThreadCode& thread);

// herd7's C litmus test: `C NAME`, the init block (`{ x = 1; int y = 0; }`),
// threads `P0 (int *x, atomic_int *y) { ... }`, `locations [...]` and the
// final condition (`0:r0=1 /\ y=2`, `[y]=2`). InputError located on bad input.
LitmusTest read_c_litmus(std::string_view text, const std::string& file);

}  // namespace redscope::csrc
