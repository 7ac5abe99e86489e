// NVIDIA's mixed-proxy litmus format (`.test`, from NVlabs/mixedproxy; the
// grammar is ../shared/conformance/nvlitmus/grammar.lark), read into
// LitmusTests (docs/litmus-format.md, "NVIDIA .test files").
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "redscope/core/litmus.hpp"

namespace redscope::detail {

// Every test a .test file holds: one per claim (permit/assert/check), and
// for a template (a `$$` table below the test) one per table row, the row's
// columns filling the `$N` holes. Names are the file's stem, `#ROW` for the
// row (counted from 1), and `:CLAIM` when the file makes several claims.
// Throws a located InputError; an error inside a filled hole points at the
// row's cell.
std::vector<LitmusTest> parse_nv_test(std::string_view text, const std::string& file);

// Test n (from 1) of the file, parsing only the template row that holds it
// (checking a FILE.test#N parses one row, not the whole table again); none
// when the file holds fewer tests.
std::optional<LitmusTest> parse_nv_test_nth(std::string_view text, const std::string& file,
                                            std::size_t n);

}  // namespace redscope::detail
