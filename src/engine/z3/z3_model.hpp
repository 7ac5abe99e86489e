// A cat model evaluated symbolically over one skeleton, for the Z3 engine:
// each set is a condition per event, each relation a Rel (relation.hpp) whose
// cells are Z3 Booleans, constant true where a pair is related in every
// execution. The engine fills the primitives; encode() then evaluates the
// model's bindings in file order (naming each binding's non-constant cells
// with fresh Booleans, which keeps shared subterms small) and asserts every
// non-flag check under the literal of its name. Private to the engines.
//
// The operators follow the enumerator's bit-matrix evaluator
// (model/cat_eval.cpp) cell for cell, so that both engines read one model the
// same way; test_model.cpp checks the two against each other.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <z3++.h>

#include "engine/z3/relation.hpp"
#include "redscope/core/budget.hpp"
#include "redscope/model/cat.hpp"

namespace redscope::detail {

// A set of events: event i is in it when cell i holds.
using SymSet = std::vector<z3::expr>;

class SymbolicModel {
 public:
  // `rank`: a fresh rank constant of the engine's solver (integers or
  // bit-vectors); `variants`: the names `if "v"` tests true for; `enabled`:
  // whether a named check forbids.
  using RankFactory = std::function<z3::expr(const std::string&)>;
  SymbolicModel(z3::context& c, z3::solver& s, const cat::Model& m, std::size_t n,
                std::vector<std::string> variants,
                const std::function<bool(std::string_view)>& enabled, RankFactory rank,
                const Budget* budget);

  // The value of a primitive, to be filled by the engine before encode()
  // (a dummy when the model does not read it).
  Rel& rel(std::string_view primitive);
  SymSet& set(std::string_view primitive);

  void encode();

  // The literals under which the forbidding checks are asserted, one per
  // check name (unnamed checks each have their own), in file order.
  struct CheckLiteral {
    std::string name;  // the `as` name, or "" for an unnamed check
    z3::expr literal;
    bool enabled;  // false: a disabled axiom (asserted, but its literal is never assumed)
  };
  const std::vector<CheckLiteral>& checks() const { return checks_; }
  // The literal of the checks named `name` (null when there is none).
  const z3::expr* literal(std::string_view name) const;

  // A let-bound relation by name, after encode() (null when the model has none).
  const Rel* binding(std::string_view name) const;

 private:
  struct Value {
    Rel rel;
    SymSet set;
  };
  Value eval(const cat::Expr& e);
  Value eval_binary(const cat::Expr& e);
  Value eval_seq(const cat::Expr& e);
  Value blank(cat::Type t) const;
  void assert_check(const cat::Check& ch);
  void acyclic(const Rel& r, const z3::expr& lit, const std::string& name);
  z3::expr literal_for(const cat::Check& ch);
  std::size_t slot_of(std::string_view name) const;
  std::string binding_name(std::size_t slot);
  void recursive(const cat::Let& l);
  void poll() const;

  z3::context& c_;
  z3::solver& s_;
  const cat::Model& m_;
  std::size_t n_;
  std::vector<std::string> variants_;
  std::function<bool(std::string_view)> enabled_;
  RankFactory rank_;
  const Budget* budget_;
  std::vector<Value> values_;
  std::vector<CheckLiteral> checks_;
  Value dummy_;
  unsigned acyclic_count_ = 0;
  std::map<std::string, std::size_t> bound_names_;  // bindings of each name so far
};

}  // namespace redscope::detail
