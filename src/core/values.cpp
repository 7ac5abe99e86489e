// Bit-exact value semantics of PTX red/atom operations (see values.hpp).
//
// Arithmetic goes through host doubles only where that is provably exact or
// correctly rounded (argued at float_add); rounding to the narrow formats is
// done on integers (from_double). Requirements on the host, checked below:
// IEEE-754 binary64/binary32, no excess precision (FLT_EVAL_METHOD == 0), the
// default round-to-nearest-even mode and no flush-to-zero/denormals-are-zero
// (the project never enables -ffast-math or changes the FP environment).
//
// canonical_nan(F64). PTX §9.7.3 says "NaN payloads are supported for
// double-precision instructions", so real f64 adds may propagate an input
// NaN's payload. redscope does not model payloads: like the other formats,
// every f64 NaN result is one canonical pattern, CUDA's CUDART_NAN
// (math_constants.h, 0xfff8000000000000).
#include "redscope/core/values.hpp"

#include <algorithm>
#include <bit>
#include <cfloat>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

#include <fmt/format.h>

static_assert(std::numeric_limits<double>::is_iec559, "binary64 double required");
static_assert(std::numeric_limits<float>::is_iec559, "binary32 float required");
#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "values.cpp needs double arithmetic evaluated in double (no x87 excess precision)"
#endif

