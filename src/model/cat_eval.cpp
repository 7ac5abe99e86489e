// The cat evaluator over bit matrices. Sets are bit vectors, relations
// BitRel; operators map to word-at-a-time loops.
#include "redscope/model/cat_eval.hpp"

#include <algorithm>
#include <stdexcept>

namespace redscope::cat {
namespace {

std::size_t words(std::size_t n) { return (n + 63) / 64; }

Bits all_events(std::size_t n) {
  Bits b(words(n), ~0ULL);
  if (n % 64) b.back() = (1ULL << (n % 64)) - 1;
  if (n == 0) b.clear();
  return b;
}

bool bit(const Bits& s, std::size_t i) { return (s[i / 64] >> (i % 64)) & 1U; }

Bits set_op(Op op, const Bits& a, const Bits& b) {
  Bits r = a;
  for (std::size_t k = 0; k < r.size(); ++k) {
    if (op == Op::Union)
      r[k] |= b[k];
    else if (op == Op::Inter)
      r[k] &= b[k];
    else
      r[k] &= ~b[k];
  }
  return r;
}

BitRel identity(const Bits& s, std::size_t n) {
  BitRel r(n);
  for (std::size_t i = 0; i < n; ++i)
    if (bit(s, i)) r.set(i, i);
  return r;
}

Bits domain(const BitRel& r) {
  Bits s(words(r.size()), 0);
  for (std::size_t i = 0; i < r.size(); ++i) {
    const std::uint64_t* row = r.row(i);
    if (std::any_of(row, row + r.words(), [](std::uint64_t w) { return w != 0; }))
      s[i / 64] |= 1ULL << (i % 64);
  }
  return s;
}

Bits range(const BitRel& r) {
  Bits s(words(r.size()), 0);
  for (std::size_t i = 0; i < r.size(); ++i)
    for (std::size_t k = 0; k < r.words(); ++k) s[k] |= r.row(i)[k];
  return s;
}

BitRel cartesian(const Bits& a, const Bits& b, std::size_t n) {
  BitRel r(n);
  for (std::size_t i = 0; i < n; ++i)
    if (bit(a, i)) std::copy(b.begin(), b.end(), r.row(i));
  return r;
}

BitRel complement(const BitRel& r) {
  const std::size_t n = r.size();
  BitRel c(n);
  const Bits all = all_events(n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < r.words(); ++k) c.row(i)[k] = ~r.row(i)[k] & all[k];
  return c;
}

}  // namespace

Evaluator::Evaluator(const Model& m, std::size_t n, std::vector<std::string> variants,
                     const std::function<bool(std::string_view)>& enabled)
    : m_(m),
      n_(n),
      variants_(std::move(variants)),
      values_(m.slots.size()),
      result_(m.stmts.size(), 1),
      forbids_(m.stmts.size(), 0) {
  for (std::size_t i = 0; i < m.slots.size(); ++i) {
    if (m.slots[i].type == Type::Rel)
      values_[i].rel = BitRel(n);
    else
      values_[i].set = Bits(words(n), 0);
  }
  for (std::size_t i = 0; i < m.stmts.size(); ++i) {
    const auto& c = m.stmts[i].check;
    forbids_[i] = c && !c->flag && (c->name.empty() || enabled(c->name));
  }
}

std::size_t Evaluator::slot_of(std::string_view name) const {
  for (std::size_t i = 0; i < m_.slots.size() && m_.slots[i].primitive; ++i)
    if (m_.slots[i].name == name) return i;
  return m_.slots.size();
}

bool Evaluator::uses(std::string_view primitive) const {
  return slot_of(primitive) < m_.slots.size();
}

BitRel& Evaluator::rel(std::string_view primitive) {
  const std::size_t i = slot_of(primitive);
  if (i == m_.slots.size() || m_.slots[i].type != Type::Rel) return dummy_.rel = BitRel(n_);
  return values_[i].rel;
}

Bits& Evaluator::set(std::string_view primitive) {
  const std::size_t i = slot_of(primitive);
  if (i == m_.slots.size() || m_.slots[i].type != Type::Set) return dummy_.set = Bits(words(n_), 0);
  return values_[i].set;
}

void Evaluator::update(int from) {
  for (std::size_t i = 0; i < m_.stmts.size(); ++i) {
    const Stmt& s = m_.stmts[i];
    if (s.level < from) continue;
    if (s.let)
      run_let(*s.let);
    else
      result_[i] = holds(*s.check);
  }
}

// A recursive group starts empty and is re-evaluated until nothing changes
// (the operators are monotone, so this is the least fixed point).
void Evaluator::run_let(const Let& l) {
  if (!l.rec) {
    values_[l.slots[0]] = eval(*l.exprs[0]);
    return;
  }
  for (std::size_t slot : l.slots) values_[slot].rel = BitRel(n_);
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t k = 0; k < l.slots.size(); ++k) {
      BitRel next = eval(*l.exprs[k]).rel;
      if (!(next == values_[l.slots[k]].rel)) {
        values_[l.slots[k]].rel = std::move(next);
        changed = true;
      }
    }
  }
}

bool Evaluator::holds(const Check& c) const {
  const Value v = eval(*c.expr);
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

Value Evaluator::eval_binary(const Expr& e) const {
  const Value a = eval(*e.args[0]);
  const Value b = eval(*e.args[1]);
  Value r;
  if (e.op == Op::Cartesian) {
    r.rel = cartesian(a.set, b.set, n_);
    return r;
  }
  if (e.type == Type::Set) {
    r.set = set_op(e.op, a.set, b.set);
    return r;
  }
  switch (e.op) {
    case Op::Union: r.rel = a.rel | b.rel; break;
    case Op::Inter: r.rel = a.rel & b.rel; break;
    case Op::Diff: r.rel = a.rel - b.rel; break;
    default: r.rel = a.rel.compose(b.rel); break;  // Seq
  }
  return r;
}

Value Evaluator::eval(const Expr& e) const {
  Value r;
  switch (e.op) {
    case Op::Ref: return values_[e.slot];
    case Op::Empty:
      if (e.type == Type::Rel)
        r.rel = BitRel(n_);
      else
        r.set = Bits(words(n_), 0);
      return r;
    case Op::Universe: r.set = all_events(n_); return r;
    case Op::Union:
    case Op::Inter:
    case Op::Diff:
    case Op::Seq:
    case Op::Cartesian: return eval_binary(e);
    case Op::Inverse: r.rel = eval(*e.args[0]).rel.inverse(); return r;
    case Op::Plus: r.rel = eval(*e.args[0]).rel.plus(); return r;
    case Op::Star: r.rel = eval(*e.args[0]).rel.star(); return r;
    case Op::Opt: r.rel = eval(*e.args[0]).rel.reflexive(); return r;
    case Op::Identity: r.rel = identity(eval(*e.args[0]).set, n_); return r;
    case Op::Domain: r.set = domain(eval(*e.args[0]).rel); return r;
    case Op::Range: r.set = range(eval(*e.args[0]).rel); return r;
    case Op::Complement:
      if (e.type == Type::Rel) {
        r.rel = complement(eval(*e.args[0]).rel);
        return r;
      }
      r.set = set_op(Op::Diff, all_events(n_), eval(*e.args[0]).set);
      return r;
    case Op::IfVariant: {
      const bool on = std::find(variants_.begin(), variants_.end(), e.variant) != variants_.end();
      return eval(*e.args[on ? 0 : 1]);
    }
  }
  throw std::logic_error("cat: unknown operator");
}

}  // namespace redscope::cat
