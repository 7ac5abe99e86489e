// Evaluating a parsed cat model over one candidate execution with bit-matrix
// relations. The engine fills the primitives' values; update(level) then
// re-evaluates only the bindings and checks that read a primitive of that
// level or higher (docs/model.md "The model file").
#pragma once

#include <deque>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "redscope/core/bitrel.hpp"
#include "redscope/core/budget.hpp"
#include "redscope/model/cat.hpp"

namespace redscope::cat {

// A set of events as bits (event i is bit i % 64 of word i / 64).
using Bits = std::vector<std::uint64_t>;

struct Value {
  BitRel rel;
  Bits set;
};

class Evaluator {
 public:
  // `variants`: the variant names `if "v"` tests true for. `enabled`: whether
  // a named check forbids (false for a disabled axiom); unnamed checks do.
  // `budget` (may be null): every relation the evaluator allocates (one per
  // slot, scratch values, hi bounds) is charged to it first, and a `let rec`
  // fixed point checks it once per round.
  Evaluator(const Model& m, std::size_t n, std::vector<std::string> variants,
            const std::function<bool(std::string_view)>& enabled, const Budget* budget = nullptr);

  // Evaluates only what the model's last binding of `binding` reads (its
  // cone of bindings and primitives), with no checks: the static value of
  // one binding (model_ms) without the n x n values of the rest.
  Evaluator(const Model& m, std::size_t n, std::vector<std::string> variants,
            std::string_view binding, const Budget* budget = nullptr);

  // The value of a primitive, to be filled by the engine (a dummy when the
  // model does not read that primitive).
  BitRel& rel(std::string_view primitive);
  Bits& set(std::string_view primitive);
  bool uses(std::string_view primitive) const;
  // Whether this evaluator reads the primitive (every one the model has,
  // but for the one-binding evaluator above).
  bool needs(std::string_view primitive) const;

  // Re-evaluates every statement of level >= `from`.
  void update(int from);
  // Re-evaluates the statements that read, through any bindings, a
  // primitive touched since the last update (rel(), set(), upper() or
  // exact() called on it: the caller may have changed it), in file order.
  // Every statement counts as touched before the first update.
  void update_touched();

  // Partial candidates (the enumerator's pruning search). A primitive may be
  // given as an interval: rel(name) is its value so far (lo) and `upper` the
  // largest it may still become (hi). update() then computes each binding at
  // both bounds, and a check fails only if it fails for every value in the
  // interval: a relation is smallest with the lo value of its positive
  // occurrences and the hi value of its negative ones (the right of `\`,
  // under `~`), and largest the other way round. So a failing check cuts
  // every completion of the partial candidate, for any model file.
  BitRel& upper(std::string_view primitive);
  void exact(std::string_view primitive);  // no longer an interval
  // The same by slot (slot(name), looked up once): for a search that sets
  // a few primitives many times.
  std::size_t slot(std::string_view primitive) const { return slot_of(primitive); }
  BitRel& rel(std::size_t slot);
  BitRel& upper(std::size_t slot);
  void exact(std::size_t slot);
  // Giving or dropping an interval changes the primitive: update() from its
  // level, as after changing its value.
  bool partial() const;
  // No enabled (non-flag) check fails.
  bool consistent() const;
  // The names of the failing non-flag checks (enabled or not), in file order.
  std::vector<std::string> failing() const;

  // The relation the model's last binding of `name` holds (after update());
  // null when the model binds no relation of that name.
  const BitRel* binding(std::string_view name) const;

  // The value of any expression of the model, over the current primitives
  // and bindings (explain reads the relation an axiom constrains).
  Value eval(const Expr& e) const;
  const Model& model() const { return m_; }

