// The engine a run asked for (EngineOptions::engine): the one place that
// knows all three.
#include "redscope/engine/engine.hpp"

namespace redscope {

TestResult run_engine(const LitmusTest& test, const EngineOptions& opts) {
  switch (opts.engine) {
    case EngineKind::Enum: return run_enum(test, opts);
    case EngineKind::Op: return run_op(test, opts);
    case EngineKind::Z3: break;
  }
  return run_z3(test, opts);
}

}  // namespace redscope
