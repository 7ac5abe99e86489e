// The engine a test is checked by: the one EngineOptions::engine names, or
// under auto the one the estimates choose (src/driver/engines.cpp).
#pragma once

#include "redscope/engine/engine.hpp"

namespace redscope {

// The engine `opts.engine` names.
TestResult run_engine(const LitmusTest& test, const EngineOptions& opts);

}  // namespace redscope
