// The Z3 engine: the cat model encoded symbolically, one check per outcome.
#pragma once

#include "redscope/engine/engine.hpp"

namespace redscope {

// Runs the Z3 engine on a parsed test. Throws InputError for inputs the
// expansion rejects; never for allowed/forbidden answers.
TestResult run_z3(const LitmusTest& test, const EngineOptions& opts);

}  // namespace redscope
