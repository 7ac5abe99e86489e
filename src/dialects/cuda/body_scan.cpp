// The C++ token scanner of CUDA test bodies (body_scan.hpp).
#include "dialects/cuda/body_scan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <vector>

namespace redscope::cuda::detail {

namespace {

bool ident_start(char c) { return is_alpha(c) || c == '_'; }
bool ident_char(char c) { return is_alnum(c) || c == '_'; }

enum class Kind : std::uint8_t { Ident, Number, Literal, Punct };

struct Tok {
  Kind kind = Kind::Punct;
  std::string_view text;
  SourceLoc at;
};

// A string or character literal from its opening quote; an unterminated one
// is an error at its start (C++ [lex.string]: no newline inside).
void skip_literal(TextCursor& c) {
  const SourceLoc at = c.loc();
  const char quote = c.peek();
  c.advance();
  while (!c.done() && c.peek() != quote) {
    if (c.peek() == '\n') break;
    c.advance(c.peek() == '\\' ? 2 : 1);
  }
  if (c.peek() != quote) c.fail(at, "unterminated string or character literal");
  c.advance();
}

void skip_blank(TextCursor& c) {
  for (;;) {
    c.take_while(is_space);
    if (c.at("//")) {
      c.skip_line_comment();
    } else if (c.at("/*")) {
      c.skip_block_comment("/*", "*/", false, "unterminated comment");
    } else {
      return;
    }
  }
}

// The next token, after blank space and comments; none at the end.
std::optional<Tok> next_token(TextCursor& c) {
  skip_blank(c);
  if (c.done()) return std::nullopt;
  Tok t;
  t.at = c.loc();
  const std::size_t from = c.offset();
  const char ch = c.peek();
  if (ident_start(ch)) {
    t.kind = Kind::Ident;
    c.take_while(ident_char);
  } else if (is_digit(ch) || (ch == '.' && is_digit(c.peek(1)))) {
    // pp-numbers with C++14 digit separators (1'000) and exponents (1e-3).
    t.kind = Kind::Number;
    while (!c.done()) {
      const char d = c.peek();
      if (ident_char(d) || d == '.' || (d == '\'' && ident_char(c.peek(1))) ||
          ((d == '-' || d == '+') && !c.since(from).empty() &&
           (c.since(from).back() == 'e' || c.since(from).back() == 'E' ||
            c.since(from).back() == 'p' || c.since(from).back() == 'P')))
        c.advance();
      else
        break;
    }
  } else if (ch == '"' || ch == '\'') {
    t.kind = Kind::Literal;
    skip_literal(c);
  } else {
    t.kind = Kind::Punct;
    c.advance(c.at("<%") || c.at("%>") || c.at("%:") ? 2 : 1);
  }
  t.text = c.since(from);
  return t;
}

// Names a body may not use (check_body's list) and why.
struct Banned {
  std::string_view name;
  std::string_view why;
};
constexpr std::array<Banned, 16> kBanned{{
    {"asm", "inline assembly is not CUDA C++ that redscope checks"},
    {"__asm", "inline assembly is not CUDA C++ that redscope checks"},
    {"__asm__", "inline assembly is not CUDA C++ that redscope checks"},
    {"_Pragma", "pragmas change how nvcc reads the kernel"},
    {"__pragma", "pragmas change how nvcc reads the kernel"},
    {"extern", "a body declares nothing outside its kernel"},
    {"namespace", "a body declares nothing outside its kernel"},
    {"template", "a body declares nothing outside its kernel"},
    {"__global__", "a body declares nothing outside its kernel"},
    {"__device__", "a body declares nothing outside its kernel"},
    {"__host__", "a body declares nothing outside its kernel"},
    {"__launch_bounds__", "a body declares nothing outside its kernel"},
    {"return", "it would skip the stores of the observed locals at the kernel's end"},
    {"goto", "it would skip the stores of the observed locals at the kernel's end"},
    {"__out", "the name is the kernel's own (its output array)"},
    {"main", "the name is reserved"},
}};

}  // namespace

void skip_body(TextCursor& c) {
  const SourceLoc start = c.loc();
  int depth = 0;
  for (;;) {
    skip_blank(c);
    if (c.peek() == '}' && depth == 0) return;
    const std::optional<Tok> t = next_token(c);
    if (!t) c.fail(start, "this body has no closing '}'");
    if (t->text == "{") ++depth;
    if (t->text == "}") --depth;
  }
}

void check_body(std::string_view body, SourceLoc at, const std::string& file) {
  TextCursor c(body, file, at);
  std::optional<Tok> prev;
  while (std::optional<Tok> t = next_token(c)) {
    const std::string_view x = t->text;
    if (x == "#" || x == "%:")
      c.fail(t->at,
             "preprocessor directives are not allowed in a test body (they would change "
             "what nvcc reads around it)");
    if (x == "\\") c.fail(t->at, "a backslash outside a literal splices lines: not allowed");
    if (x == "<%" || x == "%>")
      c.fail(t->at,
             fmt::format("the digraph '{}' is a brace: write '{}'", x, x == "<%" ? "{" : "}"));
    if (t->kind == Kind::Literal && x.front() == '"' && prev && prev->kind == Kind::Ident &&
        prev->at.line == t->at.line &&
        prev->at.col + static_cast<int>(prev->text.size()) == t->at.col && prev->text.back() == 'R')
      c.fail(prev->at, "raw string literals are not allowed in a test body");
    if (t->kind == Kind::Ident) {
      for (const Banned& b : kBanned)
        if (x == b.name)
          c.fail(t->at, fmt::format("'{}' is not allowed in a test body: {}", x, b.why));
      if (x.starts_with("redscope_"))
        c.fail(t->at, fmt::format("'{}': names starting with redscope_ are the kernels' own", x));
    }
    prev = t;
  }
}

namespace {

// Words of a declaration's type (C++ [dcl.type]) as a body writes them.
bool type_word(std::string_view w) {
  constexpr std::array<std::string_view, 12> kWords{"int",   "unsigned", "signed", "long",
                                                    "short", "char",     "float",  "double",
                                                    "bool",  "auto",     "const",  "volatile"};
  return std::find(kWords.begin(), kWords.end(), w) != kWords.end();
}

}  // namespace

std::optional<LocalDecl> top_level_local(std::string_view body, SourceLoc at,
                                         std::string_view name) {
  TextCursor c(body, "", at);
  int braces = 0, parens = 0;
  bool statement_start = true, after_comma = false;
  std::string decl_type;  // the type of the top-level declaration being read, or ""
  std::vector<std::string_view> words;
  while (std::optional<Tok> t = next_token(c)) {
    const std::string_view x = t->text;
    const bool top = braces == 0 && parens == 0;
    if (top && t->kind == Kind::Ident && statement_start && type_word(x)) {
      words.push_back(x);
      continue;
    }
    if (top && t->kind == Kind::Ident && statement_start && !words.empty()) {
      for (std::string_view w : words)
        if (w != "const" && w != "volatile")
          decl_type += (decl_type.empty() ? "" : " ") + std::string(w);
      if (decl_type.empty()) decl_type = "int";  // `const r = 1;` is not C++; nvcc says so
    }
    if (top && t->kind == Kind::Ident && x == name && !decl_type.empty() &&
        (statement_start || after_comma))
      return LocalDecl{decl_type, t->at};
    statement_start = after_comma = false;
    words.clear();
    if (x == "{") ++braces;
    if (x == "}") --braces;
    if (x == "(" || x == "[") ++parens;
    if (x == ")" || x == "]") --parens;
    if (braces == 0 && parens == 0) {
      if (x == ";" || x == "}" || x == "{") {
        statement_start = true;
        decl_type.clear();
      }
      after_comma = x == ",";
    }
  }
  return std::nullopt;
}

}  // namespace redscope::cuda::detail
