// The value semantics of values.hpp as Z3 bit-vector terms, so the symbolic
// engine computes exactly what float_add / float_min / float_max / int_inc /
// int_dec compute. Operands and results are bit-vectors of width_of(f)
// (integers: any width, both operands the same). Private to the engine.
#pragma once

#include <z3++.h>

#include "redscope/core/values.hpp"

namespace redscope {

// IEEE-754 addition, round to nearest even, in Z3's floating-point theory.
// ftz: subnormal inputs and a subnormal result become the zero of the same
// sign. A NaN result is canonical_nan(f).
z3::expr z3_float_add(FloatFormat f, const z3::expr& a, const z3::expr& b, bool ftz);

// PTX min/max without .NaN: a NaN operand is ignored, two NaNs give
// canonical_nan(f), -0.0 < +0.0, otherwise one of the operands' bits.
z3::expr z3_float_min(FloatFormat f, const z3::expr& a, const z3::expr& b);
z3::expr z3_float_max(FloatFormat f, const z3::expr& a, const z3::expr& b);

// inc(r, s) = (r >= s) ? 0 : r+1; dec(r, s) = (r == 0 || r > s) ? s : r-1
// (unsigned compares, width of r).
z3::expr z3_int_inc(const z3::expr& r, const z3::expr& s);
z3::expr z3_int_dec(const z3::expr& r, const z3::expr& s);

// float_compare as a Z3 term.
z3::expr z3_float_compare(CmpOp op, FloatFormat f, const z3::expr& a, const z3::expr& b);

}  // namespace redscope
