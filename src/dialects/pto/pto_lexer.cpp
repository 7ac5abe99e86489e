#include "dialects/pto/pto_lexer.hpp"

#include <cctype>

#include <fmt/format.h>

namespace redscope::detail::pto_syntax {

namespace {

bool word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$';
}

class Lexer {
 public:
  Lexer(std::string_view s, const std::string& file) : s_(s), file_(file) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    for (;;) {
      skip_space();
      Token t;
      t.loc = {line_, col_};
      t.offset = i_;
      if (i_ >= s_.size()) {
        out.push_back(t);
        return out;
      }
      lex_one(t);
      if (t.text.size() > kMaxWordBytes &&
          (t.kind == T::Ident || t.kind == T::Value || t.kind == T::Attr))
        fail(t.loc,
             fmt::format("a name of {} bytes: names are at most {}", t.text.size(), kMaxWordBytes));
      if (out.size() >= kMaxTokens)
        fail(t.loc, fmt::format("more than {} tokens in the file", kMaxTokens));
      out.push_back(std::move(t));
    }
  }

 private:
  char peek(std::size_t k = 0) const { return i_ + k < s_.size() ? s_[i_ + k] : '\0'; }

  void advance(std::size_t n = 1) {
    for (std::size_t k = 0; k < n && i_ < s_.size(); ++k, ++i_) {
      if (s_[i_] == '\n') {
        ++line_;
        col_ = 1;
      } else {
        ++col_;
      }
    }
  }

  [[noreturn]] void fail(SourceLoc at, std::string msg) const {
    throw InputError(Diagnostic{file_, at, std::move(msg)});
  }

  void skip_space() {
    for (;;) {
      while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) advance();
      if (peek() == '/' && peek(1) == '/') {
        while (i_ < s_.size() && s_[i_] != '\n') advance();
      } else if (peek() == '(' && peek(1) == '*') {
        const SourceLoc at{line_, col_};
        const std::size_t end = s_.find("*)", i_ + 2);
        if (end == std::string_view::npos) fail(at, "unterminated comment '(*'");
        advance(end + 2 - i_);
      } else {
        return;
      }
    }
  }

  std::string word() {
    const std::size_t b = i_;
    while (i_ < s_.size() && word_char(s_[i_])) advance();
    return std::string(s_.substr(b, i_ - b));
  }

  void lex_one(Token& t) {
    const char c = peek();
    if (c == '%') {
      advance();
      t.kind = T::Value;
      t.text = "%" + word();
      if (t.text.size() == 1) fail(t.loc, "expected a value name after '%'");
    } else if (c == '!' && word_char(peek(1))) {
      lex_type(t);
    } else if (c == '#' && word_char(peek(1))) {
      advance();
      t.kind = T::Attr;
      t.text = "#" + word();
      if (peek() == '<') t.text += balanced(t.loc);
    } else if (c == '"') {
      lex_string(t);
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      lex_number(t);
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      t.kind = T::Ident;
      t.text = word();
    } else if (c == '.' && peek(1) == '.' && peek(2) == '.') {
      t.kind = T::Punct;
      t.text = "...";
      advance(3);
    } else if (c == '-' && peek(1) == '>') {
      t.kind = T::Punct;
      t.text = "->";
      advance(2);
    } else if (std::string_view("{}[](),:=;<>-+~").find(c) != std::string_view::npos) {
      t.kind = T::Punct;
      t.text = std::string(1, c);
      advance();
    } else {
      t.kind = T::Other;
      t.text = std::string(1, c);
      advance();
    }
  }

  // `<...>` with nested angle brackets, as part of a type or attribute.
  std::string balanced(SourceLoc at) {
    const std::size_t b = i_;
    int depth = 0;
    do {
      if (i_ >= s_.size() || peek() == '\n') fail(at, "unterminated '<' in a type");
      if (peek() == '<') ++depth;
      if (peek() == '>') --depth;
      advance();
    } while (depth > 0);
    return std::string(s_.substr(b, i_ - b));
  }

  void lex_type(Token& t) {
    advance();
    t.kind = T::Type;
    t.text = "!" + word();
    if (peek() == '<') t.text += balanced(t.loc);
  }

  void lex_string(Token& t) {
    advance();
    const std::size_t b = i_;
    while (i_ < s_.size() && s_[i_] != '"' && s_[i_] != '\n') advance();
    if (peek() != '"') fail(t.loc, "unterminated string");
    t.kind = T::String;
    t.text = std::string(s_.substr(b, i_ - b));
    advance();
  }

  // Decimal or hexadecimal integers and decimal floats (1.5, 2e-3, 1.0E+4).
  void lex_number(Token& t) {
    const std::size_t b = i_;
    t.kind = T::Number;
    if (peek() == '0' && (peek(1) == 'x' || peek(1) == 'X')) {
      advance(2);
      while (std::isxdigit(static_cast<unsigned char>(peek()))) advance();
    } else {
      while (std::isdigit(static_cast<unsigned char>(peek()))) advance();
      if (peek() == '.' && std::isdigit(static_cast<unsigned char>(peek(1)))) {
        advance();
        while (std::isdigit(static_cast<unsigned char>(peek()))) advance();
      }
      if ((peek() == 'e' || peek() == 'E') &&
          (std::isdigit(static_cast<unsigned char>(peek(1))) ||
           ((peek(1) == '-' || peek(1) == '+') &&
            std::isdigit(static_cast<unsigned char>(peek(2)))))) {
        advance(2);
        while (std::isdigit(static_cast<unsigned char>(peek()))) advance();
      }
    }
    // Letters run on (PTX's 0f3F800000 in a condition): the reader of the
    // number judges it.
    while (word_char(peek()) && peek() != '.') advance();
    t.text = std::string(s_.substr(b, i_ - b));
  }

  std::string_view s_;
  const std::string& file_;
  std::size_t i_ = 0;
  int line_ = 1, col_ = 1;
};

}  // namespace

std::vector<Token> tokenize(std::string_view text, const std::string& file) {
  return Lexer(text, file).run();
}

}  // namespace redscope::detail::pto_syntax