namespace redscope {
namespace {

// Field widths of IEEE-754 binary16 / bfloat16 / binary32 / binary64.
struct Layout {
  unsigned width;
  unsigned ebits;  // exponent field
  unsigned fbits;  // stored fraction (significand without the hidden bit)
};

Layout layout(FloatFormat f) {
  switch (f) {
    case FloatFormat::F16: return {16, 5, 10};
    case FloatFormat::BF16: return {16, 8, 7};
    case FloatFormat::F32: return {32, 8, 23};
    case FloatFormat::F64: return {64, 11, 52};
  }
  return {64, 11, 52};
}

std::uint64_t low_mask(unsigned bits) { return bits >= 64 ? ~0ULL : (1ULL << bits) - 1; }
std::uint64_t sign_mask(FloatFormat f) { return 1ULL << (width_of(f) - 1); }
std::uint64_t exp_field(Layout l, std::uint64_t b) { return (b >> l.fbits) & low_mask(l.ebits); }
std::uint64_t frac_field(Layout l, std::uint64_t b) { return b & low_mask(l.fbits); }
int bias_of(Layout l) { return (1 << (l.ebits - 1)) - 1; }

// sig / 2^shift rounded to nearest, ties to even; shift <= 0 scales exactly.
// *tie tells whether the discarded part was exactly one half.
std::uint64_t round_shift(std::uint64_t sig, int shift, bool* tie) {
  *tie = false;
  if (shift <= 0) return sig << -shift;
  if (shift > 63) return 0;  // sig < 2^53 <= 2^(shift-1): below one half
  const std::uint64_t q = sig >> shift, rem = sig & low_mask(unsigned(shift));
  const std::uint64_t half = 1ULL << (shift - 1);
  *tie = rem == half;
  return q + ((rem > half || (rem == half && (q & 1))) ? 1 : 0);
}

// Round the double `d` to `f`: IEEE-754 §4.3.1 roundTiesToEven, including
// gradual underflow and overflow to infinity (a value at or above
// MAX + ulp/2 becomes inf). NaN becomes canonical_nan(f). *tie (optional)
// tells whether d lay exactly halfway between two neighbours in `f`.
std::uint64_t from_double(FloatFormat f, double d, bool* tie = nullptr) {
  bool ignored = false;
  if (!tie) tie = &ignored;
  *tie = false;
  if (std::isnan(d)) return canonical_nan(f);
  if (f == FloatFormat::F64) return std::bit_cast<std::uint64_t>(d);
  const Layout l = layout(f);
  const std::uint64_t sign = std::signbit(d) ? sign_mask(f) : 0;
  const std::uint64_t inf = low_mask(l.ebits) << l.fbits;
  if (std::isinf(d)) return sign | inf;
  if (d == 0) return sign;
  const std::uint64_t db = std::bit_cast<std::uint64_t>(d);  // |d| = sig * 2^e
  const int dexp = int((db >> 52) & 0x7ff);
  const std::uint64_t sig = (db & low_mask(52)) | (dexp ? 1ULL << 52 : 0);
  const int e = dexp ? dexp - 1075 : -1074;
  const int emin = 1 - bias_of(l);
  const int lg = e + int(std::bit_width(sig)) - 1;  // floor(log2 |d|)
  int q = std::max(lg, emin) - int(l.fbits);        // weight of the target's last place
  std::uint64_t n = round_shift(sig, q - e, tie);   // |result| = n * 2^q
  if (n >> (l.fbits + 1)) {
    n >>= 1;
    ++q;
  }                                          // rounding carried into the next binade
  if ((n >> l.fbits) == 0) return sign | n;  // subnormal or zero: exponent field 0
  const int biased = q + int(l.fbits) + bias_of(l);
  if (biased >= int(low_mask(l.ebits))) return sign | inf;
  return sign | (std::uint64_t(biased) << l.fbits) | (n & low_mask(l.fbits));
}

// Sign-preserving flush of a subnormal to zero (PTX .ftz wording).
std::uint64_t flush(FloatFormat f, std::uint64_t bits) {
  return is_subnormal(f, bits) ? (bits & sign_mask(f)) : bits;
}

// a < b for non-NaN a, b, with -0.0 < +0.0 (PTX min/max: "If values of both
// inputs are 0.0, then +0.0 > -0.0").
bool less_than(FloatFormat f, std::uint64_t a, std::uint64_t b) {
  const double x = to_double(f, a), y = to_double(f, b);
  if (x == 0 && y == 0) return std::signbit(x) && !std::signbit(y);
  return x < y;
}

std::int64_t sign_extend(unsigned width, std::uint64_t v) {
  if (width == 0) return 0;
  if (width >= 64) return std::int64_t(v);
  const unsigned shift = 64 - width;
  return std::int64_t(v << shift) >> shift;  // arithmetic shift (C++20)
}

}  // namespace

unsigned width_of(FloatFormat f) { return layout(f).width; }

// Exact for every format: 53 >= 24 significand bits and the f16/bf16/f32
// exponent ranges lie inside double's.
double to_double(FloatFormat f, std::uint64_t bits) {
  if (f == FloatFormat::F64) return std::bit_cast<double>(bits);
  const Layout l = layout(f);
  const std::uint64_t e = exp_field(l, bits), m = frac_field(l, bits);
  const int scale = 1 - bias_of(l) - int(l.fbits);  // exponent of the last place at e <= 1
  double mag = 0;
  if (e == low_mask(l.ebits))
    mag = m ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  else if (e == 0)
    mag = std::ldexp(double(m), scale);
  else
    mag = std::ldexp(double(m | (1ULL << l.fbits)), scale + int(e) - 1);
  return (bits & sign_mask(f)) ? -mag : mag;
}

std::uint64_t canonical_nan(FloatFormat f) {
  switch (f) {
    case FloatFormat::F16: return 0x7fff;                 // CUDART_NAN_FP16
    case FloatFormat::BF16: return 0x7fff;                // CUDART_NAN_BF16
    case FloatFormat::F32: return 0x7fffffff;             // Programming Guide, CUDART_NAN_F
    case FloatFormat::F64: return 0xfff8000000000000ULL;  // CUDART_NAN
  }
  return 0;
}

bool is_nan(FloatFormat f, std::uint64_t bits) {
  const Layout l = layout(f);
  return exp_field(l, bits) == low_mask(l.ebits) && frac_field(l, bits) != 0;
}

bool is_subnormal(FloatFormat f, std::uint64_t bits) {
  const Layout l = layout(f);
  return exp_field(l, bits) == 0 && frac_field(l, bits) != 0;
}

// add.rn (PTX §9.7.3.3 f32/f64, §9.7.4.1 f16/bf16), red/atom.add (§9.7.13.5-6).
// The sum is one correctly rounded IEEE addition:
//  - f64: the host double addition is that operation.
//  - f16: operands are multiples of 2^-24 below 2^16 in magnitude, so their
//    sum fits in 41 bits and the double sum is exact; from_double rounds once.
//  - f32, bf16: the double sum may be inexact, but rounding first to p' = 53
//    bits and then to p bits equals rounding once whenever p' >= 2p + 2
//    (Figueroa, "When is double rounding innocuous?", SIGNUM 1995):
//    53 >= 50 (f32) and 53 >= 18 (bf16). No subnormal result is rounded at
//    all: a sum below 2^-126 of two multiples of 2^-149 (2^-133) is exact.
// ftz flushes the inputs and the (rounded) result to sign-preserving zero;
// a result is only ever rounded in the normal range (previous point), so
// "subnormal before or after rounding" cannot differ.
std::uint64_t float_add(FloatFormat f, std::uint64_t a, std::uint64_t b, bool ftz) {
  const std::uint64_t m = low_mask(width_of(f));
  a &= m;
  b &= m;
  if (ftz) {
    a = flush(f, a);
    b = flush(f, b);
  }
  if (is_nan(f, a) || is_nan(f, b)) return canonical_nan(f);
  const std::uint64_t r = from_double(f, to_double(f, a) + to_double(f, b));  // inf-inf: NaN
  return ftz ? flush(f, r) : r;
}

// min without .NaN, PTX §9.7.3.11 (f32/f64) and §9.7.4.7 (f16/bf16):
// both NaN -> NaN (canonical here), one NaN -> the other operand,
// else (a < b) ? a : b with -0.0 < +0.0. No flushing (red/atom .noftz).
std::uint64_t float_min(FloatFormat f, std::uint64_t a, std::uint64_t b) {
  const std::uint64_t m = low_mask(width_of(f));
  a &= m;
  b &= m;
  const bool na = is_nan(f, a), nb = is_nan(f, b);
  if (na && nb) return canonical_nan(f);
  if (na) return b;
  if (nb) return a;
  return less_than(f, a, b) ? a : b;
}

// max without .NaN, PTX §9.7.3.12 / §9.7.4.8: as float_min with
// (a > b) ? a : b and +0.0 > -0.0.
std::uint64_t float_max(FloatFormat f, std::uint64_t a, std::uint64_t b) {
  const std::uint64_t m = low_mask(width_of(f));
  a &= m;
  b &= m;
  const bool na = is_nan(f, a), nb = is_nan(f, b);
  if (na && nb) return canonical_nan(f);
  if (na) return b;
  if (nb) return a;
  return less_than(f, b, a) ? a : b;
}

// Seed "Semantics": inc(r, s) = (r >= s) ? 0 : r+1 (unsigned; r+1 <= s
// cannot wrap).
std::uint64_t int_inc(unsigned width, std::uint64_t r, std::uint64_t s) {
  const std::uint64_t m = low_mask(width);
  r &= m;
  s &= m;
  return r >= s ? 0 : r + 1;
}

// Seed "Semantics": dec(r, s) = (r == 0 || r > s) ? s : r-1 (unsigned).
std::uint64_t int_dec(unsigned width, std::uint64_t r, std::uint64_t s) {
  const std::uint64_t m = low_mask(width);
  r &= m;
  s &= m;
  return (r == 0 || r > s) ? s : r - 1;
}

// red/atom .min on .u32/.u64 (unsigned) and .s32/.s64 (two's complement).
std::uint64_t int_min(unsigned width, bool is_signed, std::uint64_t a, std::uint64_t b) {
  const std::uint64_t m = low_mask(width);
  a &= m;
  b &= m;
  const bool a_less = is_signed ? sign_extend(width, a) < sign_extend(width, b) : a < b;
  return a_less ? a : b;
}

// red/atom .max, as int_min.
std::uint64_t int_max(unsigned width, bool is_signed, std::uint64_t a, std::uint64_t b) {
  const std::uint64_t m = low_mask(width);
  a &= m;
  b &= m;
  const bool a_less = is_signed ? sign_extend(width, a) < sign_extend(width, b) : a < b;
  return a_less ? b : a;
}

// ---- Literals ---------------------------------------------------------------
//
// Decimal literals are rounded once, correctly, to the target format:
//  - f64: strtod, f32: strtof (glibc converts with exact multi-precision
//    arithmetic and rounds to nearest even; strtod followed by a double->float
//    conversion could double-round). Both run in the "C" locale, which
//    redscope never changes, and only ever see text already checked by
//    scan_decimal (so no hex floats, "infinity" or locale forms reach them).
//  - f16, bf16: strtod, then from_double; the one case where that double
//    rounding can go wrong is repaired exactly (decimal_to_narrow).
// Note: PTX itself (§4.5.2 "Floating-Point Constants") represents a decimal
// literal as a 64-bit double and converts it at its use, so in a PTX
// instruction an f32 literal may be double-rounded; redscope rounds once.
namespace {

char ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c; }

// Case-insensitive equality with a lower-case word.
bool iequals(std::string_view text, std::string_view lower_word) {
  return text.size() == lower_word.size() &&
         std::equal(text.begin(), text.end(), lower_word.begin(),
                    [](char a, char b) { return ascii_lower(a) == b; });
}

// Hex digits of a raw bit pattern: nullopt if empty, not all hex, not
// exactly `exact` digits (when exact != 0), or not fitting in `width` bits.
std::optional<std::uint64_t> parse_bits(std::string_view hex, unsigned width, std::size_t exact) {
  if (hex.empty() || (exact != 0 && hex.size() != exact)) return std::nullopt;
  std::uint64_t v = 0;
  const char* end = hex.data() + hex.size();
  const auto [ptr, ec] = std::from_chars(hex.data(), end, v, 16);
  if (ec != std::errc() || ptr != end || (v & ~low_mask(width)) != 0) return std::nullopt;
  return v;
}

// inf, +inf, -inf, nan and nan(0x<bits of a NaN>), in any case.
std::optional<std::uint64_t> parse_special(FloatFormat f, std::string_view t) {
  const Layout l = layout(f);
  const std::uint64_t inf = low_mask(l.ebits) << l.fbits;
  if (iequals(t, "inf") || iequals(t, "+inf")) return inf;
  if (iequals(t, "-inf")) return inf | sign_mask(f);
  if (iequals(t, "nan")) return canonical_nan(f);
  if (t.size() > 7 && iequals(t.substr(0, 6), "nan(0x") && t.back() == ')') {
    const auto bits = parse_bits(t.substr(6, t.size() - 7), l.width, 0);
    if (bits && is_nan(f, *bits)) return bits;
  }
  return std::nullopt;
}

// |value| = 0.digits x 10^exp; digits has no leading or trailing zero and is
// empty for zero.
struct Decimal {
  std::string digits;
  long long exp = 0;
};

// [+-]digits[.digits][(e|E)[+-]digits], with digits on at least one side of
// the point; nullopt for anything else.
std::optional<Decimal> scan_decimal(std::string_view t) {
  Decimal d;
  std::size_t i = (!t.empty() && (t[0] == '+' || t[0] == '-')) ? 1 : 0;
  long long point = 0;  // position of the decimal point relative to d.digits
  std::size_t mantissa_digits = 0;
  bool seen_point = false;
  for (; i < t.size(); ++i) {
    if (t[i] == '.' && !seen_point) {
      seen_point = true;
      continue;
    }
    if (t[i] < '0' || t[i] > '9') break;
    ++mantissa_digits;
    if (!seen_point) ++point;
    if (t[i] == '0' && d.digits.empty())
      --point;  // leading zero: shift only
    else
      d.digits.push_back(t[i]);
  }
  if (mantissa_digits == 0) return std::nullopt;
  long long exp = 0;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    const bool neg = ++i < t.size() && t[i] == '-';
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
    const std::size_t start = i;
    for (; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i)
      exp = std::min(exp * 10 + (t[i] - '0'), 1'000'000'000'000LL);  // saturate
    if (i == start) return std::nullopt;
    if (neg) exp = -exp;
  }
  if (i != t.size()) return std::nullopt;
  while (!d.digits.empty() && d.digits.back() == '0') d.digits.pop_back();
  d.exp = d.digits.empty() ? 0 : point + exp;
  return d;
}

