// The static primitives of the PTX models (docs/model.md "Primitives").
#include "redscope/model/primitives.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <functional>
#include <stdexcept>
#include <string>

namespace redscope::cat {

MsClause ms_clause(const Skeleton& sk, EventId a, EventId b) {
  const Event& x = sk.ev(a);
  const Event& y = sk.ev(b);
  if (a == b) return MsClause::SameEvent;
  if (x.is_init || y.is_init) return MsClause::Init;
  // A proxy fence is no strong operation; both operations go through one
  // proxy (fences and barriers are generic); memory operations overlap
  // completely: one virtual address (§8.6: aliases behave as different
  // proxies).
  if (x.proxy_fence || y.proxy_fence) return MsClause::ProxyFence;
  if (x.proxy != y.proxy) return MsClause::Proxy;
  if (x.is_memory() && y.is_memory() && x.vloc != y.vloc) return MsClause::Address;
  if (x.thread == y.thread) return MsClause::SameThread;
  if (!x.is_strong() || !y.is_strong()) return MsClause::Weak;
  const Placement& px = sk.placement[static_cast<std::size_t>(x.thread)];
  const Placement& py = sk.placement[static_cast<std::size_t>(y.thread)];
  return scope_includes(x.scope, px, py) && scope_includes(y.scope, py, px) ? MsClause::Mutual
                                                                            : MsClause::Scope;
}

bool morally_strong(const Skeleton& sk, EventId a, EventId b) {
  const MsClause c = ms_clause(sk, a, b);
  return c == MsClause::SameThread || c == MsClause::Mutual;
}

namespace {

// Where two threads sit relative to each other.
std::string placement_words(const Placement& a, const Placement& b) {
  if (a.gpu != b.gpu) return "on different GPUs";
  if (a.cta == b.cta) return "in the same CTA";
  if (a.cluster >= 0 && a.cluster == b.cluster) return "in different CTAs of one cluster";
  return "in different CTAs of one GPU";
}

std::string where(const Placement& p) { return fmt::format("CTA {}, GPU {}", p.cta, p.gpu); }

// "the surface proxy" for a memory event; a proxy fence names what it orders.
std::string proxy_words(const Event& e) {
  if (e.proxy_fence) return fmt::format("fence.proxy.{}", to_string(*e.proxy_fence));
  return fmt::format("the {} proxy", to_string(e.proxy));
}

}  // namespace

std::string ms_words(const Skeleton& sk, EventId a, EventId b) {
  const Event& x = sk.ev(a);
  const Event& y = sk.ev(b);
  const auto px = [&] { return sk.placement[static_cast<std::size_t>(x.thread)]; };
  const auto py = [&] { return sk.placement[static_cast<std::size_t>(y.thread)]; };
  // A non-generic pair says which proxy they share (the clause that holds).
  const std::string via =
      x.proxy != Proxy::Generic ? fmt::format(", both through {}", proxy_words(x)) : "";
  switch (ms_clause(sk, a, b)) {
    case MsClause::SameEvent: return "it is one event";
    case MsClause::Init: return "the initial write is not strong";
    case MsClause::ProxyFence:
      return fmt::format("{} is no strong operation", proxy_words(x.proxy_fence ? x : y));
    case MsClause::Proxy:
      return fmt::format(
          "P{}'s access goes through {} and P{}'s through {}: morally strong "
          "operations use one proxy (PTX §8.6)",
          x.thread, proxy_words(x), y.thread, proxy_words(y));
    case MsClause::Address:
      return fmt::format(
          "they reach {} through different virtual addresses ({} and {}): "
          "aliases behave as different proxies (PTX §8.6)",
          x.loc, x.vloc, y.vloc);
    case MsClause::SameThread: return "they are in the same thread" + via;
    case MsClause::Weak: {
      const Event& w = x.is_strong() ? y : x;
      return fmt::format("P{}'s {} is weak, never morally strong", w.thread, w.text);
    }
    case MsClause::Scope: {
      const bool x_misses = !scope_includes(x.scope, px(), py());
      const Event& s = x_misses ? x : y;
      const Event& o = x_misses ? y : x;
      return fmt::format("P{}'s .{} scope does not contain P{} ({} vs {})", s.thread,
                         to_string(s.scope), o.thread, where(x_misses ? px() : py()),
                         where(x_misses ? py() : px()));
    }
    case MsClause::Mutual:
      return fmt::format(
          "P{} (.{}) and P{} (.{}) are {}, so each one's scope contains the "
          "other's thread{}",
          x.thread, to_string(x.scope), y.thread, to_string(y.scope), placement_words(px(), py()),
          via);
  }
  return "";
}

const BitRel& StaticPrimitives::rel(std::string_view name) const {
  if (name == "ms") return ms;
  for (const auto& [n, r] : rels)
    if (n == name) return r;
  throw std::logic_error("no static primitive " + std::string(name));
}

namespace {

Bits events_where(const Skeleton& sk, const std::function<bool(const Event&)>& p) {
  Bits b((sk.size() + 63) / 64, 0);
  for (EventId e = 0; e < sk.size(); ++e)
    if (p(sk.ev(e))) b[e / 64] |= 1ULL << (e % 64);
  return b;
}

// The memory a proxy fence restricted to a state space orders operations on
// (fence.proxy.async.global, .shared::cta, .shared::cluster; PTX ISA
// §9.7.13.4: "The memory ordering is limited only to operations performed
// on objects in the state space specified"): MEM_GLOBAL, the memory events
// on global memory; MEM_SHARED, on shared memory (the .shared::cluster
// window holds every CTA's); MEM_SHARED_CTA, on the shared memory of their
// own thread's CTA (the cell's owner: Skeleton::shared_owner).
// PF_GLOBAL, PF_SHARED_CTA, PF_SHARED_CLUSTER: the fences so restricted.
void add_space_sets(StaticPrimitives& p, const Skeleton& sk) {
  auto on = [&sk](const Event& e) { return sk.loc_spaces.at(e.loc); };
  auto restricted = [](Space s) {
    return [s](const Event& e) { return e.proxy_fence && e.proxy_fence_space == s; };
  };
  const std::pair<std::string_view, std::function<bool(const Event&)>> defs[] = {
      {"MEM_GLOBAL", [&](const Event& e) { return e.is_memory() && on(e) == Space::Global; }},
      {"MEM_SHARED", [&](const Event& e) { return e.is_memory() && on(e) != Space::Global; }},
      {"MEM_SHARED_CTA",
       [&](const Event& e) {
         if (!e.is_memory() || e.is_init || on(e) == Space::Global) return false;
         const auto o = sk.shared_owner.find(e.loc);
         const Placement& t = sk.placement[static_cast<std::size_t>(e.thread)];
         return o != sk.shared_owner.end() && o->second.gpu == t.gpu && o->second.cta == t.cta;
       }},
      {"PF_GLOBAL", restricted(Space::Global)},
      {"PF_SHARED_CTA", restricted(Space::SharedCta)},
      {"PF_SHARED_CLUSTER", restricted(Space::SharedCluster)},
  };
  for (const auto& [name, pred] : defs) p.sets.emplace_back(name, events_where(sk, pred));
}

// Proxies (PTX ISA §8.6): GEN, SUR, TEX, CON hold the memory operations
// through each proxy, and a fence.proxy.K joins K's set (so same-proxy pairs
// a proxy fence with the accesses it orders); fences and barriers are
// generic. PF is every proxy fence, ALIAS the fence.proxy.alias ones.
void add_proxy_sets(StaticPrimitives& p, const Skeleton& sk) {
  auto through = [](Proxy k, ProxyFence f) {
    return [k, f](const Event& e) {
      if (e.proxy_fence) return *e.proxy_fence == f;
      return e.is_memory() ? e.proxy == k : k == Proxy::Generic;
    };
  };
  const std::pair<std::string_view, std::function<bool(const Event&)>> defs[] = {
      {"GEN", [](const Event& e) { return !e.proxy_fence && e.proxy == Proxy::Generic; }},
      {"SUR", through(Proxy::Surface, ProxyFence::Surface)},
      {"TEX", through(Proxy::Texture, ProxyFence::Texture)},
      // CON is also herd7's C annotation for memory_order_consume (c11.bell);
      // no event is both (a source-level test has no constant proxy).
      {"CON",
       [c = through(Proxy::Constant, ProxyFence::Constant)](const Event& e) {
         return c(e) || (e.source && e.source->order == MemOrder::Consume);
       }},
      {"ASY", through(Proxy::Async, ProxyFence::Async)},
      {"PF", [](const Event& e) { return e.proxy_fence.has_value(); }},
      {"ALIAS", [](const Event& e) { return e.proxy_fence == ProxyFence::Alias; }},
  };
  for (const auto& [name, pred] : defs) p.sets.emplace_back(name, events_where(sk, pred));
}

// A source-level event's order and scope (frontend/c) as PTX's
// (core/types.hpp ptx_sem, ptx_scope): both halves of an RMW carry the RMW's
// order, as herd7's C semantics gives them (herd/CSem.ml); consume is also
// its own set, CON; thread scope is in none of CTA ... SYS, but THREAD.
std::optional<Scope> scope_of(const SourceOrder& s) {
  if (s.scope == ThreadScope::Thread) return std::nullopt;
  return ptx_scope(s.scope);
}

// Sem and scope sets hold strong events only: a weak access has neither
// (PTX ISA §8.4 "Operation types"). A source-level event has the order and
// scope its source wrote (docs/model.md "The scoped C++ model"); A, the
// atomic accesses, and NA, the other memory events, are herd7's C sets
// (herd/libdir/c11.bell: `let A = M & (ACQ|SC|REL|RLX|ACQ_REL|CON)`,
// `let NA = M \ A`): a PTX event is never in A.
void add_sets(StaticPrimitives& p, const Skeleton& sk) {
  auto sem = [](Sem s) {
    return [s](const Event& e) {
      return e.is_strong() && (e.source ? ptx_sem(e.source->order) : e.sem) == s;
    };
  };
  auto scope = [](Scope s) {
    return [s](const Event& e) {
      return e.is_strong() && (e.source ? scope_of(*e.source) : e.scope) == s;
    };
  };
  auto atomic = [](const Event& e) {
    return e.is_memory() && e.source && e.source->order != MemOrder::NonAtomic;
  };
  auto space = [](std::initializer_list<Space> ss) {
    return [v = std::vector<Space>(ss)](const Event& e) {
      return e.is_memory() && std::find(v.begin(), v.end(), e.space) != v.end();
    };
  };
  const std::pair<std::string_view, std::function<bool(const Event&)>> defs[] = {
      {"W", [](const Event& e) { return e.is_write(); }},
      {"R", [](const Event& e) { return e.is_read(); }},
      {"M", [](const Event& e) { return e.is_memory(); }},
      {"F", [](const Event& e) { return e.is_fence(); }},
      {"B", [](const Event& e) { return e.is_barrier(); }},
      {"IW", [](const Event& e) { return e.is_init; }},
      {"RMW", [](const Event& e) { return e.in_rmw; }},
      {"STRONG", [](const Event& e) { return e.is_strong(); }},
      {"WEAK", [](const Event& e) { return e.is_memory() && !e.is_strong(); }},
      {"RLX", sem(Sem::Relaxed)},
      {"ACQ", sem(Sem::Acquire)},
      {"REL", sem(Sem::Release)},
      {"ACQ_REL", sem(Sem::AcqRel)},
      {"SC", sem(Sem::Sc)},
      {"CTA", scope(Scope::Cta)},
      {"CLUSTER", scope(Scope::Cluster)},
      {"GPU", scope(Scope::Gpu)},
      {"SYS", scope(Scope::Sys)},
      {"THREAD",
       [](const Event& e) {
         return e.is_strong() && e.source && e.source->scope == ThreadScope::Thread;
       }},
      {"A", atomic},
      {"NA", [atomic](const Event& e) { return e.is_memory() && !atomic(e); }},
      {"GLOBAL", space({Space::Global})},
      {"SHARED", space({Space::SharedCta, Space::SharedCluster})},
      {"GENERIC", space({Space::Generic})},
  };
  for (const auto& [name, pred] : defs) p.sets.emplace_back(name, events_where(sk, pred));
  add_proxy_sets(p, sk);
  add_space_sets(p, sk);
}

// Rows between budget checks in the n x n loops below (issue 28: every loop
// whose trip count grows with the test checks the budget).
constexpr std::size_t kRowsPerCheck = 64;

BitRel pairs_where(const Skeleton& sk, const std::function<bool(const Event&, const Event&)>& p,
                   const Budget* budget) {
  BitRel r(sk.size(), budget);
  for (EventId a = 0; a < sk.size(); ++a) {
    if (a % kRowsPerCheck == 0) check(budget);
    for (EventId b = 0; b < sk.size(); ++b)
      if (p(sk.ev(a), sk.ev(b))) r.set(a, b);
  }
  return r;
}

BitRel po_loc(const Skeleton& sk, const BitRel& po, const Budget* budget) {
  BitRel r(sk.size(), budget);
  for (EventId a = 0; a < sk.size(); ++a) {
    if (a % kRowsPerCheck == 0) check(budget);
    const Event& x = sk.ev(a);
    if (!x.is_memory()) continue;
    po.for_each(a, [&](std::size_t b) {
      const Event& y = sk.ev(b);
      if (y.is_memory() && x.loc == y.loc) r.set(a, b);
    });
  }
  return r;
}

// Dat3M's `sr` (wmm/analysis/NativeRelationAnalysis.java visitSameScope):
// two events of threads, each with a scope (strong memory operations and
// fences, not proxy fences) that contains the other's thread; an event
// with itself and two of one thread included.
bool same_scope(const Skeleton& sk, const Event& x, const Event& y) {
  if (x.is_init || y.is_init || !x.is_strong() || !y.is_strong()) return false;
  const Placement& px = sk.placement[static_cast<std::size_t>(x.thread)];
  const Placement& py = sk.placement[static_cast<std::size_t>(y.thread)];
  return scope_includes(x.scope, px, py) && scope_includes(y.scope, py, px);
}

// The relations static_primitives holds at once, with the temporaries that
// make them: what is charged before the first is made.
constexpr std::size_t kStaticRelations = 20;

}  // namespace

StaticPrimitives static_primitives(const Skeleton& sk, const Budget* budget) {
  const std::size_t n = sk.size();
  charge(budget, kStaticRelations * BitRel::bytes_for(n));
  StaticPrimitives p;
  p.rels.reserve(17);  // `po` is read by reference while later ones are added
  add_sets(p, sk);
  auto same_thread = [](const Event& x, const Event& y) {
    return !x.is_init && !y.is_init && x.thread == y.thread;
  };
  auto add = [&](std::string_view name, BitRel r) { p.rels.emplace_back(name, std::move(r)); };
  auto add_matrix = [&](std::string_view name, const BoolMatrix& m) {
    add(name, BitRel::from(m, budget));
  };
  BitRel id(n, budget);
  for (EventId a = 0; a < n; ++a) id.set(a, a);
  add("id", std::move(id));
  add_matrix("po", po_closure(sk, budget));
  const BitRel& po = p.rels.back().second;
  add("po-loc", po_loc(sk, po, budget));
  add("loc", pairs_where(
                 sk,
                 [](const Event& x, const Event& y) {
                   return x.is_memory() && y.is_memory() && x.loc == y.loc;
                 },
                 budget));
  add("vloc", pairs_where(
                  sk,
                  [](const Event& x, const Event& y) {
                    return x.is_memory() && y.is_memory() && x.vloc == y.vloc;
                  },
                  budget));
  // Where threads sit (PTX §8.5 "Scope"): events of threads in one CTA, one
  // cluster, one GPU (initial writes in none); models/ptx.cat builds scope
  // inclusion and morally strong from these.
  auto same = [&sk, budget](Scope level) {
    return pairs_where(
        sk,
        [&sk, level](const Event& x, const Event& y) {
          if (x.is_init || y.is_init) return false;
          return scope_includes(level, sk.placement[x.thread], sk.placement[y.thread]);
        },
        budget);
  };
  add("scta", same(Scope::Cta));
  add("scluster", same(Scope::Cluster));
  add("sgpu", same(Scope::Gpu));
  add("sr",
      pairs_where(
          sk, [&sk](const Event& x, const Event& y) { return same_scope(sk, x, y); }, budget));
  add("int", pairs_where(sk, same_thread, budget));
  add("ext", pairs_where(
                 sk,
                 [](const Event& x, const Event& y) {
                   return !x.is_init && !y.is_init && x.thread != y.thread;
                 },
                 budget));
  add_matrix("rmw", edge_matrix(sk, EdgeKind::Rmw, budget));
  add_matrix("data", edge_matrix(sk, EdgeKind::Data, budget));
  add_matrix("ctrl", edge_matrix(sk, EdgeKind::Ctrl, budget));
  add_matrix("addr", edge_matrix(sk, EdgeKind::Addr, budget));
  charge(budget, BitRel::bytes_for(n));
  add("dep", p.rel("data") | p.rel("ctrl") | p.rel("addr"));
  return p;
}

namespace {

// The last binding of `ms` in `m` that reads static primitives only.
bool binds_static_ms(const Model& m) {
  for (std::size_t i = m.slots.size(); i-- > 0 && !m.slots[i].primitive;)
    if (m.slots[i].name == "ms") return m.slots[i].level == 0 && m.slots[i].type == Type::Rel;
  return false;
}

// Let-bound names opened on both sides; primitives by name.
class SameTree {
 public:
  SameTree(const Model& a, const Model& b) : a_(a), b_(b), da_(defs(a)), db_(defs(b)) {}

