// The JSON reader (json.hpp): a strict recursive-descent parser of RFC 8259
// with positions, for result files that commands read back.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "redscope/core/diagnostic.hpp"
#include "redscope/core/json.hpp"

namespace redscope {

const JsonNode* JsonNode::find(std::string_view key) const {
  for (std::size_t i = keys_.size(); i-- > 0;)
    if (keys_[i] == key) return &elements_[i];
  return nullptr;
}

// The literal's value exactly, as digits and a power of ten (the reader
// checked its grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?), so
// no literal, however long or large, overflows or throws.
std::optional<long long> JsonNode::whole(long long lo, long long hi) const {
  if (type_ != Type::Number) return std::nullopt;
  std::string_view s = text_;
  const bool negative = !s.empty() && s[0] == '-';
  if (negative) s.remove_prefix(1);
  std::string digits;
  long long exponent = 0;  // of ten; saturated far beyond any literal's length
  std::size_t i = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) digits += s[i];
  if (i < s.size() && s[i] == '.')
    for (++i; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i, --exponent) digits += s[i];
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    const bool down = ++i < s.size() && s[i] == '-';
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    long long e = 0;
    for (; i < s.size(); ++i) e = std::min<long long>(e * 10 + (s[i] - '0'), 1LL << 50);
    exponent += down ? -e : e;
  }
  digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size()));
  // value = digits × 10^exponent: whole when the digits cut off are zeros.
  while (exponent < 0 && !digits.empty() && digits.back() == '0') {
    digits.pop_back();
    ++exponent;
  }
  if (digits.empty()) exponent = 0;  // zero, whatever its exponent
  if (exponent < 0 || static_cast<long long>(digits.size()) + exponent > 19) return std::nullopt;
  digits.append(static_cast<std::size_t>(exponent), '0');
  unsigned long long v = 0;  // at most 19 digits: below 2^64
  for (const char c : digits) v = v * 10 + static_cast<unsigned>(c - '0');
  constexpr auto kMax = static_cast<unsigned long long>(std::numeric_limits<long long>::max());
  if (v > kMax + (negative ? 1 : 0)) return std::nullopt;
  const long long x = negative ? (v == kMax + 1 ? std::numeric_limits<long long>::min()
                                                : -static_cast<long long>(v))
                               : static_cast<long long>(v);
  if (x < lo || x > hi) return std::nullopt;
  return x;
}

// One pass over the text, tracking line and column for errors and nodes.
class JsonReader {
 public:
  JsonReader(std::string_view text, const std::string& file) : t_(text), file_(file) {}

  JsonNode value(int depth) {
    ws();
    JsonNode n;
    n.line_ = line_;
    n.col_ = col();
    const char c = peek();
    if (c == '"') {
      n.type_ = JsonNode::Type::String;
      n.text_ = string();
    } else if (c == '{' || c == '[') {
      if (depth >= kMaxDepth)
        fail(fmt::format("arrays and objects nested deeper than {} levels", kMaxDepth));
      c == '{' ? object(n, depth + 1) : array(n, depth + 1);
    } else if (literal("null")) {
    } else if (literal("true")) {
      n.type_ = JsonNode::Type::Bool;
      n.text_ = "true";
    } else if (literal("false")) {
      n.type_ = JsonNode::Type::Bool;
      n.text_ = "false";
    } else {
      n.type_ = JsonNode::Type::Number;
      n.text_ = number();
    }
    return n;
  }

  // A top-level array element by element, else a sequence of values.
  void each(const std::function<void(JsonNode&&)>& fn) {
    ws();
    if (peek() != '[') {
      while (ws(), p_ < t_.size()) fn(value(1));
      return;
    }
    advance();
    ws();
    if (peek() == ']') {
      advance();
    } else {
      for (;;) {
        fn(value(1));
        ws();
        if (peek() != ',') break;
        advance();
      }
      expect(']');
    }
    end();
  }

  void end() {
    ws();
    if (p_ != t_.size()) fail("text after the JSON value");
  }

 private:
  static constexpr int kMaxDepth = 64;

  [[noreturn]] void fail(const std::string& msg) const {
    throw InputError(Diagnostic{file_, {line_, col()}, msg});
  }
  int col() const { return static_cast<int>(p_ - line_start_) + 1; }
  char peek() const { return p_ < t_.size() ? t_[p_] : '\0'; }
  void advance() {
    if (t_[p_] == '\n') {
      ++line_;
      line_start_ = p_ + 1;
    }
    ++p_;
  }
  void ws() {
    while (p_ < t_.size() && (t_[p_] == ' ' || t_[p_] == '\t' || t_[p_] == '\n' || t_[p_] == '\r'))
      advance();
  }
  void expect(char c) {
    if (peek() != c)
      fail(p_ < t_.size() ? fmt::format("expected '{}', found '{}'", c, printable(t_.substr(p_, 1)))
                          : fmt::format("expected '{}' at the end of the text", c));
    advance();
  }
  bool literal(std::string_view w) {
    if (t_.substr(p_, w.size()) != w) return false;
    p_ += w.size();
    return true;
  }

