// The one JSON writer of every command (run, xval, atomicity, explain): a
// small value tree with members kept in insertion order, and two layouts.
// Strings are escaped by json_escape (valid UTF-8, control characters as
// \uXXXX), so the output is always valid JSON, whatever the input file held.
// Also the one reader of JSON that commands read back (JsonNode, below).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
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
  // Text written as it is: the caller makes it JSON (a streamed writer puts
  // a marker here and writes a long array in its place, report.cpp).
  static Json raw(std::string text);
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
// `s` as a JSON string: json_escape(s) between double quotes.
std::string json_quoted(std::string_view s);

// A JSON value read back (RFC 8259): `report --matrix` reads the results of
// `run --format json|jsonl` and `atomicity --format json` with it.
class JsonNode {
 public:
  enum class Type : std::uint8_t { Null, Bool, Number, String, Array, Object };
  Type type() const { return type_; }
  bool is(Type t) const { return type_ == t; }
  // String: the unescaped text; Number: the literal; Bool: "true" or "false".
  const std::string& text() const { return text_; }
  bool truthy() const { return type_ == Type::Bool && text_ == "true"; }
  // Number: its value when that is a whole number in [lo, hi], read exactly
  // from the literal (1e3, 10.0 and -0 are whole; 1.5, 1e400 and 2e19 past
  // `hi` are not); nullopt otherwise, never an exception.
  std::optional<long long> whole(long long lo, long long hi) const;
  // Object: the member named `key` (the last one when repeated), else null.
  const JsonNode* find(std::string_view key) const;
  const std::vector<JsonNode>& elements() const { return elements_; }  // Array
  const std::vector<std::string>& keys() const { return keys_; }       // Object,
  const std::vector<JsonNode>& values() const { return elements_; }    // in order
  int line() const { return line_; }  // where the value starts (1-based)
  int col() const { return col_; }

 private:
  friend class JsonReader;
  Type type_ = Type::Null;
  std::string text_;
  std::vector<std::string> keys_;
  std::vector<JsonNode> elements_;
  int line_ = 0, col_ = 0;
};

// Reads `text` (named `file` in errors) as one JSON value; InputError at
// FILE:LINE:COL for anything that is not (a nesting bound of 64 levels).
JsonNode parse_json(std::string_view text, const std::string& file);

// Hands each value of a result file to `each` as soon as it is read, so a
// long array is never held whole: the elements of a top-level array (`run
// --format json`), else each value of a sequence (JSON Lines).
void for_each_json_value(std::string_view text, const std::string& file,
                         const std::function<void(JsonNode&&)>& each);

}  // namespace redscope
