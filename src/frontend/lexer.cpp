#include "frontend/lexer.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

#include <fmt/format.h>

namespace redscope::detail {
namespace {

bool ident_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '%' || c == '$';
}
bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '%' ||
         c == '$';
}

class Lexer {
 public:
  Lexer(std::string_view text, const std::string& file) : s_(text), file_(file) {}

  // A token costs about 48 bytes (70 while the list grows) whatever its
  // length, so a file of one-byte tokens would take 70 times its size:
  // past kMaxTokens (about 75 MB) the file is refused where it is (issue 28).
  static constexpr std::size_t kMaxTokens = std::size_t{1} << 20;

  std::vector<Token> run() {
    std::vector<Token> out;
    while (i_ < s_.size()) {
      if (out.size() >= kMaxTokens)
        fail(fmt::format("more than {} tokens in one file: is it a litmus test?", kMaxTokens));
      const char c = s_[i_];
      if (c == '\n') {
        push(out, Tok::Newline, "\\n", 1);
        ++line_;
        col_ = 1;
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        advance(1);
        continue;
      }
      if (c == '(' && peek(1) == '*') {  // herd's comments
        block_comment(')');
        continue;
      }
      if (c == '/' && peek(1) == '/') {
        while (i_ < s_.size() && s_[i_] != '\n') advance(1);
        continue;
      }
      if (c == '/' && peek(1) == '*') {  // PTX ISA 4.2: C's comments; cuobjdump's /* 0x... */
        block_comment('/');
        continue;
      }
      if (c == '"') {
        out.push_back(string_lit());
        continue;
      }
      if (std::isdigit(static_cast<unsigned char>(c))) {
        out.push_back(number());
        continue;
      }
      if (ident_start(c)) {
        out.push_back(ident());
        continue;
      }
      if (!punct(out)) {
        const unsigned char uc = static_cast<unsigned char>(c);
        std::string shown =
            std::isprint(uc) ? fmt::format("'{}'", c) : fmt::format("byte 0x{:02x}", uc);
        fail(fmt::format("unexpected character {}", shown));
      }
    }
    out.push_back(Token{Tok::End, "end of file", here()});
    return out;
  }

 private:
  char peek(std::size_t k) const { return i_ + k < s_.size() ? s_[i_ + k] : '\0'; }
  SourceLoc here() const { return SourceLoc{line_, col_}; }
  void advance(std::size_t n) {
    for (std::size_t k = 0; k < n && i_ < s_.size(); ++k) {
      if (s_[i_] == '\n') {
        ++line_;
        col_ = 1;
      } else {
        ++col_;
      }
      ++i_;
    }
  }
  [[noreturn]] void fail(std::string msg, SourceLoc at = {}) const {
    if (at.line == 0) at = here();
    throw InputError(Diagnostic{file_, at, std::move(msg)});
  }
  void push(std::vector<Token>& out, Tok k, std::string text, std::size_t len) {
    out.push_back(Token{k, std::move(text), here()});
    i_ += len;
    col_ += static_cast<int>(len);
  }

  // From the opening `(*` or `/*` to the `*)` or `*/` that closes it.
  void block_comment(char close) {
    const SourceLoc start = here();
    const char open = s_[i_];
    advance(2);
    while (i_ < s_.size() && !(s_[i_] == '*' && peek(1) == close)) advance(1);
    if (i_ >= s_.size()) fail(fmt::format("unterminated comment '{}*'", open), start);
    advance(2);
  }

  Token string_lit() {
    const SourceLoc start = here();
    advance(1);
    std::string text;
    while (i_ < s_.size() && s_[i_] != '"') {
      text += s_[i_];
      advance(1);
    }
    if (i_ >= s_.size()) fail("unterminated string", start);
    advance(1);
    return Token{Tok::String, std::move(text), start};
  }

