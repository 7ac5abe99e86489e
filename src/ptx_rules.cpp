// Rules of the `red`/`atom` syntax tables. Every rule names where it comes
// from; messages say what is allowed so the user can fix the line.
#include "ptx_rules.hpp"

#include <fmt/format.h>

namespace redscope::detail {
namespace {

bool is_half(DataType t) { return t == DataType::F16 || t == DataType::BF16; }
bool is_int(DataType t) {
  return t == DataType::U32 || t == DataType::U64 || t == DataType::S32 || t == DataType::S64;
}
bool is_b(DataType t) { return t == DataType::B32 || t == DataType::B64; }

std::string name(const RmwForm& f) { return f.is_red ? "red" : "atom"; }

RuleViolation at(RuleSite s, std::string m) { return RuleViolation{s, std::move(m)}; }

// .sem: red {.relaxed, .release}; atom {.relaxed, .acquire, .release, .acq_rel}.
std::optional<RuleViolation> check_sem(const RmwForm& f) {
  if (!f.sem_given) return std::nullopt;
  if (f.is_red) {
    if (f.sem == Sem::Acquire)
      return at(RuleSite::Sem, "red does not take .acquire: the syntax table allows only .relaxed and .release "
                               "(the seed's example 'red.global.acquire.sys.add.u32' contradicts its own table; "
                               "use atom.acquire to read with acquire semantics)");
    // Dat3M's untyped shorthand writes red.acq_rel; accepted there only.
    if (f.sem == Sem::AcqRel && f.dat3m_form) return std::nullopt;
    if (f.sem != Sem::Relaxed && f.sem != Sem::Release)
      return at(RuleSite::Sem, fmt::format("red does not take .{}: the syntax table allows only .relaxed and .release", to_string(f.sem)));
    return std::nullopt;
  }
  if (f.sem == Sem::Weak || f.sem == Sem::Sc)
    return at(RuleSite::Sem, fmt::format("atom does not take .{} (allowed: .relaxed, .acquire, .release, .acq_rel)", to_string(f.sem)));
  return std::nullopt;
}

// Vector forms: global (or generic) only; .f32 .v2/.v4 .add; .f16/.bf16
// .v2/.v4/.v8 and .f16x2/.bf16x2 .v2/.v4 with .add/.min/.max and .noftz.
std::optional<RuleViolation> check_vector(const RmwForm& f) {
  const std::string n = name(f);
  if (f.space != Space::Global && f.space != Space::Generic)
    return at(RuleSite::Space, fmt::format("vector {} may be used only with .global (or generic addressing of global memory), not .{}", n, to_string(f.space)));
  if (f.type == DataType::F32) {
    if (f.vec == 8) return at(RuleSite::Vec, fmt::format("vector {}.f32 takes .v2 or .v4, not .v8", n));
    if (f.op != RmwOp::Add) return at(RuleSite::Op, fmt::format("vector {}.f32 takes only .add", n));
    if (f.noftz) return at(RuleSite::Noftz, fmt::format("vector {}.add.f32 takes no .noftz (only the f16/bf16 forms do)", n));
    return std::nullopt;
  }
  if (!is_half(f.type) && !is_packed(f.type))
    return at(RuleSite::Type, fmt::format("vector {} takes .f32, .f16, .bf16, .f16x2 or .bf16x2, not .{}", n, to_string(f.type)));
  if (is_packed(f.type) && f.vec == 8)
    return at(RuleSite::Vec, fmt::format("vector {}.{} takes .v2 or .v4 (vec_32_bit), not .v8", n, to_string(f.type)));
  if (f.op != RmwOp::Add && f.op != RmwOp::Min && f.op != RmwOp::Max)
    return at(RuleSite::Op, fmt::format("vector {}.{} takes .add, .min or .max, not .{}", n, to_string(f.type), to_string(f.op)));
  if (!f.noftz) return at(RuleSite::Type, fmt::format("vector {}.{}.{} requires .noftz", n, to_string(f.op), to_string(f.type)));
  return std::nullopt;
}

// Scalar forms: bit-size ops on .b32/.b64; integer ops on .u/.s 32/64;
// .add also on .f32/.f64, and on .f16/.bf16/.f16x2/.bf16x2 with .noftz;
// .inc/.dec are unsigned (their result lies in [0..b]); atom .exch/.cas on .b32/.b64.
std::optional<RuleViolation> check_scalar(const RmwForm& f) {
  const std::string n = name(f);
  const std::string op(to_string(f.op)), ty(to_string(f.type));
  if (f.noftz && !is_half(f.type) && !is_packed(f.type))
    return at(RuleSite::Noftz, fmt::format(".noftz is only for the .f16/.bf16/.f16x2/.bf16x2 adds, not .{}", ty));
  if (is_half(f.type) || is_packed(f.type)) {
    if (f.op != RmwOp::Add) return at(RuleSite::Op, fmt::format("scalar {}.{} takes only .add.noftz (.min/.max exist only in the vector forms)", n, ty));
    if (!f.noftz) return at(RuleSite::Type, fmt::format("{}.add.{} requires .noftz (the table has only .add.noftz.{})", n, ty, ty));
    return std::nullopt;
  }
  switch (f.op) {
    case RmwOp::And: case RmwOp::Or: case RmwOp::Xor:
      if (!is_b(f.type)) return at(RuleSite::Type, fmt::format("the bit-size operation .{} takes .b32 or .b64, not .{}", op, ty));
      return std::nullopt;
    case RmwOp::Add:
      if (!is_int(f.type) && f.type != DataType::F32 && f.type != DataType::F64)
        return at(RuleSite::Type, fmt::format(".add takes .u32, .u64, .s32, .s64, .f32 or .f64, not .{}", ty));
      return std::nullopt;
    case RmwOp::Min: case RmwOp::Max:
      if (!is_int(f.type)) return at(RuleSite::Type, fmt::format("the integer operation .{} takes .u32, .u64, .s32 or .s64, not .{}", op, ty));
      return std::nullopt;
    case RmwOp::Inc: case RmwOp::Dec:
      if (f.type != DataType::U32 && f.type != DataType::U64)
        return at(RuleSite::Type, fmt::format(".{} is unsigned (its result lies in [0..b]): use .u32 or .u64, not .{}", op, ty));
      return std::nullopt;
    case RmwOp::Exch: case RmwOp::Cas:
      if (!is_b(f.type)) return at(RuleSite::Type, fmt::format("atom.{} takes .b32 or .b64, not .{}", op, ty));
      return std::nullopt;
    default:
      return at(RuleSite::Op, fmt::format("{} has no .{} operation", n, op));
  }
}

}  // namespace

std::optional<RuleViolation> check_rmw_form(const RmwForm& f) {
  if (auto v = check_sem(f)) return v;
  if (f.is_red && (f.op == RmwOp::Exch || f.op == RmwOp::Cas))
    return at(RuleSite::Op, fmt::format("red does not take .{}: use atom", to_string(f.op)));
  if (f.cache_hint != f.has_policy)
    return at(RuleSite::Hint, f.cache_hint ? ".L2::cache_hint needs a cache-policy operand"
                                           : "a cache-policy operand needs the .L2::cache_hint qualifier");
  if (f.cache_hint && f.space != Space::Global && f.space != Space::Generic)
    return at(RuleSite::Hint, ".L2::cache_hint is only supported for .global (or generic addressing of global memory)");
  if (!f.typed) return std::nullopt;  // Dat3M shorthand: untyped .s32, any Dat3M op
  if (f.op == RmwOp::Sub || f.op == RmwOp::Mul || f.op == RmwOp::Div)
    return at(RuleSite::Op, fmt::format("{} has no .{} operation", name(f), to_string(f.op)));
  return f.vec > 1 ? check_vector(f) : check_scalar(f);
}

std::optional<std::string> target_violation(int target_sm, bool sem_given, Sem sem, std::optional<Scope> scope,
                                            std::optional<Space> space, bool is_fence) {
  if (target_sm < 70 && is_fence)
    return fmt::format("fence needs sm_70 or later (the test's target is sm_{}); use membar.cta/.gl/.sys", target_sm);
  if (target_sm < 70 && sem_given && sem != Sem::Weak)
    return fmt::format(".{} needs sm_70 or later (the test's target is sm_{}); sm_6x code uses .volatile and membar", to_string(sem), target_sm);
  if (target_sm < 90 && ((scope && *scope == Scope::Cluster) || (space && *space == Space::SharedCluster)))
    return fmt::format("clusters need sm_90 or later (the test's target is sm_{})", target_sm);
  return std::nullopt;
}

}  // namespace redscope::detail
