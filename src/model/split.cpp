// checks_split (split.hpp): the model evaluated once at both ends of every
// node's interval, each relation node's two ends compared on the pairs
// across parts.
#include "redscope/model/split.hpp"

#include "model/event_sets.hpp"

#include <algorithm>
#include <map>
#include <optional>

namespace redscope::cat {

namespace {

// A node's value over every candidate lies between lo and hi.
struct Interval {
  BitRel lo, hi;  // a relation
  Bits slo, shi;  // a set
};

struct NoSplit {};  // the rule does not hold (or cannot be checked)

class SplitCheck {
 public:
  SplitCheck(const Model& m, const std::vector<std::string>& variants, const SplitQuestion& q)
      : m_(m),
        variants_(variants),
        q_(q),
        n_(q.part.size()),
        cross_(n_) {
    for (std::size_t a = 0; a < n_; ++a)
      for (std::size_t b = 0; b < n_; ++b)
        if (q.part[a] != q.part[b]) cross_.set(a, b);
    all_ = all_events(n_);
  }

  // A binding is evaluated where a check reads it (one no enabled check
  // reads cannot stop the split).
  void let(const Let& l) {
    for (const std::size_t slot : l.slots) bound_[slot] = &l;
  }

  // `empty r` and `irreflexive r` split once every node of r passed;
  // `acyclic r` as `irreflexive r+`.
  void check(const Check& c) {
    if (c.negated) throw NoSplit{};  // "some part has an edge": not one predicate per part
    const Interval v = eval(*c.expr);
    if (c.kind == CheckKind::Acyclic) agree_across(v.lo.plus(), v.hi.plus());
  }

 private:
  // The two ends agree on every pair across parts: the cross part is the
  // same in every candidate.
  void agree_across(const BitRel& lo, const BitRel& hi) const {
    BitRel d = hi - lo;
    d &= cross_;
    if (!d.empty()) throw NoSplit{};
  }

  Interval eval(const Expr& e) {
    redscope::check(q_.budget);  // a node costs up to n^3 / 64 word operations
    Interval v = node(e);
    if (e.type == Type::Rel) agree_across(v.lo, v.hi);
    return v;
  }

  Interval rel(BitRel lo, BitRel hi) const {
    return Interval{std::move(lo), std::move(hi), {}, {}};
  }
  Interval set(Bits lo, Bits hi) const {
    return Interval{BitRel(n_), BitRel(n_), std::move(lo), std::move(hi)};
  }

  Interval node(const Expr& e) {
    switch (e.op) {
      case Op::Ref: return ref(e.slot);
      case Op::Empty:
        return e.type == Type::Rel ? rel(BitRel(n_), BitRel(n_)) : set(none(), none());
      case Op::Universe: return set(all_, all_);
      case Op::Union:
      case Op::Inter: return fold(e);
      case Op::Diff: return diff(e);
      case Op::Seq: return seq(e);
      case Op::Cartesian: return cartesian(eval(*e.args[0]), eval(*e.args[1]));
      case Op::Inverse: {
        const Interval a = eval(*e.args[0]);
        return rel(a.lo.inverse(), a.hi.inverse());
      }
      case Op::Plus: {
        const Interval a = eval(*e.args[0]);
        return rel(a.lo.plus(), a.hi.plus());
      }
      case Op::Star: {
        const Interval a = eval(*e.args[0]);
        return rel(a.lo.star(), a.hi.star());
      }
      case Op::Opt: {
        const Interval a = eval(*e.args[0]);
        return rel(a.lo.reflexive(), a.hi.reflexive());
      }
      case Op::Identity: {
        const Interval a = eval(*e.args[0]);
        Interval v = empty_of(Type::Rel);
        identity_into(a.slo, v.lo);
        identity_into(a.shi, v.hi);
        return v;
      }
      case Op::Domain: {
        const Interval a = eval(*e.args[0]);
        return set(domain(a.lo), domain(a.hi));
      }
      case Op::Range: {
        const Interval a = eval(*e.args[0]);
        return set(range(a.lo), range(a.hi));
      }
      case Op::Complement: return complement(e);
      case Op::IfVariant: {
        const bool on = std::find(variants_.begin(), variants_.end(), e.variant) != variants_.end();
        return eval(*e.args[on ? 0 : 1]);
      }
    }
    throw NoSplit{};
  }

  Interval ref(std::size_t slot) {
    const Slot& s = m_.slots[slot];
    if (!s.primitive) {
      if (const auto it = env_.find(slot); it != env_.end()) return it->second;
      const auto b = bound_.find(slot);
      if (b == bound_.end()) throw NoSplit{};
      const Let& l = *b->second;
      if (!l.rec) return env_.emplace(slot, eval(*l.exprs[0])).first->second;
      fixed_point(l);
      return env_.at(slot);
    }
    if (s.level == 0) {
      if (s.type == Type::Set) {
        for (const auto& [name, bits] : q_.statics.sets)
          if (name == s.name) return set(bits, bits);
      } else {
        for (const auto& [name, r] : q_.statics.rels)
          if (name == s.name) return rel(r, r);
      }
      throw NoSplit{};
    }
    for (const ChoiceBounds& c : q_.choices)
      if (c.primitive == s.name && s.type == Type::Rel) return rel(c.lo, c.hi);
    throw NoSplit{};
  }

