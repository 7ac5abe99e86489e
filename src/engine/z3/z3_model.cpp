#include "engine/z3/z3_model.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "redscope/core/bitrel.hpp"

namespace redscope::detail {
namespace {

using cat::Op;
using cat::Type;

// Conjunction and disjunction that fold the constants, so that pairs related
// in every execution stay the constant true (acyclic() relies on it).
z3::expr conj(const z3::expr& a, const z3::expr& b) {
  if (a.is_true() || b.is_false()) return b;
  if (b.is_true() || a.is_false()) return a;
  return a && b;
}
z3::expr disj(const z3::expr& a, const z3::expr& b) {
  if (a.is_false() || b.is_true()) return b;
  if (b.is_false() || a.is_true()) return a;
  return a || b;
}
z3::expr negate(const z3::expr& a) {
  if (a.is_true()) return a.ctx().bool_val(false);
  if (a.is_false()) return a.ctx().bool_val(true);
  return !a;
}

}  // namespace

SymbolicModel::SymbolicModel(z3::context& c, z3::solver& s, const cat::Model& m, std::size_t n,
                             std::vector<std::string> variants,
                             const std::function<bool(std::string_view)>& enabled, RankFactory rank,
                             const Budget* budget)
    : c_(c),
      s_(s),
      m_(m),
      n_(n),
      variants_(std::move(variants)),
      enabled_(enabled),
      rank_(std::move(rank)),
      budget_(budget),
      dummy_(blank(Type::Rel)) {
  for (const cat::Slot& slot : m.slots) values_.push_back(blank(slot.type));
}

SymbolicModel::Value SymbolicModel::blank(Type t) const {
  Value v{Rel(c_, n_, budget_), {}};
  if (t == Type::Set) v.set.assign(n_, c_.bool_val(false));
  return v;
}

void SymbolicModel::poll() const {
  if (budget_) budget_->check();
}

std::size_t SymbolicModel::slot_of(std::string_view name) const {
  for (std::size_t i = 0; i < m_.slots.size(); ++i)
    if (m_.slots[i].name == name) return i;
  return m_.slots.size();
}

Rel& SymbolicModel::rel(std::string_view primitive) {
  const std::size_t i = slot_of(primitive);
  if (i == m_.slots.size() || !m_.slots[i].primitive || m_.slots[i].type != Type::Rel)
    return dummy_.rel = Rel(c_, n_, budget_);
  return values_[i].rel;
}

SymSet& SymbolicModel::set(std::string_view primitive) {
  const std::size_t i = slot_of(primitive);
  if (i == m_.slots.size() || !m_.slots[i].primitive || m_.slots[i].type != Type::Set)
    return dummy_.set = SymSet(n_, c_.bool_val(false));
  return values_[i].set;
}

// The binding in scope at the end of the model: the last of that name.
const Rel* SymbolicModel::binding(std::string_view name) const {
  for (std::size_t i = m_.slots.size(); i-- > 0;)
    if (m_.slots[i].name == name) return m_.slots[i].type == Type::Rel ? &values_[i].rel : nullptr;
  return nullptr;
}

const z3::expr* SymbolicModel::literal(std::string_view name) const {
  for (const CheckLiteral& c : checks_)
    if (c.name == name) return &c.literal;
  return nullptr;
}

void SymbolicModel::encode() {
  for (const cat::Stmt& st : m_.stmts) {
    poll();
    if (st.check) {
      if (!st.check->flag) assert_check(*st.check);
      continue;
    }
    if (st.let->rec) {
      recursive(*st.let);
      continue;
    }
    const std::size_t slot = st.let->slots[0];
    Value v = eval(*st.let->exprs[0]);
    // A binding is named once: later uses read one fresh Boolean per cell.
    const std::string name = binding_name(slot);
    if (m_.slots[slot].type == Type::Rel) {
      v.rel = v.rel.named(s_, name);
    } else {
      for (std::size_t i = 0; i < n_; ++i) {
        z3::expr& e = v.set[i];
        if (e.is_true() || e.is_false() || e.is_const()) continue;
        const z3::expr x = c_.bool_const(fmt::format("{}_{}", name, i).c_str());
        s_.add(x == e);
        e = x;
      }
    }
    values_[slot] = std::move(v);
  }
}

// "let_NAME" for the first binding of NAME, "let_NAME#k" for the k-th one
// after it (a model may bind a name again: `let co = co+`, then a later
// `let co`), so no two bindings share a Z3 constant.
std::string SymbolicModel::binding_name(std::size_t slot) {
  const std::string& name = m_.slots[slot].name;
  const std::size_t k = bound_names_[name]++;
  return k == 0 ? "let_" + name : fmt::format("let_{}#{}", name, k);
}

namespace {

// Which cells of a relation may hold, and which hold always.
bool same_shape(const Rel& a, const Rel& b) {
  if (!(a.sure() == b.sure())) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a.row(i).size() != b.row(i).size()) return false;
    for (const auto& [j, e] : a.row(i))
      if (!b.row(i).count(j)) return false;
  }
  return true;
}

