// The enumerator's consistency check before issue 13, frozen (moved here from
// src/engine/enumerate/enum_engine.cpp unchanged but for the candidate it reads from).
#include "oracle_ptx.hpp"
#include "redscope/engine/enumerate/enumerate.hpp"

namespace redscope::oracle {
namespace {

bool is_shared(Space s) { return s == Space::SharedCta || s == Space::SharedCluster; }

bool morally_strong(const Skeleton& sk, EventId a, EventId b) {
  const Event& x = sk.ev(a);
  const Event& y = sk.ev(b);
  if (a == b || x.is_init || y.is_init) return false;
  if (x.is_memory() && y.is_memory() && x.loc != y.loc) return false;
  if (x.thread == y.thread) return true;
  if (!x.is_strong() || !y.is_strong()) return false;
  const Placement& px = sk.placement[static_cast<std::size_t>(x.thread)];
  const Placement& py = sk.placement[static_cast<std::size_t>(y.thread)];
  return scope_includes(x.scope, px, py) && scope_includes(y.scope, py, px);
}

bool fence_ar(const Skeleton& sk, EventId e) {
  return sk.ev(e).is_fence() && (sk.ev(e).sem == Sem::AcqRel || sk.ev(e).sem == Sem::Sc);
}

PtxOracle::Statics statics(const Skeleton& sk) {
  const std::size_t n = sk.size();
  PtxOracle::Statics s{BitRel::from(po_closure(sk)),
                       BitRel(n),
                       BitRel(n),
                       BitRel::from(edge_matrix(sk, EdgeKind::Rmw)),
                       BitRel::from(edge_matrix(sk, EdgeKind::Data)) |
                           BitRel::from(edge_matrix(sk, EdgeKind::Ctrl)) |
                           BitRel::from(edge_matrix(sk, EdgeKind::Addr)),
                       BitRel(n),
                       BitRel(n)};
  for (EventId a = 0; a < n; ++a)
    for (EventId b = 0; b < n; ++b) {
      const Event& x = sk.ev(a);
      const Event& y = sk.ev(b);
      const bool same_cell = x.is_memory() && y.is_memory() && x.loc == y.loc;
      const bool poloc = s.po.has(a, b) && same_cell;
      s.poloc.set(a, b, poloc);
      s.ms.set(a, b, morally_strong(sk, a, b));
      if (y.is_write() && y.is_strong() && !y.is_init)
        s.rel_pattern.set(a, b,
                          (x.is_write() && !x.is_init && x.is_release() && (a == b || poloc)) ||
                              (fence_ar(sk, a) && s.po.has(a, b)));
      if (x.is_read() && x.is_strong())
        s.acq_pattern.set(a, b,
                          (y.is_read() && y.is_acquire() && (a == b || poloc)) ||
                              (fence_ar(sk, b) && s.po.has(a, b)));
    }
  return s;
}

bool atomicity(const EnumCandidate& c, const PtxOracle::Statics& st, const BitRel& fr) {
  const std::size_t n = c.sk.size();
  for (EventId r = 0; r < n; ++r)
    for (EventId w = 0; w < n; ++w) {
      if (!st.rmw.has(r, w)) continue;
      for (EventId x = 0; x < n; ++x) {
        if (x == w || !st.ms.has(r, x) || !st.ms.has(x, w) || !fr.has(r, x) || !c.co.has(x, w))
          continue;
        if (c.model->has_variant("sm6x") && is_shared(c.sk.ev(w).space) && !c.sk.ev(x).in_rmw)
          continue;
        return false;
      }
    }
  return true;
}

bool pairwise(const EnumCandidate& c, const PtxOracle::Statics& st, const BitRel& cause) {
  const std::size_t n = c.sk.size();
  for (EventId a = 0; a < n; ++a)
    for (EventId b = 0; b < n; ++b) {
      const Event& x = c.sk.ev(a);
      const Event& y = c.sk.ev(b);
      // Coherence: writes ordered by causality are ordered by co the same way.
      if (a != b && x.is_write() && y.is_write() && x.loc == y.loc && !x.is_init && !y.is_init &&
          cause.has(a, b) && c.executed[a] && c.executed[b] && !c.co.has(a, b))
        return false;
      // Fence-SC: causality between morally strong fence.sc agrees with the order.
      if (x.is_sc_fence() && y.is_sc_fence() && st.ms.has(a, b) && cause.has(a, b) &&
          !c.sf.has(a, b))
        return false;
    }
  return true;
}

}  // namespace

bool PtxOracle::operator()(const EnumCandidate& c) {
  auto it = statics_.find(&c.sk);
  if (it == statics_.end()) it = statics_.emplace(&c.sk, statics(c.sk)).first;
  const Statics& st = it->second;
  const std::size_t n = c.sk.size();
  BitRel exec_pairs(n);
  for (EventId a = 0; a < n; ++a)
    for (EventId b = 0; b < n; ++b) exec_pairs.set(a, b, c.executed[a] && c.executed[b]);
  const BitRel fr = c.rf.inverse().compose(c.co);
  const BitRel msrf = c.rf & st.ms;
  const BitRel obs = msrf.compose(st.rmw.compose(msrf).star());
  const BitRel sync = st.rel_pattern.compose(obs).compose(st.acq_pattern) & st.ms & exec_pairs;
  const BitRel po_refl = st.po.reflexive();
  const BitRel base = po_refl.compose((sync | c.sf | c.sync_barrier).compose(po_refl).plus());
  const BitRel cause = base | obs.compose(base | st.poloc);
  if (!pairwise(c, st, cause)) return false;
  if (!atomicity(c, st, fr)) return false;
  if (!(c.rf | st.dep).acyclic()) return false;                            // No-Thin-Air
  if (!(((c.rf | c.co | fr) & st.ms) | st.poloc).acyclic()) return false;  // SC-per-Location
  return (c.rf | fr).compose(cause).irreflexive();                         // Causality
}

}  // namespace redscope::oracle
