// Ordered float comparisons, concrete and symbolic (PTX §9.7.7.1 setp:
// "ordered comparisons ... are false if either operand is NaN").
#include <cmath>
#include <cstring>

#include "redscope/litmus.hpp"
#include "redscope/values.hpp"
#include "z3_values.hpp"

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

z3::sort fp_sort(z3::context& c, FloatFormat f) {
  switch (f) {
    case FloatFormat::F16: return c.fpa_sort(5, 11);
    case FloatFormat::BF16: return c.fpa_sort(8, 8);
    case FloatFormat::F32: return c.fpa_sort(8, 24);
    case FloatFormat::F64: return c.fpa_sort(11, 53);
  }
  return c.fpa_sort(8, 24);
}

z3::expr as_fp(FloatFormat f, const z3::expr& bv) {
  z3::context& c = bv.ctx();
  const Z3_ast r = Z3_mk_fpa_to_fp_bv(c, bv, fp_sort(c, f));
  c.check_error();
  return z3::expr(c, r);
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

z3::expr z3_float_compare(CmpOp op, FloatFormat f, const z3::expr& a, const z3::expr& b) {
  z3::context& c = a.ctx();
  const z3::expr x = as_fp(f, a), y = as_fp(f, b);
  auto mk = [&](Z3_ast r) {
    c.check_error();
    return z3::expr(c, r);
  };
  switch (op) {
    case CmpOp::Eq: return mk(Z3_mk_fpa_eq(c, x, y));
    case CmpOp::Ne:
      return !mk(Z3_mk_fpa_eq(c, x, y)) && !mk(Z3_mk_fpa_is_nan(c, x)) &&
             !mk(Z3_mk_fpa_is_nan(c, y));
    case CmpOp::Lt: return mk(Z3_mk_fpa_lt(c, x, y));
    case CmpOp::Le: return mk(Z3_mk_fpa_leq(c, x, y));
    case CmpOp::Gt: return mk(Z3_mk_fpa_gt(c, x, y));
    case CmpOp::Ge: return mk(Z3_mk_fpa_geq(c, x, y));
  }
  return c.bool_val(false);
}

}  // namespace redscope