std::size_t cells(const Rel& r) {
  std::size_t k = 0;
  for (std::size_t i = 0; i < r.size(); ++i) {
    r.sure().for_each(i, [&k](std::size_t) { ++k; });
    k += r.row(i).size();
  }
  return k;
}

}  // namespace

// A `let rec` group is the least fixed point of its (monotone) bodies: Kleene
// iteration from empty, each round's cells named by fresh Booleans. In every
// execution a round before the fixed point adds a pair, and the pairs are
// among the cells that may hold once the shapes (which cells may or must
// hold) stop changing; so max(rounds to a stable shape, those cells) rounds
// reach the fixed point in every execution at once (the enumerator iterates
// the same bodies to their fixed point on bits, cat_eval.cpp).
void SymbolicModel::recursive(const cat::Let& l) {
  for (std::size_t slot : l.slots) values_[slot] = blank(Type::Rel);
  std::size_t needed = SIZE_MAX;
  for (std::size_t round = 0; round < needed; ++round) {
    poll();
    std::vector<Rel> next;
    for (const auto& e : l.exprs) next.push_back(eval(*e).rel);
    bool stable = true;
    std::size_t total = 0;
    for (std::size_t k = 0; k < l.slots.size(); ++k) {
      stable = stable && same_shape(next[k], values_[l.slots[k]].rel);
      total += cells(next[k]);
      values_[l.slots[k]].rel = next[k].named(s_, binding_name(l.slots[k]));
    }
    if (stable && needed == SIZE_MAX) needed = std::max(round + 1, total);
  }
}

// ---- expressions -------------------------------------------------------------

// Union, Inter, Seq and Diff are n-ary (cat.hpp): folded left to right.
SymbolicModel::Value SymbolicModel::eval_binary(const cat::Expr& e) {
  if (e.op == Op::Seq) return eval_seq(e);
  Value a = eval(*e.args[0]);
  if (e.op == Op::Cartesian) {
    const Value b = eval(*e.args[1]);
    Value r = blank(e.type);
    r.rel = Rel::product(c_, a.set, b.set, budget_);
    return r;
  }
  for (std::size_t k = 1; k < e.args.size(); ++k) {
    poll();
    const Value b = eval(*e.args[k]);
    if (e.type == Type::Set) {
      for (std::size_t i = 0; i < n_; ++i)
        a.set[i] = e.op == Op::Union   ? disj(a.set[i], b.set[i])
                   : e.op == Op::Inter ? conj(a.set[i], b.set[i])
                                       : conj(a.set[i], negate(b.set[i]));
      continue;
    }
    switch (e.op) {
      case Op::Union: a.rel = a.rel | b.rel; break;
      case Op::Inter: a.rel = a.rel & b.rel; break;
      case Op::Diff: a.rel = a.rel.minus(b.rel); break;
      default: a.rel = a.rel.compose(b.rel); break;  // Seq
    }
  }
  return a;
}

