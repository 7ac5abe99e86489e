// PTO programs behind the Semantics interface: each engine kind names one of
// the program's two formulations (the operational machine has none).
#include "redscope/dialects/pto/pto_semantics.hpp"

#include "dialects/pto/pto_exec.hpp"
#include "dialects/pto/pto_z3.hpp"
#include "redscope/core/diagnostic.hpp"

namespace redscope::pto {

namespace {

class PtoSemantics final : public Semantics {
 public:
  TestResult run(const LitmusTest& test, const EngineOptions& opts) const override {
    EngineOptions o = opts;
    switch (opts.engine) {
      case EngineKind::Auto:
        o.engine = EngineKind::Enum;
        return tagged(pto_exec::run_explorer(test, o), "enum",
                      "auto: a PTO vector program (the explicit explorer)");
      case EngineKind::Enum: return tagged(pto_exec::run_explorer(test, o), "enum", "");
      case EngineKind::Op:
        throw InputError(Diagnostic{test.file,
                                    {1, 1},
                                    "the operational machine (--engine op) runs PTX event graphs; "
                                    "check PTO vector programs with the z3 or enum engine"});
      case EngineKind::Z3: break;
    }
    return tagged(run_pto_z3(test, o), "z3", "");
  }

  TestResult allowed(const LitmusTest& test, const EngineOptions& opts) const override {
    EngineOptions z = opts;
    z.engine = EngineKind::Z3;
    return run_pto_z3(test, z);
  }

  // The explorer's outcomes; an outcome's trace is its choices, one a line.
  TestResult reached(const LitmusTest& test, const EngineOptions& opts,
                     std::map<std::vector<std::uint64_t>, std::string>* traces) const override {
    EngineOptions e = opts;
    e.engine = EngineKind::Enum;
    TestResult r = pto_exec::run_explorer(test, e);
    if (traces)
      for (const Outcome& o : r.outcomes) {
        std::string& lines = (*traces)[o.values];
        for (const std::string& c : o.witness.choices) lines += c + "\n";
      }
    return r;
  }

  XvalFormulations formulations() const override {
    return {.allowing = "z3 twin", .reaching = "explorer", .exact = true, .label = "pto"};
  }

  bool has_model_axioms() const override { return false; }
};

}  // namespace

const Semantics& semantics() {
  static const PtoSemantics s;
  return s;
}

}  // namespace redscope::pto