// Sign of |a| - |b|.
int compare_magnitude(const Decimal& a, const Decimal& b) {
  if (a.digits.empty() || b.digits.empty()) return int(!a.digits.empty()) - int(!b.digits.empty());
  if (a.exp != b.exp) return a.exp < b.exp ? -1 : 1;
  const int c = a.digits.compare(b.digits);  // a prefix is smaller: the rest is non-zero
  return (c > 0) - (c < 0);
}

// The exact decimal value of a finite double (std::to_chars with a precision
// is exact; 767 significant digits suffice for any double).
Decimal exact_decimal(double d) {
  char buf[900];
  const auto res = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific, 800);
  return scan_decimal(std::string_view(buf, std::size_t(res.ptr - buf))).value_or(Decimal{});
}

// Decimal x -> f16/bf16 with one correct rounding. strtod gives d, the double
// nearest x. Rounding d to `f` equals rounding x unless d is exactly a
// midpoint between two neighbours of `f`: every such midpoint is a double
// (at most 12 significant bits, exponent within double's range) and rounding
// to nearest is monotone, so d can land on a midpoint but never cross one.
// On a midpoint, compare x with d exactly to pick the neighbour (e.g. f16
// "1.00048828125000000000000001" = 1 + 2^-11 + tiny rounds up).
std::uint64_t decimal_to_narrow(FloatFormat f, const std::string& text, const Decimal& x) {
  const double d = std::strtod(text.c_str(), nullptr);
  bool tie = false;
  const std::uint64_t even = from_double(f, d, &tie);
  if (!tie) return even;
  const int c = compare_magnitude(x, exact_decimal(d));
  if (c == 0) return even;  // a true tie: nearest even
  const bool even_is_up = std::fabs(to_double(f, even)) > std::fabs(d);
  if ((c > 0) == even_is_up) return even;
  return even_is_up ? even - 1 : even + 1;  // the other neighbour: magnitude -/+ 1 ulp
}

