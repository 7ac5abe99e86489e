// The cat evaluator over bit matrices. Sets are bit vectors, relations
// BitRel; operators map to word-at-a-time loops.
#include "redscope/model/cat_eval.hpp"

#include "model/event_sets.hpp"

#include <algorithm>
#include <stdexcept>

namespace redscope::cat {
namespace {

bool meet(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) {
  for (std::size_t k = 0; k < a.size(); ++k)
    if (a[k] & b[k]) return true;
  return false;
}

}  // namespace

Evaluator::Evaluator(const Model& m, std::size_t n, std::vector<std::string> variants,
                     const Budget* budget, bool everything)
    : m_(m),
      n_(n),
      budget_(budget),
      variants_(std::move(variants)),
      values_(m.slots.size()),
      upper_(m.slots.size()),
      is_upper_(m.slots.size(), 0),
      upper_fresh_(m.slots.size(), 0),
      result_(m.stmts.size(), 1),
      forbids_(m.stmts.size(), 0),
      needed_(m.slots.size(), everything),
      runs_(m.stmts.size(), everything),
      touched_(words(m.slots.size()), ~0ULL),
      upper_mask_(words(m.slots.size()), 0),
      static_mask_(words(m.slots.size()), 0) {
  find_reads();
  find_hi_readers();
  find_static_roots();
}

// The largest static subexpressions (not names) of the statements that are
// not static; their values are charged to the budget like any relation.
void Evaluator::find_static_roots() {
  static_slot_.assign(m_.exprs, -1);
  order_.assign(m_.exprs, {});
  for (const Stmt& st : m_.stmts) {
    if (st.level == 0) continue;
    std::vector<const Expr*> todo;
    if (st.let)
      for (const auto& e : st.let->exprs) todo.push_back(e.get());
    else
      todo.push_back(st.check->expr.get());
    while (!todo.empty()) {
      const Expr* e = todo.back();
      todo.pop_back();
      if (e->level == 0 && e->op != Op::Ref) {
        static_slot_[e->id] = static_cast<int>(static_ok_.size());
        static_ok_.push_back(0);
        continue;
      }
      for (const auto& a : e->args) todo.push_back(a.get());
    }
  }
  for (std::size_t i = 0; i < m_.slots.size(); ++i)
    if (m_.slots[i].primitive && m_.slots[i].level == 0) static_mask_[i / 64] |= 1ULL << (i % 64);
}

void Evaluator::static_changed() {
  std::fill(static_ok_.begin(), static_ok_.end(), 0);
  static_interval_ = meet(upper_mask_, static_mask_);
  if (static_vals_.size() < static_ok_.size() && !static_interval_)
    for (std::size_t k = static_vals_.size(); k < static_ok_.size(); ++k)
      static_vals_.push_back(Value{BitRel(n_, budget_), Bits(words(n_), 0)});
}

// Backwards over the statements (a binding is read only by later ones, and
// by its own let rec group, whose bodies are monotone: parse_cat): which
// bounds of each binding some reader evaluates. A check reads its
// expression at lo, a negated one at hi too; a binding whose hi bound is
// read reads its operands at both.
void Evaluator::find_hi_readers() {
  std::vector<char> slot_hi(m_.slots.size(), 0);  // some reader reads the slot's hi bound
  hi_read_.assign(m_.stmts.size(), 0);
  for (std::size_t i = m_.stmts.size(); i-- > 0;) {
    const Stmt& st = m_.stmts[i];
    std::vector<std::pair<const Expr*, Bound>> todo;
    if (st.let) {
      for (std::size_t slot : st.let->slots) hi_read_[i] = hi_read_[i] || slot_hi[slot];
      for (const auto& e : st.let->exprs) {
        todo.emplace_back(e.get(), Bound::Lo);
        if (hi_read_[i]) todo.emplace_back(e.get(), Bound::Hi);
      }
    } else {
      todo.emplace_back(st.check->expr.get(), Bound::Lo);
      if (st.check->negated) todo.emplace_back(st.check->expr.get(), Bound::Hi);
    }
    while (!todo.empty()) {
      const auto [e, b] = todo.back();
      todo.pop_back();
      if (e->op == Op::Ref && b == Bound::Hi) slot_hi[e->slot] = 1;
      for (std::size_t k = 0; k < e->args.size(); ++k) {
        const bool negative = e->op == Op::Complement || (e->op == Op::Diff && k > 0);
        todo.emplace_back(e->args[k].get(), negative ? flip(b) : b);
      }
    }
  }
}

void Evaluator::find_reads() {
  std::vector<std::vector<std::uint64_t>> of_slot(m_.slots.size());  // a binding's reads
  reads_.resize(m_.stmts.size());
  for (std::size_t i = 0; i < m_.stmts.size(); ++i) {
    const Stmt& st = m_.stmts[i];
    std::vector<const Expr*> todo;
    if (st.let)
      for (const auto& e : st.let->exprs) todo.push_back(e.get());
    else
      todo.push_back(st.check->expr.get());
    std::vector<std::uint64_t>& r = reads_[i];
    r.assign(words(m_.slots.size()), 0);
    while (!todo.empty()) {
      const Expr* e = todo.back();
      todo.pop_back();
      if (e->op == Op::Ref) {
        if (m_.slots[e->slot].primitive)
          r[e->slot / 64] |= 1ULL << (e->slot % 64);
        else if (!of_slot[e->slot].empty())  // this group's own: its union covers them
          for (std::size_t k = 0; k < r.size(); ++k) r[k] |= of_slot[e->slot][k];
      }
      for (const auto& a : e->args) todo.push_back(a.get());
    }
    if (st.let)
      for (std::size_t slot : st.let->slots) of_slot[slot] = r;
  }
}

bool Evaluator::reads_interval(std::size_t stmt) const { return meet(reads_[stmt], upper_mask_); }

Evaluator::Evaluator(const Model& m, std::size_t n, std::vector<std::string> variants,
                     const std::function<bool(std::string_view)>& enabled, const Budget* budget)
    : Evaluator(m, n, std::move(variants), budget, true) {
  allocate();
  for (std::size_t i = 0; i < m.stmts.size(); ++i) {
    const auto& c = m.stmts[i].check;
    forbids_[i] = c && !c->flag && (c->name.empty() || enabled(c->name));
  }
}

Evaluator::Evaluator(const Model& m, std::size_t n, std::vector<std::string> variants,
                     std::string_view binding, const Budget* budget)
    : Evaluator(m, n, std::move(variants), budget, false) {
  std::vector<std::size_t> stmt_of(m.slots.size(), m.stmts.size());
  for (std::size_t i = 0; i < m.stmts.size(); ++i)
    if (m.stmts[i].let)
      for (std::size_t slot : m.stmts[i].let->slots) stmt_of[slot] = i;
  std::vector<std::size_t> todo;
  for (std::size_t i = m.slots.size(); i-- > 0 && !m.slots[i].primitive;)
    if (m.slots[i].name == binding) {
      todo.push_back(i);
      break;
    }
  // The binding's cone: every slot its statement reads, through bindings.
  while (!todo.empty()) {
    const std::size_t slot = todo.back();
    todo.pop_back();
    if (needed_[slot]) continue;
    needed_[slot] = 1;
    const std::size_t st = stmt_of[slot];
    if (st == m.stmts.size() || runs_[st]) continue;
    runs_[st] = 1;
    std::vector<const Expr*> exprs;
    for (const auto& e : m.stmts[st].let->exprs) exprs.push_back(e.get());
    while (!exprs.empty()) {
      const Expr* e = exprs.back();
      exprs.pop_back();
      if (e->op == Op::Ref) todo.push_back(e->slot);
      for (const auto& a : e->args) exprs.push_back(a.get());
    }
  }
  allocate();
}

void Evaluator::allocate() {
  for (std::size_t i = 0; i < m_.slots.size(); ++i) {
    if (!needed_[i]) continue;
    if (m_.slots[i].type == Type::Rel)
      values_[i].rel = BitRel(n_, budget_);  // charged first: a model of many lets
    else
      values_[i].set = Bits(words(n_), 0);
  }
}

bool Evaluator::needs(std::string_view primitive) const {
  const std::size_t i = slot_of(primitive);
  return i < m_.slots.size() && needed_[i];
}

std::size_t Evaluator::slot_of(std::string_view name) const {
  const std::vector<std::size_t>& by_name = m_.primitives_by_name;
  const auto it = std::lower_bound(
      by_name.begin(), by_name.end(), name,
      [this](std::size_t slot, std::string_view n) { return m_.slots[slot].name < n; });
  return it != by_name.end() && m_.slots[*it].name == name ? *it : m_.slots.size();
}

bool Evaluator::uses(std::string_view primitive) const {
  return slot_of(primitive) < m_.slots.size();
}

BitRel& Evaluator::rel(std::string_view primitive) { return rel(slot(primitive)); }

BitRel& Evaluator::rel(std::size_t i) {
  if (i == m_.slots.size() || m_.slots[i].type != Type::Rel) return dummy_.rel = BitRel(n_);
  touch(i);
  return values_[i].rel;
}

Bits& Evaluator::set(std::string_view primitive) {
  const std::size_t i = slot_of(primitive);
  if (i == m_.slots.size() || m_.slots[i].type != Type::Set) return dummy_.set = Bits(words(n_), 0);
  touch(i);
  return values_[i].set;
}

const BitRel* Evaluator::binding(std::string_view name) const {
  for (std::size_t i = m_.slots.size(); i-- > 0 && !m_.slots[i].primitive;)
    if (m_.slots[i].name == name) return m_.slots[i].type == Type::Rel ? &values_[i].rel : nullptr;
  return nullptr;
}

BitRel& Evaluator::upper(std::string_view primitive) { return upper(slot(primitive)); }

BitRel& Evaluator::upper(std::size_t i) {
  if (i == m_.slots.size() || m_.slots[i].type != Type::Rel) return dummy_.rel = BitRel(n_);
  is_upper_[i] = 1;
  upper_mask_[i / 64] |= 1ULL << (i % 64);
  touch(i);
  if (upper_[i].rel.size() != n_) upper_[i].rel = BitRel(n_, budget_);
  return upper_[i].rel;
}

void Evaluator::exact(std::string_view primitive) { exact(slot(primitive)); }

void Evaluator::exact(std::size_t i) {
  if (i < m_.slots.size()) {
    is_upper_[i] = 0;
    upper_mask_[i / 64] &= ~(1ULL << (i % 64));
    touch(i);
  }
}

bool Evaluator::partial() const {
  return std::any_of(upper_mask_.begin(), upper_mask_.end(),
                     [](std::uint64_t w) { return w != 0; });
}

const Value& Evaluator::ref(std::size_t slot, Bound b) const {
  if (b == Bound::Lo) return values_[slot];
  if (m_.slots[slot].primitive) return is_upper_[slot] ? upper_[slot] : values_[slot];
  // A binding last computed without an interval (a level below the update's)
  // reads no interval primitive: its bounds are equal.
  return upper_fresh_[slot] ? upper_[slot] : values_[slot];
}

void Evaluator::update(int from) {
  interval_ = partial();
  if (from == 0) static_changed();
  for (std::size_t i = 0; i < m_.stmts.size(); ++i)
    if (m_.stmts[i].level >= from && runs_[i]) run_stmt(i);
  for (std::size_t i = 0; i < m_.slots.size(); ++i)
    if (m_.slots[i].primitive && m_.slots[i].level >= from) touched_[i / 64] &= ~(1ULL << (i % 64));
}

void Evaluator::update_touched() {
  interval_ = partial();
  if (meet(touched_, static_mask_)) static_changed();
  for (std::size_t i = 0; i < m_.stmts.size(); ++i)
    if (runs_[i] && meet(reads_[i], touched_)) run_stmt(i);
  std::fill(touched_.begin(), touched_.end(), 0);
}

// A binding that reads no interval has equal bounds: its hi value is its lo
// one (ref() reads values_ while upper_fresh_ is clear).
void Evaluator::run_stmt(std::size_t i) {
  const Stmt& s = m_.stmts[i];
  if (!s.let) {
    result_[i] = holds(*s.check);
    return;
  }
  run_let(*s.let);
  if (interval_ && hi_read_[i] && reads_interval(i)) run_let_at(*s.let, Bound::Hi);
}

void Evaluator::run_let(const Let& l) { run_let_at(l, Bound::Lo); }

void Evaluator::charge_rel() const { charge(budget_, BitRel::bytes_for(n_)); }

// A recursive group starts empty and is re-evaluated until nothing changes.
// parse_cat admits only bodies monotone in the group's names, so each round
// adds pairs and the least fixed point is reached within n * n rounds per
// name; the budget is checked every round, and a round past that bound
// (impossible for a monotone group) is an internal error, never a hang.
void Evaluator::run_let_at(const Let& l, Bound b) {
  std::vector<Value>& out = b == Bound::Lo ? values_ : upper_;
  for (std::size_t slot : l.slots) {
    upper_fresh_[slot] = b == Bound::Hi;
    if (m_.slots[slot].type == Type::Rel && out[slot].rel.size() != n_) charge_rel();
  }
  if (!l.rec) {
    out[l.slots[0]] = ev(*l.exprs[0], 0, b);
    return;
  }
  for (std::size_t slot : l.slots) out[slot].rel = BitRel(n_);
  const std::size_t max_rounds = n_ * n_ * l.slots.size() + 1;
  for (std::size_t round = 0, changed = 1; changed; ++round) {
    check(budget_);
    if (round > max_rounds) throw std::logic_error("cat: a `let rec` group did not converge");
    changed = 0;
    for (std::size_t k = 0; k < l.slots.size(); ++k) {
      const BitRel& next = ev(*l.exprs[k], 0, b).rel;
      if (!(next == out[l.slots[k]].rel)) {
        out[l.slots[k]].rel = next;
        changed = 1;
      }
    }
  }
}

// In interval mode a check is evaluated at the bound where it is easiest to
// satisfy: `empty`, `acyclic`, `irreflexive` at the smallest value of its
// relation, a negated check (`~empty`) at the largest.
bool Evaluator::holds(const Check& c) const {
  const Value& v = ev(*c.expr, 0, c.negated && interval_ ? Bound::Hi : Bound::Lo);
  bool ok = false;
  switch (c.kind) {
    case CheckKind::Acyclic: ok = v.rel.acyclic(); break;
    case CheckKind::Irreflexive: ok = v.rel.irreflexive(); break;
    case CheckKind::Empty:
      ok = c.expr->type == Type::Rel
               ? v.rel.empty()
               : std::all_of(v.set.begin(), v.set.end(), [](auto w) { return w == 0; });
      break;
  }
  return c.negated ? !ok : ok;
}

bool Evaluator::consistent() const {
  for (std::size_t i = 0; i < m_.stmts.size(); ++i)
    if (forbids_[i] && !result_[i]) return false;
  return true;
}

std::vector<std::string> Evaluator::failing() const {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < m_.stmts.size(); ++i) {
    const auto& c = m_.stmts[i].check;
    if (c && !c->flag && !result_[i]) out.push_back(c->name);
  }
  return out;
}

