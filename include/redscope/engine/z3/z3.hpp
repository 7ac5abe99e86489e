// The Z3 engine: the cat model encoded symbolically, one check per outcome.
#pragma once

#include <string>
#include <string_view>

#include "redscope/engine/engine.hpp"

namespace redscope {

// Runs the Z3 engine on a parsed test. Throws InputError for inputs the
// expansion rejects; never for allowed/forbidden answers. In a build without
// Z3 (REDSCOPE_WITH_Z3=OFF: src/engine/z3/absent.cpp) it throws InputError
// located at the test: no_z3_message(what).
TestResult run_z3(const LitmusTest& test, const EngineOptions& opts);

// Whether this build has the Z3 engine (and the query API's solver). A
// semantics asks it to choose auto's engine; an analysis, to choose its
// method (explain) or to refuse early with a located error (atomicity).
bool z3_available();

// The one wording of every refusal in a build without Z3.
inline std::string no_z3_message(std::string_view what) {
  return "this build has no Z3 engine (built with REDSCOPE_WITH_Z3=OFF): " + std::string(what) +
         " needs the solver; use --engine enum or op, or the native redscope";
}

}  // namespace redscope
