#include "engine/enumerate/estimate.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "engine/enumerate/symmetry.hpp"
#include "redscope/engine/engine.hpp"
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

// log of the enumerator's choices on one skeleton before pruning.
double log_candidates(const Skeleton& sk, const std::vector<Observable>& obs) {
  const cat::StaticPrimitives prims = cat::static_primitives(sk);
  const BitRel& ms = prims.rel("ms");
  double lc = 0;
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
    if (ev.is_read()) lc += std::log(static_cast<double>(std::max<std::size_t>(writes[ev.loc], 1)));
    if (ev.is_sc_fence()) {
      for (EventId f : fences) lc += ms.has(f, e) ? std::log(2.0) : 0.0;
      fences.push_back(e);
    }
  }
  for (const auto& [loc, ws] : cells) {
    bool sequence = true;
    for (EventId a : ws)
      for (EventId b : ws) sequence = sequence && (a == b || ms.has(a, b));
    const double pairs = static_cast<double>(ws.size() * (ws.size() - 1) / 2);
    if (!sequence) {
      lc += pairs * std::log(3.0);
      continue;
    }
    // A sequence keeps each thread's own writes in program order: the
    // orders are the interleavings of the threads' chains.
    std::map<ThreadId, std::size_t> per_thread;
    for (EventId w : ws) ++per_thread[sk.ev(w).thread];
    lc += log_factorial(ws.size());
    for (const auto& [t, k] : per_thread) lc -= log_factorial(k);
  }
  for (const auto& g : enumerate::thread_classes(sk, obs).groups) lc -= log_factorial(g.size());
  return std::max(lc, 0.0);
}

// log of a bound on the outcomes of one skeleton: each observable takes a
// value of its value set (a register: a combination of its reads' values).
double log_outcomes(const Skeleton& sk, const std::vector<Observable>& obs) {
  const ValueSets vs = value_sets(sk);
  const double unknown = std::log(1e6);
  auto set_size = [&](EventId e) {
    return vs[e] ? std::log(static_cast<double>(std::max<std::size_t>(vs[e]->size(), 1))) : unknown;
  };
  double lo = 0;
  for (const Observable& o : obs) {
    double l = 0;
    if (o.is_register) {
      const auto it = sk.final_regs.find(o.reg);
      if (it != sk.final_regs.end())
        for (const ReadRef& r : reads_of(it->second)) l += set_size(sk.vertex(r));
    } else {
      std::set<std::uint64_t> values;
      bool known = true;
      for (EventId e = 0; e < sk.size(); ++e)
        if (sk.ev(e).is_write() && sk.ev(e).loc == o.loc) {
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
  for (const Skeleton& sk : ex.skeletons) {
    const double c = std::exp(log_candidates(sk, obs));
    e.candidates += c;
    e.work += c * enumerate::size_factor(sk.size());
  }
  if (e.work > outcomes_from)
    for (const Skeleton& sk : ex.skeletons) e.outcomes += std::exp(log_outcomes(sk, obs));
  return e;
}

}  // namespace redscope
