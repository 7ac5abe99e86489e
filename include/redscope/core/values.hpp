// Bit-exact value semantics of the PTX `red`/`atom` operations (PTX ISA
// §9.7.13.5 atom, §9.7.13.6 red; seed ../shared/seeds/ptx-red.txt) over raw
// bit patterns: a std::uint64_t holds the low `width` bits of a value, the
// bits above are zero.
//
// NaN results. PTX leaves the NaN produced by arithmetic unspecified
// (§9.7.3: "Single-precision instructions return an unspecified NaN";
// §9.7.4: "Half-precision instructions return an unspecified NaN"; f64
// supports payloads). A model needs one answer, so every NaN produced by
// these operations is canonical_nan(f):
//   f32  0x7fffffff          CUDA C++ Programming Guide, "Floating-Point
//                            Standard": an f32 operation with a NaN input
//                            returns "the quiet NaN of bit pattern 0x7fffffff"
//   f16  0x7fff, bf16 0x7fff cuda_fp16.h / cuda_bf16.h CUDART_NAN_FP16 /
//                            CUDART_NAN_BF16, documented as "canonical NaN"
//   f64  0xfff8000000000000  math_constants.h CUDART_NAN (a choice: PTX says
//                            f64 propagates payloads; see docs in values.cpp)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace redscope {

enum class FloatFormat : std::uint8_t { F16, BF16, F32, F64 };

// Storage width in bits: 16, 16, 32, 64.
unsigned width_of(FloatFormat f);

// The value of `bits` in format f as a double (exact: every f16, bf16, f32
// and f64 value is a double).
double to_double(FloatFormat f, std::uint64_t bits);

// The single NaN every operation below produces (table above).
std::uint64_t canonical_nan(FloatFormat f);

bool is_nan(FloatFormat f, std::uint64_t bits);

// Exponent field zero and fraction non-zero.
bool is_subnormal(FloatFormat f, std::uint64_t bits);

// IEEE-754 addition rounded to nearest even (PTX §9.7.3.3, §9.7.4.1; seed:
// "The floating-point operation .add operation rounds to nearest even").
// ftz: subnormal inputs and a subnormal result become the zero of the same
// sign (red/atom.add.f32 on .global). Any NaN result is canonical_nan(f).
std::uint64_t float_add(FloatFormat f, std::uint64_t a, std::uint64_t b, bool ftz);

// PTX min/max without .NaN (§9.7.3.11-12, §9.7.4.7-8): a NaN operand is
// ignored, two NaNs give canonical_nan(f), -0.0 < +0.0, otherwise the
// operand itself (bit pattern unchanged, subnormals kept).
std::uint64_t float_min(FloatFormat f, std::uint64_t a, std::uint64_t b);
std::uint64_t float_max(FloatFormat f, std::uint64_t a, std::uint64_t b);

// Seed "Semantics": inc(r, s) = (r >= s) ? 0 : r+1, unsigned compare.
std::uint64_t int_inc(unsigned width, std::uint64_t r, std::uint64_t s);
// Seed "Semantics": dec(r, s) = (r == 0 || r > s) ? s : r-1, unsigned compare.
std::uint64_t int_dec(unsigned width, std::uint64_t r, std::uint64_t s);
// .min/.max on .u*/.s* (.b* is not allowed for min/max): two's complement
// compare when is_signed. Inputs are truncated to `width` bits.
std::uint64_t int_min(unsigned width, bool is_signed, std::uint64_t a, std::uint64_t b);
std::uint64_t int_max(unsigned width, bool is_signed, std::uint64_t a, std::uint64_t b);

// A literal of a float type, rounded to `f` with round-to-nearest-even:
//   decimal      [+-]digits[.digits][(e|E)[+-]digits]  (or [+-].digits...)
//   special      inf, +inf, -inf, nan (any case); nan(0x<bits>) for a
//                specific NaN pattern (what format_float prints)
//   raw bits     0x<hex> (any width whose value fits), 0f<8 hex> (f32 only),
//                0d<16 hex> (f64 only), the PTX forms of §4.5.2
// nullopt when malformed, or when a raw pattern does not fit the format.
std::optional<std::uint64_t> parse_float_literal(FloatFormat f, std::string_view text);

// Shortest decimal that parses back to the same bits, written like
// std::to_chars: "1", "-0", "0.1", "1e+08", "inf", "-inf"; "nan" for
// canonical_nan(f) and "nan(0x7fc00001)" (all width/4 hex digits) for any
// other NaN.
std::string format_float(FloatFormat f, std::uint64_t bits);

enum class CmpOp : std::uint8_t;  // litmus.hpp

// Ordered comparison of two floats (setp without a `u` suffix; condition
// ordering): false whenever a NaN is involved; -0.0 == +0.0.
bool float_compare(CmpOp op, FloatFormat f, std::uint64_t a, std::uint64_t b);

}  // namespace redscope
