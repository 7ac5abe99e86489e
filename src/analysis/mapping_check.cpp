// cuda-check: every outcome of the compiled test must be an outcome of its
// source, unless the source is racy (include/redscope/analysis/mapping_check.hpp).
#include "redscope/analysis/mapping_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <set>

#include "analysis/execution_search.hpp"
#include "analysis/model_view.hpp"
#include "redscope/core/json.hpp"

namespace redscope {

namespace {

TestResult result_or_throw(const LitmusTest& t, const EngineOptions& opts, const TestRunner& run) {
  TestResult r = run(t, opts);
  if (r.error) throw InputError(Diagnostic{t.file, {}, *r.error});
  return r;
}

// The source's observable columns in the compiled result's order: both
// tests observe the same names (the kernel convention keeps the locals'
// names), so they pair by label.
std::vector<std::size_t> columns(const TestResult& source, const TestResult& compiled,
                                 const LitmusTest& t) {
  std::vector<std::size_t> col;
  for (const Observable& o : source.observables) {
    std::size_t j = 0;
    while (j < compiled.observables.size() && compiled.observables[j].label != o.label) ++j;
    if (j == compiled.observables.size())
      throw InputError(Diagnostic{t.file, t.condition_loc,
                                  fmt::format("the compiled test does not observe {}", o.label)});
    col.push_back(j);
  }
  return col;
}

// A consistent execution of the source in which the model's flag `racy`
// holds, and the pair of its relation `hrace` that raises it; none when
// the source is race-free (every complete path searched).
std::optional<RaceWitness> find_race(const LitmusTest& source, const EngineOptions& opts) {
  std::optional<cat::Model> racy = cat::with_flag_required(*opts.model_for(source), kRacyFlag);
  if (!racy) return std::nullopt;  // the model has no such flag: nothing is undefined
  EngineOptions o = opts;
  o.user_model = std::make_shared<const cat::Model>(std::move(*racy));
  const Expansion ex = expand(source, o.expand);
  const QueryModel model(source, o);
  const std::unique_ptr<ExecutionSearches> searches = make_execution_searches(source, model, o);
  for (const Skeleton& sk : ex.skeletons) {
    if (o.budget) o.budget->check();
    if (sk.cut) continue;
    const std::unique_ptr<ExecutionSearch> q = searches->of(sk);
    if (!q->possible_with({})) continue;
    RaceWitness w;
    w.execution = q->witness();
    const ChosenExecution exec = q->execution();
    const ModelView v(sk, model, q->static_primitives(), &exec, o.budget);
    if (const std::optional<std::size_t> slot = v.slot(kRaceRelation))
      for (EventId a = 0; a < sk.size() && w.first.empty(); ++a)
        for (EventId b = a + 1; b < sk.size(); ++b)
          if (v.holds(*slot, a, b) || v.holds(*slot, b, a)) {
            w.first = describe_event(sk, a);
            w.second = describe_event(sk, b);
            w.why = v.pair_words(*slot, v.holds(*slot, a, b) ? a : b, v.holds(*slot, a, b) ? b : a);
            break;
          }
    return w;
  }
  return std::nullopt;
}

}  // namespace

std::string MappingCheck::verdict() const {
  if (race) return "racy";
  return outcomes.miscompilations.empty() ? "ok" : "miscompiled";
}

MappingCheck mapping_check(const LitmusTest& source, const LitmusTest& compiled,
                           const EngineOptions& opts, const TestRunner& run) {
  const auto t0 = std::chrono::steady_clock::now();
  MappingCheck m;
  CompileCheck& c = m.outcomes;
  c.ptx_test = source.name;
  c.compiled_test = compiled.name;
  c.ptx_file = source.file;
  c.compiled_file = compiled.file;
  EngineOptions o = opts;
  o.observe_all = false;
  o.model.reset();  // each side under its own model
  const TestResult s = result_or_throw(source, o, run);
  const TestResult p = result_or_throw(compiled, o, run);
  c.ptx_model = model_name(s.model, s.model_file);
  c.compiled_model = model_name(p.model, p.model_file);
  c.ptx_outcomes = s.outcomes.size();
  c.compiled_outcomes = p.outcomes.size();
  for (const Observable& x : s.observables) c.pairs.push_back({x.label, x.label});
  // The source run reports its model's flags (registry/event_graphs.cpp); a
  // raised `racy` is searched again for the race's witness.
  if (std::find(s.flags.begin(), s.flags.end(), kRacyFlag) != s.flags.end())
    m.race = find_race(source, o);
  const std::vector<std::size_t> col = columns(s, p, compiled);
  std::set<std::vector<std::uint64_t>> allowed;
  for (const Outcome& x : s.outcomes) allowed.insert(x.values);
  // An outcome the source allows once No-Thin-Air is left out (with the
  // part of it that keeps values grounded, no-dependency-cycle, since a
  // dependency C++ gives no meaning may be folded away) is forbidden by
  // that rule alone: load buffering (docs/model.md "No-Thin-Air in the
  // comparison"). Asked per outcome: listed, the values would be unbounded.
  EngineOptions lb = o;
  lb.disabled_checks.emplace_back(kThinAirCheck);
  lb.disabled_checks.emplace_back(kDependencyCycleCheck);
  for (const Outcome& x : p.outcomes) {
    std::vector<std::uint64_t> v(col.size());
    for (std::size_t i = 0; i < col.size(); ++i) v[i] = x.values[col[i]];
    if (allowed.count(v) || m.race) continue;  // racy: no outcome is owed
    Miscompilation bad;
    bad.compiled_outcome = outcome_text(p.observables, x.values);
    bad.ptx_outcome = outcome_text(s.observables, v);
    bad.compiled_execution = x.witness;
    if (forbidding_axioms(source, lb, s.observables, v).empty()) {
      m.thin_air.push_back(std::move(bad));
      continue;
    }
    bad.ptx = explain(source, o, ExplainRequest{bad.ptx_outcome});
    c.miscompilations.push_back(std::move(bad));
  }
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return m;
}

namespace {

std::string indented(const std::string& text) {
  std::string s;
  for (std::size_t a = 0; a < text.size();) {
    const std::size_t e = text.find('\n', a);
    const std::size_t end = e == std::string::npos ? text.size() : e;
    s += "  " + text.substr(a, end - a) + "\n";
    a = end + 1;
  }
  return s;
}

std::string execution_text(const Witness& w) {
  std::string s;
  for (const std::string& r : w.rf.texts()) s += "  rf " + r + "\n";
  for (const std::string& r : w.co.texts()) s += "  co " + r + "\n";
  return s;
}

}  // namespace

std::string render_text(const MappingCheck& m) {
  const CompileCheck& c = m.outcomes;
  std::string s = fmt::format("cuda-check {} ({})\n", c.ptx_test, c.ptx_file);
  s += fmt::format("Source {} outcome(s) under {}; PTX {} outcome(s) under {}\n", c.ptx_outcomes,
                   c.ptx_model, c.compiled_outcomes, c.compiled_model);
  if (m.race) {
    s += fmt::format("Race: {} and {}\n", m.race->first, m.race->second);
    if (!m.race->why.empty()) s += indented(m.race->why);
    s += "In this execution of the source:\n" + execution_text(m.race->execution);
    s += "Result racy: the source has undefined behaviour (a heterogeneous race)\n";
    return s;
  }
  for (const Miscompilation& x : c.miscompilations) {
    s += fmt::format("\nMISCOMPILED: the PTX reaches {}, which the source forbids.\n",
                     x.compiled_outcome);
    s += "The PTX execution:\n" + execution_text(x.compiled_execution);
    s += "Why the source forbids it:\n" + indented(render_text(x.ptx));
  }
  for (const Miscompilation& x : m.thin_air)
    s += fmt::format(
        "Note: the PTX reaches {}, which the source forbids only by No-Thin-Air ({}): load "
        "buffering, allowed by PTX\n",
        x.compiled_outcome, kThinAirCheck);
  s += c.miscompilations.empty()
           ? "Result mapping ok: every PTX outcome is a source outcome\n"
           : fmt::format("Result MISCOMPILED: {} PTX outcome(s) the source forbids\n",
                         c.miscompilations.size());
  return s;
}

Json json_of(const MappingCheck& m) {
  const CompileCheck& c = m.outcomes;
  auto outcome = [](const Miscompilation& x) {
    return Json::object()
        .set("outcome", x.compiled_outcome)
        .set("ptx_execution", Json::object()
                                  .set("rf", Json::strings(x.compiled_execution.rf.texts()))
                                  .set("co", Json::strings(x.compiled_execution.co.texts())))
        .set("source_axioms", Json::strings(x.ptx.axioms));
  };
  Json o = Json::object();
  o.set("test", c.ptx_test).set("file", c.ptx_file);
  o.set("source_model", c.ptx_model).set("ptx_model", c.compiled_model);
  o.set("source_outcomes", c.ptx_outcomes).set("ptx_outcomes", c.compiled_outcomes);
  Json bad = Json::array();
  for (const Miscompilation& x : c.miscompilations) bad.push(outcome(x));
  o.set("miscompilations", std::move(bad));
  Json lb = Json::array();
  for (const Miscompilation& x : m.thin_air) lb.push(outcome(x));
  o.set("thin_air_only", std::move(lb));
  if (m.race)
    o.set("race", Json::object()
                      .set("first", m.race->first)
                      .set("second", m.race->second)
                      .set("why", m.race->why)
                      .set("rf", Json::strings(m.race->execution.rf.texts()))
                      .set("co", Json::strings(m.race->execution.co.texts())));
  o.set("verdict", m.verdict());
  o.set("time", Json::number(c.seconds, 2));
  return o;
}

}  // namespace redscope
