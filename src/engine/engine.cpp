// What the engines share beyond results: a result opened for a test under
// the options of a check, the engines' names, and the model a test is
// checked against.
#include "redscope/engine/engine.hpp"

#include "redscope/model/cat.hpp"

namespace redscope {

TestResult start_result(const LitmusTest& test, const EngineOptions& opts, const Expansion& ex) {
  TestResult r;
  r.test = test.name;
  r.file = test.file;
  r.model = opts.model_for(test);
  r.target_sm = test.target_sm;
  r.quantifier = test.quantifier;
  r.condition_text = test.condition_text;
  r.skeletons = ex.skeletons.size();
  r.expansion = std::make_shared<const Expansion>(ex);
  r.model_file = opts.model_file;
  r.observables = observables_of(test, ex, opts.observe_all);
  r.undefined_reasons = ex.undefined_reasons;
  check_condition_literals(test, r.observables);
  return r;
}

std::string_view to_string(EngineKind e) {
  switch (e) {
    case EngineKind::Auto: return "auto";
    case EngineKind::Z3: return "z3";
    case EngineKind::Enum: return "enum";
    case EngineKind::Op: break;
  }
  return "op";
}

std::shared_ptr<const cat::Model> model_of(const EngineOptions& opts, const LitmusTest& test) {
  if (opts.user_model) return opts.user_model;
  if (!opts.model_file.empty())
    return std::make_shared<const cat::Model>(cat::load_cat(opts.model_file, opts.max_file_bytes));
  ModelRef m = opts.model_for(test);
  // A dialect's own model (its semantics, no cat file) has no event graphs
  // to judge: an analysis that still asks (atomicity of a PTO program, which
  // expands to no events) gets the default file, as before the model table.
  if (m->file.empty()) m = kDefaultModel;
  return {std::shared_ptr<const cat::Model>(),
          &cat::builtin_model(*m)};  // not owned: a static  // not owned: a static
}

}  // namespace redscope
