// A condition's comparison resolved against the observables (results.cpp);
// shared by the concrete evaluation and the Z3 one (z3_condition.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "redscope/results/results.hpp"

namespace redscope {

// One comparison of a condition, resolved against the observables: each side
// is an observable (index) or constant bits, compared at one type.
struct CmpPlan {
  std::optional<std::size_t> side[2];
  std::uint64_t bits[2] = {0, 0};
  DataType type = DataType::S64;
  bool ok = true;  // false when a literal is not a value of `type`
  const Literal* bad = nullptr;
};

CmpPlan plan(const CondExpr& e, const std::vector<Observable>& obs);

// A condition with every comparison resolved once: eval_condition's answer
// for each outcome without looking its observables up again (a listing
// judges millions of outcomes, twice: outcome_store.cpp).
class ConditionProgram {
 public:
  ConditionProgram(const CondExpr& c, const std::vector<Observable>& obs);
  bool operator()(std::span<const std::uint64_t> values) const { return eval(root_, values); }

 private:
  struct Node {
    CondExpr::Kind kind = CondExpr::Kind::True;
    std::vector<Node> kids;
    CmpOp cmp = CmpOp::Eq;
    CmpPlan plan;
    DataType from[2] = {DataType::S64, DataType::S64};  // each observable side's own type
  };
  static Node compile(const CondExpr& c, const std::vector<Observable>& obs);
  static bool eval(const Node& n, std::span<const std::uint64_t> values);
  Node root_;
};

}  // namespace redscope