Value& Evaluator::grow_scratch(std::size_t d) const {
  while (pool_.size() <= d) {
    pool_.push_back(Value{BitRel(n_, budget_), Bits(words(n_), 0)});
    scratch_at_.push_back(&pool_.back());  // a deque's push_back moves no element
  }
  return pool_[d];
}

namespace {
bool none(const Bits& b) {
  return std::all_of(b.begin(), b.end(), [](std::uint64_t w) { return w == 0; });
}
bool is_empty(const Value& v, Type t) { return t == Type::Set ? none(v.set) : v.rel.empty(); }
}  // namespace

const Value& Evaluator::ev_binary(const Expr& e, std::size_t d, Bound bound) const {
  if (e.op == Op::Cartesian) {
    const Value& a = ev(*e.args[0], d + 1, bound);
    const Value& b = ev(*e.args[1], d + 2, bound);
    Value& r = scratch(d);
    cartesian_into(a.set, b.set, r.rel);
    return r;
  }
  if (e.op == Op::Seq) return ev_seq(e, d, bound);
  // Union, Inter and Diff are n-ary: fold the operands into r. An
  // intersection takes its static operands first (kept from one candidate to
  // the next: static_at), so an empty one spares computing the others.
  Value& r = scratch(d);
  std::vector<const Expr*>& order = order_[e.id];
  if (order.empty()) {
    for (const auto& a : e.args) order.push_back(a.get());
    if (e.op == Op::Inter)
      std::stable_partition(order.begin(), order.end(),
                            [](const Expr* a) { return a->level == 0; });
  }
  const Value& first = ev(*order[0], d + 1, bound);
  if (e.type == Type::Set)
    r.set = first.set;
  else
    r.rel = first.rel;
  for (std::size_t i = 1; i < order.size(); ++i) {
    // Nothing left to meet or subtract from: the rest cannot change it (an
    // operand's evaluation has no effect beyond its value).
    if (e.op != Op::Union && is_empty(r, e.type)) break;
    // The right of a difference is a negative occurrence: the other bound.
    const Value& b = ev(*order[i], d + 1, e.op == Op::Diff ? flip(bound) : bound);
    if (e.type == Type::Set) {
      for (std::size_t k = 0; k < r.set.size(); ++k) {
        if (e.op == Op::Union)
          r.set[k] |= b.set[k];
        else if (e.op == Op::Inter)
          r.set[k] &= b.set[k];
        else
          r.set[k] &= ~b.set[k];
      }
      continue;
    }
    switch (e.op) {
      case Op::Union: r.rel |= b.rel; break;
      case Op::Inter: r.rel &= b.rel; break;
      case Op::Diff: r.rel -= b.rel; break;
      default: {  // Seq: b's subtree is done with d + 2
        Value& t = scratch(d + 2);
        r.rel.compose_into(b.rel, t.rel);
        std::swap(r.rel, t.rel);
        break;
      }
    }
  }
  return r;
}

