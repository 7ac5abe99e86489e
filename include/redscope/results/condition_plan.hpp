// A condition's comparison resolved against the observables (results.cpp);
// shared by the concrete evaluation and the Z3 one (z3_condition.cpp).
#pragma once

#include <cstdint>
#include <optional>
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

}  // namespace redscope
