// Evaluating a parsed cat model over one candidate execution with bit-matrix
// relations. The engine fills the primitives' values; update(level) then
// re-evaluates only the bindings and checks that read a primitive of that
// level or higher (docs/model.md "The model file").
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "redscope/core/bitrel.hpp"
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
  Evaluator(const Model& m, std::size_t n, std::vector<std::string> variants,
            const std::function<bool(std::string_view)>& enabled);

  // The value of a primitive, to be filled by the engine (a dummy when the
  // model does not read that primitive).
  BitRel& rel(std::string_view primitive);
  Bits& set(std::string_view primitive);
  bool uses(std::string_view primitive) const;

  // Re-evaluates every statement of level >= `from`.
  void update(int from);
  // No enabled (non-flag) check fails.
  bool consistent() const;
  // The names of the failing non-flag checks (enabled or not), in file order.
  std::vector<std::string> failing() const;

  // The value of any expression of the model, over the current primitives
  // and bindings (explain reads the relation an axiom constrains).
  Value eval(const Expr& e) const;
  const Model& model() const { return m_; }

 private:
  Value eval_binary(const Expr& e) const;
  bool holds(const Check& c) const;
  void run_let(const Let& l);
  std::size_t slot_of(std::string_view name) const;

  const Model& m_;
  std::size_t n_;
  std::vector<std::string> variants_;
  std::vector<Value> values_;
  std::vector<char> result_;   // per statement: the check holds
  std::vector<char> forbids_;  // per statement: a failing check rejects
  Value dummy_;
};

}  // namespace redscope::cat