  // A `let rec` group from empty, each round's bindings evaluated (every
  // node checked) over the last round's intervals, until neither end moves.
  // Each candidate's own iterates lie within the rounds' intervals, so
  // every iterate, and the fixed point, meets the rule (by induction on
  // the rounds). Each round adds a pair or an event to an end: at most
  // 2 * (n^2 + n) * |group| + 1 rounds.
  void fixed_point(const Let& l) {
    for (const std::size_t slot : l.slots) env_[slot] = empty_of(m_.slots[slot].type);
    const std::size_t rounds = 2 * (n_ * n_ + n_) * l.slots.size() + 2;
    for (std::size_t round = 0; round < rounds; ++round) {
      std::vector<Interval> next;
      for (const auto& e : l.exprs) next.push_back(eval(*e));
      bool moved = false;
      for (std::size_t i = 0; i < l.slots.size(); ++i) {
        Interval& cur = env_.at(l.slots[i]);
        moved = moved || !(cur.lo == next[i].lo) || !(cur.hi == next[i].hi) ||
                cur.slo != next[i].slo || cur.shi != next[i].shi;
        cur = std::move(next[i]);
      }
      if (!moved) return;
    }
    throw NoSplit{};
  }

  Interval empty_of(Type t) const {
    return t == Type::Rel ? rel(BitRel(n_), BitRel(n_)) : set(none(), none());
  }

  Interval fold(const Expr& e) {
    Interval acc = eval(*e.args[0]);
    for (std::size_t i = 1; i < e.args.size(); ++i) {
      const Interval b = eval(*e.args[i]);
      if (e.type == Type::Rel) {
        if (e.op == Op::Union) {
          acc.lo |= b.lo;
          acc.hi |= b.hi;
        } else {
          acc.lo &= b.lo;
          acc.hi &= b.hi;
        }
      } else {
        for (std::size_t k = 0; k < acc.slo.size(); ++k) {
          acc.slo[k] = e.op == Op::Union ? acc.slo[k] | b.slo[k] : acc.slo[k] & b.slo[k];
          acc.shi[k] = e.op == Op::Union ? acc.shi[k] | b.shi[k] : acc.shi[k] & b.shi[k];
        }
      }
    }
    return acc;
  }

  // The smallest value takes away the most (the subtrahends' hi), and the other way round.
  Interval diff(const Expr& e) {
    Interval acc = eval(*e.args[0]);
    for (std::size_t i = 1; i < e.args.size(); ++i) {
      const Interval b = eval(*e.args[i]);
      if (e.type == Type::Rel) {
        acc.lo -= b.hi;
        acc.hi -= b.lo;
      } else {
        for (std::size_t k = 0; k < acc.slo.size(); ++k) {
          acc.slo[k] &= ~b.shi[k];
          acc.shi[k] &= ~b.slo[k];
        }
      }
    }
    return acc;
  }

  // a ; b ; c as (a ; b) ; c, each step a node of its own (the induction
  // composes two operands whose cross parts are constant).
  Interval seq(const Expr& e) {
    Interval acc = eval(*e.args[0]);
    for (std::size_t i = 1; i < e.args.size(); ++i) {
      const Interval b = eval(*e.args[i]);
      acc = rel(acc.lo.compose(b.lo), acc.hi.compose(b.hi));
      agree_across(acc.lo, acc.hi);
    }
    return acc;
  }

  Interval cartesian(const Interval& s, const Interval& t) const {
    Interval v = empty_of(Type::Rel);
    cartesian_into(s.slo, t.slo, v.lo);
    cartesian_into(s.shi, t.shi, v.hi);
    return v;
  }

  Interval complement(const Expr& e) {
    const Interval a = eval(*e.args[0]);
    if (e.type == Type::Rel) {
      BitRel full(n_);
      for (std::size_t i = 0; i < n_; ++i) std::copy(all_.begin(), all_.end(), full.row(i));
      return rel(full - a.hi, full - a.lo);
    }
    Bits lo = all_, hi = all_;
    for (std::size_t k = 0; k < lo.size(); ++k) {
      lo[k] &= ~a.shi[k];
      hi[k] &= ~a.slo[k];
    }
    return set(lo, hi);
  }

  Bits none() const { return Bits(all_.size(), 0); }

  const Model& m_;
  const std::vector<std::string>& variants_;
  const SplitQuestion& q_;
  std::size_t n_;
  BitRel cross_;  // the pairs across parts
  Bits all_;
  std::map<std::size_t, const Let*> bound_;  // let-bound slots: their let (or let rec group)
  std::map<std::size_t, Interval> env_;      // their values, once read
};

}  // namespace

bool checks_split(const Model& m, const std::vector<std::string>& variants,
                  const std::function<bool(std::string_view)>& enabled, const SplitQuestion& q) {
  SplitCheck s(m, variants, q);
  try {
    for (const Stmt& st : m.stmts) {
      if (st.let) {
        s.let(*st.let);
        continue;
      }
      const Check& c = *st.check;
      if (c.flag || (!c.name.empty() && !enabled(c.name))) continue;  // forbids nothing
      s.check(c);
    }
  } catch (const NoSplit&) {
    return false;
  }
  return true;
}

}  // namespace redscope::cat
