// values.hpp's operations as Z3 terms (see z3_values.hpp).
//
// Addition is fp.add with roundNearestTiesToEven in Z3's floating-point theory
// (SMT-LIB FloatingPoint = IEEE-754 binary formats; Z3 counts the hidden bit in
// sbits, so f16 = (5, 11), bf16 = (8, 8), f32 = (8, 24), f64 = (11, 53)).
// What IEEE leaves open or PTX adds is spelled out on bit-vectors with ite:
// flushing (.ftz), the NaN bit pattern (fp.to_ieee_bv of a NaN is
// unspecified in SMT-LIB, so every NaN result is replaced by canonical_nan),
// and min/max, which select one operand's bits instead of using fp.min
// (unspecified on +0/-0).
#include "redscope/engine/z3/z3_values.hpp"

#include "redscope/core/litmus.hpp"

namespace redscope {
namespace {

struct FpParams {
  unsigned ebits;
  unsigned sbits;  // including the hidden bit
};

FpParams fp_params(FloatFormat f) {
  switch (f) {
    case FloatFormat::F16: return {5, 11};
    case FloatFormat::BF16: return {8, 8};
    case FloatFormat::F32: return {8, 24};
    case FloatFormat::F64: return {11, 53};
  }
  return {11, 53};
}

// Wraps a result of the C API (4.8.12's C++ API has no fp.add/fp sort with
// an explicit rounding mode), raising z3::exception on error.
z3::expr wrap(z3::context& c, Z3_ast a) {
  c.check_error();
  return z3::expr(c, a);
}

// The bit-vector `bits` read as an IEEE value of format f (fp.to_fp of a
// bit-vector).
z3::expr to_fp(FloatFormat f, const z3::expr& bits) {
  z3::context& c = bits.ctx();
  const FpParams p = fp_params(f);
  const z3::sort s(c, Z3_mk_fpa_sort(c, p.ebits, p.sbits));
  return wrap(c, Z3_mk_fpa_to_fp_bv(c, bits, s));
}

z3::expr sign_bit(const z3::expr& bits) {
  const unsigned top = bits.get_sort().bv_size() - 1;
  return bits.extract(top, top) == 1;
}

// Exponent field zero and fraction non-zero (values.hpp is_subnormal).
z3::expr is_subnormal_bits(FloatFormat f, const z3::expr& bits) {
  const FpParams p = fp_params(f);
  const unsigned fb = p.sbits - 1;
  return bits.extract(fb + p.ebits - 1, fb) == 0 && bits.extract(fb - 1, 0) != 0;
}

// Sign-preserving flush of a subnormal to zero.
z3::expr flush(FloatFormat f, const z3::expr& bits) {
  const unsigned w = width_of(f);
  const z3::expr sign_only = bits & bits.ctx().bv_val(std::uint64_t{1} << (w - 1), w);
  return z3::ite(is_subnormal_bits(f, bits), sign_only, bits);
}

z3::expr canonical(FloatFormat f, z3::context& c) {
  return c.bv_val(canonical_nan(f), width_of(f));
}

// a < b for non-NaN operands, with -0.0 < +0.0 (fp.lt has -0 == +0).
z3::expr less_than(FloatFormat f, const z3::expr& a, const z3::expr& b) {
  const z3::expr x = to_fp(f, a), y = to_fp(f, b);
  return z3::ite(x.mk_is_zero() && y.mk_is_zero(), sign_bit(a) && !sign_bit(b), x < y);
}

// PTX min_num shape: both NaN -> canonical, one NaN -> the other operand,
// else the operand `a_first` prefers.
z3::expr select_non_nan(FloatFormat f, const z3::expr& a, const z3::expr& b,
                        const z3::expr& a_first) {
  const z3::expr na = to_fp(f, a).mk_is_nan(), nb = to_fp(f, b).mk_is_nan();
  return z3::ite(na && nb, canonical(f, a.ctx()),
                 z3::ite(na, b, z3::ite(nb, a, z3::ite(a_first, a, b))));
}

}  // namespace

// float_add: fp.add RNE; ftz flushes inputs and result; NaN -> canonical.
z3::expr z3_float_add(FloatFormat f, const z3::expr& a, const z3::expr& b, bool ftz) {
  z3::context& c = a.ctx();
  const z3::expr x = ftz ? flush(f, a) : a;
  const z3::expr y = ftz ? flush(f, b) : b;
  const z3::expr rne = wrap(c, Z3_mk_fpa_rne(c));
  const z3::expr sum = wrap(c, Z3_mk_fpa_add(c, rne, to_fp(f, x), to_fp(f, y)));
  z3::expr bits = wrap(c, Z3_mk_fpa_to_ieee_bv(c, sum));  // unspecified for NaN: replaced
  if (ftz) bits = flush(f, bits);
  return z3::ite(sum.mk_is_nan(), canonical(f, c), bits);
}

// float_min: (a < b) ? a : b, -0.0 < +0.0, NaN operands ignored.
z3::expr z3_float_min(FloatFormat f, const z3::expr& a, const z3::expr& b) {
  return select_non_nan(f, a, b, less_than(f, a, b));
}

// float_max: (a > b) ? a : b, +0.0 > -0.0, NaN operands ignored.
z3::expr z3_float_max(FloatFormat f, const z3::expr& a, const z3::expr& b) {
  return select_non_nan(f, a, b, less_than(f, b, a));
}

// Seed: inc(r, s) = (r >= s) ? 0 : r+1.
z3::expr z3_int_inc(const z3::expr& r, const z3::expr& s) {
  return z3::ite(z3::uge(r, s), r.ctx().bv_val(0, r.get_sort().bv_size()), r + 1);
}

// Seed: dec(r, s) = (r == 0 || r > s) ? s : r-1.
z3::expr z3_int_dec(const z3::expr& r, const z3::expr& s) {
  return z3::ite(r == 0 || z3::ugt(r, s), s, r - 1);
}

// float_compare as a Z3 term: fp comparisons are false on NaN, and `ne` is
// ordered too (PTX §9.7.7.1 setp).
z3::expr z3_float_compare(CmpOp op, FloatFormat f, const z3::expr& a, const z3::expr& b) {
  z3::context& c = a.ctx();
  const z3::expr x = to_fp(f, a), y = to_fp(f, b);
  switch (op) {
    case CmpOp::Eq: return wrap(c, Z3_mk_fpa_eq(c, x, y));
    case CmpOp::Ne:
      return !wrap(c, Z3_mk_fpa_eq(c, x, y)) && !wrap(c, Z3_mk_fpa_is_nan(c, x)) &&
             !wrap(c, Z3_mk_fpa_is_nan(c, y));
    case CmpOp::Lt: return wrap(c, Z3_mk_fpa_lt(c, x, y));
    case CmpOp::Le: return wrap(c, Z3_mk_fpa_leq(c, x, y));
    case CmpOp::Gt: return wrap(c, Z3_mk_fpa_gt(c, x, y));
    case CmpOp::Ge: return wrap(c, Z3_mk_fpa_geq(c, x, y));
  }
  return c.bool_val(false);
}

}  // namespace redscope
