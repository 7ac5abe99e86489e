// The expansion's located error: every check of this stage reports through it.
#pragma once

#include <string>

#include "redscope/core/litmus.hpp"

namespace redscope::detail {

[[noreturn]] inline void input_error(const LitmusTest& t, SourceLoc at, std::string msg) {
  throw InputError(Diagnostic{t.file, at, std::move(msg)});
}

// A test the PTX ISA forbids (DiagnosticKind::IsaRule): `rule` words the rule
// the same for every test that breaks it, so `gen matrix` counts skips by it.
[[noreturn]] inline void isa_rule_error(const LitmusTest& t, SourceLoc at, std::string msg,
                                        std::string rule) {
  throw InputError(
      Diagnostic{t.file, at, std::move(msg), DiagnosticKind::IsaRule, std::move(rule)});
}

}  // namespace redscope::detail