// r1 ; r2 ; ... folded into r, where an identity [S] is a mask, not a
// composition: on the left it keeps the rows of S, on the right the columns
// (ptx.cat's `[STRONG] ; r ; [STRONG]` costs n² word operations, not n³/64).
// The operands before the first relation are one identity, their sets met.
const Value& Evaluator::ev_seq(const Expr& e, std::size_t d, Bound bound) const {
  Value& r = scratch(d);
  Bits& lead = r.set;     // the rows kept, until the first relation operand
  bool every_row = true;  // no [S] before it yet: `lead` unset, every row kept
  bool have = false;      // r.rel holds the composition so far
  for (const auto& a : e.args) {
    // An empty prefix composes to nothing whatever follows.
    if (have ? r.rel.empty() : !every_row && none(lead)) {
      r.rel.clear();
      return r;
    }
    if (a->op == Op::Identity) {
      const Value& s = ev(*a->args[0], d + 1, bound);
      if (have) {
        for (std::size_t i = 0; i < n_; ++i)
          for (std::size_t k = 0; k < r.rel.words(); ++k) r.rel.row(i)[k] &= s.set[k];
      } else if (every_row) {
        lead = s.set;
        every_row = false;
      } else {
        for (std::size_t k = 0; k < lead.size(); ++k) lead[k] &= s.set[k];
      }
      continue;
    }
    const Value& b = ev(*a, d + 1, bound);
    if (b.rel.empty()) {  // composes to nothing
      r.rel.clear();
      return r;
    }
    if (!have) {
      r.rel = b.rel;
      if (!every_row)
        for (std::size_t i = 0; i < n_; ++i)
          if (!bit(lead, i)) std::fill(r.rel.row(i), r.rel.row(i) + r.rel.words(), 0);
      have = true;
      continue;
    }
    Value& t = scratch(d + 2);
    r.rel.compose_into(b.rel, t.rel);
    std::swap(r.rel, t.rel);
  }
  if (!have) {
    r.rel.clear();
    for (std::size_t i = 0; i < n_; ++i)
      if (every_row || bit(lead, i)) r.rel.set(i, i);
  }
  return r;
}

