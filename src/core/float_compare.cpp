// Ordered float comparisons on concrete values (PTX §9.7.7.1 setp: "ordered
// comparisons ... are false if either operand is NaN"). The symbolic twin is
// z3_float_compare in engine/z3/z3_values.cpp.
#include <cmath>

#include "redscope/core/litmus.hpp"
#include "redscope/core/values.hpp"

namespace redscope {

bool float_compare(CmpOp op, FloatFormat f, std::uint64_t a, std::uint64_t b) {
  const double x = to_double(f, a), y = to_double(f, b);
  if (std::isnan(x) || std::isnan(y)) return false;
  switch (op) {
    case CmpOp::Eq: return x == y;
    case CmpOp::Ne: return x != y;
    case CmpOp::Lt: return x < y;
    case CmpOp::Le: return x <= y;
    case CmpOp::Gt: return x > y;
    case CmpOp::Ge: return x >= y;
  }
  return false;
}

}  // namespace redscope
