// The Z3 engine for PTO programs: every choice of engine/pto_exec.hpp as a
// solver variable (a Boolean per float sum's order, an integer per pending
// group reduction counting the consumers that still see the old contents, a
// time per vlds/vsts of a multi-core program), the lanes as bit-vector terms
// (pto_z3_values.hpp), and outcomes enumerated by blocking each found one.
// It shares with the explicit explorer only the observables and the notes.
#pragma once

#include "redscope/engine/engine.hpp"

namespace redscope {

TestResult run_pto_z3(const LitmusTest& test, const EngineOptions& opts);

}  // namespace redscope
