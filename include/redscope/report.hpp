// Rendering of results: herd7-like text and JSON.
#pragma once

#include <string>
#include <vector>

#include "redscope/engine.hpp"

namespace redscope {

std::string render_text(const TestResult& r);
// One JSON array with an object per test (schema in docs/cli.md).
std::string render_json(const std::vector<TestResult>& results);
std::string json_escape(std::string_view s);

}  // namespace redscope
