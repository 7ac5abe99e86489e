// Ordered float comparisons on concrete values (PTX §9.7.7.1 setp: "ordered
// comparisons ... are false if either operand is NaN"). The symbolic twin is
// z3_float_compare in engine/z3/z3_values.cpp.
#include <cmath>
#include <cstring>

#include "redscope/core/litmus.hpp"
#include "redscope/core/values.hpp"

namespace redscope {
namespace {

// Every f16, bf16, f32 and f64 value is exactly a double.
double to_double(FloatFormat f, std::uint64_t bits) {
  switch (f) {
    case FloatFormat::F64: {
      double d;
      std::memcpy(&d, &bits, 8);
      return d;
    }
    case FloatFormat::F32: {
      const auto b = static_cast<std::uint32_t>(bits);
      float x;
      std::memcpy(&x, &b, 4);
      return x;
    }
    case FloatFormat::BF16: {
      const auto b = static_cast<std::uint32_t>(bits << 16);
      float x;
      std::memcpy(&x, &b, 4);
      return x;
    }
    case FloatFormat::F16: {
      const bool neg = (bits >> 15) & 1;
      const int exp = static_cast<int>((bits >> 10) & 0x1f);
      const double frac = static_cast<double>(bits & 0x3ff);
      double v = exp == 0    ? std::ldexp(frac, -24)
                 : exp == 31 ? (frac == 0 ? INFINITY : NAN)
                             : std::ldexp(1024 + frac, exp - 25);
      return neg ? -v : v;
    }
  }
  return 0;
}

}  // namespace

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
