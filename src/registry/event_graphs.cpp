// The semantics of event graphs under a cat model: the engine a run asked
// for (EngineOptions::engine), the one place that knows all three, and the
// auto engine that picks between two of them.
#include "registry/event_graphs.hpp"

#include <limits>
#include <optional>

#include <fmt/format.h>

#include "redscope/engine/engine.hpp"
#include "redscope/engine/enumerate/enumerate.hpp"
#include "redscope/engine/machine/machine.hpp"
#include "redscope/engine/z3/z3.hpp"
#include "redscope/model/cat.hpp"

namespace redscope {

namespace {

// The auto engine's thresholds (docs/performance.md "The auto engine").
// The enumerator's cost is its search, the solver's about one check per
// outcome (0.3-3 ms each, growing with the outcomes already blocked), plus
// a context to start (about 10 ms).
// - At most this much work (choices before pruning, weighted by skeleton
//   size): the enumerator, whatever the outcomes (its worst case is a few
//   tenths of a second).
constexpr double kLittleWork = 2e4;
// - At least this many possible outcomes: the enumerator, which gives way
//   to the solver if its search finds under one outcome per
//   kGiveWayRatio choices once past kGiveWayAfter choices (choices weighted
//   by skeleton size, as the estimate's work). A choice costs
//   the enumerator 5-10 us, an outcome the solver 1-3 ms: past about 300
//   choices per outcome the solver is the cheaper. Counted in choices, not
//   seconds, so that the engine a test gets does not depend on the machine's
//   load. (The families the enumerator wins need few choices per outcome:
//   IRIW with 10 readers 20,000 choices for 1,048,576 outcomes, IRIW+fence.sc
//   with 8 readers under 10,000 for 34,911; store/load with x, y and P0's
//   registers observed finds 21 outcomes in its first 10,000.)
constexpr double kManyOutcomes = 512;
constexpr std::size_t kGiveWayAfter = 10'000;
constexpr std::size_t kGiveWayRatio = 300;
// - Otherwise (many candidates, few outcomes): the solver.

// Verdict only: the enumerator when its whole search costs less than the
// solver's start (about 10 ms: kVerdictLittleWork weighted choices at 5 us;
// a proof that no execution decides needs the whole search), else the
// solver, whose one query per path costs about the same whether it finds a
// witness or proves there is none (MP chain-12: 4,100 choices, 0.10 s
// enumerated, 0.01 s solved; docs/performance.md "Verdict-only runs").
constexpr double kVerdictLittleWork = 2e3;

// The enumerator where the estimate says its search is cheap. The estimate
// counts rf, co and Fence-SC choices, not the values along an rf ∪ data
// cycle under a model without No-Thin-Air (each a choice of the enumerator:
// enum_engine.cpp each_values); should those reach the enumerator's limit,
// it gives way to the solver instead of failing.
TestResult cheap_enum(const LitmusTest& test, const EngineOptions& opts, const std::string& why) {
  EngineOptions o = opts;
  o.engine = EngineKind::Enum;
  o.give_way_after = std::numeric_limits<std::size_t>::max();  // only at the limit
  try {
    return tagged(run_enum(test, o), "enum", why);
  } catch (const EnumGaveWay& g) {
    o = opts;
    o.engine = EngineKind::Z3;
    return tagged(run_z3(test, o), "z3",
                  fmt::format("{}, but the enumerator reached its limit after {} choices "
                              "(values along an rf and data cycle): the solver",
                              why, g.choices));
  }
}

TestResult run_auto_verdict(const LitmusTest& test, const EngineOptions& opts) {
  EngineOptions o = opts;
  const EngineEstimate est = estimate_engines(test, opts, kVerdictLittleWork);
  if (est.work <= kVerdictLittleWork)
    return cheap_enum(
        test, opts,
        fmt::format("auto: verdict only, at most {:.3g} candidate choices", est.candidates));
  o.engine = EngineKind::Z3;
  return tagged(run_z3(test, o), "z3",
                fmt::format("auto: verdict only, {:.3g} candidate choices: one solver query",
                            est.candidates));
}

TestResult run_auto(const LitmusTest& test, const EngineOptions& opts) {
  // Without the solver (a build with REDSCOPE_WITH_Z3=OFF) auto is the enumerator.
  if (!z3_available()) {
    EngineOptions o = opts;
    o.engine = EngineKind::Enum;
    return tagged(run_enum(test, o), "enum", "auto: this build has no Z3 engine");
  }
  if (opts.verdict_only) return run_auto_verdict(test, opts);
  EngineOptions o = opts;
  const EngineEstimate est = estimate_engines(test, opts, kLittleWork);
  if (est.work <= kLittleWork)
    return cheap_enum(test, opts,
                      fmt::format("auto: at most {:.3g} candidate choices", est.candidates));
  if (est.outcomes >= kManyOutcomes) {
    o.engine = EngineKind::Enum;
    o.give_way_after = kGiveWayAfter;
    o.give_way_ratio = kGiveWayRatio;
    try {
      return tagged(run_enum(test, o), "enum",
                    fmt::format("auto: up to {:.3g} outcomes ({:.3g} candidate choices)",
                                est.outcomes, est.candidates));
    } catch (const EnumGaveWay& g) {
      o = opts;
      o.engine = EngineKind::Z3;
      return tagged(run_z3(test, o), "z3",
                    fmt::format("auto: the enumerator gave way after {} choices and {} outcome(s) "
                                "(up to {:.3g} outcomes, {:.3g} candidate choices)",
                                g.choices, g.outcomes, est.outcomes, est.candidates));
    }
  }
  o.engine = EngineKind::Z3;
  return tagged(run_z3(test, o), "z3",
                fmt::format("auto: {:.3g} candidate choices for at most {:.3g} outcomes",
                            est.candidates, est.outcomes));
}

// A model in herd7's full language is run by herd's interpreter on the
// enumerator's complete candidates: the solver encodes only the typed
// subset, so z3 and auto step aside, and the enumerator's pruning, shortcuts
// and split by location, which reason about the typed tree, do too; the
// result says why (-v, JSON "engine_reason").
std::optional<TestResult> run_herd_model(const LitmusTest& test, const EngineOptions& opts) {
  if (opts.engine == EngineKind::Op) return std::nullopt;
  const std::shared_ptr<const cat::Model> m = model_of(opts, test);
  if (m->typed()) return std::nullopt;
  EngineOptions o = opts;
  o.engine = EngineKind::Enum;
  return tagged(run_enum(test, o), "enum",
                fmt::format("{}: the model is in herd7's full language ({}): herd's interpreter "
                            "checks each complete candidate of the enumerator (no pruning, "
                            "shortcuts or split by location)",
                            to_string(opts.engine), m->beyond));
}

}  // namespace

namespace {

// The operational machine runs PTX's mechanisms (docs/model.md, the machine
// table); events read from C or CUDA source carry C++'s orders, which no
// mechanism of it implements.
void require_ptx_events(const LitmusTest& test) {
  for (const ThreadCode& t : test.threads)
    for (const Instruction& in : t.code)
      if (in.source)
        throw InputError(Diagnostic{
            test.file, in.loc,
            "the operational machine runs PTX events; this test is read at the source level "
            "(C, or CUDA with --source), so --engine op and xval do not apply to it"});
}

TestResult run_engine_of(const LitmusTest& test, const EngineOptions& opts) {
  switch (opts.engine) {
    case EngineKind::Auto: return run_auto(test, opts);
    case EngineKind::Enum: return tagged(run_enum(test, opts), "enum", "");
    case EngineKind::Op: return tagged(run_op(test, opts), "op", "");
    case EngineKind::Z3: break;
  }
  return tagged(run_z3(test, opts), "z3", "");
}

// The `flag` checks of a built-in typed model (models/scoped-cpp.cat's
// `racy`), as herd7 reports them: a flag is raised when some consistent
// execution makes it hold. Asked as a verdict-only query for `exists true`
// under the model with the flag made a requirement (cat::with_flag_required):
// the first such execution decides, whatever the outcomes' number. The
// result gets the flag's name and a note with that execution; a query that
// fails (a budget) fails the result, never leaving a flag unsaid. A model
// file of the user's keeps its flags unreported (docs/model.md).
void report_flags(const LitmusTest& test, const EngineOptions& opts, TestResult& r) {
  if (r.error || opts.user_model || !opts.model_file.empty() || opts.engine == EngineKind::Op)
    return;
  const ModelRef m = opts.model_for(test);
  if (!m->file.ends_with(".cat")) return;  // a dialect's own semantics
  const cat::Model& model = cat::builtin_model(*m);
  for (const cat::Stmt& st : model.stmts) {
    if (!st.check || !st.check->flag || st.check->name.empty()) continue;
    std::optional<cat::Model> req = cat::with_flag_required(*m, st.check->name);
    if (!req) continue;
    LitmusTest any = test;
    any.quantifier = Quantifier::Exists;
    any.condition = CondExpr{};  // true
    EngineOptions o = opts;
    o.user_model = std::make_shared<const cat::Model>(std::move(*req));
    o.verdict_only = true;
    o.listing.reset();
    const TestResult f = run_engine_of(any, o);
    if (f.error) {
      r.error = fmt::format("deciding the model's flag {}: {}", st.check->name, *f.error);
      r.error_kind = f.error_kind;
      return;
    }
    if (!f.holds) continue;
    r.flags.push_back(st.check->name);
    std::string rf;
    if (!f.outcomes.empty())
      for (const std::string& e : f.outcomes.front().witness.rf.texts())
        rf += (rf.empty() ? "" : " / ") + e;
    r.notes.push_back(fmt::format("flag {} is raised by a consistent execution{}", st.check->name,
                                  rf.empty() ? "" : " (rf: " + rf + ")"));
  }
}

}  // namespace

TestResult EventGraphs::run(const LitmusTest& test, const EngineOptions& opts) const {
  if (opts.engine == EngineKind::Op) require_ptx_events(test);
  if (auto r = run_herd_model(test, opts)) return std::move(*r);
  TestResult r = run_engine_of(test, opts);
  report_flags(test, opts, r);
  return r;
}

TestResult EventGraphs::allowed(const LitmusTest& test, const EngineOptions& opts) const {
  EngineOptions z = opts;
  z.engine = EngineKind::Z3;
  if (auto r = run_herd_model(test, z)) return std::move(*r);
  return run_z3(test, z);
}

TestResult EventGraphs::reached(const LitmusTest& test, const EngineOptions& opts,
                                std::map<std::vector<std::uint64_t>, std::string>* traces) const {
  require_ptx_events(test);
  EngineOptions o = opts;
  o.engine = EngineKind::Op;
  return run_op(test, o, traces);
}

XvalFormulations EventGraphs::formulations() const {
  return {.allowing = "z3", .reaching = "machine", .label = label_, .via = via_};
}

}  // namespace redscope
