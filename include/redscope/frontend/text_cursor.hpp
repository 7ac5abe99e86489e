// The lexer toolkit every hand-written reader of input text uses (litmus files, .test
// files, PTO programs, cat models): a cursor over the text that keeps the line and
// column of where it stands, and the pieces their tokens share (comments, names,
// numbers, strings, punctuation). Each reader keeps its own token kinds and messages;
// a located error is an InputError at file:line:col (lines and columns from 1, a
// column per byte).
#pragma once

#include <cctype>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "redscope/core/diagnostic.hpp"

namespace redscope {

inline bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
inline bool is_hex_digit(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }
inline bool is_alpha(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }
inline bool is_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
inline bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

// Whether the first word of a file's `head` (after blank lines and `//` and `(* *)`
// comments) is `word` followed by a space or a tab: how a dialect whose files share an
// extension recognises its own (`SASS`, `PTO`).
bool first_word_is(std::string_view head, std::string_view word);

class TextCursor {
 public:
  // `text` read from `file`, its first byte standing at `start` (a piece of a file, such
  // as a table cell, keeps the file's positions).
  TextCursor(std::string_view text, const std::string& file, SourceLoc start = {1, 1})
      : s_(text),
        file_(&file),
        line_(start.line),
        col_(start.col) {}

  bool done() const { return i_ >= s_.size(); }
  // The byte k places ahead, or '\0' past the end.
  char peek(std::size_t k = 0) const { return i_ + k < s_.size() ? s_[i_ + k] : '\0'; }
  // Whether the text at the cursor starts with `w`.
  bool at(std::string_view w) const { return s_.substr(i_, w.size()) == w; }
  SourceLoc loc() const { return SourceLoc{line_, col_}; }
  std::size_t offset() const { return i_; }
  const std::string& file() const { return *file_; }
  // The text from offset `from` to the cursor.
  std::string_view since(std::size_t from) const { return s_.substr(from, i_ - from); }

  // Moves n bytes on (at most to the end); a newline starts the next line at column 1.
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

  // Moves on while `pred` holds for the byte at the cursor; the text passed over.
  template <class Pred>
  std::string_view take_while(Pred pred) {
    const std::size_t from = i_;
    while (i_ < s_.size() && pred(s_[i_])) advance();
    return since(from);
  }

  [[noreturn]] void fail(SourceLoc at, std::string message) const {
    throw InputError(Diagnostic{*file_, at, std::move(message)});
  }
  [[noreturn]] void fail(std::string message) const { fail(loc(), std::move(message)); }

  // ---- comments ---------------------------------------------------------------------
  // At `//`: to the end of the line (the newline stays).
  void skip_line_comment() {
    take_while([](char c) { return c != '\n'; });
  }
  // At `open`: past the `close` that ends the comment (with `nested`, each `open`
  // inside needs its own `close`, as herd's `(* *)`); an unterminated comment is
  // `unterminated` at the comment's start.
  void skip_block_comment(std::string_view open, std::string_view close, bool nested,
                          std::string_view unterminated);

  // ---- tokens -----------------------------------------------------------------------
  // At `"`: the text up to the closing quote (without the quotes), the cursor past it.
  // "unterminated string" at the opening quote when the text (or, unless
  // `may_span_lines`, the line) ends first.
  std::string_view quoted(bool may_span_lines);

  // A number's digits: `0x`/`0X` (with `ptx_floats` also PTX's `0f`/`0F`/`0d`/`0D`,
  // PTX ISA §4.5.1) and hexadecimal digits; or decimal digits with an optional
  // fraction (`.5`) and exponent (`e-3`, `E+4`), each taken only when a digit follows.
  // The text read; the caller judges what it is and what follows it.
  std::string_view number(bool ptx_floats);

  // The first entry of `table` (pairs of spelling and kind; longer spellings first)
  // standing at the cursor, the cursor past it; nullopt (and no move) when none does.
  template <class Kind, std::size_t N>
  std::optional<std::pair<std::string_view, Kind>> punctuation(
      const std::pair<std::string_view, Kind> (&table)[N]) {
    for (const auto& entry : table)
      if (at(entry.first)) {
        advance(entry.first.size());
        return entry;
      }
    return std::nullopt;
  }

 private:
  std::string_view s_;
  const std::string* file_;
  std::size_t i_ = 0;
  int line_ = 1;
  int col_ = 1;
};

}  // namespace redscope
