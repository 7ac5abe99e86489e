// The PTO dialect (docs/litmus-format.md "PTO vector programs"): a file whose
// first word is PTO holds an init block (unified-buffer arrays, registers'
// initial contents), one or more `pto.vecscope { ... }` regions per vector
// core, and a herd-style final condition over register lanes (P0:%v[3]) and
// buffer elements (ub_sum[0]). Loops are unrolled and constants folded here;
// the engines run pto::Program.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "redscope/core/litmus.hpp"

namespace redscope::detail {

// The test in a PTO file; throws InputError at the offending token.
std::vector<LitmusTest> parse_pto_litmus(std::string_view text, const std::string& file);

}  // namespace redscope::detail
