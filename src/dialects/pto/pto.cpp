// The PTO reductions over bit patterns (include/redscope/core/pto.hpp states
// each rule; docs/model.md "PTO vector reductions" gives the reasons).
#include "redscope/dialects/pto/pto.hpp"

#include <algorithm>
#include <array>

#include "redscope/core/litmus.hpp"  // CmpOp

namespace redscope::pto {

unsigned bits_of(Elem e) {
  switch (e) {
    case Elem::I16:
    case Elem::F16: return 16;
    case Elem::I32:
    case Elem::F32: return 32;
    case Elem::I64: return 64;
  }
  return 32;
}

unsigned lanes_of(Elem e) { return kVregBytes * 8 / bits_of(e); }

bool is_float(Elem e) { return e == Elem::F16 || e == Elem::F32; }

FloatFormat float_format(Elem e) { return e == Elem::F16 ? FloatFormat::F16 : FloatFormat::F32; }

namespace {
constexpr std::array<std::pair<Elem, std::string_view>, 5> kElemNames{{
    {Elem::I16, "i16"},
    {Elem::I32, "i32"},
    {Elem::I64, "i64"},
    {Elem::F16, "f16"},
    {Elem::F32, "f32"},
}};

constexpr std::array<std::pair<Reduce, std::string_view>, 7> kReduceNames{{
    {Reduce::Add, "vcadd"},
    {Reduce::Max, "vcmax"},
    {Reduce::Min, "vcmin"},
    {Reduce::GroupAdd, "vcgadd"},
    {Reduce::GroupMax, "vcgmax"},
    {Reduce::GroupMin, "vcgmin"},
    {Reduce::PrefixAdd, "vcpadd"},
}};
}  // namespace

std::string_view to_string(Elem e) {
  for (const auto& [k, n] : kElemNames)
    if (k == e) return n;
  return "?";
}

std::optional<Elem> parse_elem(std::string_view s) {
  for (const auto& [k, n] : kElemNames)
    if (n == s) return k;
  return std::nullopt;
}

DataType data_type(Elem e) {
  switch (e) {
    case Elem::I16: return DataType::S16;
    case Elem::I32: return DataType::S32;
    case Elem::I64: return DataType::S64;
    case Elem::F16: return DataType::F16;
    case Elem::F32: return DataType::F32;
  }
  return DataType::S32;
}

bool lane_active(const Mask& m, Elem e, unsigned lane) { return m.test(lane * bits_of(e) / 8); }

Mask mask_of(const std::vector<bool>& lanes, unsigned bytes) {
  Mask m;
  for (std::size_t i = 0; i < lanes.size() && i * bytes < kVregBytes; ++i)
    if (lanes[i]) m.set(i * bytes);
  return m;
}

std::string_view op_name(Reduce r) {
  for (const auto& [k, n] : kReduceNames)
    if (k == r) return n;
  return "?";
}

std::optional<Reduce> parse_reduce(std::string_view mnemonic) {
  if (mnemonic.substr(0, 4) != "pto.") return std::nullopt;
  for (const auto& [k, n] : kReduceNames)
    if (n == mnemonic.substr(4)) return k;
  return std::nullopt;
}

bool is_group(Reduce r) {
  return r == Reduce::GroupAdd || r == Reduce::GroupMax || r == Reduce::GroupMin;
}

bool takes(Reduce r, Elem e) {
  switch (r) {
    case Reduce::Add: return true;  // i16-i64, f16, f32
    case Reduce::PrefixAdd: return is_float(e);
    default: return e != Elem::I64;  // i16-i32, f16, f32
  }
}

std::string type_list(Reduce r) {
  std::string s;
  for (const auto& [k, n] : kElemNames)
    if (takes(r, k)) s += (s.empty() ? "" : ", ") + std::string(n);
  return s;
}

std::string_view to_string(Order o) { return o == Order::Tree ? "tree" : "sequential"; }

bool order_matters(Reduce r, Elem e) {
  return is_float(e) && (r == Reduce::Add || r == Reduce::GroupAdd);
}

namespace {

std::uint64_t low_bits(unsigned w, std::uint64_t v) { return w >= 64 ? v : v & ((1ull << w) - 1); }

std::int64_t as_signed(unsigned w, std::uint64_t v) {
  if (w >= 64) return static_cast<std::int64_t>(v);
  const std::uint64_t sign = 1ull << (w - 1);
  return static_cast<std::int64_t>((v ^ sign) - sign);
}

std::uint64_t add(Elem e, std::uint64_t a, std::uint64_t b) {
  if (is_float(e)) return float_add(float_format(e), a, b, /*ftz=*/false);
  return low_bits(bits_of(e), a + b);
}

// `a > b` for max, `a < b` for min: ordered (NaN never wins), -0 == +0, so
// the first of equal values stays.
bool better(Reduce r, Elem e, std::uint64_t a, std::uint64_t b) {
  const bool max = r == Reduce::Max || r == Reduce::GroupMax;
  if (is_float(e)) return float_compare(max ? CmpOp::Gt : CmpOp::Lt, float_format(e), a, b);
  const std::int64_t x = as_signed(bits_of(e), a), y = as_signed(bits_of(e), b);
  return max ? x > y : x < y;
}

// The pseudocode's start value: -INF for max, INF for min; integers their
// least / greatest value.
std::uint64_t start_value(Reduce r, Elem e) {
  const bool max = r == Reduce::Max || r == Reduce::GroupMax;
  switch (e) {
    case Elem::F16: return max ? 0xfc00 : 0x7c00;
    case Elem::F32: return max ? 0xff800000 : 0x7f800000;
    default: {
      const unsigned w = bits_of(e);
      const std::uint64_t min = 1ull << (w - 1);
      return max ? min : low_bits(w, min - 1);
    }
  }
}

// Sum of lanes [from, to) that are active, in `order`; nullopt when none is.
// Tree: adjacent pairs (0+1, 2+3, ...) added level by level; a lane without
// a partner (the odd one out, or an inactive lane of vcadd, which "does not
// participate") passes up unchanged. `inactive_zero`: vcgadd's inactive
// lanes are +0 operands (seed: "Inactive lanes are treated as zero"); the
// two readings differ only where a tree would pass a -0.0 up alone.
std::optional<std::uint64_t> sum(Elem e, const Lanes& in, const Mask& m, unsigned from, unsigned to,
                                 Order order, bool inactive_zero) {
  std::vector<std::optional<std::uint64_t>> level;
  bool active = false;
  for (unsigned i = from; i < to; ++i) {
    const bool on = lane_active(m, e, i);
    active |= on;
    level.push_back(on              ? std::optional(in[i])
                    : inactive_zero ? std::optional<std::uint64_t>(0)
                                    : std::nullopt);
  }
  if (!active) return std::nullopt;
  if (order == Order::Sequential) {
    // T sum = 0; sum += src[i] over the active lanes, in index order.
    std::uint64_t s = 0;  // +0.0 or integer 0
    for (const auto& v : level)
      if (v) s = add(e, s, *v);
    return s;
  }
  while (level.size() > 1) {
    std::vector<std::optional<std::uint64_t>> up;
    for (std::size_t i = 0; i < level.size(); i += 2) {
      const auto& a = level[i];
      const auto& b = i + 1 < level.size() ? level[i + 1] : std::nullopt;
      up.push_back(a && b ? std::optional(add(e, *a, *b)) : a ? a : b);
    }
    level = std::move(up);
  }
  return level[0];  // not empty: a lane is active
}

// The exact sum in 128 bits (at most 128 lanes of at most 64 bits).
bool int_sum_wraps(Elem e, const Lanes& in, const Mask& m, unsigned from, unsigned to) {
  if (is_float(e)) return false;
  Int128 exact = 0;
  for (unsigned i = from; i < to; ++i)
    if (lane_active(m, e, i)) exact += as_signed(bits_of(e), in[i]);
  const Int128 lim = static_cast<Int128>(1) << (bits_of(e) - 1);
  return exact < -lim || exact >= lim;
}

// Index and value of the extremum of the active lanes of [from, to).
struct Extremum {
  bool any = false;
  std::uint64_t value = 0;
  unsigned index = 0;
};

// Inactive lanes do not participate (the seed): until a lane compares
// better than the start value, the index is the first active lane's, so a
// run of lanes equal to the start value (INT_MIN for max) or of NaNs names
// an active lane, never lane 0 when lane 0 is off.
Extremum extremum(Reduce r, Elem e, const Lanes& in, const Mask& m, unsigned from, unsigned to) {
  Extremum x;
  x.value = start_value(r, e);
  x.index = 0;
  for (unsigned i = from; i < to; ++i) {
    if (!lane_active(m, e, i)) continue;
    if (!x.any) x.index = i - from;
    x.any = true;
    if (better(r, e, in[i], x.value)) x.value = in[i], x.index = i - from;
  }
  return x;
}

bool all_nan(Elem e, const Lanes& in, const Mask& m, unsigned from, unsigned to) {
  if (!is_float(e)) return false;
  for (unsigned i = from; i < to; ++i)
    if (lane_active(m, e, i) && !is_nan(float_format(e), in[i])) return false;
  return true;
}

}  // namespace

Lanes reduce(Reduce r, Elem e, const Lanes& in, const Mask& m, Order order, ReduceNotes* notes) {
  const unsigned n = lanes_of(e), k = n / kVLanes;
  Lanes out(n, 0);
  ReduceNotes dummy;
  ReduceNotes& note = notes ? *notes : dummy;
  switch (r) {
    case Reduce::Add:
      out[0] = sum(e, in, m, 0, n, order, false).value_or(0);
      note.int_wrapped |= int_sum_wraps(e, in, m, 0, n);
      break;
    case Reduce::GroupAdd:
      for (unsigned g = 0; g < kVLanes; ++g) {
        out[g * k] = sum(e, in, m, g * k, (g + 1) * k, order, true).value_or(0);
        note.int_wrapped |= int_sum_wraps(e, in, m, g * k, (g + 1) * k);
      }
      break;
    case Reduce::Max:
    case Reduce::Min: {
      const Extremum x = extremum(r, e, in, m, 0, n);
      if (!x.any) break;  // "the result follows the zero-filled convention"
      note.only_nan |= all_nan(e, in, m, 0, n);
      out[0] = x.value;
      out[1] = x.index;  // the index as an unsigned integer of the element width
      break;
    }
    case Reduce::GroupMax:
    case Reduce::GroupMin:
      for (unsigned g = 0; g < kVLanes; ++g) {
        const Extremum x = extremum(r, e, in, m, g * k, (g + 1) * k);
        if (!x.any) {
          note.empty_group = true;
          continue;  // zero, as the full reductions' empty result
        }
        note.only_nan |= all_nan(e, in, m, g * k, (g + 1) * k);
        out[g * k] = x.value;
      }
      break;
    case Reduce::PrefixAdd: {
      std::optional<std::uint64_t> run;
      for (unsigned i = 0; i < n; ++i) {
        if (!lane_active(m, e, i)) continue;      // adds nothing; its lane stays 0
        run = run ? add(e, *run, in[i]) : in[i];  // dst[0] = src[0], exactly
        out[i] = *run;
      }
      break;
    }
  }
  return out;
}

std::optional<std::uint64_t> ulp_distance(FloatFormat f, std::uint64_t a, std::uint64_t b) {
  if (is_nan(f, a) || is_nan(f, b)) return std::nullopt;
  const unsigned w = width_of(f);
  const std::uint64_t sign = 1ull << (w - 1);
  // Map the sign-magnitude patterns onto a line: -0 just below +0.
  auto line = [&](std::uint64_t v) -> std::int64_t {
    const auto mag = static_cast<std::int64_t>(v & (sign - 1));
    return (v & sign) ? -mag - 1 : mag;
  };
  const std::int64_t d = line(a) - line(b);
  return static_cast<std::uint64_t>(d < 0 ? -d : d);
}

const Buffer* Program::buffer(std::string_view name) const {
  for (const Buffer& b : buffers)
    if (b.name == name) return &b;
  return nullptr;
}

}  // namespace redscope::pto
