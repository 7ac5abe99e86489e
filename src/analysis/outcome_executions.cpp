// Every allowed execution of one outcome (outcome_executions.hpp).
#include "redscope/analysis/outcome_executions.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "analysis/execution_words.hpp"
#include "analysis/read_values.hpp"
#include "redscope/core/diagnostic.hpp"
#include "redscope/core/expr.hpp"
#include "redscope/core/types.hpp"
#include "redscope/engine/enumerate/enumerate.hpp"

namespace redscope {

namespace {

struct Enough {};  // `limit` executions found: ends the search

// The values an execution's outcome may give each observable: one for a
// register, one per co-maximal executed write for a location.
std::vector<std::vector<std::uint64_t>> outcome_choices(const EnumCandidate& c,
                                                        const std::vector<Observable>& obs) {
  const Skeleton& sk = c.sk;
  ReadValues values(c.rf, sk);
  const auto eval = [&](const ExprPtr& e) {
    return evaluate(e, [&](ReadRef r) { return values.of_read(sk.vertex(r)); });
  };
  std::vector<std::vector<std::uint64_t>> out(obs.size());
  for (std::size_t i = 0; i < obs.size(); ++i) {
    const Observable& o = obs[i];
    if (o.is_register) {
      const auto it = sk.final_regs.find(o.reg);
      out[i].push_back(it == sk.final_regs.end()
                           ? 0
                           : eval(make_resize(it->second, width_of(o.type), is_signed(o.type))));
      continue;
    }
    for (EventId w = 0; w < sk.size(); ++w)
      if (sk.ev(w).is_write() && sk.ev(w).loc == o.loc && c.executed[w] && c.co.row_empty(w))
        out[i].push_back(o.view(eval(sk.ev(w).value)));
  }
  return out;
}

// Whether some outcome of the choices (one value per observable) has the
// wanted values (index -> text) and passes the test's filter.
bool gives(const std::vector<std::vector<std::uint64_t>>& choices,
           const std::vector<Observable>& obs, const std::vector<std::optional<std::string>>& want,
           const LitmusTest& test) {
  std::vector<std::uint64_t> v(obs.size());
  const auto walk = [&](auto&& self, std::size_t i) -> bool {
    if (i == obs.size()) {
      std::vector<std::uint64_t> ended = v;
      clear_ended(obs, ended);
      for (std::size_t k = 0; k < obs.size(); ++k)
        if (want[k] && format_value(ended[k], obs[k].type) != *want[k]) return false;
      return !test.filter || eval_condition(*test.filter, obs, ended);
    }
    for (std::uint64_t x : choices[i]) {
      v[i] = x;
      if (self(self, i + 1)) return true;
    }
    return false;
  };
  return walk(walk, 0);
}

}  // namespace

OutcomeExecutions outcome_executions(const LitmusTest& test, const EngineOptions& opts,
                                     const std::map<std::string, std::string>& values,
                                     std::size_t limit) {
  const Expansion ex = expand(test, opts.expand);
  const std::vector<Observable> obs = observables_of(test, ex, opts.observe_all);
  std::vector<std::optional<std::string>> want(obs.size());
  for (const auto& entry : values) {
    const std::string& label = entry.first;  // not a structured binding: clang 14's lambdas
    const auto it =
        std::find_if(obs.begin(), obs.end(), [&](const Observable& o) { return o.label == label; });
    if (it == obs.end())
      throw InputError(
          Diagnostic{test.file, test.condition_loc,
                     fmt::format("the outcome names {}, which the test does not observe", label)});
    want[static_cast<std::size_t>(it - obs.begin())] = entry.second;
  }
  OutcomeExecutions out;
  std::set<std::tuple<std::size_t, std::vector<std::string>, std::vector<std::string>>> seen;
  LitmusTest t = test;
  t.filter.reset();  // applied above, on each execution's outcome
  EngineOptions o = search_options(opts);
  o.on_execution = [&](const EnumCandidate& c) {
    if (!gives(outcome_choices(c, obs), obs, want, test)) return false;
    std::size_t path = 0;
    while (path < out.paths.size() && !same_path(out.paths[path], c.sk)) ++path;
    if (path == out.paths.size()) out.paths.push_back(c.sk);
    Witness w = witness_words(c.sk, c.executed, c.rf, c.co);
    w.skeleton = path;
    // Executions that differ only in the order of their fence.sc (sf) or
    // barrier arrivals show the same rf and co: listed once.
    if (!seen.insert({path, w.rf.texts(), w.co.texts()}).second) return false;
    out.executions.push_back({path, std::move(w)});
    if (out.executions.size() >= limit) throw Enough{};
    return false;  // no outcomes: none is asked for
  };
  try {
    (void)run_enum(t, o);
  } catch (const Enough&) {
    out.complete = false;
  }
  return out;
}

}  // namespace redscope