// Significant digits c x 10^q, c without trailing zeros.
struct Digits {
  std::string c;
  long long q = 0;
};

Digits make_digits(std::uint64_t c, long long q) {
  std::string d = std::to_string(c);
  while (d.size() > 1 && d.back() == '0') {
    d.pop_back();
    ++q;
  }
  return {d, q};
}

// d in scientific notation as printf %e writes it: "1e+08", "6.55e+04".
std::string scientific(const Digits& d) {
  const long long e = d.q + static_cast<long long>(d.c.size()) - 1;
  std::string out = d.c.substr(0, 1);
  if (d.c.size() > 1) out.append(".").append(d.c, 1);
  return out + fmt::format("e{}{:02}", e < 0 ? '-' : '+', e < 0 ? -e : e);
}

// The shortest digits d of v written like std::to_chars(v): fixed or
// scientific, whichever is shorter, fixed on a tie; fixed notation of an
// integer-valued v shows its exact digits (v is an integer whenever q >= 0:
// the nearest integers are representable or v's ulp is >= 2).
std::string render(double v, const Digits& d) {
  const long long n = static_cast<long long>(d.c.size()), q = d.q;
  std::string fixed;
  if (q >= 0) {
    char buf[400];  // DBL_MAX has 309 digits
    const auto res =
        std::to_chars(buf, buf + sizeof buf, std::fabs(v), std::chars_format::fixed, 0);
    fixed.assign(buf, res.ptr);
  } else if (-q < n) {
    const std::size_t point = std::size_t(n + q);
    fixed.append(d.c, 0, point).append(".").append(d.c, point);
  } else {
    fixed.append("0.").append(std::size_t(-q - n), '0').append(d.c);
  }
  const std::string sci = scientific(d);
  std::string out = std::signbit(v) ? "-" : "";
  return out.append(fixed.size() <= sci.size() ? fixed : sci);
}

