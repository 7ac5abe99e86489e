// Rules of the `red`/`atom` syntax tables. Every rule names where it comes
// from; messages say what is allowed so the user can fix the line.
#include "frontend/ptx/ptx_rules.hpp"

#include <fmt/format.h>

namespace redscope::detail {
namespace {

bool is_half(DataType t) { return t == DataType::F16 || t == DataType::BF16; }
bool is_int(DataType t) {
  return t == DataType::U32 || t == DataType::U64 || t == DataType::S32 || t == DataType::S64;
}
bool is_b(DataType t) { return t == DataType::B32 || t == DataType::B64; }

std::string name(const RmwForm& f) { return f.is_red ? "red" : "atom"; }

RuleViolation at(RuleSite s, std::string m) { return RuleViolation{s, std::move(m), {}, true}; }

// .sem: red {.relaxed, .release}; atom {.relaxed, .acquire, .release, .acq_rel}.
std::optional<RuleViolation> check_sem(const RmwForm& f) {
  if (!f.sem_given) return std::nullopt;
  if (f.is_red) {
    if (f.sem == Sem::Acquire)
      return at(RuleSite::Sem,
                "red does not take .acquire: the syntax table allows only .relaxed and .release "
                "(the seed's example 'red.global.acquire.sys.add.u32' contradicts its own table; "
                "use atom.acquire to read with acquire semantics)");
    // Dat3M's untyped shorthand writes red.acq_rel; accepted there only.
    if (f.sem == Sem::AcqRel && f.dat3m_form) return std::nullopt;
    if (f.sem != Sem::Relaxed && f.sem != Sem::Release)
      return at(
          RuleSite::Sem,
          fmt::format("red does not take .{}: the syntax table allows only .relaxed and .release",
                      to_string(f.sem)));
    return std::nullopt;
  }
  if (f.sem == Sem::Weak || f.sem == Sem::Sc)
    return at(
        RuleSite::Sem,
        fmt::format("atom does not take .{} (allowed: .relaxed, .acquire, .release, .acq_rel)",
                    to_string(f.sem)));
  return std::nullopt;
}

// Vector forms: global (or generic) only; .f32 .v2/.v4 .add; .f16/.bf16
// .v2/.v4/.v8 and .f16x2/.bf16x2 .v2/.v4 with .add/.min/.max and .noftz.
std::optional<RuleViolation> check_vector(const RmwForm& f) {
  const std::string n = name(f);
  if (f.space != Space::Global && f.space != Space::Generic)
    return at(RuleSite::Space, fmt::format("vector {} may be used only with .global (or generic "
                                           "addressing of global memory), not .{}",
                                           n, to_string(f.space)));
  if (f.type == DataType::F32) {
    if (f.vec == 8)
      return at(RuleSite::Vec, fmt::format("vector {}.f32 takes .v2 or .v4, not .v8", n));
    if (f.op != RmwOp::Add)
      return at(RuleSite::Op, fmt::format("vector {}.f32 takes only .add", n));
    if (f.noftz)
      return at(RuleSite::Noftz,
                fmt::format("vector {}.add.f32 takes no .noftz (only the f16/bf16 forms do)", n));
    return std::nullopt;
  }
  if (!is_half(f.type) && !is_packed(f.type))
    return at(RuleSite::Type,
              fmt::format("vector {} takes .f32, .f16, .bf16, .f16x2 or .bf16x2, not .{}", n,
                          to_string(f.type)));
  if (is_packed(f.type) && f.vec == 8)
    return at(RuleSite::Vec, fmt::format("vector {}.{} takes .v2 or .v4 (vec_32_bit), not .v8", n,
                                         to_string(f.type)));
  if (f.op != RmwOp::Add && f.op != RmwOp::Min && f.op != RmwOp::Max)
    return at(RuleSite::Op, fmt::format("vector {}.{} takes .add, .min or .max, not .{}", n,
                                        to_string(f.type), to_string(f.op)));
  if (!f.noftz)
    return at(RuleSite::Type, fmt::format("vector {}.{}.{} requires .noftz", n, to_string(f.op),
                                          to_string(f.type)));
  return std::nullopt;
}

// Scalar forms: bit-size ops on .b32/.b64; integer ops on .u/.s 32/64;
// .add also on .f32/.f64, and on .f16/.bf16/.f16x2/.bf16x2 with .noftz;
// .inc/.dec are unsigned (their result lies in [0..b]); atom .exch/.cas on .b32/.b64.
std::optional<RuleViolation> check_scalar(const RmwForm& f) {
  const std::string n = name(f);
  const std::string op(to_string(f.op)), ty(to_string(f.type));
  if (f.noftz && !is_half(f.type) && !is_packed(f.type))
    return at(RuleSite::Noftz,
              fmt::format(".noftz is only for the .f16/.bf16/.f16x2/.bf16x2 adds, not .{}", ty));
  if (is_half(f.type) || is_packed(f.type)) {
    if (f.op != RmwOp::Add)
      return at(RuleSite::Op,
                fmt::format(
                    "scalar {}.{} takes only .add.noftz (.min/.max exist only in the vector forms)",
                    n, ty));
    if (!f.noftz)
      return at(
          RuleSite::Type,
          fmt::format("{}.add.{} requires .noftz (the table has only .add.noftz.{})", n, ty, ty));
    return std::nullopt;
  }
  switch (f.op) {
    case RmwOp::And:
    case RmwOp::Or:
    case RmwOp::Xor:
      if (!is_b(f.type))
        return at(RuleSite::Type,
                  fmt::format("the bit-size operation .{} takes .b32 or .b64, not .{}", op, ty));
      return std::nullopt;
    case RmwOp::Add:
      // The seed's table lists the types apart from the operations, which
      // reads as if .add took .s64 too; the PTX ISA's per-operation lists
      // and ptxas do not: .add is .u32 .s32 .u64 .f32 .f64 (and the halves).
      if (f.type == DataType::S64)
        return at(RuleSite::Type,
                  fmt::format("{}.add does not take .s64 (PTX ISA §9.7.13.5 atom, §9.7.13.6 red; "
                              "ptxas: \"Operation .add requires .u32 or .s32 or .u64 or .f64 "
                              "...\"): use .add.u64, the same two's-complement sum",
                              n));
      if (!is_int(f.type) && f.type != DataType::F32 && f.type != DataType::F64)
        return at(RuleSite::Type,
                  fmt::format(".add takes .u32, .u64, .s32, .f32 or .f64, not .{}", ty));
      return std::nullopt;
    case RmwOp::Min:
    case RmwOp::Max:
      if (!is_int(f.type))
        return at(RuleSite::Type,
                  fmt::format("the integer operation .{} takes .u32, .u64, .s32 or .s64, not .{}",
                              op, ty));
      return std::nullopt;
    case RmwOp::Inc:
    case RmwOp::Dec:
      // Unsigned (the result lies in [0..b]) and 32-bit only: the seed's
      // table lists the types apart from the operations; ptxas: "Operation
      // .inc requires .u32 type".
      if (f.type != DataType::U32)
        return at(RuleSite::Type,
                  fmt::format(".{} takes only .u32 (its result lies in [0..b]; PTX ISA §9.7.13.5 "
                              "atom, §9.7.13.6 red; ptxas: \"Operation .{} requires .u32 "
                              "type\"), not .{}",
                              op, op, ty));
      return std::nullopt;
    case RmwOp::Exch:
    case RmwOp::Cas:
      if (f.op == RmwOp::Cas && f.type == DataType::B16)
        return RuleViolation{RuleSite::Type, "atom.cas.b16 (PTX, sm_70) is not supported yet", "",
                             false};
      if (!is_b(f.type))
        return at(RuleSite::Type, fmt::format("atom.{} takes .b32 or .b64, not .{}", op, ty));
      return std::nullopt;
    default: return at(RuleSite::Op, fmt::format("{} has no .{} operation", n, op));
  }
}

}  // namespace

std::optional<RuleViolation> check_rmw_form(const RmwForm& f) {
  if (auto v = check_sem(f)) return v;
  if (f.is_red && (f.op == RmwOp::Exch || f.op == RmwOp::Cas))
    return at(RuleSite::Op, fmt::format("red does not take .{}: use atom", to_string(f.op)));
  if (f.cache_hint != f.has_policy)
    return at(RuleSite::Hint, f.cache_hint
                                  ? ".L2::cache_hint needs a cache-policy operand"
                                  : "a cache-policy operand needs the .L2::cache_hint qualifier");
  if (f.cache_hint && f.space != Space::Global && f.space != Space::Generic)
    return at(
        RuleSite::Hint,
        ".L2::cache_hint is only supported for .global (or generic addressing of global memory)");
  if (!f.typed) return std::nullopt;  // Dat3M shorthand: untyped .s32, any Dat3M op
  if (f.op == RmwOp::Sub || f.op == RmwOp::Mul || f.op == RmwOp::Div)
    return at(RuleSite::Op, fmt::format("{} has no .{} operation", name(f), to_string(f.op)));
  return f.vec > 1 ? check_vector(f) : check_scalar(f);
}

// ---- Target rules -----------------------------------------------------------
// Every row is one sentence of the "Target ISA notes" of the instruction's
// section in the PTX ISA (section numbers of PTX ISA 8.x: ld §9.7.9.8, st
// §9.7.9.9, fence/membar §9.7.13.4, atom §9.7.13.5, red §9.7.13.6), quoted in
// the comment above it. Only forms redscope accepts have rows: atom.cas.b16,
// .b128, .noftz on .f32, .mmio and eviction priorities are rejected by the
// syntax tables before a target is looked at. The seed (ptx-red.txt) carries
// the red syntax table but not these notes.
namespace {

using TI = TargetInstr;
bool red(const TargetUse& u) { return u.instr == TI::Red; }
bool atom(const TargetUse& u) { return u.instr == TI::Atom; }
bool ldst(const TargetUse& u) { return u.instr == TI::Ld || u.instr == TI::St; }
bool on_global(const TargetUse& u) { return u.space == Space::Global; }
bool on_shared(const TargetUse& u) {
  return u.space == Space::SharedCta || u.space == Space::SharedCluster;
}
bool typed(const TargetUse& u, DataType t) { return u.typed && u.type == t; }
bool int64(const TargetUse& u) {
  return u.typed && (u.type == DataType::U64 || u.type == DataType::S64);
}
bool bits64(const TargetUse& u) { return int64(u) || typed(u, DataType::B64); }
bool op_in(const TargetUse& u, std::initializer_list<RmwOp> ops) {
  for (RmwOp o : ops)
    if (u.op == o) return true;
  return false;
}
// 64-bit add: .u64 (the syntax tables reject .add.s64 first).
bool add64(const TargetUse& u) { return u.op == RmwOp::Add && int64(u); }
// 64-bit atom.{add,cas,exch}: .add on .u64, .cas/.exch on .b64.
bool atom_ace64(const TargetUse& u) {
  return add64(u) || (op_in(u, {RmwOp::Cas, RmwOp::Exch}) && bits64(u));
}
bool logic_minmax64(const TargetUse& u) {
  return bits64(u) && op_in(u, {RmwOp::And, RmwOp::Or, RmwOp::Xor, RmwOp::Min, RmwOp::Max});
}
bool add_of(const TargetUse& u, DataType t) { return u.op == RmwOp::Add && typed(u, t); }
bool scalar_of(const TargetUse& u, DataType t) { return u.vec == 1 && typed(u, t); }

constexpr std::string_view kRed = "PTX ISA §9.7.13.6 red, Target ISA notes";
constexpr std::string_view kAtom = "PTX ISA §9.7.13.5 atom, Target ISA notes";
constexpr std::string_view kLd = "PTX ISA §9.7.9.8 ld, Target ISA notes";
constexpr std::string_view kSt = "PTX ISA §9.7.9.9 st, Target ISA notes";
constexpr std::string_view kLdSt = "PTX ISA §9.7.9.8 ld and §9.7.9.9 st, Target ISA notes";
constexpr std::string_view kFence = "PTX ISA §9.7.13.4 membar/fence, Target ISA notes";
constexpr std::string_view kCommit =
    "PTX ISA §9.7.9.25.6.1 cp.async.bulk.commit_group, Target ISA notes";
constexpr std::string_view kWait =
    "PTX ISA §9.7.9.25.6.2 cp.async.bulk.wait_group, Target ISA notes";
constexpr std::string_view kSemHint = "; sm_6x code uses .volatile and membar";
constexpr std::string_view kWeakHint = "; a plain ld/st (no .weak) is weak on every target";
using RS = RuleSite;
const TargetRule kTargetRules[] = {
    // ---- red (§9.7.13.6) ----
    // "red.global requires sm_11 or higher"
    {"red.global", 11, RS::Space, kRed, "", [](const TargetUse& u) { return red(u) && on_global(u); }},
    // "red.shared requires sm_12 or higher."
    {"red.shared", 12, RS::Space, kRed, "", [](const TargetUse& u) { return red(u) && on_shared(u); }},
    // "red.global.add.u64 requires sm_12 or higher."
    {"red.global.add.u64", 12, RS::Type, kRed, "", [](const TargetUse& u) { return red(u) && on_global(u) && add64(u); }},
    // "red.shared.add.u64 requires sm_20 or higher."
    {"red.shared.add.u64", 20, RS::Type, kRed, "", [](const TargetUse& u) { return red(u) && on_shared(u) && add64(u); }},
    // "64-bit red.{and,or,xor,min,max} require sm_32 or higher."
    {"64-bit red.{and,or,xor,min,max}", 32, RS::Type, kRed, "", [](const TargetUse& u) { return red(u) && logic_minmax64(u); }},
    // "red.add.f32 requires sm_20 or higher."
    {"red.add.f32", 20, RS::Type, kRed, "", [](const TargetUse& u) { return red(u) && add_of(u, DataType::F32); }},
    // "red.add.f64 requires sm_60 or higher."
    {"red.add.f64", 60, RS::Type, kRed, "", [](const TargetUse& u) { return red(u) && add_of(u, DataType::F64); }},
    // ".scope qualifier requires sm_60 or higher."
    {"red's .scope qualifier", 60, RS::Scope, kRed, "", [](const TargetUse& u) { return red(u) && u.scope.has_value(); }},
    // ".sem qualifier requires sm_70 or higher."
    {"red's .sem qualifier", 70, RS::Sem, kRed, kSemHint, [](const TargetUse& u) { return red(u) && u.sem_given; }},
    // "Use of generic addressing requires sm_20 or higher."
    {"red with generic addressing", 20, RS::Mnemonic, kRed, "", [](const TargetUse& u) { return red(u) && !u.space; }},
    // "red.add.noftz.f16x2 requires sm_60 or higher."
    {"red.add.noftz.f16x2", 60, RS::Type, kRed, "", [](const TargetUse& u) { return red(u) && scalar_of(u, DataType::F16x2); }},
    // "red.add.noftz.f16 requires sm_70 or higher."
    {"red.add.noftz.f16", 70, RS::Type, kRed, "", [](const TargetUse& u) { return red(u) && scalar_of(u, DataType::F16); }},
    // "Support for .level::cache_hint qualifier requires sm_80 or higher."
    {"red's .L2::cache_hint qualifier", 80, RS::Hint, kRed, "", [](const TargetUse& u) { return red(u) && u.cache_hint; }},
    // "red.add.noftz.bf16 and red.add.noftz.bf16x2 require sm_90 or higher."
    {"red.add.noftz.bf16/.bf16x2", 90, RS::Type, kRed, "", [](const TargetUse& u) {
       return red(u) && (scalar_of(u, DataType::BF16) || scalar_of(u, DataType::BF16x2)); }},
    // "Support for .cluster scope qualifier requires sm_90 or higher."
    {"red's .cluster scope", 90, RS::Scope, kRed, "", [](const TargetUse& u) { return red(u) && u.scope == Scope::Cluster; }},
    // "Sub-qualifier ::cta requires sm_30 or higher."
    {"red.shared::cta", 30, RS::Space, kRed, "", [](const TargetUse& u) { return red(u) && u.shared_cta; }},
    // "Sub-qualifier ::cluster requires sm_90 or higher."
    {"red.shared::cluster", 90, RS::Space, kRed, "", [](const TargetUse& u) { return red(u) && u.space == Space::SharedCluster; }},
    // "Support for vector types requires sm_90 or higher."
    {"vector red (.v2/.v4/.v8)", 90, RS::Vec, kRed, "", [](const TargetUse& u) { return red(u) && u.vec > 1; }},

    // ---- atom (§9.7.13.5) ----
    // "atom.global requires sm_11 or higher."
    {"atom.global", 11, RS::Space, kAtom, "", [](const TargetUse& u) { return atom(u) && on_global(u); }},
    // "atom.shared requires sm_12 or higher."
    {"atom.shared", 12, RS::Space, kAtom, "", [](const TargetUse& u) { return atom(u) && on_shared(u); }},
    // "64-bit atom.global.{add,cas,exch} require sm_12 or higher."
    {"64-bit atom.global.{add,cas,exch}", 12, RS::Type, kAtom, "", [](const TargetUse& u) { return atom(u) && on_global(u) && atom_ace64(u); }},
    // "64-bit atom.shared.{add,cas,exch} require sm_20 or higher."
    {"64-bit atom.shared.{add,cas,exch}", 20, RS::Type, kAtom, "", [](const TargetUse& u) { return atom(u) && on_shared(u) && atom_ace64(u); }},
    // "64-bit atom.{and,or,xor,min,max} require sm_32 or higher."
    {"64-bit atom.{and,or,xor,min,max}", 32, RS::Type, kAtom, "", [](const TargetUse& u) { return atom(u) && logic_minmax64(u); }},
    // "atom.add.f32 requires sm_20 or higher."
    {"atom.add.f32", 20, RS::Type, kAtom, "", [](const TargetUse& u) { return atom(u) && add_of(u, DataType::F32); }},
    // "atom.add.f64 requires sm_60 or higher."
    {"atom.add.f64", 60, RS::Type, kAtom, "", [](const TargetUse& u) { return atom(u) && add_of(u, DataType::F64); }},
    // ".scope qualifier requires sm_60 or higher."
    {"atom's .scope qualifier", 60, RS::Scope, kAtom, "", [](const TargetUse& u) { return atom(u) && u.scope.has_value(); }},
    // ".sem qualifier requires sm_70 or higher."
    {"atom's .sem qualifier", 70, RS::Sem, kAtom, kSemHint, [](const TargetUse& u) { return atom(u) && u.sem_given; }},
    // "Use of generic addressing requires sm_20 or higher."
    {"atom with generic addressing", 20, RS::Mnemonic, kAtom, "", [](const TargetUse& u) { return atom(u) && !u.space; }},
    // "atom.add.noftz.f16x2 requires sm_60 or higher."
    {"atom.add.noftz.f16x2", 60, RS::Type, kAtom, "", [](const TargetUse& u) { return atom(u) && scalar_of(u, DataType::F16x2); }},
    // "atom.add.noftz.f16 and atom.cas.b16 requires sm_70 or higher." (atom.cas.b16
    // is not in the tables redscope accepts.)
    {"atom.add.noftz.f16", 70, RS::Type, kAtom, "", [](const TargetUse& u) { return atom(u) && scalar_of(u, DataType::F16); }},
    // "Support for .level::cache_hint qualifier requires sm_80 or higher."
    {"atom's .L2::cache_hint qualifier", 80, RS::Hint, kAtom, "", [](const TargetUse& u) { return atom(u) && u.cache_hint; }},
    // "atom.add.noftz.bf16 and atom.add.noftz.bf16x2 require sm_90 or higher."
    {"atom.add.noftz.bf16/.bf16x2", 90, RS::Type, kAtom, "", [](const TargetUse& u) {
       return atom(u) && (scalar_of(u, DataType::BF16) || scalar_of(u, DataType::BF16x2)); }},
    // "Support for .cluster scope qualifier requires sm_90 or higher."
    {"atom's .cluster scope", 90, RS::Scope, kAtom, "", [](const TargetUse& u) { return atom(u) && u.scope == Scope::Cluster; }},
    // "Sub-qualifier ::cta requires sm_30 or higher."
    {"atom.shared::cta", 30, RS::Space, kAtom, "", [](const TargetUse& u) { return atom(u) && u.shared_cta; }},
    // "Sub-qualifier ::cluster requires sm_90 or higher."
    {"atom.shared::cluster", 90, RS::Space, kAtom, "", [](const TargetUse& u) { return atom(u) && u.space == Space::SharedCluster; }},
    // "Support for vector types requires sm_90 or higher."
    {"vector atom (.v2/.v4/.v8)", 90, RS::Vec, kAtom, "", [](const TargetUse& u) { return atom(u) && u.vec > 1; }},

    // ---- ld (§9.7.9.8) and st (§9.7.9.9) ----
    // ld: "Support for scope qualifier, .relaxed, .acquire, .weak qualifiers require sm_70 or higher."
    // st: "Support for scope qualifier, .relaxed, .release, .weak qualifiers require sm_70 or higher."
    // (.weak is not enforced: it is the meaning of a plain ld/st, and Dat3M's
    // shorthand writes it on every target. A strong ld/st always has a scope.)
    {"ld's .sem qualifier and scope", 70, RS::Sem, kLd, kSemHint, [](const TargetUse& u) { return u.instr == TI::Ld && u.sem_given; }},
    {"st's .sem qualifier and scope", 70, RS::Sem, kSt, kSemHint, [](const TargetUse& u) { return u.instr == TI::St && u.sem_given; }},
    // st: "Support for .level::cache_hint qualifier requires sm_80 or higher."
    {"st's .L2::cache_hint qualifier", 80, RS::Hint, kSt, "", [](const TargetUse& u) { return u.instr == TI::St && u.cache_hint; }},
    // The same sentences name .weak. Written in real PTX (a typed ld/st)
    // it needs sm_70, as ptxas 13.0 says ("Feature '.weak' requires .target
    // sm_70 or higher"); Dat3M's untyped shorthand writes .weak for a plain
    // access on every target and keeps it.
    {"ld/st's .weak qualifier", 70, RS::Sem, kLdSt, kWeakHint, [](const TargetUse& u) { return ldst(u) && u.typed && u.weak_given; }},
    // ld: "Support for .level::cache_hint qualifier requires sm_80 or higher."
    // (ptxas 13.0 agrees: "Modifier '.L2::cache_hint' requires .target sm_80 or higher")
    {"ld's .L2::cache_hint qualifier", 80, RS::Hint, kLd, "", [](const TargetUse& u) { return u.instr == TI::Ld && u.cache_hint; }},
    // ld, st: "Support for .cluster scope qualifier requires sm_90 or higher."
    {"ld/st's .cluster scope", 90, RS::Scope, kLdSt, "", [](const TargetUse& u) { return ldst(u) && u.scope == Scope::Cluster; }},
    // ld, st: "Sub-qualifier ::cta requires sm_30 or higher."
    {"ld/st .shared::cta", 30, RS::Space, kLdSt, "", [](const TargetUse& u) { return ldst(u) && u.shared_cta; }},
    // ld, st: "Sub-qualifier ::cluster requires sm_90 or higher."
    {"ld/st .shared::cluster", 90, RS::Space, kLdSt, "", [](const TargetUse& u) { return ldst(u) && u.space == Space::SharedCluster; }},

    // ---- fence, membar (§9.7.13.4) ----
    // "fence requires sm_70 or higher."
    {"fence", 70, RS::Mnemonic, kFence, "; use membar.cta/.gl/.sys", [](const TargetUse& u) { return u.instr == TI::Fence; }},
    // ".cluster scope qualifier requires sm_90 or higher."
    {"fence.cluster", 90, RS::Scope, kFence, "", [](const TargetUse& u) { return u.instr == TI::Fence && u.scope == Scope::Cluster; }},
    // "membar.sys requires sm_20 or higher."
    {"membar.sys", 20, RS::Scope, kFence, "", [](const TargetUse& u) { return u.instr == TI::Membar && u.scope == Scope::Sys; }},
    // "fence.proxy.async requires sm_90 or higher." (every state space; ptxas
    // 13.0: "Modifier '.async' requires .target sm_90 or higher")
    {"fence.proxy.async", 90, RS::Mnemonic, kFence, "", [](const TargetUse& u) { return u.instr == TI::ProxyFence && u.async_proxy; }},

    // ---- bulk async-groups (§9.7.9.25.6) ----
    // commit_group: "Requires sm_90 or higher." (ptxas 13.0: "Feature
    // 'cp.async.bulk.commit_group' requires .target sm_90 or higher")
    {"cp.async.bulk.commit_group", 90, RS::Mnemonic, kCommit, "", [](const TargetUse& u) { return u.instr == TI::BulkCommit; }},
    // wait_group: "Requires sm_90 or higher." (ptxas 13.0: "Feature
    // 'cp.async.bulk.wait_group' requires .target sm_90 or higher")
    {"cp.async.bulk.wait_group", 90, RS::Mnemonic, kWait, "", [](const TargetUse& u) { return u.instr == TI::BulkWait; }},

    // ---- placements: clusters (§2.2.2) ----
};

}  // namespace

std::span<const TargetRule> target_rules() { return kTargetRules; }

std::optional<RuleViolation> target_violation(int target_sm, const TargetUse& u) {
  const TargetRule* worst = nullptr;
  for (const TargetRule& r : kTargetRules)
    if (target_sm < r.min_sm && r.applies(u) && (!worst || r.min_sm > worst->min_sm)) worst = &r;
  if (!worst) return std::nullopt;
  return RuleViolation{
      worst->site,
      fmt::format("{} needs sm_{} or later ({}); this test's Target is sm_{}{}", worst->feature,
                  worst->min_sm, worst->source, target_sm, worst->hint),
      fmt::format("{} needs sm_{} or later ({})", worst->feature, worst->min_sm, worst->source)};
}

}  // namespace redscope::detail
