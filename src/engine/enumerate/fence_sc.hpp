// The Fence-SC orders of one candidate whose rf and co are fixed (a leaf of
// the pruning search): the acyclic orientations of its morally strong
// fence.sc pairs (PTX ISA 8.9.4: Fence-SC order "is an acyclic partial
// order ... that relates every pair of morally strong fence.sc"), searched
// as the search makes its other choices, on partial orders evaluated as
// intervals (cat_eval.hpp). The search's own thread runs it on the search's
// evaluator; with workers, a job runs it on an evaluator of its own.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "redscope/core/bitrel.hpp"
#include "redscope/model/cat_eval.hpp"

namespace redscope::enumerate {

using FencePairs = std::vector<std::pair<std::size_t, std::size_t>>;

class FenceScOrders {
 public:
  // `sf`, `sf_hi`: the caller's partial order and what it may still become
  // (every pair both ways); `barrier_hi`: what sync_barrier may become.
  // Each is set in `eval` before every check.
  FenceScOrders(cat::Evaluator& eval, std::size_t sf_slot, std::size_t barrier_slot,
                const BitRel& barrier_hi, BitRel& sf, BitRel& sf_hi)
      : eval_(eval),
        sf_slot_(sf_slot),
        barrier_slot_(barrier_slot),
        barrier_hi_(barrier_hi),
        sf_(sf),
        sf_hi_(sf_hi) {}

  // With rf and co set in the evaluator: calls `tick()` for each complete
  // order and `complete()` with it exact in the evaluator, until
  // `complete()` says the outcome is recorded (one order that gives it is
  // enough). Before branching, each pair is tried both ways on its own: a
  // pair that fails both ways cuts the candidate at once (two readers that
  // saw two writes in opposite orders), one that fails one way is fixed the
  // other; the rest are branched on.
  template <class Tick, class Complete>
  void run(const FencePairs& pairs, Tick tick, Complete complete) {
    set_partial();
    if (!check()) return;
    open_.clear();
    FencePairs fixed;
    bool dead = false;
    for (const auto& [a, b] : pairs) {
      const bool ok_ab = try_alone(a, b), ok_ba = try_alone(b, a);
      if (!ok_ab && !ok_ba) {
        dead = true;
        break;
      }
      if (ok_ab && ok_ba) {
        open_.emplace_back(a, b);
        continue;
      }
      fixed.emplace_back(ok_ab ? a : b, ok_ab ? b : a);
      orient(fixed.back(), true);
    }
    set_partial();
    if (!dead && sf_.acyclic() && check()) choose(0, tick, complete);
    for (const auto& p : fixed) orient(p, false);
    set_partial();
  }

 private:
  template <class Tick, class Complete>
  bool choose(std::size_t k, Tick& tick, Complete& complete) {
    if (k == open_.size()) {
      tick();
      eval_.exact(sf_slot_);
      eval_.exact(barrier_slot_);
      const bool recorded = complete();
      set_partial();
      return recorded;
    }
    const auto [a, b] = open_[k];
    for (const auto& p : {std::pair{a, b}, std::pair{b, a}}) {
      orient(p, true);
      bool recorded = false;
      if (sf_.acyclic()) {
        set_partial();
        recorded = check() && choose(k + 1, tick, complete);
      }
      orient(p, false);
      if (recorded) return true;
    }
    set_partial();
    return false;
  }

  bool try_alone(std::size_t x, std::size_t y) {
    orient({x, y}, true);
    set_partial();
    const bool ok = sf_.acyclic() && check();
    orient({x, y}, false);
    return ok;
  }

  // x before y (`on`), or the pair open again.
  void orient(std::pair<std::size_t, std::size_t> p, bool on) {
    sf_.set(p.first, p.second, on);
    sf_hi_.set(p.second, p.first, !on);
  }

  void set_partial() {
    eval_.rel(sf_slot_) = sf_;
    eval_.upper(sf_slot_) = sf_hi_;
    eval_.rel(barrier_slot_) = BitRel(sf_.size());
    eval_.upper(barrier_slot_) = barrier_hi_;
  }

  bool check() {
    eval_.update_touched();
    return eval_.consistent();
  }

  cat::Evaluator& eval_;
  std::size_t sf_slot_, barrier_slot_;
  const BitRel& barrier_hi_;
  BitRel& sf_;
  BitRel& sf_hi_;
  FencePairs open_;  // the pairs left open after probing
};

}  // namespace redscope::enumerate
