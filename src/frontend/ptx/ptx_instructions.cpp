// PTX instructions of a litmus test's instruction table: mnemonic,
// qualifiers (checked against the syntax tables of the PTX ISA, §9.7, and
// the target rules in ptx_rules.cpp) and operands.
#include "redscope/frontend/ptx/ptx_instructions.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "frontend/ptx/ptx_rules.hpp"
#include "redscope/frontend/frontend.hpp"

namespace redscope::detail {

namespace {

std::vector<std::string> split_dots(const std::string& s) {
  std::vector<std::string> parts;
  std::string cur;
  for (char c : s) {
    if (c == '.') {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  parts.push_back(cur);
  return parts;
}

// The qualifier classes an instruction may take, one bit each. Every
// instruction lists exactly the classes of its PTX syntax (PTX §9.7.9.8 ld,
// §9.7.9.9 st, §9.7.13.5 atom, §9.7.13.6 red, §9.7.13.4 fence, §9.7.7.1
// setp); a qualifier of any other class is an error at that qualifier.
enum class QualClass : std::uint16_t {
  Sem = 1u << 0,    // .weak .relaxed .acquire .release .acq_rel .sc .volatile
  Scope = 1u << 1,  // .cta .cluster .gpu .sys
  Space = 1u << 2,  // .global .shared{::cta, ::cluster}
  Type = 1u << 3,   // .u32 .f16x2 ...
  Op = 1u << 4,     // .add .exch .cas ... (atom, red)
  Noftz = 1u << 5,  // .noftz (atom/red .add on f16/bf16)
  Hint = 1u << 6,   // .L2::cache_hint
  Vec = 1u << 7,    // .v2 .v4 .v8
  Cop = 1u << 8,    // cache operators .ca .cg .cs .lu .cv .wb .wt (ld, st)
  Nc = 1u << 9,     // .nc (ld.global.nc)
  Cmp = 1u << 10,   // .eq .lt .lo ... (setp)
};

// A set of qualifier classes.
class QualClasses {
 public:
  constexpr QualClasses() = default;
  constexpr QualClasses(QualClass c) : bits_(static_cast<std::uint16_t>(c)) {}  // NOLINT: implicit
  constexpr QualClasses operator|(QualClasses o) const { return from(bits_ | o.bits_); }
  constexpr bool has(QualClass c) const { return (bits_ & static_cast<std::uint16_t>(c)) != 0; }

 private:
  static constexpr QualClasses from(unsigned b) {
    QualClasses s;
    s.bits_ = static_cast<std::uint16_t>(b);
    return s;
  }
  std::uint16_t bits_ = 0;
};

constexpr QualClasses operator|(QualClass a, QualClass b) { return QualClasses(a) | b; }

namespace qc {
using enum QualClass;
// ld{.sem}{.scope}{.ss}{.cop}{.L2::cache_hint}{.vec}.type, plus ld.global.nc
// (PTX §9.7.9.8, §9.7.9.9 for st, which has no .nc).
constexpr QualClasses kLd = Sem | Scope | Space | Cop | Hint | Vec | Type | Nc;
constexpr QualClasses kSt = Sem | Scope | Space | Cop | Hint | Vec | Type;
// atom/red{.sem}{.scope}{.space}.op{.noftz}{.L2::cache_hint}{.vec}.type
// (PTX §9.7.13.5, §9.7.13.6).
constexpr QualClasses kRmw = Sem | Scope | Space | Op | Noftz | Hint | Vec | Type;
constexpr QualClasses kFence = Sem | Scope;  // fence{.sc, .acq_rel}.scope (§9.7.13.4)
// Dat3M's proxy accesses (suld, sust, tld, cold; and ld.const): a memory
// order and a type, no state space, cache operator or vector.
constexpr QualClasses kProxyAccess = Sem | Scope | Type;
constexpr QualClasses kSetp = Cmp | Type;  // setp.CmpOp.type (§9.7.7.1)
constexpr QualClasses kTyped = Type;       // add/sub/mul/div/mov, Dat3M branches
}  // namespace qc

// Qualifier classes of `ld/st/atom/red/setp` (PTX §9.7.9, §9.7.13), each
// with where it was written, for diagnostics.
struct Qualifiers {
  std::optional<Sem> sem;
  bool is_volatile = false;
  std::optional<Scope> scope;
  std::optional<Space> space;
  std::optional<DataType> type;
  std::optional<RmwOp> op;
  std::optional<CmpOp> cmp;
  bool noftz = false;
  bool cache_hint = false;
  unsigned vec = 1;
  bool shared_cta = false;  // `.shared::cta` written out (a target rule: sm_30)
  std::string cop;          // cache operator (.ca .cg .cs .lu .cv .wb .wt): a hint
  bool nc = false;          // ld.global.nc: the non-coherent read-only path, a hint too
  SourceLoc cop_at, nc_at;
  SourceLoc sem_at, scope_at, space_at, type_at, op_at, cmp_at, noftz_at, hint_at, vec_at;
};

// "a memory-order", "an operation", "a '.noftz'": the article for a class name.
std::string with_article(std::string_view what) {
  const bool vowel =
      !what.empty() && std::string_view("aeiou").find(what[0]) != std::string_view::npos;
  return fmt::format("{} {}", vowel ? "an" : "a", what);
}

std::optional<RmwOp> parse_rmw_op(std::string_view s) {
  static constexpr std::pair<std::string_view, RmwOp> kOps[] = {
      {"add", RmwOp::Add}, {"sub", RmwOp::Sub}, {"mul", RmwOp::Mul}, {"div", RmwOp::Div},
      {"and", RmwOp::And}, {"or", RmwOp::Or},   {"xor", RmwOp::Xor}, {"inc", RmwOp::Inc},
      {"dec", RmwOp::Dec}, {"min", RmwOp::Min}, {"max", RmwOp::Max}, {"exch", RmwOp::Exch},
      {"cas", RmwOp::Cas}};
  for (const auto& [n, op] : kOps)
    if (n == s) return op;
  return std::nullopt;
}

// setp comparisons; .lo/.ls/.hi/.hs are the unsigned spellings of lt/le/gt/ge.
std::optional<CmpOp> parse_setp_cmp(std::string_view s) {
  if (s == "eq") return CmpOp::Eq;
  if (s == "ne") return CmpOp::Ne;
  if (s == "lt" || s == "lo") return CmpOp::Lt;
  if (s == "le" || s == "ls") return CmpOp::Le;
  if (s == "gt" || s == "hi") return CmpOp::Gt;
  if (s == "ge" || s == "hs") return CmpOp::Ge;
  return std::nullopt;
}

std::optional<CmpOp> parse_branch(std::string_view s) {
  if (s == "beq") return CmpOp::Eq;
  if (s == "bne") return CmpOp::Ne;
  if (s == "blt") return CmpOp::Lt;
  if (s == "ble") return CmpOp::Le;
  if (s == "bgt") return CmpOp::Gt;
  if (s == "bge") return CmpOp::Ge;
  return std::nullopt;
}

bool is_cache_operator(std::string_view p) {
  return p == "ca" || p == "cg" || p == "cs" || p == "lu" || p == "cv" || p == "wb" || p == "wt";
}

// The class of qualifier `p`, or none when it is not one redscope reads.
// Comparisons (.lt, .lo, ...) count only where one is taken (setp).
std::optional<QualClass> qualifier_class(std::string_view p, bool cmp_taken) {
  using enum QualClass;
  if (p == "volatile" || parse_sem(p)) return Sem;
  if (parse_scope(p)) return Scope;
  if (p == "global" || p == "shared" || p == "shared::cta" || p == "shared::cluster") return Space;
  if (parse_data_type(p)) return Type;
  if (cmp_taken && parse_setp_cmp(p)) return Cmp;
  if (parse_rmw_op(p)) return Op;
  if (p == "noftz") return Noftz;
  if (p == "L2::cache_hint") return Hint;
  if (is_cache_operator(p)) return Cop;
  if (p == "nc") return Nc;
  if (p == "v2" || p == "v4" || p == "v8") return Vec;
  return std::nullopt;
}

// A class's name in diagnostics.
std::string_view class_name(QualClass c) {
  switch (c) {
    case QualClass::Sem: return "memory-order";
    case QualClass::Scope: return "scope";
    case QualClass::Space: return "state-space";
    case QualClass::Type: return "type";
    case QualClass::Op: return "operation";
    case QualClass::Noftz: return "'.noftz'";
    case QualClass::Hint: return "cache-hint";
    case QualClass::Vec: return "vector";
    case QualClass::Cop: return "cache-operator";
    case QualClass::Nc: return "'.nc'";
    case QualClass::Cmp: return "comparison";
  }
  return "?";
}

// Records qualifier `p` of class `c` written at `at`; false when `q` already
// holds one of that class.
bool record(Qualifiers& q, QualClass c, const std::string& p, SourceLoc at) {
  auto set = [&](auto& slot, auto value, SourceLoc& slot_at) {
    if (slot) return false;
    slot = value;
    slot_at = at;
    return true;
  };
  switch (c) {
    case QualClass::Sem:
      q.is_volatile = !q.sem && p == "volatile";
      return set(q.sem, p == "volatile" ? Sem::Relaxed : *parse_sem(p), q.sem_at);
    case QualClass::Scope: return set(q.scope, *parse_scope(p), q.scope_at);
    case QualClass::Space:
      q.shared_cta = q.shared_cta || (!q.space && p == "shared::cta");
      return set(q.space,
                 p == "global"            ? Space::Global
                 : p == "shared::cluster" ? Space::SharedCluster
                                          : Space::SharedCta,
                 q.space_at);
    case QualClass::Type: return set(q.type, *parse_data_type(p), q.type_at);
    case QualClass::Op: return set(q.op, *parse_rmw_op(p), q.op_at);
    case QualClass::Cmp: return set(q.cmp, *parse_setp_cmp(p), q.cmp_at);
    case QualClass::Noftz: return set(q.noftz, true, q.noftz_at);
    case QualClass::Hint: return set(q.cache_hint, true, q.hint_at);
    case QualClass::Nc: return set(q.nc, true, q.nc_at);
    case QualClass::Vec:
      if (q.vec > 1) return false;  // unsigned vec: 1 when none is written
      q.vec = static_cast<unsigned>(p[1] - '0');
      q.vec_at = at;
      return true;
    case QualClass::Cop:
      if (!q.cop.empty()) return false;
      q.cop = p;
      q.cop_at = at;
      return true;
  }
  return false;
}

// Parses the cells of one test; the test's file and target are fixed.
class PtxCellParser {
 public:
  explicit PtxCellParser(const InstructionCell& cell)
      : file_(cell.file),
        target_sm_(cell.target_sm),
        test_(cell.test) {}

  void parse(const std::vector<Token>& toks, ThreadCode& tc) { parse_instruction(tc, toks); }

 private:
  [[noreturn]] void fail(SourceLoc at, std::string msg) const {
    throw InputError(Diagnostic{file_, at, std::move(msg)});
  }
  // The line is a form a rule of the PTX ISA forbids (a qualifier, type or
  // state-space table, a target's minimum sm_NN): DiagnosticKind::IsaRule, with
  // `rule` the wording shared by every line breaking it (`msg` when empty).
  [[noreturn]] void fail_isa(SourceLoc at, std::string msg, std::string rule = {}) const {
    if (rule.empty()) rule = msg;
    throw InputError(
        Diagnostic{file_, at, std::move(msg), DiagnosticKind::IsaRule, std::move(rule)});
  }
  [[noreturn]] void fail_rule(SourceLoc at, const detail::RuleViolation& v) const {
    if (!v.isa) fail(at, v.message);
    fail_isa(at, v.message, v.rule);
  }

  std::int64_t number_value(const Token& t, bool negative) const {
    return integer_value(t, negative, file_);
  }

  // ---- one instruction -----------------------------------------------------
  struct Cell {
    const std::vector<Token>& toks;
    std::size_t i = 0;
    const Token& cur() const { return toks[i]; }
    const Token& look(std::size_t k) const { return toks[std::min(i + k, toks.size() - 1)]; }
    bool at(Tok k) const { return toks[i].kind == k; }
    const Token& next() {
      const Token& t = toks[i];
      if (i + 1 < toks.size()) ++i;
      return t;
    }
  };

  std::string cell_text(const std::vector<Token>& toks) const {
    std::string s;
    for (const Token& t : toks) {
      if (t.kind == Tok::End) break;
      const bool glue = t.kind == Tok::Comma || t.kind == Tok::RBracket || t.kind == Tok::RBrace ||
                        t.kind == Tok::Plus;
      if (!s.empty() && !glue && s.back() != '[' && s.back() != '{' && s.back() != '@' &&
          s.back() != '!' && s.back() != '+')
        s += ' ';
      s += t.text;
    }
    return s;
  }

  void parse_instruction(ThreadCode& tc, const std::vector<Token>& toks) {
    Cell c{toks};
    Instruction in;
    in.loc = c.cur().loc;
    in.text = cell_text(toks);
    if (c.at(Tok::At)) parse_guard(in, c);
    if (!c.at(Tok::Ident))
      fail(c.cur().loc,
           fmt::format("expected an instruction, found {}", detail::describe(c.cur())));
    const Token& mn = c.next();
    if (c.at(Tok::Colon) && mn.text.find('.') == std::string::npos) {  // label
      if (in.guard) fail(in.guard->loc, "a label cannot be predicated");
      c.next();
      if (!c.at(Tok::End)) fail(c.cur().loc, "a label must stand alone in its cell");
      if (tc.labels.count(mn.text))
        fail(mn.loc, fmt::format("label '{}' defined twice in {}", mn.text, tc.name));
      tc.labels[mn.text] = tc.code.size();
      in.kind = InstrKind::Label;
      in.label = mn.text;
      tc.code.push_back(std::move(in));
      return;
    }
    const std::vector<std::string> parts = split_dots(mn.text);
    dispatch(in, mn, parts, c);
    if (!c.at(Tok::End))
      fail(c.cur().loc, fmt::format("unexpected {} after the operands of '{}'",
                                    detail::describe(c.cur()), mn.text));
    if (in.guard && in.kind == InstrKind::Barrier)
      fail(in.guard->loc, "predicated barriers are not supported");
    tc.code.push_back(std::move(in));
  }

  void dispatch(Instruction& in, const Token& mn, const std::vector<std::string>& parts, Cell& c) {
    const std::string& base = parts[0];
    if (base == "ld" && std::find(parts.begin(), parts.end(), "const") != parts.end())
      parse_proxy_access(in, mn, parts, c, Proxy::Constant);
    else if (base == "ld")
      parse_ld(in, mn, parts, c);
    else if (base == "st")
      parse_st(in, mn, parts, c);
    else if (base == "atom")
      parse_atom(in, mn, parts, c);
    else if (base == "red")
      parse_red(in, mn, parts, c);
    else if (base == "fence")
      parse_fence(in, mn, parts);
    else if (base == "membar")
      parse_membar(in, mn, parts);
    else if (base == "bar" || base == "barrier")
      parse_barrier(in, mn, parts, c);
    else if (base == "setp")
      parse_setp(in, mn, parts, c);
    else if (base == "createpolicy")
      parse_createpolicy(in, mn, c);
    else if (base == "add" || base == "sub" || base == "mul" || base == "div" || base == "mov")
      parse_local(in, mn, parts, c);
    else if (parse_branch(base))
      parse_cond_branch(in, mn, parts, c);
    else if (base == "goto" || base == "bra")
      parse_goto(in, mn, parts, c);
    else if (base == "suld" || base == "tld" || base == "cold")
      parse_proxy_access(in, mn, parts, c,
                         base == "suld"  ? Proxy::Surface
                         : base == "tld" ? Proxy::Texture
                                         : Proxy::Constant);
    else if (base == "sust")
      parse_proxy_access(in, mn, parts, c, Proxy::Surface);
    else if (base == "sured")
      parse_sured(in, mn, parts, c);
    else if (base == "multimem")
      parse_multimem(in, mn, parts, c);
    else if (base == "cp" && parts.size() >= 4 && parts[1] == "async" && parts[2] == "bulk")
      parse_bulk_group(in, mn, parts, c);
    else if (base == "suatom")
      fail(mn.loc, "'suatom' (a surface atomic with a result) is not supported yet");
    else
      fail(mn.loc, fmt::format("unknown instruction '{}'", mn.text));
  }

  // `@p` or `@!p` before an instruction (PTX §9.7.1 "Predicated execution").
  void parse_guard(Instruction& in, Cell& c) {
    c.next();
    if (c.at(Tok::Bang)) {
      c.next();
      in.guard_negated = true;
    }
    const Token& p = c.cur();
    if (p.kind != Tok::Ident)
      fail(p.loc,
           fmt::format("expected a predicate register after '@', found {}", detail::describe(p)));
    c.next();
    in.guard = Operand{Operand::Kind::Reg, p.text, 0, 0, p.loc, {}};
  }

  SourceLoc qual_loc(const Token& mn, const std::vector<std::string>& parts, std::size_t k) const {
    int col = mn.loc.col;
    for (std::size_t j = 0; j < k; ++j) col += static_cast<int>(parts[j].size()) + 1;
    return SourceLoc{mn.loc.line, col};
  }

  // Classifies qualifiers parts[1..]; `allowed` holds the classes this
  // instruction takes: any other class is an error naming the qualifier.
  Qualifiers qualifiers(const Token& mn, const std::vector<std::string>& parts,
                        QualClasses allowed) {
    Qualifiers q;
    for (std::size_t k = 1; k < parts.size(); ++k) {
      const std::string& p = parts[k];
      const SourceLoc at = qual_loc(mn, parts, k);
      if (p.empty()) fail(at, fmt::format("empty qualifier in '{}'", mn.text));
      const std::optional<QualClass> c = qualifier_class(p, allowed.has(QualClass::Cmp));
      if (!c) unknown_qualifier(mn, p, at);
      if (!allowed.has(*c))
        fail_isa(
            at,
            fmt::format("'{}' does not take {} qualifier ('.{}')", parts[0],
                        with_article(class_name(*c)), p),
            fmt::format("'{}' does not take {} qualifier", parts[0], with_article(class_name(*c))));
      if (!record(q, *c, p, at))
        fail(at, fmt::format("'{}' has more than one {} qualifier ('.{}')", mn.text, class_name(*c),
                             p));
    }
    if (q.is_volatile && q.scope) fail_isa(q.scope_at, "'.volatile' takes no scope");
    return q;
  }

  // A qualifier of no class redscope reads: PTX ones it does not support, or
  // unknown ones.
  [[noreturn]] void unknown_qualifier(const Token& mn, const std::string& p, SourceLoc at) const {
    if (p == "u8" || p == "s8" || p == "b8" || p == "b128" || p == "pred")
      fail(at, fmt::format("type '.{}' is not supported", p));
    if (p == "const" || p == "local" || p == "param")
      fail(at,
           fmt::format("state space '.{}' is not supported (global, shared and generic only)", p));
    fail(at, fmt::format("unknown qualifier '.{}' in '{}'", p, mn.text));
  }

  // The target rules of the PTX ISA notes (table in ptx_rules.cpp), checked
  // after the syntax tables, at the qualifier the broken rule is about.
  void check_target(const Token& mn, const Qualifiers& q, detail::TargetInstr instr) {
    detail::TargetUse u;
    u.instr = instr;
    u.sem_given = q.sem && !q.is_volatile && *q.sem != Sem::Weak;
    u.weak_given = q.sem && !q.is_volatile && *q.sem == Sem::Weak;
    u.scope = q.scope;
    u.space = q.space;
    u.shared_cta = q.shared_cta;
    u.typed = q.type.has_value();
    u.type = q.type.value_or(DataType::S32);
    u.op = q.op.value_or(RmwOp::Add);
    u.vec = q.vec;
    u.cache_hint = q.cache_hint;
    if (auto v = detail::target_violation(target_sm_, u)) fail_rule(rule_site(mn, q, v->site), *v);
  }

  // A strong ld/st needs a scope; weak ones take none (PTX §9.7.9.8, §9.7.9.9).
  // `.volatile` is `.relaxed.sys` (PTX §8.3).
  void memory_order(Instruction& in, const Token& mn, const Qualifiers& q) {
    in.sem = q.sem.value_or(Sem::Weak);
    if (q.is_volatile) {
      in.scope = Scope::Sys;
    } else if (in.sem == Sem::Weak) {
      if (q.scope)
        fail_isa(q.scope_at, fmt::format("'{}': a weak access takes no scope", mn.text),
                 "a weak access takes no scope (PTX ISA §9.7.9.8 ld, §9.7.9.9 st)");
      in.scope = Scope::Sys;
    } else {
      if (!q.scope)
        fail_isa(mn.loc,
                 fmt::format("'{}': .{} needs a scope (.cta, .cluster, .gpu or .sys)", mn.text,
                             to_string(in.sem)),
                 fmt::format("a .{} access needs a scope (PTX ISA §9.7.9.8 ld, §9.7.9.9 st)",
                             to_string(in.sem)));
      in.scope = *q.scope;
    }
    in.space = q.space.value_or(Space::Generic);
    in.type = q.type.value_or(DataType::S32);
    in.vec = q.vec;
    in.cache_hint = q.cache_hint;
    if (q.cache_hint && in.space != Space::Global && in.space != Space::Generic)
      fail_isa(
          q.hint_at,
          ".L2::cache_hint is only supported for .global (or generic addressing of global memory)");
    check_target(mn, q,
                 in.kind == InstrKind::Load ? detail::TargetInstr::Ld : detail::TargetInstr::St);
  }

  static bool is_reg_token(const Token& t) {
    return t.kind == Tok::Ident && !is_literal_word(t.text);
  }
  static bool is_literal_word(std::string_view s) { return s == "inf" || s == "nan"; }

  Operand reg_operand(Cell& c, std::string_view what) {
    const Token& t = c.cur();
    if (!is_reg_token(t))
      fail(t.loc,
           fmt::format("expected {} (a register such as r0), found {}", what, detail::describe(t)));
    c.next();
    return Operand{Operand::Kind::Reg, t.text, 0, 0, t.loc, {}};
  }

  // A register or a literal of type `type` (its bits are stored in `value`).
  Operand value_operand(Cell& c, std::string_view what, DataType type) {
    const Token& t = c.cur();
    if (is_reg_token(t)) {
      c.next();
      return Operand{Operand::Kind::Reg, t.text, 0, 0, t.loc, {}};
    }
    std::string text;
    if (c.at(Tok::Minus)) {
      c.next();
      text = "-";
    }
    if (!c.at(Tok::Number) && !(c.at(Tok::Ident) && is_literal_word(c.cur().text)))
      fail(c.cur().loc, fmt::format("expected {} (a register or a literal), found {}", what,
                                    detail::describe(c.cur())));
    text += c.next().text;
    if (auto why = ptx_immediate_problem(text, type)) fail(t.loc, *why);
    const auto bits = literal_bits(text, type);
    if (!bits) fail(t.loc, fmt::format("'{}' is not a value of type .{}", text, to_string(type)));
    return Operand{Operand::Kind::Imm, text, static_cast<std::int64_t>(*bits), 0, t.loc, {}};
  }

  // Immediates as PTX spells them (PTX ISA §4.5.1 Integer Constants, §4.5.2
  // Floating-Point Constants; ptxas 13.0 agrees on each case): half-precision
  // values (.f16, .bf16 and the packed pairs) have no immediate form, they
  // come from registers; a .f32/.f64 immediate is a float literal (a decimal
  // with a point or an exponent, or the exact bits 0fXXXXXXXX /
  // 0dXXXXXXXXXXXXXXXX, unsigned): an integer such as 1 or 0x80000001 is not
  // one, nor are inf and nan. Why `text` (sign included) is no immediate of
  // `type`, or nothing when it is one (or is not a PTX float at all: integer
  // types are literal_bits' business).
  static std::optional<std::string> ptx_immediate_problem(std::string_view text, DataType type) {
    if (!is_float(type)) return std::nullopt;
    const std::string_view ty = to_string(type);
    if (is_packed(type) || width_of(type) == 16)
      return fmt::format(
          "PTX has no .{} immediate: half-precision operands come from registers (PTX ISA "
          "§9.7.4; ptxas: \"Arguments mismatch\"); set a register in the init block "
          "(P0:h = {};) and use it here",
          ty, text);
    const bool f32 = type == DataType::F32;
    const bool negative = !text.empty() && text[0] == '-';
    const std::string_view body = negative ? text.substr(1) : text;
    // The exact-bits spelling of the value the literal means, for the hint.
    auto exact = [&](std::string_view as) -> std::string {
      const auto bits = literal_bits(as, type);
      if (!bits) return f32 ? "0fXXXXXXXX" : "0dXXXXXXXXXXXXXXXX";
      return f32 ? fmt::format("0f{:08X}", *bits) : fmt::format("0d{:016X}", *bits);
    };
    const bool word = body == "inf" || body == "nan" || body.rfind("nan(", 0) == 0;
    if (word)
      return fmt::format(
          "'{}' is not a PTX literal (PTX ISA §4.5.2 has no inf or nan; ptxas: "
          "\"Unknown symbol\"): write its bits, {}",
          text, exact(text));
    const bool bits_form = body.size() > 1 && body[0] == '0' &&
                           (body[1] == 'f' || body[1] == 'F' || body[1] == 'd' || body[1] == 'D');
    if (bits_form) {
      const bool d = body[1] == 'd' || body[1] == 'D';
      const std::size_t digits = body.size() - 2;
      if (digits != (d ? 16u : 8u))
        return fmt::format("'{}': a {} literal has exactly {} hexadecimal digits (PTX ISA §4.5.2)",
                           text, d ? "0d" : "0f", d ? 16 : 8);
      if (negative)
        return fmt::format(
            "'{}': a {} literal is the exact bits and takes no sign (ptxas: syntax error); "
            "write the sign bit into it",
            text, d ? "0d" : "0f");
      return std::nullopt;
    }
    const bool decimal_float = body.find_first_of(".eE") != std::string_view::npos &&
                               body.rfind("0x", 0) != 0 && body.rfind("0X", 0) != 0;
    if (decimal_float) return std::nullopt;
    const bool hex = body.rfind("0x", 0) == 0 || body.rfind("0X", 0) == 0;
    if (hex) {
      std::uint64_t v = 0;
      const auto [end, ec] = std::from_chars(body.data() + 2, body.data() + body.size(), v, 16);
      const bool fits = ec == std::errc() && end == body.data() + body.size() &&
                        (!f32 || v <= 0xffffffffULL) && !negative;
      return fmt::format(
          "'{}' is an integer, not a .{} immediate (PTX ISA §4.5.2: float bits are written "
          "{}; ptxas: \"Arguments mismatch\"){}",
          text, ty, f32 ? "0fXXXXXXXX" : "0dXXXXXXXXXXXXXXXX",
          !fits ? std::string()
          : f32 ? fmt::format(": write 0f{:08X}", v)
                : fmt::format(": write 0d{:016X}", v));
    }
    return fmt::format(
        "'{}' is an integer, not a .{} immediate (PTX ISA §4.5.2: a float literal has a "
        "decimal point or an exponent; ptxas: \"Arguments mismatch\"): write {}.0",
        text, ty, text);
  }

  // `{a, b, ...}` with exactly `n` elements, each parsed by `one`.
  template <class F>
  std::vector<Operand> brace_list(Cell& c, unsigned n, std::string_view what, F one) {
    const SourceLoc start = c.cur().loc;
    if (!c.at(Tok::LBrace))
      fail(start, fmt::format("expected '{{' to open the {} of a .v{} instruction, found {}", what,
                              n, detail::describe(c.cur())));
    c.next();
    std::vector<Operand> out;
    for (;;) {
      out.push_back(one(c));
      if (c.at(Tok::Comma)) {
        c.next();
        continue;
      }
      if (!c.at(Tok::RBrace))
        fail(c.cur().loc, fmt::format("expected ',' or '}}' in the {}, found {}", what,
                                      detail::describe(c.cur())));
      c.next();
      break;
    }
    if (out.size() != n)
      fail(start, fmt::format("the {} of a .v{} instruction has {} element(s), expected {}", what,
                              n, out.size(), n));
    return out;
  }

  // Value operands: one per vector element.
  std::vector<Operand> values(Cell& c, unsigned vec, std::string_view what, DataType type) {
    if (vec == 1) {
      if (c.at(Tok::LBrace))
        fail(c.cur().loc, fmt::format("a brace-enclosed vector needs a .v2/.v4/.v8 qualifier"));
      return {value_operand(c, what, type)};
    }
    return brace_list(c, vec, what, [&](Cell& cc) { return value_operand(cc, what, type); });
  }

  // `x`, `[x]` or `[x+N]`; returns whether brackets were used. With
  // `registers`, also `[r]` and `[r+N]`: an address held in a register,
  // resolved once the test is read (resolve_register_addresses).
  Operand address_operand(Cell& c, bool* bracketed = nullptr, bool registers = false) {
    const SourceLoc start = c.cur().loc;
    bool br = false;
    if (c.at(Tok::LBracket)) {
      c.next();
      br = true;
    }
    const Token& t = c.cur();
    if (t.kind != Tok::Ident)
      fail(t.loc, fmt::format("expected a memory location, found {}", detail::describe(t)));
    const bool held = is_register_name(t.text);
    if (held && !registers)
      fail(t.loc, fmt::format("this instruction takes no address held in a register ('{}'); "
                              "name the location",
                              t.text));
    if (held && !br)
      fail(t.loc, fmt::format("an address in a register is written in brackets: [{}]", t.text));
    c.next();
    Operand a{held ? Operand::Kind::Reg : Operand::Kind::Loc, t.text, 0, 0, start, {}};
    if (br) {
      if (c.at(Tok::Plus)) {
        c.next();
        if (!c.at(Tok::Number))
          fail(c.cur().loc, fmt::format("expected a byte offset after '+', found {}",
                                        detail::describe(c.cur())));
        const Token& off = c.next();
        a.offset = number_value(off, false);
        if (a.offset < 0 || a.offset > (1 << 20)) fail(off.loc, "address offset out of range");
      }
      if (!c.at(Tok::RBracket))
        fail(c.cur().loc, fmt::format("expected ']', found {}", detail::describe(c.cur())));
      c.next();
    }
    if (bracketed) *bracketed = br;
    return a;
  }

  void comma(Cell& c, const Token& mn, std::string_view operands) {
    if (c.at(Tok::End))
      fail(c.cur().loc, fmt::format("'{}' takes operands {}: operand missing", mn.text, operands));
    if (!c.at(Tok::Comma))
      fail(c.cur().loc, fmt::format("expected ',' between operands of '{}', found {}", mn.text,
                                    detail::describe(c.cur())));
    c.next();
  }

  void no_operands_left(Cell& c, const Token& mn, std::string_view operands) {
    if (!c.at(Tok::End))
      fail(c.cur().loc, fmt::format("too many operands: '{}' takes {}", mn.text, operands));
  }

  // The optional trailing cache-policy operand of an .L2::cache_hint access.
  void cache_policy(Instruction& in, Cell& c) {
    if (!c.at(Tok::Comma)) return;
    c.next();
    in.cache_policy = reg_operand(c, "a cache-policy register");
  }

  // Cache operators are performance hints with no effect on outcomes. PTX
  // writes them only in the weak forms (`ld{.weak}{.ss}{.cop}...`,
  // `st{.weak}{.ss}{.cop}...`; §9.7.9.8, §9.7.9.9; ld.global.nc likewise).
  void cache_operators(const Token& mn, const Qualifiers& q, std::string_view ins,
                       std::initializer_list<std::string_view> ok) const {
    if (!q.cop.empty() && std::find(ok.begin(), ok.end(), q.cop) == ok.end()) {
      std::string list;
      for (std::string_view o : ok) list += fmt::format("{}.{}", list.empty() ? "" : ", ", o);
      fail_isa(q.cop_at, fmt::format("{} takes the cache operators {}, not .{}", ins, list, q.cop));
    }
    const bool strong = q.is_volatile || (q.sem && *q.sem != Sem::Weak);
    if (strong && (!q.cop.empty() || q.nc))
      fail_isa(
          q.cop.empty() ? q.nc_at : q.cop_at,
          fmt::format("'{}': cache operators and .nc go with weak {}s only (PTX {} syntax)",
                      mn.text, ins, ins),
          fmt::format("cache operators and .nc go with weak {}s only (PTX {} syntax)", ins, ins));
  }

  // ld, st and mov move half-precision values as bits: their type lists
  // (PTX ISA §9.7.9.8 ld, §9.7.9.9 st, and mov) have .b16/.b32 and no .f16,
  // .bf16 or packed pair (ptxas: "Unexpected instruction types").
  void no_half_type(const Qualifiers& q, std::string_view ins) const {
    if (!q.type || !is_float(*q.type) || width_of(*q.type) > 32 ||
        (!is_packed(*q.type) && width_of(*q.type) != 16))
      return;
    const std::string_view bits = is_packed(*q.type) ? "b32" : "b16";
    fail_isa(q.type_at,
             fmt::format("{} takes no .{}: PTX moves half-precision values as .{} (its "
                         "type list has no .f16, .bf16 or packed pair; ptxas: \"Unexpected "
                         "instruction types\"); a location declared {} still prints as one",
                         ins, to_string(*q.type), bits, to_string(*q.type)));
  }

  void parse_ld(Instruction& in, const Token& mn, const std::vector<std::string>& parts, Cell& c) {
    // Dat3M's `ld r0, 1` / `ld r0, r1` is a register move, not a load.
    const bool bare = parts.size() == 1;
    Qualifiers q = qualifiers(mn, parts, qc::kLd);
    if (bare && is_reg_token(c.cur()) && c.look(1).kind == Tok::Comma) {
      const Token& src = c.look(2);
      if (src.kind == Tok::Number || src.kind == Tok::Minus ||
          (src.kind == Tok::Ident && is_register_name(src.text))) {
        in.kind = InstrKind::Local;
        in.op = RmwOp::Mov;
        in.dst = reg_operand(c, "a destination register");
        comma(c, mn, "'dst, value'");
        in.srcs.push_back(value_operand(c, "a value", in.type));
        no_operands_left(c, mn, "'dst, value'");
        return;
      }
    }
    in.kind = InstrKind::Load;
    memory_order(in, mn, q);
    if (in.sem == Sem::Release || in.sem == Sem::AcqRel || in.sem == Sem::Sc)
      fail_isa(
          q.sem_at,
          fmt::format("ld does not take .{} (PTX §9.7.9.8: .weak, .relaxed, .acquire, .volatile)",
                      to_string(in.sem)));
    cache_operators(mn, q, "ld", {"ca", "cg", "cs", "lu", "cv"});
    no_half_type(q, "ld");
    if (q.nc && in.space != Space::Global)
      fail_isa(
          q.nc_at,
          "'.nc' loads go through the global read-only path: write ld.global.nc (PTX §9.7.9.8)");
    if (in.vec > 1)
      in.dsts = brace_list(c, in.vec, "destination",
                           [&](Cell& cc) { return reg_operand(cc, "a destination register"); });
    else
      in.dst = reg_operand(c, "a destination register");
    comma(c, mn, "'dst, [a]'");
    in.addr = address_operand(c, nullptr, true);
    if (q.cache_hint) cache_policy(in, c);
    no_operands_left(c, mn, "'dst, [a]'");
  }

  void parse_st(Instruction& in, const Token& mn, const std::vector<std::string>& parts, Cell& c) {
    Qualifiers q = qualifiers(mn, parts, qc::kSt);
    in.kind = InstrKind::Store;
    memory_order(in, mn, q);
    cache_operators(mn, q, "st", {"wb", "cg", "cs", "wt"});
    no_half_type(q, "st");
    if (in.sem == Sem::Acquire || in.sem == Sem::AcqRel || in.sem == Sem::Sc)
      fail_isa(
          q.sem_at,
          fmt::format("st does not take .{} (PTX §9.7.9.9: .weak, .relaxed, .release, .volatile)",
                      to_string(in.sem)));
    in.addr = address_operand(c, nullptr, true);
    comma(c, mn, "'[a], value'");
    in.srcs = values(c, in.vec, "stored value", in.type);
    if (q.cache_hint) cache_policy(in, c);
    no_operands_left(c, mn, "'[a], value'");
  }

  // atom/red: .sem defaults to .relaxed, .scope to .gpu, .shared to ::cta
  // (seed "Description"); the tables are checked in ptx_rules.cpp.
  void rmw_form(Instruction& in, const Token& mn, const Qualifiers& q, bool is_red,
                bool bracketed) {
    if (!q.op)
      fail(mn.loc,
           fmt::format("'{}' needs an operation (.add, .and, .or, .xor, .inc, .dec, .min, .max{})",
                       mn.text, is_red ? "" : ", .exch, .cas"));
    in.op = *q.op;
    in.sem = q.sem.value_or(Sem::Relaxed);
    if (q.is_volatile)
      fail_isa(q.sem_at, fmt::format("{} does not take .volatile", is_red ? "red" : "atom"));
    in.scope = q.scope.value_or(Scope::Gpu);
    in.space = q.space.value_or(Space::Generic);
    in.type = q.type.value_or(DataType::S32);
    in.vec = q.vec;
    in.noftz = q.noftz;
    in.cache_hint = q.cache_hint;
    detail::RmwForm f;
    f.is_red = is_red;
    f.typed = q.type.has_value();
    f.dat3m_form = !q.type && !bracketed;
    f.sem = in.sem;
    f.sem_given = q.sem.has_value();
    f.space = in.space;
    f.scope = in.scope;
    f.scope_given = q.scope.has_value();
    f.op = in.op;
    f.type = in.type;
    f.noftz = in.noftz;
    f.vec = in.vec;
    f.cache_hint = q.cache_hint;
    f.has_policy = in.cache_policy.has_value();
    if (auto v = detail::check_rmw_form(f)) fail_rule(rule_site(mn, q, v->site), *v);
    check_target(mn, q, is_red ? detail::TargetInstr::Red : detail::TargetInstr::Atom);
  }

  SourceLoc rule_site(const Token& mn, const Qualifiers& q, detail::RuleSite s) const {
    using detail::RuleSite;
    switch (s) {
      case RuleSite::Sem: return q.sem ? q.sem_at : mn.loc;
      case RuleSite::Scope: return q.scope ? q.scope_at : mn.loc;
      case RuleSite::Space: return q.space ? q.space_at : mn.loc;
      case RuleSite::Op: return q.op ? q.op_at : mn.loc;
      case RuleSite::Type: return q.type ? q.type_at : mn.loc;
      case RuleSite::Noftz: return q.noftz ? q.noftz_at : mn.loc;
      case RuleSite::Vec: return q.vec > 1 ? q.vec_at : mn.loc;
      case RuleSite::Hint: return q.cache_hint ? q.hint_at : mn.loc;
      case RuleSite::Mnemonic: break;
    }
    return mn.loc;
  }

  void parse_atom(Instruction& in, const Token& mn, const std::vector<std::string>& parts,
                  Cell& c) {
    Qualifiers q = qualifiers(mn, parts, qc::kRmw);
    in.kind = InstrKind::Atom;
    const DataType ty = q.type.value_or(DataType::S32);
    const bool cas = q.op == RmwOp::Cas;
    const std::string_view ops = cas ? "'dst, [a], compare, new'" : "'dst, [a], value'";
    if (q.vec > 1)
      in.dsts = brace_list(c, q.vec, "destination",
                           [&](Cell& cc) { return reg_operand(cc, "a destination register"); });
    else
      in.dst = reg_operand(c, "a destination register");
    comma(c, mn, ops);
    bool bracketed = false;
    in.addr = address_operand(c, &bracketed, true);
    comma(c, mn, ops);
    in.srcs = values(c, q.vec, cas ? "compare value" : "operand value", ty);
    if (cas) {
      comma(c, mn, ops);
      in.srcs.push_back(value_operand(c, "the new value", ty));
    }
    if (q.cache_hint) cache_policy(in, c);
    no_operands_left(c, mn, ops);
    rmw_form(in, mn, q, false, bracketed);
  }

  void parse_red(Instruction& in, const Token& mn, const std::vector<std::string>& parts, Cell& c) {
    Qualifiers q = qualifiers(mn, parts, qc::kRmw);
    in.kind = InstrKind::Red;
    const DataType ty = q.type.value_or(DataType::S32);
    if (c.at(Tok::LBrace) || (c.at(Tok::Ident) && is_register_name(c.cur().text)) ||
        (is_reg_token(c.cur()) && c.look(1).kind == Tok::Comma && c.look(2).kind == Tok::LBracket))
      fail(c.cur().loc,
           "red has no destination operand (it returns nothing); use atom to read the old value "
           "(the seed's examples 'red... {%bd0, %bd1}, [g], ...' contradict its syntax table)");
    bool bracketed = false;
    in.addr = address_operand(c, &bracketed, true);
    comma(c, mn, "'[a], value'");
    in.srcs = values(c, q.vec, "operand value", ty);
    if (q.cache_hint) cache_policy(in, c);
    no_operands_left(c, mn, "'[a], value'");
    rmw_form(in, mn, q, true, bracketed);
  }

  // Accesses through a non-generic proxy (PTX ISA §8.6 "Proxies"), in
  // Dat3M's litmus syntax: suld/sust through the surface proxy, tld through
  // the texture proxy, cold (and ld.const) through the constant proxy, with
  // ld/st's memory orders. Texture and constant reads go through read-only
  // caches that no strong operation reaches: weak only, as in NVIDIA's
  // mixed-proxy grammar (`tld weak none`, `ldc weak none`).
  void parse_proxy_access(Instruction& in, const Token& mn, std::vector<std::string> parts, Cell& c,
                          Proxy proxy) {
    const bool store = parts[0] == "sust";
    if (parts[0] == "ld") parts.erase(std::find(parts.begin(), parts.end(), "const"));
    Qualifiers q = qualifiers(mn, parts, qc::kProxyAccess);
    in.kind = store ? InstrKind::Store : InstrKind::Load;
    memory_order(in, mn, q);
    in.proxy = proxy;
    if (proxy != Proxy::Surface && in.sem != Sem::Weak)
      fail_isa(q.sem_at,
               fmt::format("'{}' reads through the read-only {} path: weak loads only", mn.text,
                           to_string(proxy)),
               fmt::format("the read-only {} path takes weak loads only", to_string(proxy)));
    if (store && (in.sem == Sem::Acquire || in.sem == Sem::AcqRel || in.sem == Sem::Sc))
      fail_isa(q.sem_at, fmt::format("sust does not take .{} (as st: .weak, .relaxed, .release)",
                                     to_string(in.sem)));
    if (!store && (in.sem == Sem::Release || in.sem == Sem::AcqRel || in.sem == Sem::Sc))
      fail_isa(q.sem_at, fmt::format("'{}' does not take .{} (as ld: .weak, .relaxed, .acquire)",
                                     mn.text, to_string(in.sem)));
    if (store) {
      in.addr = address_operand(c);
      comma(c, mn, "'[a], value'");
      in.srcs = values(c, 1, "stored value", in.type);
      no_operands_left(c, mn, "'[a], value'");
      return;
    }
    in.dst = reg_operand(c, "a destination register");
    comma(c, mn, "'dst, [a]'");
    in.addr = address_operand(c, nullptr, true);
    no_operands_left(c, mn, "'dst, [a]'");
  }

  // sured.{b,p}.op.geom.ctype.clamp [a, b], c (seed ptx-sured.txt), the
  // qualifiers in the syntax's order. The ctype table is checked here, and
  // the target rules: sm_20, 64-bit min/max sm_50.
  void parse_sured(Instruction& in, const Token& mn, const std::vector<std::string>& parts,
                   Cell& c) {
    static constexpr std::string_view kForm = "sured.{b,p}.op.geom.ctype.clamp";
    if (parts.size() != 6)
      fail(mn.loc, fmt::format("'{}': sured takes exactly {} ({} qualifiers, {} given)", mn.text,
                               kForm, 5, parts.size() - 1));
    SuredSpec sp;
    if (parts[1] != "b" && parts[1] != "p")
      fail(qual_loc(mn, parts, 1),
           fmt::format("sured's first qualifier is .b (byte addressing) or .p (sample "
                       "addressing), not .{}",
                       parts[1]));
    sp.byte_addressing = parts[1] == "b";
    const std::optional<RmwOp> op = parse_rmw_op(parts[2]);
    if (!op || (*op != RmwOp::Add && *op != RmwOp::Min && *op != RmwOp::Max && *op != RmwOp::And &&
                *op != RmwOp::Or))
      fail(qual_loc(mn, parts, 2),
           fmt::format("sured's operation is .add, .min, .max, .and or .or, not .{}", parts[2]));
    if (parts[3] != "1d" && parts[3] != "2d" && parts[3] != "3d")
      fail(qual_loc(mn, parts, 3),
           fmt::format("sured's geometry is .1d, .2d or .3d, not .{}", parts[3]));
    sp.geom = static_cast<unsigned>(parts[3][0] - '0');
    const std::optional<DataType> ty = parse_data_type(parts[4]);
    if (!ty) fail(qual_loc(mn, parts, 4), fmt::format("unknown sured type '.{}'", parts[4]));
    sp.ctype = *ty;
    sured_type_rules(mn, parts, sp, *op);
    if (parts[5] == "trap")
      sp.clamp = SurfaceClamp::Trap;
    else if (parts[5] == "clamp")
      sp.clamp = SurfaceClamp::Clamp;
    else if (parts[5] == "zero")
      sp.clamp = SurfaceClamp::Zero;
    else
      fail(qual_loc(mn, parts, 5),
           fmt::format("sured's out-of-bounds mode is .trap, .clamp or .zero, not .{}", parts[5]));
    if (target_sm_ < 20)
      fail_isa(mn.loc,
               fmt::format("sured requires sm_20 or higher (seed: Target ISA notes); this "
                           "test targets sm_{}",
                           target_sm_),
               "sured requires sm_20 or higher (seed: Target ISA notes)");
    // Target ISA notes: ".u64/.s64/.b64 types with .min/.max operations
    // requires sm_50 or higher" -- the rule names the operation: a 64-bit
    // .add needs only sured's own sm_20.
    const bool wide =
        sp.ctype == DataType::U64 || sp.ctype == DataType::S64 || sp.ctype == DataType::B64;
    const bool min_max = *op == RmwOp::Min || *op == RmwOp::Max;
    if (wide && min_max && target_sm_ < 50)
      fail_isa(qual_loc(mn, parts, 4),
               fmt::format("sured.{} with .{} (64-bit min/max) requires sm_50 or higher (seed: "
                           "Target ISA notes); this test targets sm_{}",
                           parts[2], parts[4], target_sm_),
               fmt::format("sured.{} with .{} (64-bit min/max) requires sm_50 or higher (seed: "
                           "Target ISA notes)",
                           parts[2], parts[4]));
    // [a, b]: a surface (or a .u64 register holding one), then the coordinates.
    if (!c.at(Tok::LBracket))
      fail(c.cur().loc, fmt::format("expected '[' before sured's surface operand, found {}",
                                    detail::describe(c.cur())));
    c.next();
    if (!c.at(Tok::Ident))
      fail(c.cur().loc, fmt::format("expected a surface (or a .u64 register holding one), "
                                    "found {}",
                                    detail::describe(c.cur())));
    const Token& a = c.next();
    sp.surface = a.text;
    in.addr = Operand{Operand::Kind::Loc, a.text, 0, 0, a.loc, {}};
    comma(c, mn, "'[a, b], c'");
    sured_coordinates(c, sp, parts[3]);
    if (!c.at(Tok::RBracket))
      fail(c.cur().loc, fmt::format("expected ']' after sured's coordinates, found {}",
                                    detail::describe(c.cur())));
    c.next();
    comma(c, mn, "'[a, b], c'");
    in.kind = InstrKind::Red;
    in.proxy = Proxy::Surface;
    in.op = *op;
    in.type = sp.ctype;
    in.space = Space::Global;
    // No .sem or .scope in sured's syntax: a reduction, with red's defaults
    // (.relaxed.gpu; docs/model.md "Surfaces").
    in.sem = Sem::Relaxed;
    in.scope = Scope::Gpu;
    in.srcs.push_back(value_operand(c, "the value to reduce with", sp.ctype));
    no_operands_left(c, mn, "'[a, b], c'");
    in.sured = std::move(sp);
  }

  // sured's coordinates, as ptxas reads them: a vector of 1, 2 or 4 .s32
  // elements (PTX vectors have no 3) with at least the geometry's (.1d: x,
  // .2d: x, y, .3d: x, y, z and a fourth, ignored); elements past the
  // geometry's are ignored, as .3d's fourth is. A .1d sured may also take x
  // alone, as a register (ptxas: a bare immediate there is a syntax error).
  void sured_coordinates(Cell& c, SuredSpec& sp, const std::string& geom) {
    const unsigned need = sp.geom == 3 ? 4 : sp.geom;
    auto coordinate = [&](Cell& cc) { return value_operand(cc, "a coordinate", DataType::S32); };
    if (!c.at(Tok::LBrace)) {
      if (sp.geom != 1)
        fail(c.cur().loc,
             fmt::format("a .{} sured takes a vector of {} coordinates {{...}}", geom, need));
      if (!is_reg_token(c.cur()))
        fail(c.cur().loc,
             fmt::format("a .1d sured's coordinate outside braces is a register; write a "
                         "constant as {{{}}} (ptxas: syntax error)",
                         c.cur().text));
      sp.coords.push_back(coordinate(c));
      return;
    }
    const SourceLoc start = c.cur().loc;
    c.next();
    for (;;) {
      sp.coords.push_back(coordinate(c));
      if (c.at(Tok::Comma)) {
        c.next();
        continue;
      }
      if (!c.at(Tok::RBrace))
        fail(c.cur().loc, fmt::format("expected ',' or '}}' in the coordinates, found {}",
                                      detail::describe(c.cur())));
      c.next();
      break;
    }
    const std::size_t n = sp.coords.size();
    if (n != 1 && n != 2 && n != 4)
      fail(start, fmt::format("the coordinates are a vector of {} elements: PTX vectors have 1, "
                              "2 or 4 (ptxas: \"Illegal vector size: {}\")",
                              n, n));
    if (n < need)
      fail(start,
           fmt::format("a .{} sured takes {} coordinates{}, {} given (ptxas: \"Operand "
                       "vector size doesn't match geometry\")",
                       geom, need, sp.geom == 3 ? " (x, y, z and an ignored fourth)" : "", n));
  }

  // multimem.cp.reduce.async.bulk.global.shared::cta.bulk_group.op{.noftz}.type
  // [dst], [src], size, as the seed's syntax and op/type table say; sm_90.
  void parse_multimem(Instruction& in, const Token& mn, const std::vector<std::string>& parts,
                      Cell& c) {
    static const std::vector<std::string> kHead = {
        "multimem", "cp", "reduce", "async", "bulk", "global", "shared::cta", "bulk_group"};
    for (std::size_t k = 1; k < kHead.size(); ++k)
      if (parts.size() <= k || parts[k] != kHead[k])
        fail(parts.size() <= k ? mn.loc : qual_loc(mn, parts, k),
             fmt::format("expected multimem.cp.reduce.async.bulk.global.shared::cta.bulk_group"
                         ".op.type (the seed's syntax): .{} here",
                         kHead[k]));
    std::size_t k = kHead.size();
    const std::optional<RmwOp> op = k < parts.size() ? parse_rmw_op(parts[k]) : std::nullopt;
    if (!op || *op == RmwOp::Sub || *op == RmwOp::Mul || *op == RmwOp::Div || *op == RmwOp::Exch ||
        *op == RmwOp::Cas || *op == RmwOp::Mov)
      fail(k < parts.size() ? qual_loc(mn, parts, k) : mn.loc,
           "the reduction is .and, .or, .xor, .add, .inc, .dec, .min or .max");
    ++k;
    bool noftz = false;
    if (k < parts.size() && parts[k] == "noftz") {
      noftz = true;
      ++k;
    }
    const std::optional<DataType> ty = k < parts.size() ? parse_data_type(parts[k]) : std::nullopt;
    if (!ty || k + 1 != parts.size())
      fail(k < parts.size() ? qual_loc(mn, parts, k) : mn.loc,
           "expected the element type last (.f16 .bf16 .b32 .u32 .s32 .b64 .u64 .s64 .f32 .f64)");
    multimem_table(mn, parts, k, *op, *ty, noftz);
    if (target_sm_ < 90)
      fail_isa(mn.loc,
               fmt::format("multimem.cp.reduce.async.bulk requires sm_90 or higher; this test "
                           "targets sm_{}",
                           target_sm_),
               "multimem.cp.reduce.async.bulk requires sm_90 or higher");
    BulkSpec b;
    b.dst = address_operand(c);
    comma(c, mn, "'[dstMem], [srcMem], size'");
    b.src = address_operand(c);
    comma(c, mn, "'[dstMem], [srcMem], size'");
    const Token& n = c.cur();
    if (n.kind != Tok::Number) fail(n.loc, "size is a constant number of bytes (a multiple of 16)");
    b.size = value_operand(c, "the size", DataType::U32).value;
    // The seed: "Operand size must be a multiple of 16." Zero is one: an
    // operation on no elements (no events; its group completes at once).
    if (b.size < 0 || b.size % 16 != 0)
      fail(n.loc, fmt::format("size {} is not a multiple of 16 (the seed: \"Operand size must "
                              "be a multiple of 16\")",
                              b.size));
    no_operands_left(c, mn, "'[dstMem], [srcMem], size'");
    in.kind = InstrKind::BulkReduce;
    in.space = Space::SharedCta;  // of the source (the replicas are .global)
    in.op = *op;
    in.type = *ty;
    in.noftz = noftz;
    in.proxy = Proxy::Async;
    // Each reduction is .relaxed.sys; the source loads are weak (the seed).
    in.sem = Sem::Relaxed;
    in.scope = Scope::Sys;
    in.bulk = std::move(b);
  }

  // The seed's table: .add on .u32 .s32 .u64 .f32 .f64 .f16 .bf16; .min and
  // .max on .u32 .s32 .u64 .s64 .f16 .bf16; .inc and .dec on .u32; .and .or
  // .xor on .b32 .b64. .add on .f16/.bf16 requires .noftz, which nothing
  // else takes.
  void multimem_table(const Token& mn, const std::vector<std::string>& parts, std::size_t k,
                      RmwOp op, DataType t, bool noftz) const {
    auto in = [&](std::initializer_list<DataType> ok) {
      return std::find(ok.begin(), ok.end(), t) != ok.end();
    };
    using D = DataType;
    const bool fits = op == RmwOp::Add
                          ? in({D::U32, D::S32, D::U64, D::F32, D::F64, D::F16, D::BF16})
                      : op == RmwOp::Min || op == RmwOp::Max
                          ? in({D::U32, D::S32, D::U64, D::S64, D::F16, D::BF16})
                      : op == RmwOp::Inc || op == RmwOp::Dec ? in({D::U32})
                                                             : in({D::B32, D::B64});
    if (!fits)
      fail_isa(qual_loc(mn, parts, k),
               fmt::format("multimem.cp.reduce.async.bulk.{} does not take .{} (the seed's table)",
                           to_string(op), parts[k]));
    const bool half = t == D::F16 || t == D::BF16;
    if (op == RmwOp::Add && half && !noftz)
      fail_isa(qual_loc(mn, parts, k),
               fmt::format(".add on .{} requires .noftz (the seed)", parts[k]));
    if (noftz && !(op == RmwOp::Add && half))
      fail_isa(qual_loc(mn, parts, k - 1), ".noftz goes with .add on .f16 or .bf16 only");
  }

  // cp.async.bulk.commit_group; cp.async.bulk.wait_group{.read} N.
  void parse_bulk_group(Instruction& in, const Token& mn, const std::vector<std::string>& parts,
                        Cell& c) {
    BulkSpec b;
    if (parts.size() == 4 && parts[3] == "commit_group") {
      in.kind = InstrKind::BulkCommit;
    } else if (parts[3] == "wait_group" &&
               (parts.size() == 4 || (parts.size() == 5 && parts[4] == "read"))) {
      in.kind = InstrKind::BulkWait;
      b.read_only = parts.size() == 5;
      const Token& n = c.cur();
      if (n.kind != Tok::Number)
        fail(n.loc,
             "cp.async.bulk.wait_group takes N, the number of groups that may stay "
             "pending (a constant)");
      b.wait = value_operand(c, "N", DataType::U32).value;
    } else {
      fail(mn.loc, fmt::format("unknown instruction '{}' (cp.async.bulk.commit_group, "
                               "cp.async.bulk.wait_group{{.read}} N)",
                               mn.text));
    }
    no_operands_left(c, mn, "");
    in.bulk = std::move(b);
    check_target(mn, Qualifiers{},
                 in.kind == InstrKind::BulkCommit ? detail::TargetInstr::BulkCommit
                                                  : detail::TargetInstr::BulkWait);
  }

  // The ctype table of the seed: .b takes u32/u64/s32 for add, u32/s32/u64/
  // s64 for min and max, b32 for and/or; .p takes b32 and b64, b64 with min
  // and max only.
  void sured_type_rules(const Token& mn, const std::vector<std::string>& parts, const SuredSpec& sp,
                        RmwOp op) const {
    const DataType t = sp.ctype;
    const SourceLoc at = qual_loc(mn, parts, 4);
    if (!sp.byte_addressing) {
      if (t != DataType::B32 && t != DataType::B64)
        fail_isa(at,
                 fmt::format("sured.p takes .b32 or .b64 (the syntax table: sample-addressed data "
                             "is read as the surface's format says), not .{}{}",
                             parts[4],
                             parts[4] == "u32" ? "; the seed's example `sured.p.min.1d.u32.trap` "
                                                 "contradicts its own table"
                                               : ""));
      if (t == DataType::B64 && op != RmwOp::Min && op != RmwOp::Max)
        fail_isa(at, fmt::format("sured.p.{}.b64: .b64 is restricted to .min and .max", parts[2]));
      return;
    }
    auto one_of = [&](std::initializer_list<DataType> ok) {
      return std::find(ok.begin(), ok.end(), t) != ok.end();
    };
    const bool fits = op == RmwOp::Add ? one_of({DataType::U32, DataType::U64, DataType::S32})
                      : (op == RmwOp::Min || op == RmwOp::Max)
                          ? one_of({DataType::U32, DataType::S32, DataType::U64, DataType::S64})
                          : one_of({DataType::B32});
    if (!fits)
      fail_isa(at, fmt::format("sured.b.{} does not take .{} (the seed: add on .u32/.u64/.s32, "
                               "min/max on .u32/.s32/.u64/.s64, and/or on .b32)",
                               parts[2], parts[4]));
  }

  // fence.proxy.{alias,surface,texture,constant} (PTX §9.7.13.4): orders
  // accesses through virtual aliases, or through the named proxy against
  // generic ones (docs/model.md "Proxies"); fence.proxy.async orders generic
  // accesses with the async proxy (the source reads of bulk reductions), and
  // .async.global, .async.shared::cta and .async.shared::cluster restrict it
  // to the operations on objects in that state space (the ISA's .proxykind
  // list: "The memory ordering is limited only to operations performed on
  // objects in the state space specified").
  void parse_proxy_fence(Instruction& in, const Token& mn, const std::vector<std::string>& parts) {
    in.kind = InstrKind::ProxyFence;
    static constexpr std::pair<std::string_view, ProxyFence> kinds[] = {
        {"alias", ProxyFence::Alias},
        {"surface", ProxyFence::Surface},
        {"texture", ProxyFence::Texture},
        {"constant", ProxyFence::Constant},
        {"async", ProxyFence::Async}};
    if (parts.size() < 3)
      fail(mn.loc,
           "fence.proxy needs a proxy kind: .alias, .surface, .texture, .constant or .async");
    for (const auto& [name, kind] : kinds)
      if (parts[2] == name) in.fenced = kind;
    if (parts[2] != to_string(in.fenced))
      fail(qual_loc(mn, parts, 2),
           fmt::format("proxy fence kind '.{}' is not supported (alias, surface, texture, "
                       "constant, async)",
                       parts[2]));
    if (in.fenced == ProxyFence::Async && parts.size() == 4) {
      static constexpr std::pair<std::string_view, Space> spaces[] = {
          {"global", Space::Global},
          {"shared::cta", Space::SharedCta},
          {"shared::cluster", Space::SharedCluster}};
      for (const auto& [name, space] : spaces)
        if (parts[3] == name) in.fence_space = space;
      if (!in.fence_space)
        fail(qual_loc(mn, parts, 3),
             fmt::format("fence.proxy.async takes the state space .global, .shared::cta or "
                         ".shared::cluster, not .{}",
                         parts[3]));
    } else if (parts.size() > 3) {
      fail(qual_loc(mn, parts, 3),
           fmt::format("fence.proxy.{} takes no further qualifier", parts[2]));
    }
    detail::TargetUse u;
    u.instr = detail::TargetInstr::ProxyFence;
    u.async_proxy = in.fenced == ProxyFence::Async;
    if (auto v = detail::target_violation(target_sm_, u)) fail_rule(qual_loc(mn, parts, 2), *v);
  }

  // fence{.sem}.scope with .sem ∈ {.sc, .acq_rel}, default .acq_rel (PTX §9.7.13.4).
  void parse_fence(Instruction& in, const Token& mn, const std::vector<std::string>& parts) {
    in.kind = InstrKind::Fence;
    if (parts.size() > 1 && parts[1] == "proxy") return parse_proxy_fence(in, mn, parts);
    Qualifiers q = qualifiers(mn, parts, qc::kFence);
    in.sem = q.sem.value_or(Sem::AcqRel);
    if (in.sem != Sem::Sc && in.sem != Sem::AcqRel)
      fail_isa(q.sem_at,
               fmt::format("fence does not take .{} (only .sc and .acq_rel)", to_string(in.sem)));
    if (!q.scope)
      fail_isa(mn.loc, fmt::format("'{}' needs a scope (.cta, .cluster, .gpu or .sys)", mn.text),
               "fence needs a scope (PTX ISA §9.7.13.4 membar/fence)");
    in.scope = *q.scope;
    check_target(mn, q, detail::TargetInstr::Fence);
  }

  // membar.{cta,gl,sys} is fence.sc.{cta,gpu,sys} (PTX §9.7.13.4).
  void parse_membar(Instruction& in, const Token& mn, const std::vector<std::string>& parts) {
    in.kind = InstrKind::Fence;
    in.sem = Sem::Sc;
    if (parts.size() != 2)
      fail(mn.loc, "membar takes exactly one level: membar.cta, membar.gl or membar.sys");
    const std::string& l = parts[1];
    if (l == "cta")
      in.scope = Scope::Cta;
    else if (l == "gl")
      in.scope = Scope::Gpu;
    else if (l == "sys")
      in.scope = Scope::Sys;
    else if (l == "proxy")
      fail(mn.loc, "proxies not supported yet: membar.proxy is a proxy fence");
    else
      fail(qual_loc(mn, parts, 1), fmt::format("unknown membar level '.{}' (cta, gl or sys)", l));
    Qualifiers q;  // the level, for the target rules (membar.sys)
    q.scope = in.scope;
    q.scope_at = qual_loc(mn, parts, 1);
    check_target(mn, q, detail::TargetInstr::Membar);
  }

  // setp.cmp.type p, a, b (PTX §9.7.7.1; .lo/.ls/.hi/.hs are the unsigned names).
  void parse_setp(Instruction& in, const Token& mn, const std::vector<std::string>& parts,
                  Cell& c) {
    Qualifiers q = qualifiers(mn, parts, qc::kSetp);
    in.kind = InstrKind::Setp;
    if (!q.cmp)
      fail(mn.loc,
           fmt::format("'{}' needs a comparison (.eq, .ne, .lt, .le, .gt, .ge, .lo, .ls, .hi, .hs)",
                       mn.text));
    if (!q.type)
      fail(mn.loc, fmt::format("'{}' needs a type (.s32, .u32, .b32, .f32, ...)", mn.text));
    if (is_packed(*q.type)) fail(q.type_at, "setp does not compare packed .f16x2/.bf16x2 values");
    if (is_bits(*q.type) && *q.cmp != CmpOp::Eq && *q.cmp != CmpOp::Ne)
      fail(q.cmp_at,
           fmt::format("setp.{} compares .b types only with .eq and .ne", to_string(*q.type)));
    in.cmp = *q.cmp;
    in.type = *q.type;
    in.dst = reg_operand(c, "a predicate register");
    comma(c, mn, "'p, a, b'");
    in.srcs.push_back(value_operand(c, "a value", in.type));
    comma(c, mn, "'p, a, b'");
    in.srcs.push_back(value_operand(c, "a value", in.type));
    no_operands_left(c, mn, "'p, a, b'");
  }

  // createpolicy.* dst, ...: a cache policy is a hint only (seed: it "does not
  // change the memory consistency behavior"), so the register gets 0.
  void parse_createpolicy(Instruction& in, const Token& mn, Cell& c) {
    in.kind = InstrKind::Local;
    in.op = RmwOp::Mov;
    in.type = DataType::B64;
    in.dst = reg_operand(c, "a destination register");
    if (!c.at(Tok::Comma))
      fail(c.cur().loc, fmt::format("'{}' takes a destination and its policy operands", mn.text));
    while (!c.at(Tok::End)) c.next();
    in.srcs.push_back(Operand{Operand::Kind::Imm, "0", 0, 0, mn.loc, {}});
  }

  void parse_barrier(Instruction& in, const Token& mn, const std::vector<std::string>& parts,
                     Cell& c) {
    in.kind = InstrKind::Barrier;
    const bool dat3m = parts.size() == 3 && parts[0] == "bar" && parts[1] == "cta" &&
                       (parts[2] == "sync" || parts[2] == "arrive");
    if (!dat3m)
      fail(mn.loc, fmt::format("'{}': only Dat3M's bar.cta.sync / bar.cta.arrive are supported; "
                               "PTX's bar.sync a{{, b}} (b = thread count) is not supported yet",
                               mn.text));
    in.barrier.arrive_only = parts[2] == "arrive";
    in.scope = Scope::Cta;
    in.barrier.id = value_operand(c, "a barrier id", DataType::S32);
    if (in.barrier.id.kind != Operand::Kind::Imm)
      fail(in.barrier.id.loc, "the first barrier operand must be a constant");
    if (c.at(Tok::Comma)) {
      c.next();
      in.barrier.logical_id = value_operand(c, "a logical barrier id", DataType::S32);
      if (c.at(Tok::Comma)) {
        c.next();
        const Operand q = value_operand(c, "a quorum", DataType::S32);
        if (q.kind != Operand::Kind::Imm || q.value < 1 || q.value > 4096)
          fail(q.loc, "the quorum must be a constant between 1 and 4096");
        in.barrier.quorum = q.value;
      }
    }
    no_operands_left(c, mn, "'id{, logical-id{, quorum}}'");
  }

  void parse_local(Instruction& in, const Token& mn, const std::vector<std::string>& parts,
                   Cell& c) {
    in.kind = InstrKind::Local;
    const std::string& base = parts[0];
    in.op = base == "add"   ? RmwOp::Add
            : base == "sub" ? RmwOp::Sub
            : base == "mul" ? RmwOp::Mul
            : base == "div" ? RmwOp::Div
                            : RmwOp::Mov;
    Qualifiers q = qualifiers(mn, parts, qc::kTyped);
    in.type = q.type.value_or(DataType::S32);
    if (in.op == RmwOp::Mov) no_half_type(q, "mov");
    if (is_float(in.type) && in.op != RmwOp::Mov)
      fail(q.type_at,
           fmt::format(
               "local float arithmetic ('{}') is not supported; use mov to set float registers",
               mn.text));
    in.dst = reg_operand(c, "a destination register");
    const bool mov = in.op == RmwOp::Mov;
    const std::string_view ops = mov ? "'dst, value'" : "'dst, a, b'";
    comma(c, mn, ops);
    in.srcs.push_back(local_source(c, in));
    if (!mov) {
      comma(c, mn, ops);
      in.srcs.push_back(local_source(c, in));
    }
    no_operands_left(c, mn, ops);
  }

  // A value, or (mov/add/sub of 64 bits, PTX ISA §9.7.9.1 mov: "mov places
  // the address of a variable") a declared location's address: `mov.u64 r0, x`.
  Operand local_source(Cell& c, const Instruction& in) {
    const Token& t = c.cur();
    const bool address = t.kind == Tok::Ident && !is_register_name(t.text) &&
                         !is_literal_word(t.text) && width_of(in.type) == 64 &&
                         !is_float(in.type) && in.op != RmwOp::Mul && in.op != RmwOp::Div;
    if (!address) return value_operand(c, "a value", in.type);
    const bool declared =
        std::any_of(test_.init.begin(), test_.init.end(),
                    [&](const InitEntry& e) { return !e.thread && e.name == t.text; });
    if (!declared) fail(t.loc, fmt::format("'{}' is not a location of the init block", t.text));
    c.next();
    return Operand{Operand::Kind::Loc, t.text, 0, 0, t.loc, {}};
  }

  std::string label_operand(Cell& c) {
    const Token& t = c.cur();
    if (t.kind != Tok::Ident)
      fail(t.loc, fmt::format("expected a label, found {}", detail::describe(t)));
    c.next();
    return t.text;
  }

  void parse_cond_branch(Instruction& in, const Token& mn, const std::vector<std::string>& parts,
                         Cell& c) {
    in.kind = InstrKind::Branch;
    in.cmp = *parse_branch(parts[0]);
    Qualifiers q = qualifiers(mn, parts, qc::kTyped);
    in.type = q.type.value_or(DataType::S32);
    in.srcs.push_back(value_operand(c, "a value", in.type));
    comma(c, mn, "'a, b, LABEL'");
    in.srcs.push_back(value_operand(c, "a value", in.type));
    comma(c, mn, "'a, b, LABEL'");
    in.label = label_operand(c);
    no_operands_left(c, mn, "'a, b, LABEL'");
  }

  void parse_goto(Instruction& in, const Token& mn, const std::vector<std::string>& parts,
                  Cell& c) {
    in.kind = InstrKind::Goto;
    if (parts.size() > 2 || (parts.size() == 2 && (parts[0] != "bra" || parts[1] != "uni")))
      fail(mn.loc, fmt::format("unknown qualifier in '{}'", mn.text));
    in.label = label_operand(c);
    no_operands_left(c, mn, "'LABEL'");
  }

  const std::string& file_;
  int target_sm_;
  const LitmusTest& test_;  // the test so far: its init block names the locations
};

}  // namespace

void parse_ptx_instruction(const InstructionCell& cell, ThreadCode& thread) {
  PtxCellParser(cell).parse(cell.toks, thread);
}

}  // namespace redscope::detail

namespace redscope {

// The PTX litmus dialect: the container's layout with PTX instruction cells.
LitmusTest parse_litmus(std::string_view text, const std::string& file) {
  LitmusTest t = detail::parse_container(text, file, detail::parse_ptx_instruction);
  detail::resolve_register_addresses(t);
  detail::check_references(t);
  return t;
}

}  // namespace redscope
