#include "engine/enumerate/symmetry.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <set>
#include <string>

namespace redscope::enumerate {

namespace {

// a (in thread ta) and b (in thread tb) are the same expression once ta's
// reads are renamed to tb's. Bounded: a tree too large to compare is "not
// the same" (no symmetry, never a wrong one).
bool same_expr(const ExprPtr& a, const ExprPtr& b, ThreadId ta, ThreadId tb, int& budget) {
  if (!a || !b) return !a && !b;
  if (--budget < 0) return false;
  if (a->op != b->op || a->width != b->width || a->is_signed != b->is_signed || a->cmp != b->cmp ||
      a->ffmt != b->ffmt || a->ftz != b->ftz || a->lo != b->lo || a->bits != b->bits ||
      a->kids.size() != b->kids.size())
    return false;
  if (a->op == ExprOp::Read) {
    const bool own = a->read.thread == ta;
    if (own != (b->read.thread == tb) || a->read.index != b->read.index) return false;
    if (!own && a->read.thread != b->read.thread) return false;
  }
  for (std::size_t k = 0; k < a->kids.size(); ++k)
    if (!same_expr(a->kids[k], b->kids[k], ta, tb, budget)) return false;
  return true;
}

std::size_t events_of(const Skeleton& sk, ThreadId t) {
  const std::size_t end = static_cast<std::size_t>(t) + 1 < sk.thread_base.size()
                              ? sk.thread_base[static_cast<std::size_t>(t) + 1]
                              : sk.size();
  return end - sk.thread_base[static_cast<std::size_t>(t)];
}

bool same_event(const Skeleton& sk, EventId x, EventId y, ThreadId ta, ThreadId tb, int& budget) {
  const Event& a = sk.ev(x);
  const Event& b = sk.ev(y);
  if (a.kind != b.kind || a.thread != ta || b.thread != tb || a.po_index != b.po_index ||
      a.instr != b.instr || a.element != b.element || a.loc != b.loc || a.vloc != b.vloc ||
      a.proxy != b.proxy || a.proxy_fence != b.proxy_fence ||
      a.proxy_fence_space != b.proxy_fence_space || a.async_until != b.async_until ||
      a.sem != b.sem || a.scope != b.scope || a.space != b.space || a.type != b.type ||
      a.in_rmw != b.in_rmw || a.is_init != b.is_init ||
      a.barrier_arrive_only != b.barrier_arrive_only || a.barrier_id != b.barrier_id ||
      a.quorum != b.quorum || a.text != b.text || a.guard || b.guard)
    return false;
  if (!same_expr(a.value, b.value, ta, tb, budget) ||
      !same_expr(a.barrier_logical, b.barrier_logical, ta, tb, budget))
    return false;
  // The same dependency and rmw edges, to the same positions.
  std::multiset<std::pair<int, std::size_t>> ea, eb;
  for (auto [it, end] = boost::out_edges(x, sk.graph); it != end; ++it)
    ea.emplace(static_cast<int>(sk.graph[*it].kind), boost::target(*it, sk.graph) - x);
  for (auto [it, end] = boost::out_edges(y, sk.graph); it != end; ++it)
    eb.emplace(static_cast<int>(sk.graph[*it].kind), boost::target(*it, sk.graph) - y);
  return ea == eb;
}

// Per-thread facts computed once, so that comparing two threads costs their
// own size, not the whole test's (300,000 empty threads were quadratic:
// issue 28).
struct ThreadFacts {
  using Regs = std::map<std::string, std::pair<ExprPtr, DataType>>;
  std::vector<Regs> regs;  // final value and type of each register
  std::vector<std::vector<std::pair<std::string, DataType>>> observed;
  // Where each thread sits, as same_place compares it: per level (GPU,
  // cluster, CTA), the level's key, or -1 when the thread is alone there.
  std::vector<std::array<std::int64_t, 6>> place;

