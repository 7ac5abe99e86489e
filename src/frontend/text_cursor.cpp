#include "redscope/frontend/text_cursor.hpp"

namespace redscope {

bool first_word_is(std::string_view head, std::string_view word) {
  std::size_t i = 0;
  for (;;) {
    i = head.find_first_not_of(" \t\r\n", i);
    if (i == std::string_view::npos) return false;
    if (head.substr(i, 2) == "//") {
      i = head.find('\n', i);
    } else if (head.substr(i, 2) == "(*") {
      i = head.find("*)", i);
      if (i != std::string_view::npos) i += 2;
    } else {
      break;
    }
    if (i == std::string_view::npos) return false;
  }
  const char after = i + word.size() < head.size() ? head[i + word.size()] : '\0';
  return head.substr(i, word.size()) == word && (after == ' ' || after == '\t');
}

void TextCursor::skip_block_comment(std::string_view open, std::string_view close, bool nested,
                                    std::string_view unterminated) {
  const SourceLoc start = loc();
  advance(open.size());
  int depth = 1;
  while (depth > 0) {
    if (done()) fail(start, std::string(unterminated));
    if (at(close)) {
      --depth;
      advance(close.size());
    } else if (nested && at(open)) {
      ++depth;
      advance(open.size());
    } else {
      advance();
    }
  }
}

std::string_view TextCursor::quoted(bool may_span_lines) {
  const SourceLoc start = loc();
  advance();
  const std::size_t from = i_;
  take_while([&](char c) { return c != '"' && (may_span_lines || c != '\n'); });
  if (peek() != '"') fail(start, "unterminated string");
  const std::string_view text = since(from);
  advance();
  return text;
}

std::string_view TextCursor::number(bool ptx_floats) {
  const std::size_t from = i_;
  const char p1 = peek(1);
  const bool hex = p1 == 'x' || p1 == 'X';
  const bool ptx_float = ptx_floats && (p1 == 'f' || p1 == 'F' || p1 == 'd' || p1 == 'D');
  if (peek() == '0' && (hex || ptx_float)) {
    advance(2);
    take_while(is_hex_digit);
    return since(from);
  }
  take_while(is_digit);
  if (peek() == '.' && is_digit(peek(1))) {
    advance();
    take_while(is_digit);
  }
  const bool sign = peek(1) == '+' || peek(1) == '-';
  if ((peek() == 'e' || peek() == 'E') && is_digit(peek(sign ? 2 : 1))) {
    advance(sign ? 2 : 1);
    take_while(is_digit);
  }
  return since(from);
}

}  // namespace redscope
