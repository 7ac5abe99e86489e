// The engine a run asked for (EngineOptions::engine): the one place that
// knows all three.
#include "redscope/engine.hpp"

#include "redscope/model/cat.hpp"

namespace redscope {

std::shared_ptr<const cat::Model> model_of(const EngineOptions& opts) {
  if (opts.user_model) return opts.user_model;
  if (!opts.model_file.empty())
    return std::make_shared<const cat::Model>(cat::load_cat(opts.model_file));
  return {std::shared_ptr<const cat::Model>(), &cat::builtin_ptx()};  // not owned: a static
}

TestResult run_engine(const LitmusTest& test, const EngineOptions& opts) {
  switch (opts.engine) {
    case EngineKind::Enum: return run_enum(test, opts);
    case EngineKind::Op: return run_op(test, opts);
    case EngineKind::Z3: break;
  }
  return run_z3(test, opts);
}

}  // namespace redscope
