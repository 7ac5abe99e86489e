// nvcc's PTX of one kernel -> the thread's PTX instructions (docs/cuda.md
// "How nvcc's PTX is read"). The registers that hold addresses are resolved
// statically (ptx_values.hpp) and the instructions that compute them are
// dropped; every other instruction is rewritten into the litmus PTX syntax
// (addresses as [x+4], observed locals as registers of their names) and
// read by the PTX litmus dialect's own instruction parser, located at the
// test's line:col of the statement it came from.
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "dialects/cuda/ptx_module.hpp"
#include "dialects/cuda/ptx_values.hpp"
#include "redscope/core/diagnostic.hpp"
#include "redscope/dialects/cuda/cuda.hpp"
#include "redscope/frontend/lexer.hpp"
#include "redscope/frontend/ptx/ptx_instructions.hpp"

namespace redscope::cuda {

namespace {

using detail::PtxEntry;
using detail::PtxInstr;
using detail::PtxStatement;
using detail::Sym;
using detail::Window;

// The label `ret` and `exit` jump to: the end of the thread. PTX labels
// are identifiers (PTX ISA: identifiers), so nvcc's are $L__BB... and never this.
constexpr std::string_view kEndLabel = "$L__redscope_end";

// What becomes of an instruction: emitted (rewritten), consumed (it
// computes an address: its readers get the location), folded (a constant
// its readers get as an immediate) or deferred (its value is not one
// redscope reads: an error where something reads it).
enum class Role : std::uint8_t { Emit, Consumed, Folded, Deferred };

// Register-only instructions: they may be dropped when nothing reads them.
bool is_pure(const PtxInstr& in) {
  static constexpr std::string_view kPure[] = {"mov", "add", "sub", "mul", "mad", "cvt",  "cvta",
                                               "shl", "shr", "and", "or",  "xor", "not",  "neg",
                                               "min", "max", "abs", "rem", "div", "selp", "setp"};
  const std::string b = in.base();
  return std::find(std::begin(kPure), std::end(kPure), b) != std::end(kPure) ||
         (b == "ld" && in.has("param"));
}

bool value_operand(const std::string& op) {
  return detail::is_register(op) || detail::immediate_value(op).has_value();
}

// Why the PTX litmus syntax cannot say `in` (a register-only instruction),
// or nothing when it can (after the rewriting in emit_local).
std::optional<std::string> emit_problem(const PtxInstr& in) {
  const std::string b = in.base();
  const std::size_t np = in.parts.size(), n = in.ops.size();
  bool ok = false;
  if (b == "mov") ok = np == 2 && n == 2;
  if (b == "add" || b == "sub" || b == "div") ok = np == 2 && n == 3;
  if (b == "mul") ok = n == 3 && (np == 2 || (np == 3 && in.parts[1] == "lo"));
  if (b == "mad") ok = n == 4 && np == 3 && in.parts[1] == "lo" && in.guard.empty();
  if (b == "setp") ok = np == 3 && n == 3 && in.ops[0].find('|') == std::string::npos;
  if (b == "selp") ok = np == 2 && n == 4 && in.guard.empty();
  const auto t = np == 2 ? parse_data_type(in.parts[1]) : std::nullopt;
  const bool integer = t && !is_float(*t) && *t != DataType::Pred;
  if (b == "neg" || b == "not") ok = integer && n == 2;
  if (b == "abs") ok = integer && n == 2 && in.guard.empty();
  if (b == "min" || b == "max") ok = integer && n == 3 && in.guard.empty();
  if (b == "shl" || b == "shr") {  // by a constant: a product or (unsigned) quotient
    const auto k = n == 3 ? detail::immediate_value(in.ops[2]) : std::nullopt;
    ok = integer && k && *k >= 0 && *k < static_cast<std::int64_t>(width_of(*t)) &&
         (b == "shl" || !is_signed(*t));
  }
  if (b == "cvt") {
    const auto to = np == 3 ? parse_data_type(in.parts[1]) : std::nullopt;
    const auto from = np == 3 ? parse_data_type(in.parts[2]) : std::nullopt;
    ok = n == 2 && to && from && !is_float(*to) && !is_float(*from);
  }
  for (std::size_t k = 1; ok && k < n; ++k) ok = value_operand(in.ops[k]);
  if (ok) return std::nullopt;
  return "redscope cannot read " + in.where();
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

std::string_view window_name(Window w) {
  return w == Window::Global ? "global" : w == Window::Shared ? "shared" : "generic";
}

// How a register reads where it is a value.
struct RegUse {
  enum class Kind : std::uint8_t { Data, Folded, Addr, Deferred };
  Kind kind = Kind::Data;
  std::int64_t value = 0;  // Folded
  std::string what;        // Addr: the location; Deferred: why
};

class Lowering {
 public:
  Lowering(const PtxEntry& e, const EntryPlan& plan, const LitmusTest& test)
      : entry_(e),
        plan_(plan),
        test_(test),
        addrs_(address_plan()),
        values_(split(), addrs_) {}

  ThreadCode run(const ThreadCode& header) {
    tc_.name = header.name;
    tc_.place = header.place;
    tc_.loc = header.loc;
    assign_roles();
    std::size_t k = 0;
    SourceLoc last = header.loc;
    for (const PtxStatement& s : entry_.body) {
      last = s.at;
      if (s.kind == PtxStatement::Kind::Label) {
        cell(s, s.code + ":");
        continue;
      }
      const std::size_t i = k++;
      if (roles_[i] == Role::Emit) emit(instrs_[i]);
    }
    if (need_end_) {
      PtxStatement end;
      end.kind = PtxStatement::Kind::Label;
      end.text = std::string(kEndLabel);
      end.line = 0;
      end.at = last;
      cell(end, std::string(kEndLabel) + ":");
    }
    check_labels();
    return std::move(tc_);
  }

 private:
  [[noreturn]] void fail(SourceLoc at, const std::string& msg) const {
    throw InputError(Diagnostic{test_.file, at, msg});
  }

  // The kernel convention (cuda.hpp): params[i] is a pointer to location
  // plan.params[i]; the last parameter is __out; shared variables by symbol.
  // (lower_compiled_entry checked the number of parameters.)
  detail::AddressPlan address_plan() const {
    detail::AddressPlan a;
    for (std::size_t i = 0; i < plan_.params.size(); ++i) {
      a.params[entry_.params[i]] = a.targets.size();
      a.targets.push_back(detail::AddrTarget{plan_.params[i], false, false});
    }
    a.params[entry_.params.back()] = a.targets.size();
    a.targets.push_back(detail::AddrTarget{"", false, true});
    for (const auto& [symbol, loc] : plan_.shared) {
      a.shared[symbol] = a.targets.size();
      a.targets.push_back(detail::AddrTarget{loc, true, false});
    }
    return a;
  }

  const std::vector<PtxInstr>& split() {
    for (const PtxStatement& s : entry_.body)
      if (s.kind == PtxStatement::Kind::Instruction)
        instrs_.push_back(detail::split_instruction(s));
    return instrs_;
  }

  // ---- roles ----------------------------------------------------------------
  // Consumed and folded roles follow from the static values alone; deferral
  // then spreads from each deferred instruction to the instructions that
  // read what it writes, wherever they are in the text (a worklist: each
  // instruction is deferred at most once).

  void assign_roles() {
    roles_.assign(instrs_.size(), Role::Emit);
    whys_.assign(instrs_.size(), std::string());
    std::map<std::string, std::vector<std::size_t>> readers;
    std::vector<std::size_t> work;
    for (std::size_t i = 0; i < instrs_.size(); ++i) {
      const PtxInstr& in = instrs_[i];
      for (const std::string& r : reads(in)) readers[r].push_back(i);
      if (!is_pure(in)) continue;
      std::tie(roles_[i], whys_[i]) = static_role(i);
      work.push_back(i);
    }
    while (!work.empty()) {
      const std::size_t i = work.back();
      work.pop_back();
      if (roles_[i] == Role::Emit) {
        std::string why = deferred_read(instrs_[i]);
        if (why.empty()) continue;
        roles_[i] = Role::Deferred;
        whys_[i] = std::move(why);
      }
      if (roles_[i] != Role::Deferred) continue;
      for (const std::string& d : instrs_[i].dsts)
        for (std::size_t j : readers[d])
          if (is_pure(instrs_[j]) && roles_[j] == Role::Emit) work.push_back(j);
    }
  }

  // The registers an instruction reads as values (and its predicate).
  static std::vector<std::string> reads(const PtxInstr& in) {
    std::vector<std::string> out;
    for (std::size_t k = 1; k < in.ops.size(); ++k)
      if (detail::is_register(in.ops[k])) out.push_back(in.ops[k]);
    if (!in.guard.empty()) out.push_back(in.guard);
    return out;
  }

  std::pair<Role, std::string> static_role(std::size_t i) {
    const PtxInstr& in = instrs_[i];
    const Sym v = in.dsts.size() == 1 ? values_.computed(i) : Sym{};
    if (v.kind == Sym::Kind::Addr) return {Role::Consumed, {}};
    const bool once =
        in.dsts.size() == 1 && in.guard.empty() && values_.defs(in.dsts[0]).size() == 1;
    if (auto problem = emit_problem(in)) {
      if (v.kind == Sym::Kind::Const && once) return {Role::Folded, {}};
      return {Role::Deferred, *problem};
    }
    return {Role::Emit, {}};
  }

  // Why a kept instruction cannot be kept after all: it reads an address as
  // a value, or a register that is not readable; "" when neither.
  std::string deferred_read(const PtxInstr& in) {
    for (const std::string& r : reads(in)) {
      const RegUse u = use_of(r);
      if (u.kind == RegUse::Kind::Addr) return uses_address(in, u.what);
      if (u.kind == RegUse::Kind::Deferred) return u.what;
    }
    return {};
  }

  static std::string uses_address(const PtxInstr& in, const std::string& loc) {
    return fmt::format(
        "{} uses the address of {} as a value (redscope models addresses only "
        "where memory instructions take them)",
        in.where(), loc.empty() ? "__out" : loc);
  }

  RegUse use_of(const std::string& r) {
    const std::vector<std::size_t>& d = values_.defs(r);
    if (d.empty()) return RegUse{RegUse::Kind::Deferred, 0, values_.reg(r).why};
    if (d.size() == 1 && instrs_[d[0]].guard.empty()) {
      switch (roles_[d[0]]) {
        case Role::Consumed:
          return RegUse{RegUse::Kind::Addr, 0, addrs_.targets.at(values_.reg(r).target).name};
        case Role::Folded: return RegUse{RegUse::Kind::Folded, values_.reg(r).value, {}};
        case Role::Deferred: return RegUse{RegUse::Kind::Deferred, 0, whys_[d[0]]};
        case Role::Emit: return RegUse{};
      }
    }
    for (std::size_t k : d) {
      if (roles_[k] == Role::Deferred) return RegUse{RegUse::Kind::Deferred, 0, whys_[k]};
      if (roles_[k] != Role::Emit) return RegUse{RegUse::Kind::Deferred, 0, values_.reg(r).why};
    }
    return RegUse{};
  }

  // ---- emission ------------------------------------------------------------

  std::string value(const std::string& op, DataType t, const PtxInstr& in) {
    if (op.size() >= 2 && op.front() == '{' && op.back() == '}') {
      std::vector<std::string> elems;
      std::string_view inner(op);
      inner = inner.substr(1, inner.size() - 2);
      for (std::size_t from = 0; from <= inner.size();) {
        const std::size_t comma = std::min(inner.find(',', from), inner.size());
        std::string e(inner.substr(from, comma - from));
        e.erase(0, e.find_first_not_of(' '));
        e.erase(e.find_last_not_of(' ') + 1);
        elems.push_back(value(e, t, in));
        from = comma + 1;
      }
      return "{" + join(elems) + "}";
    }
    if (detail::immediate_value(op)) return op;
    if (!detail::is_register(op))
      fail(in.st->at, fmt::format("redscope cannot read {}: operand '{}' is neither a register "
                                  "nor a constant",
                                  in.where(), printable(op)));
    const RegUse u = use_of(op);
    switch (u.kind) {
      case RegUse::Kind::Data: return op;
      case RegUse::Kind::Folded: return detail::immediate_text(u.value, t);
      case RegUse::Kind::Addr: fail(in.st->at, uses_address(in, u.what));
      case RegUse::Kind::Deferred:
        fail(in.st->at, fmt::format("{} reads {}: {}", in.where(), printable(op), u.what));
    }
    return op;
  }

  std::string guard_prefix(const PtxInstr& in) {
    if (in.guard.empty()) return {};
    return "@" + std::string(in.negated ? "!" : "") + value(in.guard, DataType::Pred, in) + " ";
  }

  void emit(const PtxInstr& in) {
    const std::string b = in.base();
    if (b == "ld" || b == "st" || b == "atom" || b == "red") return emit_memory(in);
    if (is_pure(in)) return emit_local(in);
    const std::string g = guard_prefix(in);
    if ((b == "fence" || b == "membar") && in.ops.empty()) return cell(*in.st, g + in.opcode);
    if ((b == "bra" && in.ops.size() == 1 && in.ops[0] != kEndLabel) &&
        (in.parts.size() == 1 || (in.parts.size() == 2 && in.parts[1] == "uni")))
      return cell(*in.st, g + "bra " + in.ops[0]);
    if ((b == "ret" || b == "exit") && in.parts.size() == 1 && in.ops.empty()) {
      need_end_ = true;  // the thread ends: a jump to its end (PTX ISA: ret, exit)
      return cell(*in.st, g + "bra " + std::string(kEndLabel));
    }
    // bar.sync a (and barrier.sync{.aligned} a) is bar.cta.sync a with every
    // thread of the CTA taking part (PTX ISA: bar, barrier).
    const bool sync = (b == "bar" || b == "barrier") && in.parts.size() >= 2 &&
                      in.parts[1] == "sync" &&
                      (in.parts.size() == 2 || (in.parts.size() == 3 && in.parts[2] == "aligned"));
    if (sync && in.ops.size() == 1)
      return cell(*in.st, g + "bar.cta.sync " + value(in.ops[0], DataType::U32, in));
    if (b == "bar" && in.parts.size() == 3 && in.parts[1] == "cta")
      return cell(*in.st, g + in.opcode + " " + join(in.ops));
    fail(in.st->at, fmt::format("redscope cannot read {}: it is not an instruction redscope "
                                "models (docs/cuda.md \"How nvcc's PTX is read\")",
                                in.where()));
  }

  void emit_local(const PtxInstr& in) {
    const std::string b = in.base();
    const DataType t = in.type().value_or(DataType::S32);
    const std::string g = guard_prefix(in);
    if (b == "selp") {  // selp.T d, a, b, p: d = p ? a : b (PTX ISA: selp)
      const std::string p = value(in.ops[3], DataType::Pred, in);
      const std::string mov = "mov." + in.parts[1] + " " + in.ops[0] + ", ";
      cell(*in.st, "@" + p + " " + mov + value(in.ops[1], t, in));
      return cell(*in.st, "@!" + p + " " + mov + value(in.ops[2], t, in));
    }
    if (b == "cvt") return emit_cvt(in, g);
    if (b == "mad") {  // mad.lo.T d, a, b, c: the low half of a*b, plus c (PTX ISA: mad)
      const std::string tmp = fmt::format("%mad.{}", temp_count_++);
      const std::string ty = in.parts[2];
      cell(*in.st, "mul." + ty + " " + tmp + ", " + value(in.ops[1], t, in) + ", " +
                       value(in.ops[2], t, in));
      return cell(*in.st,
                  "add." + ty + " " + in.ops[0] + ", " + tmp + ", " + value(in.ops[3], t, in));
    }
    if (b == "neg" || b == "not" || b == "abs" || b == "min" || b == "max" || b == "shl" ||
        b == "shr")
      return emit_integer(in, t, g);
    std::vector<std::string> ops{in.ops[0]};
    for (std::size_t k = 1; k < in.ops.size(); ++k) ops.push_back(value(in.ops[k], t, in));
    const std::string op = b == "mul" ? "mul." + in.parts.back() : in.opcode;  // .lo: the low half
    cell(*in.st, g + op + " " + join(ops));
  }

  // Integer instructions the litmus syntax has no mnemonic for, in its
  // terms (two's complement, PTX ISA: integer arithmetic): neg a = 0 - a,
  // not a = (0 - a) - 1, shl a, k = a * 2^k, shr.u a, k = a / 2^k, min, max
  // and abs by a comparison and guarded movs.
  void emit_integer(const PtxInstr& in, DataType t, const std::string& g) {
    const std::string b = in.base(), ty = "." + in.parts[1], d = in.ops[0];
    const std::string a = value(in.ops[1], t, in);
    if (b == "neg") return cell(*in.st, g + "sub" + ty + " " + d + ", 0, " + a);
    if (b == "shl" || b == "shr") {
      const auto k = *detail::immediate_value(in.ops[2]);
      const std::string pow = detail::immediate_text(
          static_cast<std::int64_t>(std::uint64_t{1} << static_cast<unsigned>(k)), t);
      return cell(*in.st, g + (b == "shl" ? "mul" : "div") + ty + " " + d + ", " + a + ", " + pow);
    }
    const std::string tmp = fmt::format("%{}.{}", b, temp_count_++);
    if (b == "not") {
      cell(*in.st, g + "sub" + ty + " " + tmp + ", 0, " + a);
      return cell(*in.st, g + "sub" + ty + " " + d + ", " + tmp + ", 1");
    }
    if (b == "abs") {
      cell(*in.st, "setp.lt" + ty + " " + tmp + ", " + a + ", 0");
      cell(*in.st, "@" + tmp + " sub" + ty + " " + d + ", 0, " + a);
      return cell(*in.st, "@!" + tmp + " mov" + ty + " " + d + ", " + a);
    }
    const std::string c = value(in.ops[2], t, in);  // min, max
    cell(*in.st,
         "setp." + std::string(b == "min" ? "lt" : "gt") + ty + " " + tmp + ", " + a + ", " + c);
    cell(*in.st, "@" + tmp + " mov" + ty + " " + d + ", " + a);
    cell(*in.st, "@!" + tmp + " mov" + ty + " " + d + ", " + c);
  }

  // cvt.D.S d, a between integer types: a mov at S then at D, which keeps
  // the low bits and extends by S's signedness (PTX ISA: cvt).
  void emit_cvt(const PtxInstr& in, const std::string& g) {
    const DataType to = *parse_data_type(in.parts[1]), from = *parse_data_type(in.parts[2]);
    const std::string a = value(in.ops[1], from, in);
    if (width_of(to) <= width_of(from))
      return cell(*in.st, g + "mov." + in.parts[1] + " " + in.ops[0] + ", " + a);
    const std::string tmp = fmt::format("%cvt.{}", temp_count_++);
    cell(*in.st, g + "mov." + in.parts[2] + " " + tmp + ", " + a);
    cell(*in.st, g + "mov." + in.parts[1] + " " + in.ops[0] + ", " + tmp);
  }

  void emit_memory(const PtxInstr& in) {
    const std::string b = in.base();
    const std::size_t at = b == "ld" || b == "atom" ? 1 : 0;
    if (in.ops.size() <= at || (at == 1 && in.ops.size() < 2))
      fail(in.st->at, fmt::format("redscope cannot read {}: operands missing", in.where()));
    const Sym a = address(in, in.ops[at]);
    const detail::AddrTarget& target = addrs_.targets.at(a.target);
    if (target.out) return store_observed(in, a);
    const DataType t = in.type().value_or(DataType::S32);
    std::vector<std::string> ops;
    for (std::size_t k = 0; k < in.ops.size(); ++k) {
      if (k == at)
        ops.push_back(a.value == 0 ? fmt::format("[{}]", target.name)
                                   : fmt::format("[{}+{}]", target.name, a.value));
      else if (k == 0 && at == 1)
        ops.push_back(in.ops[0]);  // the destination(s)
      else
        ops.push_back(value(in.ops[k], t, in));
    }
    cell(*in.st, guard_prefix(in) + in.opcode + " " + join(ops));
  }

  // The address operand `[base]`, `[base+N]` or `[base+-N]`: base a
  // register holding an address or a shared variable's symbol.
  Sym address(const PtxInstr& in, const std::string& op) {
    if (op.size() < 3 || op.front() != '[' || op.back() != ']')
      fail(in.st->at, fmt::format("redscope cannot read {}: '{}' is not an address operand",
                                  in.where(), printable(op)));
    const std::string inner = op.substr(1, op.size() - 2);
    const std::size_t plus = inner.find_first_of("+-", 1);
    std::string base = inner.substr(0, plus);
    base.erase(base.find_last_not_of(' ') + 1);
    std::int64_t off = 0;
    if (plus != std::string::npos) {
      std::string rest = inner.substr(inner[plus] == '+' ? plus + 1 : plus);
      rest.erase(0, rest.find_first_not_of(' '));
      const auto v = detail::immediate_value(rest);
      if (!v) fail(in.st->at, fmt::format("redscope cannot read the address of {}", in.where()));
      off = *v;
    }
    Sym s = detail::is_register(base) ? values_.reg(base)
            : detail::immediate_value(base)
                ? Sym::unknown("the address is a number, not a location's")
                : values_.operand(base);
    if (s.kind != Sym::Kind::Addr)
      fail(in.st->at, fmt::format("the address of {} is computed at run time: redscope needs "
                                  "addresses that resolve to a location and offset{}",
                                  in.where(), s.why.empty() ? "" : " (" + s.why + ")"));
    check_window(in, s);
    s.value = static_cast<std::int64_t>(static_cast<std::uint64_t>(s.value) +
                                        static_cast<std::uint64_t>(off));
    const detail::AddrTarget& t = addrs_.targets.at(s.target);
    if (s.value < 0)
      fail(in.st->at, fmt::format("the address of {} is {} byte(s) before {}", in.where(), -s.value,
                                  t.out ? "__out" : t.name));
    return s;
  }

  // An address's window must be the instruction's state space (PTX ISA
  // §6.4.1): generic addresses for generic accesses, cvta's for the others.
  void check_window(const PtxInstr& in, const Sym& s) const {
    Window need = Window::Generic;
    for (std::size_t k = 1; k < in.parts.size(); ++k) {
      const std::string& p = in.parts[k];
      if (p == "global") need = Window::Global;
      if (p == "shared" || p == "shared::cta") need = Window::Shared;
      if (p == "shared::cluster" || p == "local" || p == "const" || p == "param" || p == "tex")
        fail(in.st->at, fmt::format("redscope cannot read {}: the .{} state space is not one of "
                                    "the test's (global, shared, generic)",
                                    in.where(), p));
    }
    if (s.window == need) return;
    const detail::AddrTarget& t = addrs_.targets.at(s.target);
    fail(in.st->at,
         fmt::format("{} takes a {} address but is given a {} address of {}", in.where(),
                     window_name(need), window_name(s.window), t.out ? "__out" : t.name));
  }

  // A store through __out at byte 8*j is the observed local j taking its
  // value (the kernel convention, cuda.hpp): `mov.T NAME, VALUE`.
  void store_observed(const PtxInstr& in, const Sym& a) {
    if (in.base() != "st" || in.ops.size() != 2)
      fail(in.st->at, fmt::format("{} accesses __out, the output array: the kernel convention "
                                  "only stores the observed locals there",
                                  in.where()));
    const DataType t = in.type().value_or(DataType::S32);
    std::vector<std::string> elems{in.ops[1]};
    const std::string& v = in.ops[1];
    if (v.size() >= 2 && v.front() == '{' && v.back() == '}') {
      elems.clear();
      std::string inner = v.substr(1, v.size() - 2);
      for (std::size_t from = 0; from <= inner.size();) {
        const std::size_t comma = std::min(inner.find(',', from), inner.size());
        std::string e = inner.substr(from, comma - from);
        e.erase(0, e.find_first_not_of(' '));
        e.erase(e.find_last_not_of(' ') + 1);
        elems.push_back(e);
        from = comma + 1;
      }
    }
    const std::int64_t bytes = width_of(t) / 8;
    for (std::size_t k = 0; k < elems.size(); ++k) {
      const std::int64_t off = a.value + static_cast<std::int64_t>(k) * bytes;
      const std::size_t j = static_cast<std::size_t>(off / 8);
      const bool slot = off % 8 == 0 && j < plan_.observed.size() &&
                        width_of(data_type(plan_.observed[j].type)) == width_of(t);
      if (!slot)
        fail(in.st->at,
             fmt::format("{} stores {} byte(s) at byte {} of __out, which is not the slot of an "
                         "observed local (the kernel convention: local j of {} at byte 8*j, at "
                         "its own type)",
                         in.where(), bytes, off, plan_.observed.size()));
      const ObservedLocal& o = plan_.observed[j];
      const DataType ot = data_type(o.type);
      const auto imm = detail::immediate_value(elems[k]);
      const std::string val = imm ? detail::immediate_text(*imm, ot) : value(elems[k], ot, in);
      cell(*in.st,
           guard_prefix(in) + "mov." + std::string(to_string(ot)) + " " + o.name + ", " + val);
    }
  }

  // One litmus cell, read by the PTX dialect's parser with every token at
  // the statement's line:col; its instructions keep nvcc's text.
  void cell(const PtxStatement& st, const std::string& text) {
    const std::size_t before = tc_.code.size();
    const std::string where =
        st.line > 0 ? fmt::format("'{}' (PTX line {})", printable(st.text), st.line) : "the end";
    try {
      std::vector<redscope::detail::Token> toks = redscope::detail::tokenize(text, test_.file);
      for (redscope::detail::Token& t : toks) t.loc = st.at;
      redscope::detail::parse_ptx_instruction(
          redscope::detail::InstructionCell{toks, test_.file, test_.target_sm, test_}, tc_);
    } catch (const InputError& e) {
      const Diagnostic& d = e.diagnostic();
      throw InputError(
          Diagnostic{test_.file, st.at, fmt::format("{}: {}", where, d.message), d.kind, d.rule});
    }
    for (std::size_t k = before; k < tc_.code.size(); ++k)
      tc_.code[k].text = st.kind == PtxStatement::Kind::Label ? st.text + ":" : st.text;
  }

  void check_labels() const {
    for (const Instruction& in : tc_.code)
      if ((in.kind == InstrKind::Branch || in.kind == InstrKind::Goto) &&
          !tc_.labels.count(in.label))
        fail(in.loc, fmt::format("'{}' branches to {}, which the kernel does not define (the "
                                 "module is garbled)",
                                 printable(in.text), printable(in.label)));
  }

  const PtxEntry& entry_;
  const EntryPlan& plan_;
  const LitmusTest& test_;
  ThreadCode tc_;
  std::vector<PtxInstr> instrs_;
  detail::AddressPlan addrs_;
  detail::PtxValues values_;
  std::vector<Role> roles_;
  std::vector<std::string> whys_;
  bool need_end_ = false;
  int temp_count_ = 0;  // temporary registers (%cvt.N, %mad.N: no PTX identifier has a dot)
};

}  // namespace

ThreadCode lower_compiled_entry(std::string_view module, const EntryPlan& plan,
                                const ThreadCode& header, const LitmusTest& test) {
  const detail::ModuleSite site{test.file, header.loc, plan.line_file};
  const PtxEntry entry = detail::read_entry(module, plan.entry, site);
  if (entry.params.size() != plan.params.size() + 1)
    throw InputError(Diagnostic{
        test.file, header.loc,
        fmt::format("nvcc's kernel {} takes {} parameter(s), the kernel convention {} (a pointer "
                    "per global location, then __out)",
                    printable(entry.name), entry.params.size(), plan.params.size() + 1)});
  return Lowering(entry, plan, test).run(header);
}

}  // namespace redscope::cuda