Value Evaluator::eval(const Expr& e) const { return ev(e, 0); }

// A static subexpression (level 0, not a name) of a statement that is not
// static has one value per set of executed events: computed once, kept in
// static_vals_ until a level-0 primitive is touched.
const Value& Evaluator::ev(const Expr& e, std::size_t d, Bound bound) const {
  const int k = e.level == 0 ? static_slot_[e.id] : -1;
  if (k < 0 || static_interval_ || static_cast<std::size_t>(k) >= static_vals_.size())
    return ev_node(e, d, bound);
  Value& v = static_vals_[static_cast<std::size_t>(k)];
  if (!static_ok_[static_cast<std::size_t>(k)]) {
    const Value& x = ev_node(e, d, bound);
    if (e.type == Type::Rel)
      v.rel = x.rel;
    else
      v.set = x.set;
    static_ok_[static_cast<std::size_t>(k)] = 1;
  }
  return v;
}

const Value& Evaluator::ev_node(const Expr& e, std::size_t d, Bound bound) const {
  switch (e.op) {
    case Op::Ref: return ref(e.slot, bound);
    case Op::Union:
    case Op::Inter:
    case Op::Diff:
    case Op::Seq:
    case Op::Cartesian: return ev_binary(e, d, bound);
    case Op::IfVariant: {
      const bool on = std::find(variants_.begin(), variants_.end(), e.variant) != variants_.end();
      return ev(*e.args[on ? 0 : 1], d, bound);
    }
    default: break;
  }
  Value& r = scratch(d);
  switch (e.op) {
    case Op::Empty:
      r.rel.clear();
      std::fill(r.set.begin(), r.set.end(), 0);
      return r;
    case Op::Universe: fill_all_events(r.set, n_); return r;
    case Op::Inverse: ev(*e.args[0], d + 1, bound).rel.inverse_into(r.rel); return r;
    case Op::Plus:
    case Op::Star:
    case Op::Opt:
      r.rel = ev(*e.args[0], d + 1, bound).rel;
      if (e.op != Op::Opt) r.rel.close();
      if (e.op != Op::Plus)
        for (std::size_t i = 0; i < n_; ++i) r.rel.set(i, i);
      return r;
    case Op::Identity: {
      identity_into(ev(*e.args[0], d + 1, bound).set, r.rel);
      return r;
    }
    case Op::Domain: r.set = domain(ev(*e.args[0], d + 1, bound).rel); return r;
    case Op::Range: r.set = range(ev(*e.args[0], d + 1, bound).rel); return r;
    case Op::Complement: {
      const Value& a = ev(*e.args[0], d + 1, flip(bound));  // a negative occurrence
      const Bits all = all_events(n_);
      if (e.type == Type::Rel) {
        for (std::size_t i = 0; i < n_; ++i)
          for (std::size_t k = 0; k < a.rel.words(); ++k)
            r.rel.row(i)[k] = ~a.rel.row(i)[k] & all[k];
        return r;
      }
      for (std::size_t k = 0; k < r.set.size(); ++k) r.set[k] = all[k] & ~a.set[k];
      return r;
    }
    default: break;
  }
  throw std::logic_error("cat: unknown operator");
}

}  // namespace redscope::cat