// n significant digits that parse back to `bits`, if any. The candidates are
// c, the n-digit decimal nearest |v|, and the next one up: the interval of
// reals that round to v is symmetric about v except at a power of two, where
// the part below v is half as wide, so when c fails a decimal below v never
// succeeds (e.g. f16 2^-6 = 0.015625 -> "0.01563").
std::optional<Digits> shortest_at(FloatFormat f, std::uint64_t bits, double v, int n) {
  char buf[64];
  const auto res =
      std::to_chars(buf, buf + sizeof buf, std::fabs(v), std::chars_format::scientific, n - 1);
  const std::string_view s(buf, std::size_t(res.ptr - buf));  // d.ddde[+-]xx
  const std::size_t epos = s.find('e');
  std::uint64_t c = 0;
  for (char ch : s.substr(0, epos))
    if (ch != '.') c = c * 10 + std::uint64_t(ch - '0');
  int x = 0;
  std::from_chars(s.data() + epos + (s[epos + 1] == '+' ? 2 : 1), s.data() + s.size(), x);
  for (const std::uint64_t candidate : {c, c + 1}) {
    const Digits d = make_digits(candidate, x - (n - 1));
    std::string text = std::signbit(v) ? "-" : "";
    if (parse_float_literal(f, text.append(scientific(d))) == bits) return d;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::uint64_t> parse_float_literal(FloatFormat f, std::string_view text) {
  if (auto special = parse_special(f, text)) return special;
  if (text.size() >= 2 && text[0] == '0') {
    const char kind = ascii_lower(text[1]);
    if (kind == 'x') return parse_bits(text.substr(2), width_of(f), 0);
    if (kind == 'f')
      return f == FloatFormat::F32 ? parse_bits(text.substr(2), 32, 8) : std::nullopt;
    if (kind == 'd')
      return f == FloatFormat::F64 ? parse_bits(text.substr(2), 64, 16) : std::nullopt;
  }
  const auto x = scan_decimal(text);
  if (!x) return std::nullopt;
  const std::string s(text);
  switch (f) {
    case FloatFormat::F64: return std::bit_cast<std::uint64_t>(std::strtod(s.c_str(), nullptr));
    case FloatFormat::F32: return std::bit_cast<std::uint32_t>(std::strtof(s.c_str(), nullptr));
    default: return decimal_to_narrow(f, s, *x);
  }
}

std::string format_float(FloatFormat f, std::uint64_t bits) {
  bits &= low_mask(width_of(f));
  if (is_nan(f, bits))
    return bits == canonical_nan(f) ? "nan" : fmt::format("nan(0x{:0{}x})", bits, width_of(f) / 4);
  const double v = to_double(f, bits);
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  if (v == 0) return std::signbit(v) ? "-0" : "0";
  for (int n = 1; n <= 17; ++n)  // 17 significant digits identify any double
    if (auto d = shortest_at(f, bits, v, n)) return render(v, *d);
  return fmt::format("0x{:0{}x}", bits, width_of(f) / 4);  // not reached
}

}  // namespace redscope