// r1 ; r2 ; ... as eval_binary folds it, but an identity [S] masks rows or
// columns (Rel::rows_within, cols_within: the cells compose() would make)
// instead of composing: ptx.cat's `[STRONG] ; r ; [STRONG]` stays n².
SymbolicModel::Value SymbolicModel::eval_seq(const cat::Expr& e) {
  std::optional<SymSet> lead;  // the identities before the first relation, met
  std::optional<Rel> r;
  for (const auto& a : e.args) {
    poll();
    if (a->op == Op::Identity) {
      SymSet s = eval(*a->args[0]).set;
      if (r) {
        r = r->cols_within(s);
      } else if (lead) {
        for (std::size_t i = 0; i < n_; ++i) (*lead)[i] = conj((*lead)[i], s[i]);
      } else {
        lead = std::move(s);
      }
      continue;
    }
    Value b = eval(*a);
    if (!r)
      r = lead ? b.rel.rows_within(*lead) : std::move(b.rel);
    else
      r = r->compose(b.rel);
  }
  Value out = blank(Type::Rel);
  if (r) {
    out.rel = std::move(*r);
    return out;
  }
  for (std::size_t i = 0; i < n_; ++i) out.rel.set(i, i, (*lead)[i]);
  return out;
}

SymbolicModel::Value SymbolicModel::eval(const cat::Expr& e) {
  Value r = blank(e.type);
  switch (e.op) {
    case Op::Ref: return values_[e.slot];
    case Op::Empty: return r;
    case Op::Universe: r.set.assign(n_, c_.bool_val(true)); return r;
    case Op::Union:
    case Op::Inter:
    case Op::Diff:
    case Op::Seq:
    case Op::Cartesian: return eval_binary(e);
    case Op::Inverse: r.rel = eval(*e.args[0]).rel.transpose(); return r;
    case Op::Plus: r.rel = eval(*e.args[0]).rel.transitive_closure(); return r;
    case Op::Star: r.rel = eval(*e.args[0]).rel.transitive_closure().reflexive(); return r;
    case Op::Opt: r.rel = eval(*e.args[0]).rel.reflexive(); return r;
    case Op::Identity: {
      const Value s = eval(*e.args[0]);
      for (std::size_t i = 0; i < n_; ++i) r.rel.set(i, i, s.set[i]);
      return r;
    }
    case Op::Domain:
    case Op::Range: {
      const Value a = eval(*e.args[0]);
      for (std::size_t i = 0; i < n_; ++i, poll())
        a.rel.for_row(i, [&](std::size_t j, const z3::expr& x) {
          z3::expr& cell = r.set[e.op == Op::Domain ? i : j];
          cell = disj(cell, x);
        });
      return r;
    }
    case Op::Complement: {
      const Value a = eval(*e.args[0]);
      if (e.type == Type::Set) {
        for (std::size_t i = 0; i < n_; ++i) r.set[i] = negate(a.set[i]);
        return r;
      }
      for (std::size_t i = 0; i < n_; ++i, poll())
        for (std::size_t j = 0; j < n_; ++j) r.rel.set(i, j, negate(a.rel.at(i, j)));
      return r;
    }
    case Op::IfVariant: {
      const bool on = std::find(variants_.begin(), variants_.end(), e.variant) != variants_.end();
      return eval(*e.args[on ? 0 : 1]);
    }
  }
  throw std::logic_error("cat: unknown operator");
}

// ---- checks ------------------------------------------------------------------

// Checks of one name share a literal (an axiom may be stated in parts);
// each unnamed check has its own, always assumed.
z3::expr SymbolicModel::literal_for(const cat::Check& ch) {
  if (!ch.name.empty())
    if (const z3::expr* l = literal(ch.name)) return *l;
  const std::string name =
      ch.name.empty() ? fmt::format("check_{}", checks_.size()) : "axiom_" + ch.name;
  checks_.push_back({ch.name, c_.bool_const(name.c_str()), ch.name.empty() || enabled_(ch.name)});
  return checks_.back().literal;
}

