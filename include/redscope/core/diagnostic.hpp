// Diagnostics for bad input: every error carries file:line:col.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace redscope {

struct SourceLoc {
  int line = 0;
  int col = 0;
};

// What an error says about its input. `Input`: the text is not a valid test
// (syntax, an unknown name, a limit of redscope). `IsaRule`: the text is a test
// the PTX ISA forbids (a target's minimum sm_NN, or a qualifier, type or state
// space its syntax tables do not allow together): `gen matrix` skips such cells
// and counts them by `Diagnostic::rule` (docs/matrix-spec.md).
enum class DiagnosticKind { Input, IsaRule };

struct Diagnostic {
  // A constructor, not an aggregate: the many Diagnostic{file, loc, message}
  // need not name the kind and the rule (-Wmissing-field-initializers).
  Diagnostic() = default;
  Diagnostic(std::string in_file, SourceLoc at, std::string text,
             DiagnosticKind what = DiagnosticKind::Input, std::string broken = {})
      : file(std::move(in_file)),
        loc(at),
        message(std::move(text)),
        kind(what),
        rule(std::move(broken)) {}

  std::string file;
  SourceLoc loc;
  std::string message;
  DiagnosticKind kind = DiagnosticKind::Input;
  // IsaRule: the rule broken, worded the same for every test that breaks it
  // (no register, location or Target of this test), e.g. "ld/st's .cluster
  // scope needs sm_90 or later (PTX ISA ...)".
  std::string rule;
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