 private:
  // Evaluates `e` without copying: the result is the slot a Ref names or
  // pool_[d], the scratch value of depth d. An n-ary node folds its operands
  // one by one into pool_[d], each evaluated at d + 1 (composition uses
  // d + 2 as its output, then swaps); a cartesian product's two operands go
  // to d + 1 and d + 2, so an operand's subtree never overwrites its
  // sibling's result. Depth stays below twice the tree's height.
  enum class Bound : std::uint8_t { Lo, Hi };
  static Bound flip(Bound b) { return b == Bound::Lo ? Bound::Hi : Bound::Lo; }
  const Value& ev(const Expr& e, std::size_t d, Bound b = Bound::Lo) const;
  const Value& ev_node(const Expr& e, std::size_t d, Bound b) const;
  const Value& ev_binary(const Expr& e, std::size_t d, Bound b) const;
  const Value& ev_seq(const Expr& e, std::size_t d, Bound b) const;
  const Value& ref(std::size_t slot, Bound b) const;
  void run_let_at(const Let& l, Bound b);
  Value& scratch(std::size_t d) const {
    return d < scratch_at_.size() ? *scratch_at_[d] : grow_scratch(d);
  }
  Value& grow_scratch(std::size_t d) const;
  void charge_rel() const;  // one n x n relation, to the budget
  bool holds(const Check& c) const;
  void run_let(const Let& l);
  void run_stmt(std::size_t i);
  // Per statement: whether it reads a primitive given as an interval (its
  // hi bound can differ from its lo one).
  bool reads_interval(std::size_t stmt) const;
  void find_reads();
  void find_hi_readers();
  void find_static_roots();
  void static_changed();  // a level-0 primitive changed: the kept values are stale
  void allocate();
  // The storage of a model's values; `everything`: every slot needed and
  // every statement run (else none, for the one-binding form to choose).
  Evaluator(const Model& m, std::size_t n, std::vector<std::string> variants, const Budget* budget,
            bool everything);
  std::size_t slot_of(std::string_view name) const;

  const Model& m_;
  std::size_t n_;
  const Budget* budget_;
  std::vector<std::string> variants_;
  std::vector<Value> values_;
  std::vector<Value> upper_;       // per slot: the hi bound (interval mode)
  std::vector<char> is_upper_;     // per primitive slot: given as an interval
  std::vector<char> upper_fresh_;  // per let slot: upper_ computed after values_
  bool interval_ = false;          // the last update() saw an interval
  std::vector<char> result_;       // per statement: the check holds
  std::vector<char> forbids_;      // per statement: a failing check rejects
  std::vector<char> needed_;       // per slot: read (values allocated)
  std::vector<char> runs_;         // per statement: evaluated by update()
  // Per statement: the primitive slots it reads, directly or through the
  // bindings it reads (a let rec group: its members' together).
  // As bit masks over the slots (primitives come first: a few words).
  std::vector<std::vector<std::uint64_t>> reads_;
  std::vector<std::uint64_t> touched_;     // primitives touched since the last update
  std::vector<std::uint64_t> upper_mask_;  // primitives given as an interval (is_upper_)
  void touch(std::size_t slot) { touched_[slot / 64] |= 1ULL << (slot % 64); }
  // Per statement: some statement reads its hi bound (a binding under a
  // negative occurrence, `\`'s right or `~`, or in a negated check, at any
  // depth of bindings). Without one, its hi bound is never computed:
  // models/ptx.cat subtracts only primitives and static bindings, so an
  // interval evaluation costs one bound, not two.
  std::vector<char> hi_read_;
  // Static subexpressions of per-candidate statements, by Expr::id: their
  // index in static_vals_ (-1: none), kept until static_changed(); none
  // kept while a static primitive is an interval.
  std::vector<int> static_slot_;
  mutable std::deque<Value> static_vals_;
  mutable std::vector<char> static_ok_;
  std::vector<std::uint64_t> static_mask_;  // the level-0 primitives
  bool static_interval_ = false;
  // Per n-ary node, by Expr::id: its operands in evaluation order (filled
  // on first use).
  mutable std::vector<std::vector<const Expr*>> order_;
  Value dummy_;
  // Scratch values, allocated once at their size (a deque: growing it keeps
  // references to the values in use).
  mutable std::deque<Value> pool_;
  mutable std::vector<Value*> scratch_at_;  // &pool_[d], for a lookup without the deque's
};

}  // namespace redscope::cat
