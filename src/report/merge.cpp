#include "redscope/report/merge.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "redscope/core/litmus.hpp"

namespace redscope {
namespace {

// The line and column (1-based) of offset `p` in `t`.
SourceLoc location_of(std::string_view t, std::size_t p) {
  int line = 1, col = 1;
  for (std::size_t i = 0; i < p && i < t.size(); ++i) {
    if (t[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return SourceLoc{line, col};
}

// What merge takes is only what `run --format json|jsonl` writes: one object
// per test with the fields one_json writes on every result
// (src/report/report.cpp), each of its JSON type (the first character of the
// value: '"' a string, 'n' null, '{' an object, '[' an array, '0' a number,
// 't' true). A listing also has "outcomes" and "witnesses", a verdict-only
// result "verdict_only" instead.
struct Field {
  std::string_view name, types, what;
};
constexpr Field kRunFields[] = {
    {"test", "\"n", "a string or null"},
    {"file", "\"", "a string"},
    {"model", "\"n", "a string or null"},
    {"engine", "\"n", "a string or null"},
    {"engine_reason", "\"n", "a string or null"},
    {"condition", "{n", "an object or null"},
    {"observation", "\"n", "a string or null"},
    {"incomplete_paths", "0", "a number"},
    {"seconds", "0", "a number"},
    {"error", "\"n", "a string or null"},
    {"error_kind", "\"n", "a string or null"},
};

// The other JSON redscope writes, told apart by fields only it has, so that
// merge can say what it was given instead of a run's results.
struct OtherKind {
  std::string_view a, b, what;
};
constexpr OtherKind kOtherKinds[] = {
    {"pair", "via", "an xval result, from `redscope xval --format json`"},
    {"ptx", "sass", "a compile-check result, from `redscope compile-check --format json`"},
    {"pairs", "pairs", "an atomicity result, from `redscope atomicity --format json`"},
    {"matrix", "cells", "a matrix, from `redscope report --matrix ... --format json`"},
    {"cell", "verdict", "a matrix cell, from `redscope report --matrix ... --format json`"},
    {"outcome", "verdict", "an explanation, from `redscope explain --format json`"},
    {"redscope_accepts", "verdict", "a ptxas-check result, from `redscope ptxas-check`"},
    {"arch", "instructions", "a cycle count, from `redscope pto cycles --format json`"},
};

// Which other JSON of redscope an object with these top-level fields is.
std::optional<std::string> other_kind(const std::map<std::string, char>& fields) {
  for (const OtherKind& k : kOtherKinds)
    if (fields.count(std::string(k.a)) && fields.count(std::string(k.b)))
      return fmt::format("it is {}", k.what);
  return std::nullopt;
}

// Why the object with these top-level fields (name -> the first character of
// its value) is not a result of `run`, or nothing when it is one.
std::optional<std::string> not_a_run_result(const std::map<std::string, char>& fields) {
  if (auto kind = other_kind(fields)) return kind;
  auto type_of = [&](std::string_view name) -> std::optional<char> {
    const auto f = fields.find(std::string(name));
    if (f == fields.end()) return std::nullopt;
    const char c = f->second;
    return c == '-' || (c >= '0' && c <= '9') ? '0' : c == 'f' ? 't' : c;
  };
  for (const Field& f : kRunFields) {
    const auto t = type_of(f.name);
    if (!t) return fmt::format("it has no \"{}\" field", f.name);
    if (f.types.find(*t) == std::string_view::npos)
      return fmt::format("its \"{}\" is not {}", f.name, f.what);
  }
  if (type_of("verdict_only") == 't') return std::nullopt;
  for (std::string_view list : {"outcomes", "witnesses"})
    if (type_of(list) != '[')
      return fmt::format("it has no \"{}\" array (nor \"verdict_only\")", list);
  return std::nullopt;
}

// A strict JSON scanner (RFC 8259): checks the whole syntax, strings included
// (UTF-8, escapes, no raw control characters), with a nesting bound, and
// reads a shard's results: a JSON array of objects (`run --format json`) or
// JSON Lines, one object per line (`run --format jsonl`; jsonlines.org). Each
// object is copied in the layout of `run --format json` (Json::Layout::Nested:
// containers above depth 3 one member per line), whichever layout it came in,
// so that merged shards print as the unsharded run. Strings and numbers are
// copied as written, so only valid JSON may pass.
class Scanner {
 public:
  Scanner(std::string_view text, const std::string& file) : t_(text), file_(file) {}

  struct Element {
    std::string raw;                             // the object, laid out as above
    std::map<std::string, std::string> strings;  // top-level string fields
    std::map<std::string, char> fields;          // top-level fields: their value's first char
    std::size_t at = 0;                          // where the object starts
    bool has_error = false;                      // "error" is not null
  };

  // A JSON array (the text starts with '['), JSON Lines (with '{'), or no
  // result at all (only whitespace: a shard without tests in JSON Lines).
  // Each object must be a result of `run` (not_a_run_result).
  std::vector<Element> results() {
    ws();
    if (peek() == '{') {
      try {
        return lines_of_objects();
      } catch (const InputError&) {
        identify_document();  // one object spread over lines: the JSON of another command?
        throw;
      }
    }
    if (p_ == t_.size()) return {};
    return array_of_objects();
  }

 private:
  // The error for an object at offset `at` (not_a_run_result's reason).
  [[noreturn]] void refuse(std::size_t at, const std::string& why) const {
    throw InputError(Diagnostic{
        file_, location_of(t_, at),
        fmt::format("this is not a result of `redscope run` ({}): merge joins the JSON of "
                    "`redscope run --format json|jsonl`",
                    why)});
  }

  // When the text is one JSON object laid out over many lines (as `report
  // --matrix --format json` prints its matrix) that another command of
  // redscope writes, says which; otherwise returns, and the JSON Lines error
  // stands.
  void identify_document() const {
    Scanner whole(t_, file_);
    Element e;
    try {
      whole.ws();
      e = whole.object();
      whole.ws();
      if (whole.p_ != t_.size()) return;
    } catch (const InputError&) {
      return;
    }
    if (auto what = other_kind(e.fields)) refuse(e.at, *what);
  }

  std::vector<Element> array_of_objects() {
    std::vector<Element> out;
    expect('[');
    ws();
    if (peek() == ']') {
      ++p_;
      return finish(out);
    }
    for (;;) {
      ws();
      out.push_back(result());
      ws();
      if (peek() == ',') {
        ++p_;
        continue;
      }
      expect(']');
      return finish(out);
    }
  }

  // JSON Lines: each line one object, no line break inside it, no blank line;
  // the last line's '\n' may be missing.
  std::vector<Element> lines_of_objects() {
    std::vector<Element> out;
    one_line_ = true;
    while (p_ < t_.size()) {
      out.push_back(result());
      ws();
      if (p_ == t_.size()) break;
      if (peek() != '\n') fail("text after the object on its line (JSON Lines: one on each line)");
      ++p_;
      ws();
      if (peek() == '\n') fail("a blank line (JSON Lines has one object on each line)");
    }
    return out;
  }

  std::vector<Element> finish(std::vector<Element>& out) {
    ws();
    if (p_ != t_.size()) fail("text after the closing ']'");
    return std::move(out);
  }

  // One result: an object at nesting level 2 (the shard's array is 1), its
  // top-level string fields and "error" recorded.
  Element object() {
    Element e;
    out_.clear();
    if (peek() != '{') expect('{');
    e.at = p_;
    container(2, &e);
    e.raw = std::move(out_);
    return e;
  }

  // The next result of the shard: an object that is a result of `run`.
  Element result() {
    Element e = object();
    if (auto why = not_a_run_result(e.fields)) refuse(e.at, *why);
    return e;
  }

  // The array or object at p_, at nesting `level`, copied to out_ as
  // Json::write lays it out at depth level - 1 (an element of the shard's
  // array is Json depth 1): spread one member per line, indented two spaces a
  // level, above Json depth 3; on one line, ", " between members, below.
  void container(int level, Element* top = nullptr) {
    const char open = peek(), close = open == '{' ? '}' : ']';
    ++p_;
    out_ += open;
    ws();
    if (peek() == close) {
      ++p_;
      out_ += close;
      return;
    }
    const bool spread = level - 1 < kInlineDepth;
    for (bool first = true;; first = false) {
      ws();
      if (spread)
        out_.append("\n").append(static_cast<std::size_t>(2 * level), ' ');
      else if (!first)
        out_ += ' ';
      std::string key;
      if (open == '{') {
        key = string();
        ws();
        expect(':');
        out_ += ": ";
        ws();
      }
      member(level, top, key);
      ws();
      if (peek() == ',') {
        ++p_;
        out_ += ',';
        continue;
      }
      expect(close);
      if (spread) out_.append("\n").append(static_cast<std::size_t>(2 * (level - 1)), ' ');
      out_ += close;
      return;
    }
  }

  // A member's value; for the result object (`top`), its string fields and
  // whether "error" is set (a string, in `run`'s JSON) are recorded.
  void member(int level, Element* top, const std::string& key) {
    if (top) top->fields[key] = peek();
    if (top && peek() == '"') {
      top->strings[key] = string();
      if (key == "error") top->has_error = true;
      return;
    }
    const std::size_t v = p_;
    value(level);
    if (top && key == "error" && t_.substr(v, p_ - v) != "null") top->has_error = true;
  }

  // One JSON value (RFC 8259 §3) inside a container at nesting `depth` (the
  // shard's array is 1), copied to out_: deeper than kMaxDepth is an error,
  // so the recursion stays bounded.
  void value(int depth) {
    const char c = peek();
    if (c == '"') {
      string();
      return;
    }
    if (c == '{' || c == '[') {
      if (depth >= kMaxDepth)
        fail(fmt::format("arrays and objects nested deeper than {} levels", kMaxDepth));
      container(depth + 1);
      return;
    }
    const std::size_t start = p_;
    literal();
    out_.append(t_.substr(start, p_ - start));
  }

  void literal() {
    for (std::string_view lit : {"null", "true", "false"})
      if (t_.substr(p_, lit.size()) == lit) {
        p_ += lit.size();
        return;
      }
    number();
  }

  // RFC 8259 §6: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
  void number() {
    const std::size_t s = p_;
    if (peek() == '-') ++p_;
    if (!digit()) {
      p_ = s;
      fail("expected a JSON value");
    }
    if (t_[p_++] != '0')
      while (digit()) ++p_;
    if (peek() == '.') {
      ++p_;
      if (!digit()) fail("expected a digit after '.' in a number");
      while (digit()) ++p_;
    }
    if (peek() == 'e' || peek() == 'E') {
      ++p_;
      if (peek() == '+' || peek() == '-') ++p_;
      if (!digit()) fail("expected a digit in a number's exponent");
      while (digit()) ++p_;
    }
  }
  bool digit() const { return peek() >= '0' && peek() <= '9'; }

  // A string (RFC 8259 §7), decoded, and copied to out_ as written: no raw
  // control character, only the escapes \" \\ \/ \b \f \n \r \t \uXXXX
  // (surrogates in pairs), and valid UTF-8 (RFC 3629: no overlong form, no
  // surrogate, nothing past U+10FFFF).
  std::string string() {
    const std::size_t start = p_;
    expect('"');
    std::string s;
    while (p_ < t_.size() && t_[p_] != '"') {
      const auto b = static_cast<unsigned char>(t_[p_]);
      if (b < 0x20)
        fail(
            fmt::format("a raw control character (byte 0x{:02x}) in a string: JSON writes it "
                        "as an escape",
                        b));
      if (b == '\\') {
        escape(s);
      } else if (b < 0x80) {
        s += t_[p_++];
      } else {
        const std::size_t n = utf8_length();
        s += t_.substr(p_, n);
        p_ += n;
      }
    }
    expect('"');
    out_.append(t_.substr(start, p_ - start));
    return s;
  }

  void escape(std::string& s) {
    ++p_;
    const char e = peek();
    const std::string_view simple = "\"\\/bfnrt", meant = "\"\\/\b\f\n\r\t";
    if (const auto k = simple.find(e); e != '\0' && k != std::string_view::npos) {
      s += meant[k];
      ++p_;
      return;
    }
    if (e != 'u')
      fail("a bad escape in a string (JSON has \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)");
    ++p_;
    std::uint32_t cp = hex4();
    if (cp >= 0xdc00 && cp <= 0xdfff) fail("a lone low surrogate \\u escape in a string");
    if (cp >= 0xd800 && cp <= 0xdbff) {
      if (t_.substr(p_, 2) != "\\u") fail("a high surrogate \\u escape without its low half");
      p_ += 2;
      const std::uint32_t lo = hex4();
      if (lo < 0xdc00 || lo > 0xdfff) fail("a high surrogate \\u escape without its low half");
      cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
    }
    append_utf8(s, cp);
  }

  std::uint32_t hex4() {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i, ++p_) {
      const char c = peek();
      const int d = c >= '0' && c <= '9'   ? c - '0'
                    : c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                           : -1;
      if (d < 0) fail("\\u takes four hexadecimal digits");
      v = v * 16 + static_cast<std::uint32_t>(d);
    }
    return v;
  }

  static void append_utf8(std::string& s, std::uint32_t cp) {
    if (cp < 0x80) {
      s += static_cast<char>(cp);
    } else if (cp < 0x800) {
      s += static_cast<char>(0xc0 | (cp >> 6));
      s += static_cast<char>(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      s += static_cast<char>(0xe0 | (cp >> 12));
      s += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      s += static_cast<char>(0x80 | (cp & 0x3f));
    } else {
      s += static_cast<char>(0xf0 | (cp >> 18));
      s += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
      s += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      s += static_cast<char>(0x80 | (cp & 0x3f));
    }
  }

  // The length of the UTF-8 sequence at p_ (a lead byte >= 0x80), or an error
  // at its first bad byte (RFC 3629 §4, the table of well-formed sequences).
  std::size_t utf8_length() {
    const auto at = [&](std::size_t i) {
      return p_ + i < t_.size() ? static_cast<unsigned char>(t_[p_ + i]) : 0u;
    };
    const unsigned b = at(0);
    const std::size_t n = b >= 0xc2 && b <= 0xdf   ? 2
                          : b >= 0xe0 && b <= 0xef ? 3
                          : b >= 0xf0 && b <= 0xf4 ? 4
                                                   : 0;
    if (n == 0) fail(fmt::format("byte 0x{:02x} is not UTF-8 (JSON text is UTF-8)", b));
    const unsigned lo = b == 0xe0 ? 0xa0 : b == 0xf0 ? 0x90 : 0x80;
    const unsigned hi = b == 0xed ? 0x9f : b == 0xf4 ? 0x8f : 0xbf;
    for (std::size_t i = 1; i < n; ++i) {
      const unsigned c = at(i);
      if (c < (i == 1 ? lo : 0x80) || c > (i == 1 ? hi : 0xbf)) {
        p_ += i;
        fail(fmt::format("byte 0x{:02x} is not UTF-8 (JSON text is UTF-8)", c));
      }
    }
    return n;
  }

  // JSON's whitespace: space, tab, line feed, carriage return (RFC 8259 §2);
  // in JSON Lines, line feeds end objects instead.
  void ws() {
    const std::string_view blank = one_line_ ? " \t\r" : " \t\n\r";
    while (p_ < t_.size() && blank.find(t_[p_]) != std::string_view::npos) ++p_;
  }
  char peek() const { return p_ < t_.size() ? t_[p_] : '\0'; }
  void expect(char c) {
    if (peek() != c || p_ >= t_.size())
      fail(p_ < t_.size() ? fmt::format("expected '{}', found '{}'", c, printable(t_.substr(p_, 1)))
                          : fmt::format("expected '{}', found the end", c));
    ++p_;
  }
  [[noreturn]] void fail(const std::string& msg) const {
    throw InputError(
        Diagnostic{file_, location_of(t_, p_),
                   msg + " (expected the JSON of `redscope run --format json|jsonl`)"});
  }

  static constexpr int kMaxDepth = 256;  // nesting of arrays and objects
  // Json::write (src/core/json.cpp) keeps containers at this depth on one line.
  static constexpr int kInlineDepth = 3;

  std::string_view t_;
  const std::string& file_;
  std::size_t p_ = 0;
  bool one_line_ = false;  // JSON Lines
  std::string out_;        // the result being copied
};

}  // namespace

MergedRun merge_run_json(const std::vector<std::pair<std::string, std::string>>& named_texts) {
  struct Item {
    std::string file, raw, from;
    bool error;
  };
  std::vector<Item> items;
  std::map<std::string, std::string> seen;
  for (const auto& [name, text] : named_texts) {
    for (auto& e : Scanner(text, name).results()) {
      const std::string& f = e.strings.at("file");  // a string: Scanner::result checks
      if (auto [it, fresh] = seen.emplace(f, name); !fresh)
        throw InputError(Diagnostic{
            name, location_of(text, e.at),
            fmt::format("{} is also in {}: overlapping shards", printable(f), it->second)});
      items.push_back({f, std::move(e.raw), name, e.has_error});
    }
  }
  std::stable_sort(items.begin(), items.end(),
                   [](const Item& a, const Item& b) { return a.file < b.file; });
  MergedRun m;
  m.json = "[\n";
  for (std::size_t i = 0; i < items.size(); ++i) m.json += (i ? ",\n  " : "  ") + items[i].raw;
  m.json += items.empty() ? "]\n" : "\n]\n";
  m.tests = items.size();
  m.errors = static_cast<std::size_t>(
      std::count_if(items.begin(), items.end(), [](const Item& x) { return x.error; }));
  return m;
}

}  // namespace redscope
