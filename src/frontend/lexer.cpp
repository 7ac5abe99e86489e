#include "redscope/frontend/lexer.hpp"

#include "redscope/frontend/text_cursor.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

#include <fmt/format.h>

namespace redscope::detail {
namespace {

bool ident_start(char c) { return is_alpha(c) || c == '_' || c == '%' || c == '$'; }
bool ident_char(char c) { return is_alnum(c) || c == '_' || c == '.' || c == '%' || c == '$'; }

// Two-byte operators before the one-byte ones they start with.
constexpr std::pair<std::string_view, Tok> kPunct[] = {
    {"/\\", Tok::And},    {"\\/", Tok::Or},       {"==", Tok::EqEq},   {"!=", Tok::NotEq},
    {"<=", Tok::LessEq},  {">=", Tok::GreaterEq}, {"{", Tok::LBrace},  {"}", Tok::RBrace},
    {"[", Tok::LBracket}, {"]", Tok::RBracket},   {"(", Tok::LParen},  {")", Tok::RParen},
    {";", Tok::Semi},     {"|", Tok::Bar},        {",", Tok::Comma},   {":", Tok::Colon},
    {"@", Tok::At},       {"&", Tok::Amp},        {"+", Tok::Plus},    {"-", Tok::Minus},
    {"=", Tok::Assign},   {"<", Tok::Less},       {">", Tok::Greater}, {"~", Tok::Tilde},
    {"!", Tok::Bang}};

class Lexer {
 public:
  Lexer(std::string_view text, const std::string& file) : c_(text, file) {}

  // A token costs about 48 bytes (70 while the list grows) whatever its
  // length, so a file of one-byte tokens would take 70 times its size:
  // past kMaxTokens (about 75 MB) the file is refused where it is (issue 28).
  static constexpr std::size_t kMaxTokens = std::size_t{1} << 20;

  std::vector<Token> run() {
    std::vector<Token> out;
    while (!c_.done()) {
      if (out.size() >= kMaxTokens)
        c_.fail(fmt::format("more than {} tokens in one file: is it a litmus test?", kMaxTokens));
      const char c = c_.peek();
      if (c == '\n') {
        out.push_back(Token{Tok::Newline, "\\n", c_.loc()});
        c_.advance();
      } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        c_.advance();
      } else if (c_.at("(*")) {  // herd's comments
        c_.skip_block_comment("(*", "*)", false, "unterminated comment '(*'");
      } else if (c_.at("//")) {
        c_.skip_line_comment();
      } else if (c_.at("/*")) {  // PTX ISA 4.2: C's comments; cuobjdump's /* 0x... */
        c_.skip_block_comment("/*", "*/", false, "unterminated comment '/*'");
      } else if (c == '"') {
        const SourceLoc at = c_.loc();
        out.push_back(Token{Tok::String, std::string(c_.quoted(true)), at});
      } else if (is_digit(c)) {
        out.push_back(number());
      } else if (ident_start(c)) {
        out.push_back(ident());
      } else if (const SourceLoc at = c_.loc(); const auto p = c_.punctuation(kPunct)) {
        out.push_back(Token{p->second, std::string(p->first), at});
      } else {
        const unsigned char uc = static_cast<unsigned char>(c);
        std::string shown =
            std::isprint(uc) ? fmt::format("'{}'", c) : fmt::format("byte 0x{:02x}", uc);
        c_.fail(fmt::format("unexpected character {}", shown));
      }
    }
    out.push_back(Token{Tok::End, "end of file", c_.loc()});
    return out;
  }

 private:
  // Integers (decimal, 0x hexadecimal), decimal floats (1.5, 1e8, 2.5e-3)
  // and PTX hexadecimal floats (0f3F800000, 0d3FF0000000000000).
  Token number() {
    const SourceLoc start = c_.loc();
    std::string text(c_.number(true));
    const bool hex = text.size() > 1 && text[0] == '0' &&
                     std::string_view("xXfFdD").find(text[1]) != std::string_view::npos;
    if (hex && text.size() == 2) c_.fail(start, "hexadecimal literal without digits");
    if (!hex) std::replace(text.begin(), text.end(), 'E', 'e');  // 1E8 reads as 1e8
    if (is_alpha(c_.peek()) || c_.peek() == '_')
      c_.fail(start, fmt::format("malformed number '{}{}'", text, c_.peek()));
    return Token{Tok::Number, std::move(text), start};
  }

  Token ident() {
    const SourceLoc start = c_.loc();
    std::string text(c_.take_while(ident_char));
    // `.shared::cta`, `.L2::cache_hint`: a double colon inside a qualifier chain.
    while (c_.at("::") && ident_char(c_.peek(2))) {
      c_.advance(2);
      text += "::";
      text += c_.take_while(ident_char);
    }
    return Token{Tok::Ident, std::move(text), start};
  }

  TextCursor c_;
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
