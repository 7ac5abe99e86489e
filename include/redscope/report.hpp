// Rendering of results: herd7-like text and JSON.
#pragma once

#include <string>
#include <vector>

#include "redscope/engine.hpp"

namespace redscope {

std::string render_text(const TestResult& r);
// One JSON array with an object per test (schema in docs/cli.md).
std::string render_json(const std::vector<TestResult>& results);
// One element of that array (indented as in it), for streaming the array.
std::string render_json_item(const TestResult& r);
// The same object on one line (JSON Lines: `--format jsonl`).
std::string render_json_line(const TestResult& r);
std::string json_escape(std::string_view s);

}  // namespace redscope
