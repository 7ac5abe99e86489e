// Diagnostics for bad input: every error carries file:line:col.
#pragma once

#include <stdexcept>
#include <string>

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

// Thrown by the frontend and by expansion when the input cannot be checked.
class InputError : public std::runtime_error {
 public:
  explicit InputError(Diagnostic d) : std::runtime_error(d.render()), diag_(std::move(d)) {}
  const Diagnostic& diagnostic() const { return diag_; }

 private:
  Diagnostic diag_;
};

}  // namespace redscope
