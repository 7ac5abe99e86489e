// Rendering of results: herd7-like text and JSON.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "redscope/core/json.hpp"
#include "redscope/results/results.hpp"

namespace redscope {

// `s` with & < > " written as entities: text for HTML and SVG (XML).
std::string html_escape(std::string_view s);

std::string render_text(const TestResult& r);
// One JSON array with an object per test (schema in docs/cli.md).
std::string render_json(const std::vector<TestResult>& results);
// One element of that array (indented as in it), for streaming the array.
std::string render_json_item(const TestResult& r);
// The same object on one line (JSON Lines: `--format jsonl`).
std::string render_json_line(const TestResult& r);

// The same three, handed on in pieces to `out` as they are written: a
// listing result's outcomes (TestResult::listing) are replayed one by one
// and never held, the bytes being those of render_text, render_json_item
// and render_json_line.
using TextSink = std::function<void(std::string_view)>;
void write_text(const TestResult& r, const TextSink& out);
void write_json_item(const TestResult& r, const TextSink& out);
void write_json_line(const TestResult& r, const TextSink& out);

// The fields every command's JSON object per test starts with: test, file,
// model and (when `target_sm` is given) target; a file that never parsed
// claims no test name, model or target (null).
Json json_test_head(const std::string& test, const std::string& file, bool parsed, ModelRef model,
                    std::optional<int> target_sm);
// "metadata": the test's `key=value` header lines (Matrix=, Cell=, Target=,
// ...), an object in key order; nothing when it has none.
Json& set_json_metadata(Json& o, const std::map<std::string, std::string>& metadata);
// "error" and "error_kind", both null for a checked test.
Json& set_json_error(Json& o, const std::optional<std::string>& error, const std::string& kind);

}  // namespace redscope