void SymbolicModel::assert_check(const cat::Check& ch) {
  const z3::expr lit = literal_for(ch);
  const Value v = eval(*ch.expr);
  // The cells the check needs false (empty: every pair or member;
  // irreflexive: the diagonal; a negated acyclic: the diagonal of r+).
  std::vector<z3::expr> cells;
  if (ch.kind == cat::CheckKind::Acyclic && !ch.negated) {
    acyclic(v.rel, lit, fmt::format("acyclic{}", acyclic_count_++));
    return;
  }
  if (ch.kind == cat::CheckKind::Empty && ch.expr->type == Type::Set) {
    for (const z3::expr& x : v.set)
      if (!x.is_false()) cells.push_back(x);
  } else if (ch.kind == cat::CheckKind::Empty) {
    for (std::size_t i = 0; i < n_; ++i)
      v.rel.for_row(i, [&](std::size_t, const z3::expr& x) { cells.push_back(x); });
  } else {
    const Rel r = ch.kind == cat::CheckKind::Acyclic ? v.rel.transitive_closure() : v.rel;
    for (std::size_t i = 0; i < n_; ++i)
      if (r.maybe(i, i)) cells.push_back(r.at(i, i));
  }
  if (ch.negated) {  // holds when some cell holds
    z3::expr any = c_.bool_val(false);
    for (const z3::expr& x : cells) any = disj(any, x);
    s_.add(z3::implies(lit, any));
    return;
  }
  for (const z3::expr& x : cells) {
    poll();
    s_.add(x.is_true() ? !lit : z3::implies(lit, !x));
  }
}

// Acyclicity through ranks: every edge goes up. Edges present in every
// execution (the constant true; program order, pinned co) are handled
// statically: a cycle of them alone makes the check false; otherwise a cycle
// must use a conditional edge, so only the events such edges touch need
// ranks, ordered along the static paths between them. Of those orderings only
// a transitive reduction is asserted (a path through another ranked event
// already implies the rest): program order's n²/2 edges among n events turn
// into at most n constraints, and none when no conditional edge touches them.
void SymbolicModel::acyclic(const Rel& r, const z3::expr& lit, const std::string& name) {
  std::vector<bool> ranked(n_, false);
  for (std::size_t a = 0; a < n_; ++a)
    for (const auto& [b, e] : r.row(a)) ranked[a] = ranked[b] = true;
  const BitRel path = r.sure().plus();
  if (!path.irreflexive()) {
    s_.add(!lit);
    return;
  }
  auto lt = [](const z3::expr& a, const z3::expr& b) { return a.is_int() ? a < b : z3::ult(a, b); };
  std::vector<std::optional<z3::expr>> rank(n_);
  auto get = [&](std::size_t e) -> z3::expr {
    if (!rank[e]) rank[e] = rank_(fmt::format("{}_{}", name, e));
    return *rank[e];
  };
  for (std::size_t a = 0; a < n_; ++a) {
    poll();
    for (const auto& [b, e] : r.row(a))
      if (!path.has(a, b)) s_.add(z3::implies(lit && e, lt(get(a), get(b))));
  }
  // Static paths between ranked events, less those through a third one.
  BitRel between(n_);
  for (std::size_t a = 0; a < n_; ++a)
    if (ranked[a])
      for (std::size_t b = 0; b < n_; ++b)
        if (ranked[b] && path.has(a, b)) between.set(a, b);
  const BitRel implied = between.compose(between);
  for (std::size_t a = 0; a < n_; ++a)
    for (std::size_t b = 0; b < n_; ++b)
      if (between.has(a, b) && !implied.has(a, b)) s_.add(z3::implies(lit, lt(get(a), get(b))));
}

}  // namespace redscope::detail
