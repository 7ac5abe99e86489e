// The expansion's located error: every check of this stage reports through it.
#pragma once

#include <string>

#include "redscope/core/litmus.hpp"

namespace redscope::detail {

[[noreturn]] inline void input_error(const LitmusTest& t, SourceLoc at, std::string msg) {
  throw InputError(Diagnostic{t.file, at, std::move(msg)});
}

}  // namespace redscope::detail
