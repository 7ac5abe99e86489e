// The SASS litmus dialect: herd containers whose cells hold sm_30 SASS,
// as text or as 64-bit words (docs/litmus-format.md "SASS litmus tests").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "redscope/core/litmus.hpp"

namespace redscope::detail {

// The test in a SASS litmus file; throws InputError at the offending token.
std::vector<LitmusTest> parse_sass_litmus(std::string_view text, const std::string& file);

}  // namespace redscope::detail
