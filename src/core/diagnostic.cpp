// Making diagnostics printable: whatever bytes a file holds, what redscope
// prints about it is short, valid UTF-8 text.
#include <cerrno>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

#include "redscope/core/diagnostic.hpp"

namespace redscope {
namespace {

// Length of the valid UTF-8 sequence at s[i], or 0 when it is not one.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  if (c < 0x80) return 1;
  // Lead bytes (RFC 3629 §4): C2-DF, E0-EF, F0-F4; C0, C1 and F5-FF never appear.
  const std::size_t n = c >= 0xf0 && c <= 0xf4  ? 4
                        : c >= 0xe0 && c < 0xf0 ? 3
                        : c >= 0xc2 && c < 0xe0 ? 2
                                                : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((b(i + k) & 0xc0) != 0x80) return 0;
  if (n == 3 && ((c == 0xe0 && b(i + 1) < 0xa0) || (c == 0xed && b(i + 1) >= 0xa0)))
    return 0;  // overlong, surrogate
  if (n == 4 && ((c == 0xf0 && b(i + 1) < 0x90) || (c == 0xf4 && b(i + 1) >= 0x90)))
    return 0;  // overlong, > U+10FFFF
  return n;
}

constexpr std::size_t kLongWord = 80;  // a word longer than this is shortened
constexpr std::size_t kWordCharsKept = 60;
constexpr std::size_t kLongText = 320;  // so is a whole text (a line of many short words)

// One word (no spaces) with every byte made printable.
std::string clean_word(std::string_view w) {
  std::string out;
  for (std::size_t i = 0; i < w.size();) {
    const std::size_t n = utf8_length(w, i);
    if (n == 0)
      out += "\xef\xbf\xbd";  // U+FFFD for a byte that is not UTF-8
    else if (n == 1 && static_cast<unsigned char>(w[i]) < 0x20)
      out += fmt::format("\\x{:02x}", static_cast<unsigned>(w[i]));
    else
      out += w.substr(i, n);
    i += n ? n : 1;
  }
  if (out.size() <= kLongWord) return out;
  std::size_t keep = kWordCharsKept;
  while (keep > 0 && (static_cast<unsigned char>(out[keep]) & 0xc0) == 0x80)
    --keep;  // a character boundary
  return out.substr(0, keep) + "\xe2\x80\xa6";
}

}  // namespace

std::string valid_utf8(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8_length(text, i);
    out += n ? text.substr(i, n) : std::string_view("\xef\xbf\xbd");
    i += n ? n : 1;
  }
  return out;
}

std::string printable(std::string_view text) {
  std::string out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    const bool end = i == text.size();
    if (!end && text[i] != ' ' && text[i] != '\n' && text[i] != '\t') continue;
    out += clean_word(text.substr(start, i - start));
    if (!end) out += text[i];
    start = i + 1;
    if (out.size() > kLongText) break;  // the rest would be cut anyway
  }
  if (out.size() <= kLongText) return out;
  std::size_t keep = kLongText - 20;
  while (keep > 0 && (static_cast<unsigned char>(out[keep]) & 0xc0) == 0x80) --keep;
  return out.substr(0, keep) + "\xe2\x80\xa6";
}

std::string Diagnostic::render() const {
  // The file name is never shortened (editors jump to it); the message is.
  // A problem of the whole file (a budget, an unreadable file) has no line.
  if (loc.line == 0) return fmt::format("{}: error: {}", valid_utf8(file), printable(message));
  return fmt::format("{}:{}:{}: error: {}", valid_utf8(file), loc.line, loc.col,
                     printable(message));
}

}  // namespace redscope