  void object(JsonNode& n, int depth) {
    n.type_ = JsonNode::Type::Object;
    advance();
    ws();
    if (peek() == '}') return advance();
    for (;;) {
      ws();
      if (peek() != '"') fail("expected a member name in double quotes");
      n.keys_.push_back(string());
      ws();
      expect(':');
      n.elements_.push_back(value(depth));
      ws();
      if (peek() != ',') break;
      advance();
    }
    expect('}');
  }

  void array(JsonNode& n, int depth) {
    n.type_ = JsonNode::Type::Array;
    advance();
    ws();
    if (peek() == ']') return advance();
    for (;;) {
      n.elements_.push_back(value(depth));
      ws();
      if (peek() != ',') break;
      advance();
    }
    expect(']');
  }

  std::string number() {
    const std::size_t start = p_;
    auto digits = [&] {
      const std::size_t d = p_;
      while (p_ < t_.size() && t_[p_] >= '0' && t_[p_] <= '9') ++p_;
      return p_ > d;
    };
    if (peek() == '-') ++p_;
    if (peek() == '0')
      ++p_;
    else if (!digits())
      fail(p_ < t_.size() ? "expected a JSON value" : "expected a JSON value at the end");
    if (peek() == '.' && (++p_, !digits())) fail("expected digits after '.'");
    if (peek() == 'e' || peek() == 'E') {
      ++p_;
      if (peek() == '+' || peek() == '-') ++p_;
      if (!digits()) fail("expected digits in the exponent");
    }
    return std::string(t_.substr(start, p_ - start));
  }

  unsigned hex4() {
    unsigned v = 0;
    for (int k = 0; k < 4; ++k, ++p_) {
      const char c = peek();
      const int d = c >= '0' && c <= '9'   ? c - '0'
                    : c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                           : -1;
      if (d < 0) fail("expected four hexadecimal digits after \\u");
      v = v * 16 + static_cast<unsigned>(d);
    }
    return v;
  }

  static void utf8(std::string& o, unsigned cp) {
    if (cp < 0x80) {
      o += static_cast<char>(cp);
    } else if (cp < 0x800) {
      o += static_cast<char>(0xC0 | (cp >> 6));
      o += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      o += static_cast<char>(0xE0 | (cp >> 12));
      o += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      o += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      o += static_cast<char>(0xF0 | (cp >> 18));
      o += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      o += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      o += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  // A string's body, unescaped; a lone surrogate becomes U+FFFD.
  std::string string() {
    advance();  // the opening quote
    std::string o;
    for (;;) {
      if (p_ >= t_.size()) fail("unterminated string");
      const char c = t_[p_];
      if (c == '"') break;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in a string");
      ++p_;
      if (c != '\\') {
        o += c;
        continue;
      }
      const char e = peek();
      ++p_;
      switch (e) {
        case '"': o += '"'; break;
        case '\\': o += '\\'; break;
        case '/': o += '/'; break;
        case 'b': o += '\b'; break;
        case 'f': o += '\f'; break;
        case 'n': o += '\n'; break;
        case 'r': o += '\r'; break;
        case 't': o += '\t'; break;
        case 'u': {
          unsigned cp = hex4();
          if (cp >= 0xD800 && cp < 0xDC00 && t_.substr(p_, 2) == "\\u") {
            p_ += 2;
            const unsigned lo = hex4();
            cp = lo >= 0xDC00 && lo < 0xE000 ? 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00)
                                             : 0xFFFD;
          } else if (cp >= 0xD800 && cp < 0xE000) {
            cp = 0xFFFD;
          }
          utf8(o, cp);
          break;
        }
        default: --p_; fail("unknown escape in a string");
      }
    }
    advance();  // the closing quote
    return o;
  }

  std::string_view t_;
  const std::string& file_;
  std::size_t p_ = 0, line_start_ = 0;
  int line_ = 1;
};

JsonNode parse_json(std::string_view text, const std::string& file) {
  JsonReader r(text, file);
  JsonNode n = r.value(0);
  r.end();
  return n;
}

void for_each_json_value(std::string_view text, const std::string& file,
                         const std::function<void(JsonNode&&)>& each) {
  JsonReader(text, file).each(each);
}

}  // namespace redscope
