#include "engine/enumerate/split_plan.hpp"

#include <map>

#include "engine/enumerate/symmetry.hpp"
#include "redscope/model/split.hpp"

namespace redscope::enumerate {

namespace {

// The single part the reads of `e` belong to: -1 for none, -2 for several.
int part_of_reads(const Skeleton& sk, const ExprPtr& e, const std::vector<int>& part) {
  int p = -1;
  for (const ReadRef& r : reads_of(e)) {
    const int q = part[sk.vertex(r)];
    if (p != -1 && q != p) return -2;
    p = q;
  }
  return p;
}

// What the product cannot carry (split_plan's first list), or fewer than
// two locations with a choice: a read and a write besides the initial one,
// or two such writes (one thread's stores to 1,000 locations is one
// candidate: no question to ask of the model).
bool searched_whole(const Skeleton& sk, const std::vector<Observable>& obs,
                    const EngineOptions& opts) {
  if (!opts.split_by_location || opts.on_execution || !sk.assumptions.empty() ||
      has_status_observable(obs))
    return true;
  struct Count {
    std::size_t reads = 0, writes = 0;
  };
  std::map<std::string, Count> locs;
  for (EventId e = 0; e < sk.size(); ++e) {
    const Event& ev = sk.ev(e);
    if (ev.guard || ev.is_barrier() || ev.is_sc_fence()) return true;
    if (ev.is_read()) ++locs[ev.loc].reads;
    if (ev.is_write() && !ev.is_init) ++locs[ev.loc].writes;
  }
  std::size_t chosen = 0;
  for (const auto& [loc, c] : locs)
    chosen += (c.writes >= 2 || (c.writes >= 1 && c.reads >= 1)) ? 1 : 0;
  return chosen < 2 || thread_classes(sk, obs, opts.budget).any();
}

}  // namespace

std::optional<SplitPlan> split_plan(const Skeleton& sk, const std::vector<Observable>& obs,
                                    const cat::Model& m, const std::vector<std::string>& variants,
                                    const EngineOptions& opts,
                                    const cat::StaticPrimitives& statics) {
  if (searched_whole(sk, obs, opts)) return std::nullopt;
  const std::size_t n = sk.size();
  SplitPlan plan;
  std::map<std::string, int> part_of_loc;
  for (EventId e = 0; e < n; ++e)
    if (sk.ev(e).is_memory()) part_of_loc.emplace(sk.ev(e).loc, 0);
  for (auto& [loc, p] : part_of_loc) {
    p = plan.parts++;
    plan.locs.push_back(loc);
  }
  plan.part_of_event.assign(n, -1);
  for (EventId e = 0; e < n; ++e)
    if (sk.ev(e).is_memory()) plan.part_of_event[e] = part_of_loc.at(sk.ev(e).loc);
  // A written value reads its own location only (values follow rf part by part).
  for (EventId e = 0; e < n; ++e) {
    const Event& ev = sk.ev(e);
    if (!ev.is_write() || !ev.value) continue;
    const int p = part_of_reads(sk, ev.value, plan.part_of_event);
    if (p != -1 && p != plan.part_of_event[e]) return std::nullopt;
  }
  for (const Observable& o : obs) {
    int p = -1;
    if (o.is_register) {
      const auto it = sk.final_regs.find(o.reg);
      if (it != sk.final_regs.end()) p = part_of_reads(sk, it->second, plan.part_of_event);
      if (p == -2) return std::nullopt;
    } else if (const auto it = part_of_loc.find(o.loc); it != part_of_loc.end()) {
      p = it->second;
    }
    plan.part_of_obs.push_back(p);
  }
  // Events without a location (fences) are parts of their own for the rule.
  cat::SplitQuestion q{statics, {}, plan.part_of_event, opts.budget};
  for (EventId e = 0; e < n; ++e)
    if (q.part[e] < 0) q.part[e] = plan.parts + static_cast<int>(e);
  BitRel rf_hi(n), co_lo(n), co_hi(n);
  for (EventId a = 0; a < n; ++a)
    for (EventId b = 0; b < n; ++b) {
      const Event &x = sk.ev(a), &y = sk.ev(b);
      if (!x.is_write() || !y.is_memory() || x.loc != y.loc || a == b) continue;
      if (y.is_read()) rf_hi.set(a, b);
      if (y.is_write() && !y.is_init) (x.is_init ? co_lo : co_hi).set(a, b);
    }
  co_hi |= co_lo;
  q.choices.push_back({"rf", BitRel(n), rf_hi});
  q.choices.push_back({"co", co_lo, co_hi});
  q.choices.push_back({"sf", BitRel(n), BitRel(n)});
  q.choices.push_back({"sync_barrier", BitRel(n), BitRel(n)});
  if (!cat::checks_split(
          m, variants, [&](std::string_view a) { return opts.enables(a); }, q))
    return std::nullopt;
  return plan;
}

}  // namespace redscope::enumerate
