#include "engine/enumerate/estimate.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "engine/enumerate/split_plan.hpp"
#include "engine/enumerate/symmetry.hpp"
#include "redscope/core/budget.hpp"
#include "redscope/engine/engine.hpp"
#include "redscope/engine/enumerate/enumerate.hpp"
#include "redscope/events/value_sets.hpp"
#include "redscope/model/primitives.hpp"

namespace redscope {

namespace enumerate {

double size_factor(std::size_t n) {
  const double r = static_cast<double>(n) / 32.0;
  return std::max(1.0, r * r * r);
}

}  // namespace enumerate

namespace {

double log_factorial(std::size_t k) { return std::lgamma(static_cast<double>(k) + 1.0); }

// Every two of the writes `ws` are morally strong (cat::ms_clause), decided
// in O(w log w) rather than w² pairs (20,000 stores to one cell: issue 28).
// The clauses before SameThread hold for every pair; with two threads or
// more, every write meets one of another thread, so each must be strong and
// its scope must contain every writing thread (scope_includes: the writing
// threads share one domain of that scope).
bool all_morally_strong(const Skeleton& sk, const std::vector<EventId>& ws) {
  if (ws.size() < 2) return true;
  const Event& first = sk.ev(ws.front());
  std::set<ThreadId> threads;
  for (EventId w : ws) {
    const Event& e = sk.ev(w);
    if (e.is_init || e.proxy_fence || e.proxy != first.proxy || e.vloc != first.vloc) return false;
    threads.insert(e.thread);
  }
  if (threads.size() == 1) return true;
  std::set<std::pair<int, int>> ctas, clusters;
  std::set<int> gpus;
  for (ThreadId t : threads) {
    const Placement& p = sk.placement[static_cast<std::size_t>(t)];
    ctas.emplace(p.gpu, p.cta);
    clusters.emplace(p.gpu, p.cluster);
    gpus.insert(p.gpu);
  }
  return std::all_of(ws.begin(), ws.end(), [&](EventId w) {
    const Event& e = sk.ev(w);
    if (!e.is_strong()) return false;
    switch (e.scope) {
      case Scope::Cta: return ctas.size() == 1;
      case Scope::Cluster: return clusters.size() == 1;
      case Scope::Gpu: return gpus.size() == 1;
      case Scope::Sys: return true;
    }
    return false;
  });
}

// log of the enumerator's choices on one skeleton before pruning: each
// location's (its reads' sources and its cell's orders) and the rest (the
// Fence-SC pairs, less the interchangeable threads' orders). Moral
// strength is decided per pair it needs (writes to one cell, Fence-SC
// pairs), not as an n x n relation: the estimate makes no input-sized
// matrix, and checks the budget in its loops (issue 28).
struct LogChoices {
  std::map<std::string, double> per_loc;
  double rest = 0;
  double whole() const {
    double lc = rest;
    for (const auto& [loc, l] : per_loc) lc += l;
    return std::max(lc, 0.0);
  }
  // Split by location (split_plan.hpp): a search per observed location,
  // the others held at the base candidate's choices.
  double split(const enumerate::SplitPlan& plan) const {
    double c = 1;  // the base candidate
    for (int p : std::set<int>(plan.part_of_obs.begin(), plan.part_of_obs.end())) {
      if (p < 0) continue;
      const auto it = per_loc.find(plan.locs[static_cast<std::size_t>(p)]);
      if (it != per_loc.end()) c += std::exp(it->second);
    }
    return c;
  }
};

LogChoices log_candidates(const Skeleton& sk, const std::vector<Observable>& obs,
                          const Budget* budget) {
  LogChoices lc;
  std::map<std::string, std::vector<EventId>> cells;
  std::map<std::string, std::size_t> writes;
  for (EventId e = 0; e < sk.size(); ++e) {
    const Event& ev = sk.ev(e);
    if (ev.is_write()) ++writes[ev.loc];
    if (ev.is_write() && !ev.is_init) cells[ev.loc].push_back(e);
  }
  std::vector<EventId> fences;
  for (EventId e = 0; e < sk.size(); ++e) {
    const Event& ev = sk.ev(e);
    if (ev.is_read())
      lc.per_loc[ev.loc] += std::log(static_cast<double>(std::max<std::size_t>(writes[ev.loc], 1)));
    if (ev.is_sc_fence()) {
      check(budget);
      for (EventId f : fences) lc.rest += cat::morally_strong(sk, f, e) ? std::log(2.0) : 0.0;
      fences.push_back(e);
    }
  }
  for (const auto& [loc, ws] : cells) {
    check(budget);
    const bool sequence = all_morally_strong(sk, ws);
    const double pairs = static_cast<double>(ws.size() * (ws.size() - 1) / 2);
    if (!sequence) {
      lc.per_loc[loc] += pairs * std::log(3.0);
      continue;
    }
    // A sequence keeps each thread's own writes in program order: the
    // orders are the interleavings of the threads' chains.
    std::map<ThreadId, std::size_t> per_thread;
    for (EventId w : ws) ++per_thread[sk.ev(w).thread];
    lc.per_loc[loc] += log_factorial(ws.size());
    for (const auto& [t, k] : per_thread) lc.per_loc[loc] -= log_factorial(k);
  }
  for (const auto& g : enumerate::thread_classes(sk, obs, budget).groups)
    lc.rest -= log_factorial(g.size());
  return lc;
}

// Whole searches up to this many choices are not worth asking whether
// they split (the question evaluates the model once over n x n bits).
constexpr double kSplitFrom = 256;

// log of a bound on the outcomes of one skeleton: each observable takes a
// value of its value set (a register: a combination of its reads' values).
double log_outcomes(const Skeleton& sk, const std::vector<Observable>& obs, const Budget* budget) {
  ValueSetLimits limits;
  limits.budget = budget;
  const ValueSets vs = value_sets(sk, limits);
  const double unknown = std::log(1e6);
  auto set_size = [&](EventId e) {
    return vs[e] ? std::log(static_cast<double>(std::max<std::size_t>(vs[e]->size(), 1))) : unknown;
  };
  std::map<std::string, std::vector<EventId>> writes;  // per cell, its writes
  for (EventId e = 0; e < sk.size(); ++e)
    if (sk.ev(e).is_write()) writes[sk.ev(e).loc].push_back(e);
  double lo = 0;
  for (const Observable& o : obs) {
    check(budget);
    double l = 0;
    if (o.is_register) {
      const auto it = sk.final_regs.find(o.reg);
      if (it != sk.final_regs.end())
        for (const ReadRef& r : reads_of(it->second)) l += set_size(sk.vertex(r));
    } else {
      std::set<std::uint64_t> values;
      bool known = true;
      const auto w = writes.find(o.loc);
      for (EventId e : w == writes.end() ? std::vector<EventId>{} : w->second) {
        if (vs[e])
          values.insert(vs[e]->begin(), vs[e]->end());
        else
          known = false;
      }
      l = known ? std::log(static_cast<double>(std::max<std::size_t>(values.size(), 1))) : unknown;
    }
    lo += std::min(l, std::log(2.0) * width_of(o.type));
  }
  return lo;
}

}  // namespace

EngineEstimate estimate_engines(const LitmusTest& test, const EngineOptions& opts,
                                double outcomes_from) {
  const Expansion ex = expand(test, opts.expand);
  const std::vector<Observable> obs = observables_of(test, ex, opts.observe_all);
  EngineEstimate e;
  std::shared_ptr<const cat::Model> model;
  for (const Skeleton& sk : ex.skeletons) {
    const LogChoices lc = log_candidates(sk, obs, opts.budget);
    double c = std::exp(lc.whole());
    if (c > kSplitFrom && !sk.cut) {
      if (!model) model = model_of(opts, test);
      const std::vector<std::string> variants = opts.model_for(test)->variant_list();
      const cat::StaticPrimitives statics =
          cat::static_primitives(sk, *model, variants, opts.budget);
      if (const auto plan = enumerate::split_plan(sk, obs, *model, variants, opts, statics))
        c = std::min(c, lc.split(*plan));
    }
    e.candidates += c;
    e.work += c * enumerate::size_factor(sk.size());
  }
  if (e.work > outcomes_from)
    for (const Skeleton& sk : ex.skeletons)
      e.outcomes += std::exp(log_outcomes(sk, obs, opts.budget));
  return e;
}

}  // namespace redscope