  ThreadFacts(const Skeleton& sk, const std::vector<Observable>& obs) {
    const std::size_t threads = sk.placement.size();
    regs.resize(threads);
    observed.resize(threads);
    auto index = [&](ThreadId t) -> std::optional<std::size_t> {
      if (t < 0 || static_cast<std::size_t>(t) >= threads) return std::nullopt;
      return static_cast<std::size_t>(t);
    };
    for (const auto& [r, e] : sk.final_regs)
      if (const auto t = index(r.thread)) regs[*t][r.name].first = e;
    for (const auto& [r, ty] : sk.reg_types)
      if (const auto t = index(r.thread)) regs[*t][r.name].second = ty;
    for (const Observable& o : obs)
      if (o.is_register)
        if (const auto t = index(o.reg.thread)) observed[*t].emplace_back(o.reg.name, o.type);
    using Key = std::pair<std::int64_t, std::int64_t>;
    auto keys = [](const Placement& p) {
      return std::array<Key, 3>{Key{p.gpu, 0}, Key{p.gpu, p.cluster}, Key{p.gpu, p.cta}};
    };
    std::array<std::map<Key, std::size_t>, 3> count;
    for (const Placement& p : sk.placement)
      for (std::size_t l = 0; l < 3; ++l) ++count[l][keys(p)[l]];
    for (const Placement& p : sk.placement) {
      std::array<std::int64_t, 6> a{};
      for (std::size_t l = 0; l < 3; ++l) {
        const Key k = keys(p)[l];
        const bool alone = count[l][k] == 1;
        a[2 * l] = alone ? -1 : k.first;
        a[2 * l + 1] = alone ? -1 : k.second;
      }
      place.push_back(a);
    }
  }
};

// Registers (final values, types, which are observed) agree.
bool same_registers(const ThreadFacts& f, ThreadId ta, ThreadId tb, int& budget) {
  const auto& ra = f.regs[static_cast<std::size_t>(ta)];
  const auto& rb = f.regs[static_cast<std::size_t>(tb)];
  if (ra.size() != rb.size() ||
      f.observed[static_cast<std::size_t>(ta)] != f.observed[static_cast<std::size_t>(tb)])
    return false;
  for (auto ia = ra.begin(), ib = rb.begin(); ia != ra.end(); ++ia, ++ib)
    if (ia->first != ib->first || ia->second.second != ib->second.second ||
        !same_expr(ia->second.first, ib->second.first, ta, tb, budget))
      return false;
  return true;
}

// Swapping ta and tb keeps every placement relation (same CTA, cluster,
// GPU) with every other thread u: per level, either ta and tb share it or
// each is alone in its own (else some u beside one of them tells them
// apart). ThreadFacts::place holds exactly that, so it is one comparison.
bool same_place(const ThreadFacts& f, ThreadId ta, ThreadId tb) {
  return f.place[static_cast<std::size_t>(ta)] == f.place[static_cast<std::size_t>(tb)];
}

bool interchangeable(const Skeleton& sk, const ThreadFacts& f, ThreadId ta, ThreadId tb) {
  const std::size_t n = events_of(sk, ta);
  if (n != events_of(sk, tb) || !same_place(f, ta, tb)) return false;
  int budget = 100000;
  const EventId ba = sk.thread_base[static_cast<std::size_t>(ta)];
  const EventId bb = sk.thread_base[static_cast<std::size_t>(tb)];
  for (std::size_t i = 0; i < n; ++i)
    if (!same_event(sk, ba + i, bb + i, ta, tb, budget)) return false;
  return same_registers(f, ta, tb, budget);
}

// What interchangeable threads share, cheap to compute: their placement
// (same_place), their number of events and the kind and location of each.
// Threads are compared only within one signature.
std::string signature(const Skeleton& sk, const ThreadFacts& f, ThreadId t) {
  std::string s;
  for (std::int64_t v : f.place[static_cast<std::size_t>(t)]) s += std::to_string(v) + ',';
  const EventId base = sk.thread_base[static_cast<std::size_t>(t)];
  for (std::size_t i = 0; i < events_of(sk, t); ++i) {
    const Event& e = sk.ev(base + i);
    s += std::to_string(static_cast<int>(e.kind)) + ':' + e.loc + ';';
  }
  return s;
}

// A thread is compared with at most this many classes of its signature;
// past them it forms a class of its own (less symmetry, never a wrong one).
constexpr std::size_t kMaxProbes = 64;

}  // namespace

ThreadClasses thread_classes(const Skeleton& sk, const std::vector<Observable>& obs,
                             const Budget* budget) {
  const std::size_t threads = sk.placement.size();
  ThreadClasses c;
  c.class_of.resize(threads);
  for (std::size_t t = 0; t < threads; ++t) c.class_of[t] = static_cast<int>(t);
  const bool status = std::any_of(obs.begin(), obs.end(), [](const Observable& o) {
    return o.is_register && o.reg.thread == kStatusThread;
  });
  if (status || !sk.assumptions.empty() || sk.thread_base.size() != threads) return c;
  for (EventId e = 0; e < sk.size(); ++e)
    if (sk.ev(e).guard) return c;
  const ThreadFacts facts(sk, obs);
  // Interchangeability is an equivalence (a swap's conditions are pairwise
  // equalities), so comparing with each class's first thread suffices.
  std::map<std::string, std::vector<std::size_t>> classes_of;  // signature -> classes
  std::vector<ThreadId> firsts;
  std::vector<std::vector<ThreadId>> members;
  for (std::size_t t = 0; t < threads; ++t) {
    if (t % 256 == 0) check(budget);
    const auto tt = static_cast<ThreadId>(t);
    std::vector<std::size_t>& cands = classes_of[signature(sk, facts, tt)];
    std::size_t k = firsts.size();
    for (std::size_t i = 0; i < cands.size() && i < kMaxProbes; ++i)
      if (interchangeable(sk, facts, firsts[cands[i]], tt)) {
        k = cands[i];
        break;
      }
    if (k == firsts.size()) {
      cands.push_back(k);
      firsts.push_back(tt);
      members.emplace_back();
    }
    members[k].push_back(tt);
    c.class_of[t] = static_cast<int>(firsts[k]);
  }
  for (auto& m : members)
    if (m.size() > 1) c.groups.push_back(std::move(m));
  return c;
}

namespace {

struct Arranger {
  const ThreadClasses& c;
  const std::vector<Observable>& obs;
  const std::vector<std::uint64_t>& vals;
  const std::function<void(const std::vector<std::uint64_t>&, const std::vector<ThreadId>&)>& f;
  std::vector<std::vector<std::size_t>> slots;  // per thread: its observables, in order
  std::vector<ThreadId> from;
  std::vector<std::uint64_t> out;

