// The built-in functions of herd7's cat interpreter (herdtools7
// lib/interpreter.ml, add_primitives and the functions above it).
#include <algorithm>
#include <functional>

#include <fmt/format.h>

#include "model/herd/values.hpp"
#include "redscope/core/budget.hpp"

namespace redscope::cat::herd::detail {
namespace {

using K = Type::K;

// The most orders `linearisations` builds (n! grows fast): past it the
// call is a located error rather than an exhausted memory.
constexpr std::size_t kMaxOrders = 100000;

const BitRel* find_rel(const Universe& u, std::string_view name) {
  for (const auto& [k, r] : u.x->rels)
    if (k == name) return &r;
  return nullptr;
}

const EventBits* find_set(const Universe& u, std::string_view name) {
  for (const auto& [k, s] : u.x->sets)
    if (k == name) return &s;
  return nullptr;
}

Value set_of_sets(std::vector<EventBits> classes) {
  Values vs;
  for (auto& c : classes) vs.push_back(v_set(std::move(c)));
  return make_valset(Type{K::Events, {}, {}}, std::move(vs));
}

// domain, range: of a relation (interpreter.ml `domain`, `range`).
Value domain_or_range(const Universe& u, const Value& v, bool dom) {
  if (v.kind == VK::Empty || v.kind == VK::Unv) return v;
  if (v.kind != VK::Rel) throw PrimError{"argument mismatch"};
  EventBits s(words_of(u.n), 0);
  for (std::size_t i = 0; i < u.n; ++i)
    v.rel->for_each(i, [&](std::size_t j) { set_bit(s, dom ? i : j); });
  return v_set(std::move(s));
}
Value p_domain(const Universe& u, const Value& v) { return domain_or_range(u, v, true); }
Value p_range(const Universe& u, const Value& v) { return domain_or_range(u, v, false); }

// Connected components of `m` over the events it relates (InnerRel.cc);
// `m` is symmetric here.
std::vector<EventBits> components(const Universe& u, const BitRel& m) {
  std::vector<EventBits> out;
  std::vector<char> seen(u.n, 0);
  for (std::size_t e = 0; e < u.n; ++e) {
    if (seen[e] || m.row_empty(e)) continue;
    EventBits cc(words_of(u.n), 0);
    std::vector<std::size_t> todo{e};
    seen[e] = 1;
    while (!todo.empty()) {
      const std::size_t x = todo.back();
      todo.pop_back();
      set_bit(cc, x);
      m.for_each(x, [&](std::size_t y) {
        if (!seen[y]) seen[y] = 1, todo.push_back(y);
      });
    }
    out.push_back(std::move(cc));
  }
  return out;
}

// classes(r): the classes of the equivalence r ∪ r^-1 generates
// (InnerRel.classes).
Value p_classes(const Universe& u, const Value& v) {
  const BitRel r = prim_as_rel(u, v);
  return set_of_sets(components(u, r | r.inverse()));
}

// classes-loc(S): S by location, events without one left out
// (MemUtils.partition_events; the location is the engine's `loc`).
Value p_classes_loc(const Universe& u, const Value& v) {
  const EventBits s = prim_as_set(u, v);
  const BitRel* loc = find_rel(u, "loc");
  if (!loc) throw PrimError{"the execution has no relation loc"};
  BitRel m(u.n, u.budget);
  for (std::size_t i = 0; i < u.n; ++i)
    if (has_bit(s, i) && loc->has(i, i))
      loc->for_each(i, [&](std::size_t j) {
        if (has_bit(s, j)) m.set(i, j), m.set(j, i);
      });
  return set_of_sets(components(u, m));
}

// All strict total orders of nodes 0..k-1 extending `before` (transitive,
// over these nodes); none when it has a cycle (InnerRel.all_topos_kont:
// Cyclic, then the empty set). `emit` gets each order, first to last.
bool topo_orders(const Universe& u, const BitRel& before,
                 const std::function<void(const std::vector<std::size_t>&)>& emit) {
  const std::size_t k = before.size();
  for (std::size_t i = 0; i < k; ++i)
    if (before.has(i, i)) return false;
  std::vector<std::size_t> preds(k, 0), order;
  for (std::size_t i = 0; i < k; ++i) before.for_each(i, [&](std::size_t j) { ++preds[j]; });
  std::vector<char> placed(k, 0);
  std::size_t count = 0;
  std::function<void()> go = [&] {
    if (order.size() == k) {
      if (++count > kMaxOrders)
        throw PrimError{fmt::format("more than {} linearisations", kMaxOrders)};
      check(u.budget);
      emit(order);
      return;
    }
    for (std::size_t x = 0; x < k; ++x) {
      if (placed[x] || preds[x]) continue;
      placed[x] = 1;
      order.push_back(x);
      before.for_each(x, [&](std::size_t y) { --preds[y]; });
      go();
      before.for_each(x, [&](std::size_t y) { ++preds[y]; });
      order.pop_back();
      placed[x] = 0;
    }
  };
  go();
  return true;
}

Value lin_events(const Universe& u, const EventBits& s, const BitRel& r) {
  std::vector<std::size_t> nodes;
  for (std::size_t i = 0; i < u.n; ++i)
    if (has_bit(s, i)) nodes.push_back(i);
  const BitRel tr = r.plus();  // paths through events outside S count
  BitRel before(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i)
    for (std::size_t j = 0; j < nodes.size(); ++j)
      if (tr.has(nodes[i], nodes[j])) before.set(i, j);
  Values orders;
  topo_orders(u, before, [&](const std::vector<std::size_t>& o) {
    BitRel lin(u.n, u.budget);
    for (std::size_t i = 0; i < o.size(); ++i)
      for (std::size_t j = i + 1; j < o.size(); ++j) lin.set(nodes[o[i]], nodes[o[j]]);
    orders.push_back(v_rel(std::move(lin)));
  });
  return make_valset(Type{K::Rel, {}, {}}, std::move(orders));
}

Value lin_classes(const Universe& u, const Values& es, const ClassRel& r) {
  std::vector<EventBits> all;
  for (const Value& v : es) all.push_back(prim_as_set(u, v));
  const std::size_t k = all.size();
  for (const auto& [a, b] : r)
    for (const EventBits* c : {&a, &b})
      if (std::find(all.begin(), all.end(), *c) == all.end()) all.push_back(*c);
  const auto index = [&](const EventBits& c) {
    return static_cast<std::size_t>(std::find(all.begin(), all.end(), c) - all.begin());
  };
  BitRel g(all.size());
  for (const auto& [a, b] : r) g.set(index(a), index(b));
  const BitRel tr = g.plus();
  BitRel before(k);
  for (std::size_t i = 0; i < k; ++i)
    for (std::size_t j = 0; j < k; ++j)
      if (tr.has(i, j)) before.set(i, j);
  Values orders;
  topo_orders(u, before, [&](const std::vector<std::size_t>& o) {
    ClassRel lin;
    for (std::size_t i = 0; i < o.size(); ++i)
      for (std::size_t j = i + 1; j < o.size(); ++j) lin.emplace_back(all[o[i]], all[o[j]]);
    std::sort(lin.begin(), lin.end(), [](const ClassPair& x, const ClassPair& y) {
      const int c = compare_bits(x.first, y.first);
      return c ? c < 0 : compare_bits(x.second, y.second) < 0;
    });
    Value v;
    v.kind = VK::ClassRel;
    v.crel = std::make_shared<const ClassRel>(std::move(lin));
    orders.push_back(std::move(v));
  });
  return make_valset(Type{K::ClassRel, {}, {}}, std::move(orders));
}

// linearisations(S, r): the strict total orders of S that extend r
// (interpreter.ml `linearisations`), over events or over classes.
Value p_linearisations(const Universe& u, const Value& v) {
  if (v.kind != VK::Tuple || v.elems->size() != 2) throw PrimError{"argument mismatch"};
  const Value &s = (*v.elems)[0], &r = (*v.elems)[1];
  if (s.kind == VK::ValSet && s.elt->k == K::Events)
    return lin_classes(u, *s.elems, prim_as_classrel(r));
  if (s.kind == VK::Empty && r.kind == VK::ClassRel) return lin_classes(u, {}, *r.crel);
  return lin_events(u, prim_as_set(u, s), prim_as_rel(u, r));
}

// lift(classes, r): r over the classes of its events.
Value p_lift(const Universe& u, const Value& v) {
  if (v.kind != VK::Tuple || v.elems->size() != 2) throw PrimError{"argument mismatch"};
  const Value &cls = (*v.elems)[0], &vr = (*v.elems)[1];
  if (cls.kind != VK::ValSet || cls.elt->k != K::Events) throw PrimError{"argument mismatch"};
  const BitRel r = prim_as_rel(u, vr);
  std::vector<const EventBits*> of(u.n, nullptr);
  for (const Value& c : *cls.elems)
    for (std::size_t e = 0; e < u.n; ++e)
      if (has_bit(c.set, e)) of[e] = &c.set;
  ClassRel out;
  for (std::size_t i = 0; i < u.n; ++i)
    r.for_each(i, [&](std::size_t j) {
      if (of[i] && of[j]) out.emplace_back(*of[i], *of[j]);
    });
  std::sort(out.begin(), out.end(), [](const ClassPair& x, const ClassPair& y) {
    const int c = compare_bits(x.first, y.first);
    return c ? c < 0 : compare_bits(x.second, y.second) < 0;
  });
  out.erase(std::unique(out.begin(), out.end()), out.end());
  Value res;
  res.kind = VK::ClassRel;
  res.crel = std::make_shared<const ClassRel>(std::move(out));
  return res;
}

// delift(clsr): the union of cl1 * cl2 over its pairs.
Value p_delift(const Universe& u, const Value& v) {
  BitRel r(u.n, u.budget);
  for (const auto& [a, b] : prim_as_classrel(v)) r |= cartesian(u, a, b);
  return v_rel(std::move(r));
}

// deliftinter(m, clsr): m restricted to the pairs of classes of clsr.
Value p_deliftinter(const Universe& u, const Value& v) {
  if (v.kind != VK::Tuple || v.elems->size() != 2) throw PrimError{"argument mismatch"};
  const BitRel m = prim_as_rel(u, (*v.elems)[0]);
  BitRel r(u.n, u.budget);
  for (const auto& [a, b] : prim_as_classrel((*v.elems)[1])) r |= m & cartesian(u, a, b);
  return v_rel(std::move(r));
}

// fromto(S): for each fence f of S, the events po-before f to the events
// po-after it (machModelChecker.ml `fromto`, with no per-instruction
// labels).
Value p_fromto(const Universe& u, const Value& v) {
  EventBits fs = prim_as_set(u, v);
  if (const EventBits* f = find_set(u, "F"))
    for (std::size_t w = 0; w < fs.size(); ++w) fs[w] &= (*f)[w];
  const BitRel* po = find_rel(u, "po");
  if (!po) throw PrimError{"the execution has no relation po"};
  const BitRel inv = po->inverse();
  BitRel r(u.n, u.budget);
  for (std::size_t f = 0; f < u.n; ++f) {
    if (!has_bit(fs, f)) continue;
    EventBits before(inv.row(f), inv.row(f) + inv.words());
    EventBits after(po->row(f), po->row(f) + po->words());
    r |= cartesian(u, before, after);
  }
  return v_rel(std::move(r));
}

std::string pp_val(const Value& v) {
  switch (v.kind) {
    case VK::Unv: return "<universe>";
    case VK::Empty: return "{}";
    case VK::Tag: return "'" + v.tag;
    case VK::ValSet: {
      std::string s;
      for (const Value& e : *v.elems) s += (s.empty() ? "" : ",") + pp_val(e);
      return "{" + s + "}";
    }
    case VK::Tuple: {
      std::string s;
      for (const Value& e : *v.elems) s += (s.empty() ? "" : ",") + pp_val(e);
      return "(" + s + ")";
    }
    case VK::Clo: return fmt::format("{}_{}", v.clo->fun->name, v.a);
    default: return "<" + to_string(type_of(v)) + ">";
  }
}

Value p_fail(const Universe&, const Value& v) { throw PrimError{"fail on " + pp_val(v)}; }

Value p_as_transitive(const Universe&, const Value& v) {
  if (v.kind == VK::Rel || v.kind == VK::Empty || v.kind == VK::Unv) return v;
  throw PrimError{"argument mismatch"};
}

// tag2scope('t), tag2level('t): the relation the execution binds to t.
Value p_tag2scope(const Universe& u, const Value& v) {
  if (v.kind != VK::Tag) throw PrimError{"argument mismatch"};
  if (const BitRel* r = find_rel(u, v.tag)) return v_rel(*r);
  if (find_set(u, v.tag))
    throw PrimError{fmt::format("value {} is not a relation, found events", v.tag)};
  throw PrimError{fmt::format(
      "cannot find scope instance {} (not supported on PTX executions: they have no scope tree)",
      v.tag)};
}

// tag2events('t): the event set of the instructions tagged t.
Value p_tag2events(const Universe& u, const Value& v) {
  if (v.kind != VK::Tag) throw PrimError{"argument mismatch"};
  if (const EventBits* s = find_set(u, v.tag)) return v_set(*s);
  throw PrimError{fmt::format(
      "cannot find event set {} (not supported on PTX executions: no bell file)", v.tag)};
}

// Primitives reading what PTX executions do not carry (values, bell
// annotations, location names).
Value p_unsupported(const Universe&, const Value&) {
  throw PrimError{"not supported on PTX executions"};
}

}  // namespace

const std::vector<PrimDef>& primitives() {
  static const std::vector<PrimDef> table = {
      {"at-least-one-writable", p_unsupported},
      {"same-oa", p_unsupported},
      {"different-values", p_unsupported},
      {"fromto", p_fromto},
      {"classes-loc", p_classes_loc},
      {"classes", p_classes},
      {"lift", p_lift},
      {"delift", p_delift},
      {"deliftinter", p_deliftinter},
      {"linearisations", p_linearisations},
      {"bisimulation", p_unsupported},
      {"tag2scope", p_tag2scope},
      {"tag2level", p_tag2scope},
      {"tag2events", p_tag2events},
      {"tag2fenced", p_unsupported},
      {"loc2events", p_unsupported},
      {"domain", p_domain},
      {"range", p_range},
      {"fail", p_fail},
      {"as_transitive", p_as_transitive},
  };
  return table;
}

}  // namespace redscope::cat::herd::detail