  // Integers (decimal, 0x hexadecimal), decimal floats (1.5, 1e8, 2.5e-3)
  // and PTX hexadecimal floats (0f3F800000, 0d3FF0000000000000).
  Token number() {
    const SourceLoc start = here();
    std::string text;
    auto digits = [&](auto pred) {
      while (i_ < s_.size() && pred(static_cast<unsigned char>(s_[i_]))) {
        text += s_[i_];
        advance(1);
      }
    };
    const char p1 = peek(1);
    if (s_[i_] == '0' &&
        (p1 == 'x' || p1 == 'X' || p1 == 'f' || p1 == 'F' || p1 == 'd' || p1 == 'D')) {
      text = {s_[i_], p1};
      advance(2);
      digits([](unsigned char c) { return std::isxdigit(c) != 0; });
      if (text.size() == 2) fail("hexadecimal literal without digits", start);
    } else {
      digits([](unsigned char c) { return std::isdigit(c) != 0; });
      if (peek(0) == '.' && std::isdigit(static_cast<unsigned char>(peek(1)))) {
        text += '.';
        advance(1);
        digits([](unsigned char c) { return std::isdigit(c) != 0; });
      }
      const bool sign = peek(1) == '+' || peek(1) == '-';
      if ((peek(0) == 'e' || peek(0) == 'E') &&
          std::isdigit(static_cast<unsigned char>(peek(sign ? 2 : 1)))) {
        text += 'e';
        advance(1);
        if (sign) {
          text += s_[i_];
          advance(1);
        }
        digits([](unsigned char c) { return std::isdigit(c) != 0; });
      }
    }
    if (i_ < s_.size() && (std::isalpha(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_'))
      fail(fmt::format("malformed number '{}{}'", text, s_[i_]), start);
    return Token{Tok::Number, std::move(text), start};
  }

  Token ident() {
    const SourceLoc start = here();
    std::string text;
    for (;;) {
      while (i_ < s_.size() && ident_char(s_[i_])) {
        text += s_[i_];
        advance(1);
      }
      // `.shared::cta`, `.L2::cache_hint`: a double colon inside a qualifier chain.
      if (peek(0) == ':' && peek(1) == ':' && ident_char(peek(2))) {
        text += "::";
        advance(2);
        continue;
      }
      break;
    }
    return Token{Tok::Ident, std::move(text), start};
  }

  bool punct(std::vector<Token>& out) {
    const char c = s_[i_];
    const char d = peek(1);
    if (c == '/' && d == '\\') {
      push(out, Tok::And, "/\\", 2);
      return true;
    }
    if (c == '\\' && d == '/') {
      push(out, Tok::Or, "\\/", 2);
      return true;
    }
    if (c == '=' && d == '=') {
      push(out, Tok::EqEq, "==", 2);
      return true;
    }
    if (c == '!' && d == '=') {
      push(out, Tok::NotEq, "!=", 2);
      return true;
    }
    if (c == '<' && d == '=') {
      push(out, Tok::LessEq, "<=", 2);
      return true;
    }
    if (c == '>' && d == '=') {
      push(out, Tok::GreaterEq, ">=", 2);
      return true;
    }
    switch (c) {
      case '{': push(out, Tok::LBrace, "{", 1); return true;
      case '}': push(out, Tok::RBrace, "}", 1); return true;
      case '[': push(out, Tok::LBracket, "[", 1); return true;
      case ']': push(out, Tok::RBracket, "]", 1); return true;
      case '(': push(out, Tok::LParen, "(", 1); return true;
      case ')': push(out, Tok::RParen, ")", 1); return true;
      case ';': push(out, Tok::Semi, ";", 1); return true;
      case '|': push(out, Tok::Bar, "|", 1); return true;
      case ',': push(out, Tok::Comma, ",", 1); return true;
      case ':': push(out, Tok::Colon, ":", 1); return true;
      case '@': push(out, Tok::At, "@", 1); return true;
      case '&': push(out, Tok::Amp, "&", 1); return true;
      case '+': push(out, Tok::Plus, "+", 1); return true;
      case '-': push(out, Tok::Minus, "-", 1); return true;
      case '=': push(out, Tok::Assign, "=", 1); return true;
      case '<': push(out, Tok::Less, "<", 1); return true;
      case '>': push(out, Tok::Greater, ">", 1); return true;
      case '~': push(out, Tok::Tilde, "~", 1); return true;
      case '!': push(out, Tok::Bang, "!", 1); return true;
      default: return false;
    }
  }

  std::string_view s_;
  const std::string& file_;
  std::size_t i_ = 0;
  int line_ = 1;
  int col_ = 1;
};

}  // namespace

std::vector<Token> tokenize(std::string_view text, const std::string& file) {
  return Lexer(text, file).run();
}

std::string describe(const Token& t) {
  switch (t.kind) {
    case Tok::End: return "end of file";
    case Tok::Newline: return "end of line";
    case Tok::String: return "string \"" + t.text + "\"";
    default: return "'" + t.text + "'";
  }
}

bool is_register_name(std::string_view s) {
  if (!s.empty() && s[0] == '%') return s.size() > 1;
  if (s.size() < 2 || s[0] != 'r') return false;
  return std::all_of(s.begin() + 1, s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::int64_t integer_value(const Token& t, bool negative, const std::string& file) {
  auto fail = [&](std::string msg) { throw InputError(Diagnostic{file, t.loc, std::move(msg)}); };
  const bool hex = t.text.size() > 2 && t.text[0] == '0' && (t.text[1] == 'x' || t.text[1] == 'X');
  if (t.text.find_first_of(".eEfFdD") != std::string::npos && !hex)
    fail(fmt::format("expected an integer, found '{}'", t.text));
  if (t.text.size() > 1 &&
      (t.text[1] == 'f' || t.text[1] == 'F' || t.text[1] == 'd' || t.text[1] == 'D'))
    fail(fmt::format("expected an integer, found '{}'", t.text));
  return integer_at(t.text, negative, file, t.loc);
}

namespace {

// Decimal digits, or 0x/0X and hex digits: the digits and their base.
std::optional<std::pair<std::string_view, int>> integer_digits(std::string_view text) {
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    text.remove_prefix(2);
    base = 16;
  }
  const auto digit = [&](char c) {
    return base == 16 ? std::isxdigit(static_cast<unsigned char>(c)) != 0 : c >= '0' && c <= '9';
  };
  if (text.empty() || !std::all_of(text.begin(), text.end(), digit)) return std::nullopt;
  return std::make_pair(text, base);
}

}  // namespace

std::optional<std::uint64_t> unsigned_integer(std::string_view text) {
  const auto d = integer_digits(text);
  if (!d) return std::nullopt;
  std::uint64_t v = 0;
  const auto [p, ec] =
      std::from_chars(d->first.data(), d->first.data() + d->first.size(), v, d->second);
  if (ec != std::errc() || p != d->first.data() + d->first.size()) return std::nullopt;
  return v;
}

std::int64_t integer_at(std::string_view text, bool negative, const std::string& file,
                        SourceLoc at) {
  auto fail = [&](std::string msg) { throw InputError(Diagnostic{file, at, std::move(msg)}); };
  if (!integer_digits(text)) fail(fmt::format("expected an integer, found '{}'", text));
  const std::optional<std::uint64_t> v = unsigned_integer(text);
  if (!v || (negative && *v > (1ULL << 63)))
    fail(fmt::format("number '{}{}' does not fit in 64 bits", negative ? "-" : "", text));
  return negative ? static_cast<std::int64_t>(0 - *v) : static_cast<std::int64_t>(*v);
}

}  // namespace redscope::detail
