#include "dialects/pto/pto_lexer.hpp"

#include "redscope/frontend/text_cursor.hpp"

#include <fmt/format.h>

namespace redscope::detail::pto_syntax {

namespace {

bool word_char(char c) { return is_alnum(c) || c == '_' || c == '.' || c == '$'; }

constexpr std::pair<std::string_view, T> kPunct[] = {
    {"...", T::Punct}, {"->", T::Punct}, {"{", T::Punct}, {"}", T::Punct}, {"[", T::Punct},
    {"]", T::Punct},   {"(", T::Punct},  {")", T::Punct}, {",", T::Punct}, {":", T::Punct},
    {"=", T::Punct},   {";", T::Punct},  {"<", T::Punct}, {">", T::Punct}, {"-", T::Punct},
    {"+", T::Punct},   {"~", T::Punct}};

class Lexer {
 public:
  Lexer(std::string_view s, const std::string& file) : c_(s, file) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    for (;;) {
      skip_space();
      Token t;
      t.loc = c_.loc();
      t.offset = c_.offset();
      if (c_.done()) {
        out.push_back(t);
        return out;
      }
      lex_one(t);
      if (t.text.size() > kMaxWordBytes &&
          (t.kind == T::Ident || t.kind == T::Value || t.kind == T::Attr))
        c_.fail(t.loc, fmt::format("a name of {} bytes: names are at most {}", t.text.size(),
                                   kMaxWordBytes));
      if (out.size() >= kMaxTokens)
        c_.fail(t.loc, fmt::format("more than {} tokens in the file", kMaxTokens));
      out.push_back(std::move(t));
    }
  }

 private:
  void skip_space() {
    for (;;) {
      c_.take_while(is_space);
      if (c_.at("//"))
        c_.skip_line_comment();
      else if (c_.at("(*"))
        c_.skip_block_comment("(*", "*)", false, "unterminated comment '(*'");
      else
        return;
    }
  }

  std::string word() { return std::string(c_.take_while(word_char)); }

  void lex_one(Token& t) {
    const char c = c_.peek();
    if (c == '%') {
      c_.advance();
      t.kind = T::Value;
      t.text = "%" + word();
      if (t.text.size() == 1) c_.fail(t.loc, "expected a value name after '%'");
    } else if (c == '!' && word_char(c_.peek(1))) {
      lex_type(t);
    } else if (c == '#' && word_char(c_.peek(1))) {
      c_.advance();
      t.kind = T::Attr;
      t.text = "#" + word();
      if (c_.peek() == '<') t.text += balanced(t.loc);
    } else if (c == '"') {
      t.kind = T::String;
      t.text = std::string(c_.quoted(false));
    } else if (is_digit(c)) {
      lex_number(t);
    } else if (is_alpha(c) || c == '_') {
      t.kind = T::Ident;
      t.text = word();
    } else if (const auto p = c_.punctuation(kPunct)) {
      t.kind = T::Punct;
      t.text = std::string(p->first);
    } else {
      t.kind = T::Other;
      t.text = std::string(1, c);
      c_.advance();
    }
  }

  // `<...>` with nested angle brackets, as part of a type or attribute.
  std::string balanced(SourceLoc at) {
    const std::size_t b = c_.offset();
    int depth = 0;
    do {
      if (c_.done() || c_.peek() == '\n') c_.fail(at, "unterminated '<' in a type");
      if (c_.peek() == '<') ++depth;
      if (c_.peek() == '>') --depth;
      c_.advance();
    } while (depth > 0);
    return std::string(c_.since(b));
  }

  void lex_type(Token& t) {
    c_.advance();
    t.kind = T::Type;
    t.text = "!" + word();
    if (c_.peek() == '<') t.text += balanced(t.loc);
  }

  // Decimal or hexadecimal integers and decimal floats (1.5, 2e-3, 1.0E+4).
  void lex_number(Token& t) {
    const std::size_t b = c_.offset();
    t.kind = T::Number;
    c_.number(false);
    // Letters run on (PTX's 0f3F800000 in a condition): the reader of the
    // number judges it.
    c_.take_while([](char c) { return word_char(c) && c != '.'; });
    t.text = std::string(c_.since(b));
  }

  TextCursor c_;
};

}  // namespace

std::vector<Token> tokenize(std::string_view text, const std::string& file) {
  return Lexer(text, file).run();
}

}  // namespace redscope::detail::pto_syntax
