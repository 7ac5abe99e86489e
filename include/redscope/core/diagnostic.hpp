// Diagnostics for bad input: every error carries file:line:col.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace redscope {

struct SourceLoc {
  int line = 0;
  int col = 0;
};

struct Diagnostic {
  std::string file;
  SourceLoc loc;
  std::string message;
  // "file:line:col: error: message" (gcc style, so editors can jump to it).
  std::string render() const;
};

// `text` as short, valid UTF-8 for messages: bytes that are not UTF-8 become
// U+FFFD, control characters \xNN, and a word longer than 80 bytes keeps its
// first 60 followed by an ellipsis (a megabyte-long token stays short).
std::string printable(std::string_view text);
// `text` with every byte that is not part of valid UTF-8 replaced by U+FFFD.
std::string valid_utf8(std::string_view text);

// Thrown by the frontend and by expansion when the input cannot be checked.
class InputError : public std::runtime_error {
 public:
  explicit InputError(Diagnostic d) : std::runtime_error(d.render()), diag_(std::move(d)) {}
  const Diagnostic& diagnostic() const { return diag_; }

 private:
  Diagnostic diag_;
};

}  // namespace redscope
