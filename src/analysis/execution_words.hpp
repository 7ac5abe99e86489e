// An execution the enumerator hands over (an EnumCandidate, or one kept as a
// ChosenExecution) in the terms the analyses share: which path of the test
// it is on, and its witness as run's JSON writes one. Private to
// src/analysis (execution searches, explain and every execution of an
// outcome on the enumerator).
#pragma once

#include <vector>

#include "redscope/engine/engine.hpp"
#include "redscope/engine/z3/query.hpp"
#include "redscope/events/events.hpp"
#include "redscope/results/results.hpp"

namespace redscope {

// The options of a search that looks at each execution (through
// EngineOptions::on_execution) and makes no outcome: the enumerator, on one
// thread (facts name threads), no listing.
inline EngineOptions search_options(const EngineOptions& opts) {
  EngineOptions o = opts;
  o.engine = EngineKind::Enum;
  o.verdict_only = false;
  o.listing.reset();
  o.workers = 1;
  return o;
}

// Whether two skeletons are one path of a test (the enumerator expands the
// test itself; the expansion is deterministic, event ids match).
inline bool same_path(const Skeleton& a, const Skeleton& b) {
  if (a.size() != b.size()) return false;
  for (EventId e = 0; e < a.size(); ++e) {
    const Event& x = a.ev(e);
    const Event& y = b.ev(e);
    if (x.kind != y.kind || x.thread != y.thread || x.po_index != y.po_index || x.loc != y.loc ||
        x.text != y.text || x.in_rmw != y.in_rmw)
      return false;
  }
  return true;
}

// rf in the order of reads, co by source then target (init writes left
// out), as the enumerator's outcomes list them.
inline Witness witness_words(const Skeleton& sk, const std::vector<bool>& executed,
                             const BitRel& rf, const BitRel& co) {
  Witness w;
  for (EventId r = 0; r < sk.size(); ++r)
    for (EventId a = 0; a < sk.size() && sk.ev(r).is_read() && executed[r]; ++a)
      if (rf.has(a, r)) w.rf.push_back(witness_label(sk, a) + " -> " + witness_label(sk, r));
  for (EventId a = 0; a < sk.size(); ++a)
    for (EventId b = 0; b < sk.size() && !sk.ev(a).is_init; ++b)
      if (co.has(a, b)) w.co.push_back(witness_label(sk, a) + " -> " + witness_label(sk, b));
  return w;
}

}  // namespace redscope
