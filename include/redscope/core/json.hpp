// The one JSON writer of every command (run, xval, atomicity, explain): a
// small value tree with members kept in insertion order, and two layouts.
// Strings are escaped by json_escape (valid UTF-8, control characters as
// \uXXXX), so the output is always valid JSON, whatever the input file held.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace redscope {

class Json {
 public:
  enum class Layout : std::uint8_t {
    Line,    // all on one line: jsonl, explain
    Nested,  // containers above depth 3 one member per line, deeper ones on one line
  };

  Json() = default;  // null
  Json(bool b) : kind_(Kind::Raw), text_(b ? "true" : "false") {}
  Json(int n) : kind_(Kind::Raw), text_(std::to_string(n)) {}
  Json(std::size_t n) : kind_(Kind::Raw), text_(std::to_string(n)) {}
  Json(std::string_view s) : kind_(Kind::String), text_(s) {}
  Json(const char* s) : Json(std::string_view(s)) {}
  Json(const std::string& s) : Json(std::string_view(s)) {}
  static Json number(double v, int decimals);  // fixed-point, e.g. seconds
  static Json array();
  static Json object();
  static Json strings(const std::vector<std::string>& v);

  Json& push(Json v);                  // arrays
  Json& set(std::string key, Json v);  // objects: replaces the key's value, else appends

  // `depth`: where the value sits (an element of a streamed array: 1); the
  // caller writes the indentation of the first line.
  std::string dump(Layout layout, int depth = 0) const;

 private:
  enum class Kind : std::uint8_t { Null, Raw, String, Array, Object };
  void write(std::string& out, Layout layout, int depth) const;

  Kind kind_ = Kind::Null;
  std::string text_;                                 // Raw: the literal; String: unescaped
  std::vector<std::pair<std::string, Json>> items_;  // Array: empty keys
};

// `s` as the body of a JSON string: valid UTF-8, quotes, backslashes and
// control characters escaped.
std::string json_escape(std::string_view s);

}  // namespace redscope
