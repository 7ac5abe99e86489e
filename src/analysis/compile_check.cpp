// compile-check: every outcome of the SASS translation must be an outcome
// of the PTX test (include/redscope/analysis/compile_check.hpp).
#include "redscope/analysis/compile_check.hpp"

#include <fmt/format.h>

#include <chrono>
#include <functional>
#include <map>
#include <set>

#include "redscope/core/json.hpp"

namespace redscope {

namespace {

[[noreturn]] void fail(const LitmusTest& t, SourceLoc at, std::string msg) {
  throw InputError(Diagnostic{t.file, at, std::move(msg)});
}

// The observed terms of `t` in pairing order: `locations`, the condition,
// the filter; registers per thread by first appearance, locations by name.
struct Observed {
  std::vector<std::vector<const CondTerm*>> regs;  // per thread
  std::set<std::string> locs;
  std::map<std::string, SourceLoc> loc_at;
};

Observed observed(const LitmusTest& t) {
  Observed o;
  o.regs.resize(t.threads.size());
  auto add = [&](const CondTerm& term) {
    if (term.kind == CondTerm::Kind::Loc) {
      o.locs.insert(term.name);
      o.loc_at.emplace(term.name, term.loc);
    }
    if (term.kind != CondTerm::Kind::Reg || term.thread < 0) return;
    auto& v = o.regs.at(static_cast<std::size_t>(term.thread));
    for (const CondTerm* p : v)
      if (p->name == term.name) return;
    v.push_back(&term);
  };
  std::function<void(const CondExpr&)> walk = [&](const CondExpr& e) {
    if (e.kind == CondExpr::Kind::Cmp) {
      add(e.lhs);
      add(e.rhs);
    }
    for (const CondExpr& k : e.kids) walk(k);
  };
  for (const CondTerm& term : t.locations) add(term);
  walk(t.condition);
  if (t.filter) walk(*t.filter);
  return o;
}

std::vector<ObservablePair> pair_up(const LitmusTest& ptx, const LitmusTest& compiled) {
  if (ptx.threads.size() != compiled.threads.size())
    fail(compiled, {1, 1},
         fmt::format("the SASS test has {} thread(s) and the PTX test {} ({}): threads pair by "
                     "position",
                     compiled.threads.size(), ptx.threads.size(), ptx.file));
  const Observed a = observed(ptx), b = observed(compiled);
  std::vector<ObservablePair> out;
  for (std::size_t k = 0; k < a.regs.size(); ++k) {
    if (a.regs[k].size() != b.regs[k].size())
      fail(compiled, compiled.condition_loc,
           fmt::format("{} observes {} register(s) here and {} in the PTX test ({}); the "
                       "registers of a thread pair in order of first appearance",
                       compiled.threads[k].name, b.regs[k].size(), a.regs[k].size(), ptx.file));
    for (std::size_t i = 0; i < a.regs[k].size(); ++i)
      out.push_back({ptx.threads[k].name + ":" + a.regs[k][i]->name,
                     compiled.threads[k].name + ":" + b.regs[k][i]->name});
  }
  for (const std::string& x : a.locs) {
    if (!b.locs.count(x))
      fail(compiled, compiled.condition_loc,
           fmt::format("the PTX test ({}) observes location {}, which the SASS test does not",
                       ptx.file, x));
    out.push_back({x, x});
  }
  for (const std::string& x : b.locs)
    if (!a.locs.count(x))
      fail(compiled, b.loc_at.at(x),
           fmt::format("location {} is observed here but not in the PTX test ({})", x, ptx.file));
  return out;
}

std::size_t index_of(const TestResult& r, const std::string& label) {
  for (std::size_t i = 0; i < r.observables.size(); ++i)
    if (r.observables[i].label == label) return i;
  throw std::logic_error("compile-check: an observable without a column: " + label);
}

// The PTX outcome vector a SASS outcome stands for (bits cut to the PTX width).
std::vector<std::uint64_t> translate(const TestResult& p, const TestResult& s,
                                     const std::vector<ObservablePair>& pairs, const Outcome& o) {
  std::vector<std::uint64_t> v(p.observables.size(), 0);
  for (const ObservablePair& pr : pairs) {
    const std::size_t i = index_of(p, pr.ptx);
    const unsigned w = width_of(p.observables[i].type);
    const std::uint64_t bits = o.values[index_of(s, pr.compiled)];
    v[i] = w >= 64 ? bits : bits & ((1ULL << w) - 1);
  }
  return v;
}

TestResult complete_result(const LitmusTest& t, const EngineOptions& opts, const TestRunner& run) {
  TestResult r = run(t, opts);
  if (r.error) throw InputError(Diagnostic{t.file, {}, *r.error});
  if (r.incomplete.total())
    throw InputError(Diagnostic{
        t.file,
        {},
        "some executions are cut by --unroll or hang at a barrier: raise --unroll so that the "
        "outcome sets compared are complete"});
  return r;
}

}  // namespace

std::string outcome_text(const std::vector<Observable>& obs, const std::vector<std::uint64_t>& v) {
  std::string s;
  for (std::size_t i = 0; i < obs.size(); ++i)
    s += fmt::format("{}{}={}", s.empty() ? "" : "; ", obs[i].label,
                     format_value(v[i], obs[i].type));
  return s;
}

CompileCheck compile_check(const LitmusTest& ptx, const LitmusTest& compiled,
                           const EngineOptions& opts, const TestRunner& run) {
  const auto t0 = std::chrono::steady_clock::now();
  CompileCheck c;
  c.ptx_test = ptx.name;
  c.compiled_test = compiled.name;
  c.ptx_file = ptx.file;
  c.compiled_file = compiled.file;
  c.pairs = pair_up(ptx, compiled);
  EngineOptions o = opts;
  o.observe_all = false;
  const TestResult p = complete_result(ptx, o, run);
  const TestResult s = complete_result(compiled, o, run);
  c.ptx_model = model_name(p.model, p.model_file);
  c.compiled_model = model_name(s.model, s.model_file);
  c.ptx_outcomes = p.outcomes.size();
  c.compiled_outcomes = s.outcomes.size();
  std::set<std::vector<std::uint64_t>> allowed;
  for (const Outcome& x : p.outcomes) allowed.insert(x.values);
  for (const Outcome& x : s.outcomes) {
    const std::vector<std::uint64_t> v = translate(p, s, c.pairs, x);
    if (allowed.count(v)) continue;
    Miscompilation m;
    m.compiled_outcome = outcome_text(s.observables, x.values);
    m.ptx_outcome = outcome_text(p.observables, v);
    m.compiled_execution = x.witness;
    m.ptx = explain(ptx, o, ExplainRequest{m.ptx_outcome});
    c.miscompilations.push_back(std::move(m));
  }
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return c;
}

std::string render_text(const CompileCheck& c) {
  std::string s = fmt::format("Compile-check {} ({}, {}) -> {} ({}, {})\n", c.ptx_test, c.ptx_file,
                              c.ptx_model, c.compiled_test, c.compiled_file, c.compiled_model);
  std::string pairs;
  for (const ObservablePair& p : c.pairs)
    pairs += fmt::format("{}{} = {}", pairs.empty() ? "" : ", ", p.ptx, p.compiled);
  s += fmt::format("Pairs {}\n", pairs.empty() ? "(none)" : pairs);
  s += fmt::format("Outcomes PTX {}, SASS {}\n", c.ptx_outcomes, c.compiled_outcomes);
  for (const Miscompilation& m : c.miscompilations) {
    s += fmt::format(
        "\nMiscompilation: the SASS reaches {}, that is {}, which the PTX model "
        "forbids.\n",
        m.compiled_outcome, m.ptx_outcome);
    s += "The SASS execution:\n";
    for (const std::string& r : m.compiled_execution.rf) s += "  rf " + r + "\n";
    for (const std::string& r : m.compiled_execution.co) s += "  co " + r + "\n";
    s += "Why the PTX model forbids it:\n";
    std::string why = render_text(m.ptx);
    for (std::size_t a = 0; a < why.size();) {
      const std::size_t e = why.find('\n', a);
      const std::size_t end = e == std::string::npos ? why.size() : e;
      s += "  " + why.substr(a, end - a) + "\n";
      a = end + 1;
    }
  }
  s += c.miscompilations.empty()
           ? "Result OK: every SASS outcome is a PTX outcome\n"
           : fmt::format("Result MISCOMPILED: {} SASS outcome(s) the PTX model forbids\n",
                         c.miscompilations.size());
  s += fmt::format("Time {:.2f}\n", c.seconds);
  return s;
}

std::string render_json(const CompileCheck& c) {
  Json o = Json::object();
  o.set("ptx",
        Json::object().set("test", c.ptx_test).set("file", c.ptx_file).set("model", c.ptx_model));
  o.set("sass", Json::object()
                    .set("test", c.compiled_test)
                    .set("file", c.compiled_file)
                    .set("model", c.compiled_model));
  Json pairs = Json::array();
  for (const ObservablePair& p : c.pairs)
    pairs.push(Json::object().set("ptx", p.ptx).set("sass", p.compiled));
  o.set("pairs", std::move(pairs));
  o.set("ptx_outcomes", c.ptx_outcomes).set("sass_outcomes", c.compiled_outcomes);
  Json bad = Json::array();
  for (const Miscompilation& m : c.miscompilations)
    bad.push(
        Json::object()
            .set("sass_outcome", m.compiled_outcome)
            .set("ptx_outcome", m.ptx_outcome)
            .set("sass_execution", Json::object()
                                       .set("rf", Json::strings(m.compiled_execution.rf.texts()))
                                       .set("co", Json::strings(m.compiled_execution.co.texts())))
            .set("ptx_axioms", Json::strings(m.ptx.axioms)));
  o.set("miscompilations", std::move(bad));
  o.set("verdict", c.miscompilations.empty() ? "ok" : "miscompiled");
  o.set("time", Json::number(c.seconds, 2));
  return o.dump(Json::Layout::Line) + "\n";
}

}  // namespace redscope
