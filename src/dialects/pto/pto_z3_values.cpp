// Mirrors src/core/pto.cpp rule by rule; see there for the reasons.
#include "dialects/pto/pto_z3_values.hpp"

#include <optional>

#include "redscope/core/litmus.hpp"
#include "redscope/engine/z3/z3_values.hpp"

namespace redscope {

namespace p = pto;

namespace {

z3::expr num(z3::context& c, p::Elem e, std::uint64_t v) { return c.bv_val(v, p::bits_of(e)); }

z3::expr add(p::Elem e, const z3::expr& a, const z3::expr& b) {
  if (p::is_float(e)) return z3_float_add(p::float_format(e), a, b, /*ftz=*/false);
  return a + b;
}

bool is_max(p::Reduce r) { return r == p::Reduce::Max || r == p::Reduce::GroupMax; }

z3::expr better(p::Reduce r, p::Elem e, const z3::expr& a, const z3::expr& b) {
  if (p::is_float(e))
    return z3_float_compare(is_max(r) ? CmpOp::Gt : CmpOp::Lt, p::float_format(e), a, b);
  return is_max(r) ? z3::sgt(a, b) : z3::slt(a, b);
}

std::uint64_t start_value(p::Reduce r, p::Elem e) {
  const bool max = is_max(r);
  switch (e) {
    case p::Elem::F16: return max ? 0xfc00 : 0x7c00;
    case p::Elem::F32: return max ? 0xff800000 : 0x7f800000;
    default: {
      const unsigned w = p::bits_of(e);
      const std::uint64_t min = 1ull << (w - 1);
      const std::uint64_t mask = w >= 64 ? ~0ull : (1ull << w) - 1;
      return max ? min : (min - 1) & mask;
    }
  }
}

// core/pto.cpp's sum, on terms (`inactive_zero`: vcgadd's inactive lanes
// are +0 operands).
std::optional<z3::expr> sum(z3::context& c, p::Elem e, const ZLanes& in, const p::Mask& m,
                            unsigned from, unsigned to, p::Order order, bool inactive_zero) {
  std::vector<std::optional<z3::expr>> level;
  bool active = false;
  for (unsigned i = from; i < to; ++i) {
    const bool on = p::lane_active(m, e, i);
    active |= on;
    level.push_back(on              ? std::optional(in[i])
                    : inactive_zero ? std::optional(num(c, e, 0))
                                    : std::nullopt);
  }
  if (!active) return std::nullopt;
  if (order == p::Order::Sequential) {
    z3::expr s = num(c, e, 0);
    for (const auto& v : level)
      if (v) s = add(e, s, *v).simplify();
    return s;
  }
  while (level.size() > 1) {
    std::vector<std::optional<z3::expr>> up;
    for (std::size_t i = 0; i < level.size(); i += 2) {
      const auto& a = level[i];
      const std::optional<z3::expr> b = i + 1 < level.size() ? level[i + 1] : std::nullopt;
      if (a && b)
        up.push_back(add(e, *a, *b).simplify());
      else
        up.push_back(a ? a : b);
    }
    level = std::move(up);
  }
  return level[0];  // not empty: a lane is active
}

struct Extremum {
  bool any = false;
  z3::expr value, index;
};

Extremum extremum(z3::context& c, p::Reduce r, p::Elem e, const ZLanes& in, const p::Mask& m,
                  unsigned from, unsigned to) {
  Extremum x{false, num(c, e, start_value(r, e)), num(c, e, 0)};
  for (unsigned i = from; i < to; ++i) {
    if (!p::lane_active(m, e, i)) continue;
    if (!x.any) x.index = num(c, e, i - from);  // the first active lane (core/pto.cpp)
    x.any = true;
    const z3::expr b = better(r, e, in[i], x.value);
    x.value = z3::ite(b, in[i], x.value).simplify();
    x.index = z3::ite(b, num(c, e, i - from), x.index).simplify();
  }
  return x;
}

}  // namespace

ZLanes z3_lanes(z3::context& c, p::Elem e, const p::Lanes& v) {
  ZLanes out;
  for (std::uint64_t x : v) out.push_back(num(c, e, x));
  return out;
}

ZLanes z3_reduce(z3::context& c, p::Reduce r, p::Elem e, const ZLanes& in, const p::Mask& m,
                 p::Order order) {
  const unsigned n = p::lanes_of(e), k = n / p::kVLanes;
  ZLanes out(n, num(c, e, 0));
  switch (r) {
    case p::Reduce::Add:
      if (auto s = sum(c, e, in, m, 0, n, order, false)) out[0] = *s;
      break;
    case p::Reduce::GroupAdd:
      for (unsigned g = 0; g < p::kVLanes; ++g)
        if (auto s = sum(c, e, in, m, g * k, (g + 1) * k, order, true)) out[g * k] = *s;
      break;
    case p::Reduce::Max:
    case p::Reduce::Min: {
      const Extremum x = extremum(c, r, e, in, m, 0, n);
      if (!x.any) break;
      out[0] = x.value;
      out[1] = x.index;
      break;
    }
    case p::Reduce::GroupMax:
    case p::Reduce::GroupMin:
      for (unsigned g = 0; g < p::kVLanes; ++g) {
        const Extremum x = extremum(c, r, e, in, m, g * k, (g + 1) * k);
        if (x.any) out[g * k] = x.value;
      }
      break;
    case p::Reduce::PrefixAdd: {
      std::optional<z3::expr> run;
      for (unsigned i = 0; i < n; ++i) {
        if (!p::lane_active(m, e, i)) continue;
        run = run ? add(e, *run, in[i]).simplify() : in[i];
        out[i] = *run;
      }
      break;
    }
  }
  return out;
}

}  // namespace redscope