  bool slots(std::size_t x, std::size_t y, int depth = 0) const {
    const Slot& sx = a_.slots[x];
    const Slot& sy = b_.slots[y];
    if (sx.primitive || sy.primitive) return sx.primitive && sy.primitive && sx.name == sy.name;
    return da_[x] && db_[y] && exprs(*da_[x], *db_[y], depth + 1);
  }
  bool exprs(const Expr& x, const Expr& y, int depth) const {
    if (depth > 4 * kMaxNesting) return false;
    if (x.op == Op::Ref && y.op == Op::Ref) return slots(x.slot, y.slot, depth + 1);
    if (x.op == Op::Ref && da_[x.slot]) return exprs(*da_[x.slot], y, depth + 1);
    if (y.op == Op::Ref && db_[y.slot]) return exprs(x, *db_[y.slot], depth + 1);
    if (x.op != y.op || x.variant != y.variant || x.args.size() != y.args.size()) return false;
    for (std::size_t i = 0; i < x.args.size(); ++i)
      if (!exprs(*x.args[i], *y.args[i], depth + 1)) return false;
    return x.op != Op::Ref;
  }

 private:
  static std::vector<const Expr*> defs(const Model& m) {
    std::vector<const Expr*> d(m.slots.size(), nullptr);
    for (const Stmt& s : m.stmts)
      if (s.let && !s.let->rec) d[s.let->slots[0]] = s.let->exprs[0].get();
    return d;
  }
  const Model& a_;
  const Model& b_;
  std::vector<const Expr*> da_, db_;
};

}  // namespace

bool defines_ptx_ms(const Model& m, std::size_t slot) {
  const Model& ptx = builtin_ptx();
  if (slot >= m.slots.size() || m.slots[slot].name != "ms" || m.slots[slot].primitive) return false;
  for (std::size_t i = ptx.slots.size(); i-- > 0 && !ptx.slots[i].primitive;)
    if (ptx.slots[i].name == "ms") return SameTree(m, ptx).slots(slot, i);
  return false;
}

BitRel model_ms(const Model& m, const std::vector<std::string>& variants, const StaticPrimitives& p,
                std::size_t n, const Budget* budget) {
  const Model& from = binds_static_ms(m) ? m : builtin_ptx();
  Evaluator ev(from, n, variants, "ms", budget);
  for (const auto& [name, set] : p.sets)
    if (ev.needs(name)) ev.set(name) = set;
  for (const auto& [name, rel] : p.rels)
    if (ev.needs(name)) ev.rel(name) = rel;
  ev.update(0);
  return *ev.binding("ms");
}

StaticPrimitives static_primitives(const Skeleton& sk, const Model& m,
                                   const std::vector<std::string>& variants, const Budget* budget) {
  StaticPrimitives p = static_primitives(sk, budget);
  p.ms = model_ms(m, variants, p, sk.size(), budget);
  return p;
}

void load_statics(Evaluator& ev, const StaticPrimitives& p, const std::vector<bool>& executed) {
  const std::size_t n = executed.size();
  Bits ex((n + 63) / 64, 0);
  for (EventId e = 0; e < n; ++e)
    if (executed[e]) ex[e / 64] |= 1ULL << (e % 64);
  BitRel pairs(n);
  for (EventId a = 0; a < n; ++a)
    if (executed[a]) std::copy(ex.begin(), ex.end(), pairs.row(a));
  for (const auto& [name, set] : p.sets) {
    if (!ev.needs(name)) continue;
    Bits& v = ev.set(name);
    for (std::size_t k = 0; k < v.size(); ++k) v[k] = set[k] & ex[k];
  }
  for (const auto& [name, rel] : p.rels)
    if (ev.needs(name)) ev.rel(name) = rel & pairs;
}

void load_candidate(Evaluator& ev, const StaticPrimitives& p, const CandidateRels& c) {
  load_statics(ev, p, c.executed);
  ev.rel("rf") = c.rf;
  ev.rel("co") = c.co;
  ev.rel("sf") = c.sf;
  ev.rel("sync_barrier") = c.sync_barrier;
}

}  // namespace redscope::cat