  void run() {
    slots.resize(c.class_of.size());
    for (std::size_t i = 0; i < obs.size(); ++i)
      if (obs[i].is_register && obs[i].reg.thread >= 0 &&
          static_cast<std::size_t>(obs[i].reg.thread) < slots.size())
        slots[static_cast<std::size_t>(obs[i].reg.thread)].push_back(i);
    from.resize(c.class_of.size());
    for (std::size_t t = 0; t < from.size(); ++t) from[t] = static_cast<ThreadId>(t);
    out = vals;
    group(0);
  }

  std::vector<std::uint64_t> chunk(ThreadId t) const {
    std::vector<std::uint64_t> v;
    for (std::size_t i : slots[static_cast<std::size_t>(t)]) v.push_back(vals[i]);
    return v;
  }

  // The distinct arrangements of one class's value chunks (a multiset
  // permutation), each combined with those of the later classes.
  void group(std::size_t g) {
    if (g == c.groups.size()) {
      f(out, from);
      return;
    }
    const std::vector<ThreadId>& m = c.groups[g];
    std::vector<std::vector<std::uint64_t>> kinds;
    std::vector<std::size_t> id(m.size());
    std::vector<std::vector<ThreadId>> holders;
    for (std::size_t j = 0; j < m.size(); ++j) {
      const auto ch = chunk(m[j]);
      const auto it = std::find(kinds.begin(), kinds.end(), ch);
      id[j] = static_cast<std::size_t>(it - kinds.begin());
      if (it == kinds.end()) {
        kinds.push_back(ch);
        holders.emplace_back();
      }
      holders[id[j]].push_back(m[j]);
    }
    std::sort(id.begin(), id.end());
    do {
      std::vector<std::size_t> used(kinds.size(), 0);
      for (std::size_t j = 0; j < m.size(); ++j) {
        const ThreadId src = holders[id[j]][used[id[j]]++];
        from[static_cast<std::size_t>(m[j])] = src;
        const auto& dst = slots[static_cast<std::size_t>(m[j])];
        const auto& orig = slots[static_cast<std::size_t>(src)];
        for (std::size_t k = 0; k < dst.size(); ++k) out[dst[k]] = vals[orig[k]];
      }
      group(g + 1);
    } while (std::next_permutation(id.begin(), id.end()));
    for (ThreadId t : m) from[static_cast<std::size_t>(t)] = t;
    for (ThreadId t : m)
      for (std::size_t i : slots[static_cast<std::size_t>(t)]) out[i] = vals[i];
  }
};

}  // namespace

void for_each_permutation(
    const ThreadClasses& c, const std::vector<Observable>& obs,
    const std::vector<std::uint64_t>& vals,
    const std::function<void(const std::vector<std::uint64_t>&, const std::vector<ThreadId>&)>& f) {
  Arranger a{c, obs, vals, f, {}, {}, {}};
  a.run();
}

}  // namespace redscope::enumerate
