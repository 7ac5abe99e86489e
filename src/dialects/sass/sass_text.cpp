// SASS text: cuobjdump's spelling of the seed's instructions (its
// "Instruction usage" lines), read into Instr and printed back in one
// canonical form (docs/sass.md "Text").
#include "dialects/sass/sass_text.hpp"
#include "dialects/sass/sass_fields.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>

namespace redscope::sass {

namespace {

using redscope::detail::Tok;
using redscope::detail::Token;

// NOP's condition codes (seed table "mod 0:4 value"), by value.
constexpr std::array<std::string_view, 32> kCC = {
    "F",      "LT",     "EQ",     "LE",      "GT",      "NE",      "GE",  "NUM",
    "NAN",    "LTU",    "EQU",    "LEU",     "GTU",     "NEU",     "GEU", "T",
    "OFF",    "LO",     "SFF",    "LS",      "HI",      "SFT",     "HS",  "OFT",
    "CSM_TA", "CSM_TR", "CSM_MX", "FCSM_TA", "FCSM_TR", "FCSM_MX", "RLE", "RGT"};
// NOP's .Op (seed table "mod2 3:6 value"); 0 is none.
constexpr std::array<std::string_view, 9> kNopUnit = {"",    "FMA64", "FMA32", "XLU", "ALU",
                                                      "AGU", "SU",    "FU",    "FMUL"};
constexpr std::array<std::string_view, 10> kAtomOp = {"ADD", "MIN", "MAX", "INC",  "DEC",
                                                      "AND", "OR",  "XOR", "EXCH", "CAS"};
constexpr std::array<std::string_view, 3> kLevel = {"CTA", "GL", "SYS"};
constexpr std::array<std::string_view, 8> kVoteMode = {"ALL", "ANY",   "EQ",    "",
                                                       "",    "VTG.R", "VTG.A", "VTG.RA"};
constexpr std::array<std::string_view, 7> kMemType = {"U8", "S8", "U16", "S16", "", "64", "128"};
constexpr std::array<std::string_view, 4> kLoadCache = {"CA", "CG", "CS", "CV"};
constexpr std::array<std::string_view, 4> kStoreCache = {"WB", "CG", "CS", "WT"};

template <std::size_t N>
int index_of(const std::array<std::string_view, N>& a, std::string_view s) {
  for (std::size_t i = 0; i < N; ++i)
    if (!a[i].empty() && a[i] == s) return static_cast<int>(i);
  return -1;
}

std::vector<std::string> split_dots(const std::string& s) {
  std::vector<std::string> out;
  std::size_t a = 0;
  for (;;) {
    const std::size_t b = s.find('.', a);
    out.push_back(s.substr(a, b == std::string::npos ? std::string::npos : b - a));
    if (b == std::string::npos) return out;
    a = b + 1;
  }
}

std::optional<Opcode> opcode_named(std::string_view s) {
  for (unsigned i = 0; i <= static_cast<unsigned>(Opcode::MOV32I); ++i)
    if (to_string(static_cast<Opcode>(i)) == s) return static_cast<Opcode>(i);
  return std::nullopt;
}

class TextParser {
 public:
  TextParser(const std::vector<Token>& toks, const std::string& file,
             std::map<std::string, SourceLoc>* operands)
      : t_(toks),
        file_(file),
        operands_(operands) {}

  Instr run() {
    Instr in;
    const Token* at_sign = nullptr;
    if (at(Tok::At)) {
      at_sign = &next();
      in.guard = predicate("a guard predicate after '@'");
    }
    if (!at(Tok::Ident)) fail(cur(), "expected a SASS instruction, found " + describe(cur()));
    const Token& mn = next();
    std::vector<std::string> parts = split_dots(mn.text);
    // SYNC is cuobjdump's name for NOP.S (reconverge at the SSY point).
    if (parts.size() == 1 && parts[0] == "SYNC") parts = {"NOP", "S"};
    const auto op = opcode_named(parts[0]);
    if (!op)
      fail(mn, fmt::format("unknown opcode '{}': redscope encodes the seed's instructions ({}) "
                           "and LD, ST, MOV32I",
                           parts[0], seed_list()));
    in.op = *op;
    // SSY, CAL, JCAL, PRET, PBK, PCNT and PLONGJMP are not predicated (the
    // hardware ignores bits 10-13): a guard there would be silently dropped.
    // SCHI's bits 10-13 are operands; encode says so.
    if (at_sign && !(in.guard == Pred{}) && in.op != Opcode::SCHI && !detail::info(in.op).guarded)
      fail(*at_sign, fmt::format("{} takes no guard predicate: it is not predicated (the "
                                 "hardware ignores bits 10-13)",
                                 parts[0]));
    mods_.assign(parts.begin() + 1, parts.end());
    mn_ = &mn;
    body(in);
    if (!mods_.empty())
      fail(mn, fmt::format("{} does not take the modifier .{} here (the seed's usage: {})",
                           parts[0], mods_.front(), usage(in.op)));
    if (at(Tok::Semi)) next();
    if (!at(Tok::End)) fail(cur(), "unexpected " + describe(cur()) + " after the instruction");
    return in;
  }

 private:
  // ---- tokens --------------------------------------------------------------
  const Token& cur() const { return t_[i_]; }
  bool at(Tok k) const { return cur().kind == k; }
  const Token& next() {
    const Token& t = t_[i_];
    if (i_ + 1 < t_.size()) ++i_;
    return t;
  }
  [[noreturn]] void fail(const Token& at, std::string msg) const {
    throw InputError(Diagnostic{file_, at.loc, std::move(msg)});
  }
  static std::string describe(const Token& t) {
    return t.kind == Tok::End ? "the end of the instruction" : redscope::detail::describe(t);
  }
  void expect(Tok k, std::string_view what) {
    if (!at(k)) fail(cur(), fmt::format("expected {}, found {}", what, describe(cur())));
    next();
  }
  bool comma() {
    if (!at(Tok::Comma)) return false;
    next();
    return true;
  }
  void need_comma() { expect(Tok::Comma, "','"); }
  static std::string seed_list() {
    std::string s;
    for (Opcode o : seed_opcodes()) s += (s.empty() ? "" : " ") + std::string(to_string(o));
    return s;
  }

  // ---- modifiers -------------------------------------------------------------
  // Takes the next modifier if it is `m`.
  bool mod(std::string_view m) {
    if (mods_.empty() || mods_.front() != m) return false;
    mods_.erase(mods_.begin());
    return true;
  }
  template <std::size_t N>
  int mod_of(const std::array<std::string_view, N>& names) {
    if (mods_.empty()) return -1;
    const int k = index_of(names, mods_.front());
    if (k >= 0) mods_.erase(mods_.begin());
    return k;
  }

  // ---- operands --------------------------------------------------------------
  std::uint64_t number(std::string_view what, bool allow_negative, std::int64_t* signed_out) {
    bool neg = false;
    if (at(Tok::Minus)) {
      if (!allow_negative) fail(cur(), fmt::format("{} cannot be negative", what));
      next();
      neg = true;
    }
    if (!at(Tok::Number)) fail(cur(), fmt::format("expected {}, found {}", what, describe(cur())));
    const Token& n = next();
    const std::int64_t v = redscope::detail::integer_value(n, neg, file_);
    // integer_value reads 2^63 and above as negative (two's complement, for
    // PTX's u64 constants); no SASS field is wider than 32 bits.
    if (!neg && v < 0)
      fail(n, fmt::format("{} {} does not fit any field (the widest holds 32 bits)", what, n.text));
    if (signed_out) *signed_out = v;
    return static_cast<std::uint64_t>(v);
  }
  const Token& last() const { return t_[i_ > 0 ? i_ - 1 : 0]; }

  unsigned reg(std::string_view what) {
    if (!at(Tok::Ident)) fail(cur(), fmt::format("expected {}, found {}", what, describe(cur())));
    const Token& r = next();
    unsigned n = 0;
    if (!detail::register_number(r.text, n)) {
      if (r.text.size() > 1 && r.text[0] == 'R' &&
          std::all_of(r.text.begin() + 1, r.text.end(),
                      [](char c) { return c >= '0' && c <= '9'; }))
        fail(r, fmt::format("register {} does not fit its 6-bit field (R0-R62, RZ)", r.text));
      fail(r, fmt::format("expected {} (R0-R62 or RZ), found '{}'", what, r.text));
    }
    return n;
  }
  Pred predicate(std::string_view what) {
    Pred p;
    if (at(Tok::Bang)) {
      next();
      p.negated = true;
    }
    if (!at(Tok::Ident)) fail(cur(), fmt::format("expected {}, found {}", what, describe(cur())));
    const Token& t = next();
    if (!detail::predicate_number(t.text, p.index))
      fail(t, fmt::format("expected {} (P0-P6 or PT), found '{}'", what, t.text));
    return p;
  }
  bool at_predicate() const {
    unsigned n = 0;
    if (at(Tok::Bang)) return true;
    return at(Tok::Ident) && detail::predicate_number(cur().text, n);
  }
  bool at_register() const {
    unsigned n = 0;
    return at(Tok::Ident) && detail::register_number(cur().text, n);
  }
  RegOrImm reg_or_imm(std::string_view what) {
    if (at(Tok::Number)) return RegOrImm{true, number(what, false, nullptr)};
    return RegOrImm{false, reg(what)};
  }
  // [Rn], [Rn+off], [Rn-off] or [off] (RZ base).
  void address(Instr& in) {
    expect(Tok::LBracket, "'[' (an address [Rn+0x10])");
    in.reg1 = kRZ;
    mark("offset");
    if (at(Tok::Number) || at(Tok::Minus)) {
      number("an offset", true, &in.offset);
    } else {
      in.reg1 = reg("an address register");
      if (at(Tok::Plus) || at(Tok::Minus)) {
        const bool neg = at(Tok::Minus);
        next();
        if (operands_) (*operands_)["offset"] = cur().loc;
        std::int64_t v = 0;
        number("an offset", !neg, &v);  // [R2+-0x4] as cuobjdump prints it, not [R2--0x4]
        in.offset = neg ? -v : v;
      }
    }
    expect(Tok::RBracket, "']'");
  }
  void target(Instr& in) {
    Target& t = in.target;
    mark("target");
    if (at(Tok::Ident) && cur().text == "c") {
      next();
      t.kind = Target::Kind::Const;
      expect(Tok::LBracket, "'[' (c[bank][offset])");
      t.bank = static_cast<unsigned>(std::min<std::uint64_t>(number("a bank", false, nullptr), 16));
      expect(Tok::RBracket, "']'");
      expect(Tok::LBracket, "'[' (c[bank][offset])");
      t.offset = number("an offset", false, nullptr);
      expect(Tok::RBracket, "']'");
      return;
    }
    if (at(Tok::Bang) || at(Tok::Ident)) {
      if (at(Tok::Bang)) next();
      if (!at(Tok::Ident)) fail(cur(), "expected a label name after '!'");
      t.kind = Target::Kind::Label;
      t.label = next().text;
      return;
    }
    t.kind = Target::Kind::Imm;
    number("a branch target (0x10, -0x10, c[0x1][0x8] or a label)", true, &t.imm);
  }
  std::uint64_t sched_operand() {
    if (!at(Tok::Number))
      fail(cur(), "expected a SCHI operand: 0x00-0xff or up to 8 binary digits, LSB first");
    const Token& n = next();
    const std::string& s = n.text;
    if (s.size() > 2 && (s[1] == 'x' || s[1] == 'X')) {
      const std::uint64_t v =
          static_cast<std::uint64_t>(redscope::detail::integer_value(n, false, file_));
      if (v > 0xff) fail(n, fmt::format("SCHI operand {} exceeds 0xff", s));
      return v;
    }
    if (s.find_first_not_of("01") != std::string::npos)
      fail(n,
           fmt::format("SCHI operand '{}' is neither hex (0x..) nor binary digits (LSB first)", s));
    if (s.size() > 8) fail(n, fmt::format("SCHI operand {} has more than 8 binary digits", s));
    std::uint64_t v = 0;
    for (std::size_t k = 0; k < s.size(); ++k)
      if (s[k] == '1') v |= 1ULL << k;
    return v;
  }

  // ---- instructions -----------------------------------------------------------
  void body(Instr& in) {
    switch (in.op) {
      case Opcode::SCHI:
        for (unsigned k = 0; k < 7; ++k) {
          if (k) need_comma();
          in.sched[k] = static_cast<unsigned>(sched_operand());
        }
        return;
      case Opcode::BRA:
      case Opcode::JMP:
        in.u = mod("U");
        in.lmt = mod("LMT");
        return target(in);
      case Opcode::CAL:
      case Opcode::JCAL:
      case Opcode::PRET: in.noinc = mod("NOINC"); return target(in);
      case Opcode::SSY:
      case Opcode::PBK:
      case Opcode::PCNT:
      case Opcode::PLONGJMP: return target(in);
      case Opcode::RET:
      case Opcode::EXIT:
      case Opcode::BRK:
      case Opcode::CONT:
      case Opcode::LONGJMP: return;
      case Opcode::NOP: return nop(in);
      case Opcode::BAR: return bar(in);
      case Opcode::B2R:
        in.unit = mod("XLU") ? 1 : mod("ALU") ? 2 : 0;
        in.s = mod("S");
        in.reg0 = reg("a destination register");
        need_comma();
        mark("imm");
        in.imm = number("a 6-bit immediate", false, nullptr);
        return;
      case Opcode::MEMBAR: {
        const int l = mod_of(kLevel);
        if (l < 0) fail(*mn_, "MEMBAR needs a level: MEMBAR.CTA, MEMBAR.GL or MEMBAR.SYS");
        in.mode = static_cast<unsigned>(l);
        return;
      }
      case Opcode::ATOM:
      case Opcode::RED: return atom(in);
      case Opcode::VOTE: return vote(in);
      case Opcode::LD:
      case Opcode::ST: return load_store(in);
      case Opcode::MOV32I: {
        in.reg0 = reg("a destination register");
        need_comma();
        mark("imm");
        number("a 32-bit immediate", true, &in.offset);
        return;
      }
    }
  }

  void nop(Instr& in) {
    in.trig = mod("TRIG");
    const int u = mod_of(kNopUnit);
    in.unit = u < 0 ? 0 : static_cast<unsigned>(u);
    in.s = mod("S");
    if (at(Tok::Ident) && cur().text.rfind("CC", 0) == 0) {
      const Token& c = next();
      const std::vector<std::string> p = split_dots(c.text);
      int v = 15;
      if (p[0] != "CC" || p.size() > 2 || (p.size() == 2 && (v = index_of(kCC, p[1])) < 0))
        fail(c, fmt::format("expected a condition code CC.<op> (CC.LT, CC.NE, ...), found '{}'",
                            c.text));
      in.cc = static_cast<unsigned>(v);
      if (!comma()) return;
    }
    mark("imm");
    if (at(Tok::Number)) in.imm = number("an immediate", false, nullptr);
  }

  void bar(Instr& in) {
    if (mod("ARV")) {
      in.arrive = true;
    } else if (mod("RED")) {
      if (mod("POPC"))
        in.mode = 0;
      else if (mod("AND"))
        in.mode = 1;
      else if (mod("OR"))
        in.mode = 2;
      else
        fail(*mn_, "BAR.RED needs .POPC, .AND or .OR");
    } else {
      fail(*mn_, "BAR needs .RED.POPC, .RED.AND, .RED.OR or .ARV");
    }
    in.psrc = Pred{};
    in.pdst = Pred{};
    in.tcount = RegOrImm{false, kRZ};
    if (in.arrive) return bar_arrive(in);
    in.reg0 = reg("a destination register (RZ for bar.sync)");
    need_comma();
    // The seed's usage: `BAR.RED.Op RZ, p, bar (,tcount), (!)c` (.AND, .OR)
    // and `BAR.RED.POPC reg0, bar (,tcount), (!)c` take p and c, which
    // have no default; only bar.sync (`BAR.RED.POPC RZ, bar (,tcount)`)
    // goes without them.
    const bool needs_p = in.mode != 0;
    const bool needs_c = needs_p || in.reg0 != kRZ;
    if (needs_p && !at_predicate())
      fail(cur(), fmt::format("BAR.RED.{} takes a destination predicate p here (the seed's "
                              "usage: BAR.RED.Op RZ, p, bar (,tcount), (!)c), found {}",
                              in.mode == 1 ? "AND" : "OR", describe(cur())));
    if (at_predicate()) {
      in.pdst = predicate("a destination predicate");
      need_comma();
    }
    mark("bar");
    in.bar = reg_or_imm("a barrier (0x0-0xf or a register)");
    if (comma()) {
      if (!at_predicate()) {
        mark("tcount");
        in.tcount = reg_or_imm("a thread count");
        if (comma())
          in.psrc = predicate("a source predicate");
        else if (needs_c)
          missing_c(in);
      } else {
        in.psrc = predicate("a source predicate");
      }
    } else if (needs_c) {
      missing_c(in);
    }
  }
  [[noreturn]] void missing_c(const Instr& in) const {
    fail(cur(), fmt::format("{} takes a source predicate (!)c last (the seed's usage: {}), "
                            "found {}",
                            in.mode == 0   ? "BAR.RED.POPC with a destination register"
                            : in.mode == 1 ? "BAR.RED.AND"
                                           : "BAR.RED.OR",
                            in.mode == 0 ? "BAR.RED.POPC reg0, bar (,tcount), (!)c"
                                         : "BAR.RED.Op RZ, p, bar (,tcount), (!)c",
                            describe(cur())));
  }
  // BAR.ARV bar, tcount  or, with every field, BAR.ARV Rd, Pd, bar, tcount, [!]Pc.
  void bar_arrive(Instr& in) {
    in.reg0 = kRZ;
    if (at_register()) {
      // Two forms start with a register: bar may be one.
      const std::size_t save = i_;
      const unsigned r = reg("a register");
      if (comma() && at_predicate()) {
        in.reg0 = r;
        in.pdst = predicate("a destination predicate");
        need_comma();
      } else {
        i_ = save;
      }
    }
    mark("bar");
    in.bar = reg_or_imm("a barrier (0x0-0xf or a register)");
    need_comma();
    mark("tcount");
    in.tcount = reg_or_imm("a thread count");
    if (comma()) in.psrc = predicate("a source predicate");
  }

  void atom(Instr& in) {
    in.e = mod("E");
    const int op = mod_of(kAtomOp);
    if (op < 0)
      fail(*mn_, fmt::format("{} needs an operation: .ADD .MIN .MAX .INC .DEC .AND .OR .XOR{}",
                             to_string(in.op), in.op == Opcode::ATOM ? " .EXCH .CAS" : ""));
    in.atom_op = static_cast<unsigned>(op);
    if (in.op == Opcode::RED && op >= 8)
      fail(*mn_, fmt::format("RED.{} does not exist: .EXCH and .CAS return a value (use ATOM)",
                             kAtomOp[static_cast<std::size_t>(op)]));
    in.atom_type = 4;
    if (mod("U32"))
      in.atom_type = 4;
    else if (mod("U64"))
      in.atom_type = 5;
    else if (mod("S32"))
      in.atom_type = 7;
    else if (mod("F32")) {
      in.atom_type = 11;
      // .FTZ.RN is the only mode and may be omitted (seed note).
      if (mod("FTZ") && !mod("RN")) fail(*mn_, "ATOM .F32 takes .FTZ.RN together");
    }
    if (in.op == Opcode::ATOM) {
      in.reg3 = reg("a destination register");
      need_comma();
    }
    address(in);
    need_comma();
    in.reg0 = reg("a source register");
    in.reg4 = kRZ;
    if (in.op == Opcode::ATOM && comma()) in.reg4 = reg("a second source register");
  }

  void vote(Instr& in) {
    int m = -1;
    if (mod("VTG")) {
      m = mod("RA") ? 7 : mod("R") ? 5 : mod("A") ? 6 : -1;
      if (m < 0) fail(*mn_, "VOTE.VTG needs .R, .A or .RA");
    } else {
      m = mod("ALL") ? 0 : mod("ANY") ? 1 : (mod("EQ") || mod("UNI")) ? 2 : -1;
    }
    if (m < 0) fail(*mn_, "VOTE needs a mode: .ALL, .ANY, .EQ or .VTG.R/.A/.RA");
    in.mode = static_cast<unsigned>(m);
    in.reg0 = 0;
    in.pdst = Pred{0, false};
    in.psrc = Pred{0, false};
    if (m >= 5 && at(Tok::Number)) {  // VOTE.VTG.R 0xabcd
      mark("imm");
      in.imm = number("an immediate", false, nullptr);
      return;
    }
    in.reg0 = reg("a destination register");
    need_comma();
    in.pdst = predicate("a destination predicate");
    if (in.pdst.negated) fail(last(), "a destination predicate cannot be negated");
    need_comma();
    in.psrc = predicate("a source predicate");
    if (comma()) {
      mark("imm");
      in.imm = number("an immediate", false, nullptr);
    }
  }

  void load_store(Instr& in) {
    in.e = mod("E");
    const int c = in.op == Opcode::LD ? mod_of(kLoadCache) : mod_of(kStoreCache);
    in.cache = c < 0 ? 0 : static_cast<unsigned>(c);
    const int t = mod_of(kMemType);
    in.mem_type = t < 0 ? 4 : static_cast<unsigned>(t);
    if (in.op == Opcode::LD) {
      in.reg0 = reg("a destination register");
      need_comma();
      address(in);
    } else {
      address(in);
      need_comma();
      in.reg0 = reg("a source register");
    }
  }

  static std::string usage(Opcode op) {
    switch (op) {
      case Opcode::BRA: return "BRA(.U)(.LMT) target";
      case Opcode::JMP: return "JMP(.U)(.LMT) target";
      case Opcode::CAL:
      case Opcode::JCAL:
      case Opcode::PRET: return fmt::format("{}(.NOINC) target", to_string(op));
      case Opcode::NOP: return "NOP(.TRIG)(.Op)(.S) (CC(.CCop)) (, 0xabcd)";
      case Opcode::ATOM: return "ATOM(.E).Op(.Type) reg3, [reg1+0xabcd], reg0 (,reg4)";
      case Opcode::RED: return "RED(.E).Op(.Type) [reg1+0xabcd], reg0";
      case Opcode::B2R: return "B2R(.Op)(.S) reg0, 0xab";
      case Opcode::MEMBAR: return "MEMBAR.Lvl";
      case Opcode::LD: return "LD(.E)(.CG|.CS|.CV)(.U8|.S8|.U16|.S16|.64|.128) Rd, [Ra+off]";
      case Opcode::ST: return "ST(.E)(.CG|.CS|.WT)(.U8|.S8|.U16|.S16|.64|.128) [Ra+off], Rb";
      default: return std::string(to_string(op));
    }
  }

  // Records that the operand of field `f` starts at the current token.
  void mark(const char* f) {
    if (operands_) operands_->emplace(f, cur().loc);
  }

  const std::vector<Token>& t_;
  const std::string& file_;
  std::map<std::string, SourceLoc>* operands_;
  std::size_t i_ = 0;
  std::vector<std::string> mods_;
  const Token* mn_ = nullptr;
};

std::string hex(std::uint64_t v) { return fmt::format("0x{:x}", v); }
std::string signed_hex(std::int64_t v) {
  return v < 0 ? "-" + hex(0 - static_cast<std::uint64_t>(v)) : hex(static_cast<std::uint64_t>(v));
}

std::string target_text(const Instr& in) {
  const Target& t = in.target;
  switch (t.kind) {
    case Target::Kind::Const: return fmt::format("c[{}][{}]", hex(t.bank), hex(t.offset));
    case Target::Kind::Label: return t.label;
    case Target::Kind::Imm: return signed_hex(t.imm);
  }
  return "";
}

std::string address_text(const Instr& in) {
  if (in.reg1 == kRZ) return fmt::format("[{}]", signed_hex(in.offset));
  if (in.offset == 0) return fmt::format("[{}]", detail::register_name(in.reg1));
  return fmt::format("[{}{}{}]", detail::register_name(in.reg1), in.offset < 0 ? "-" : "+",
                     hex(in.offset < 0 ? 0 - static_cast<std::uint64_t>(in.offset)
                                       : static_cast<std::uint64_t>(in.offset)));
}

std::string operand_text(const RegOrImm& v) {
  return v.immediate ? hex(v.value) : detail::register_name(static_cast<unsigned>(v.value));
}

std::string join(const std::vector<std::string>& ops) {
  std::string s;
  for (const std::string& o : ops) s += (s.empty() ? " " : ", ") + o;
  return s;
}

std::string print_bar(const Instr& in) {
  using detail::predicate_name;
  using detail::register_name;
  const bool tcount = !(in.tcount == RegOrImm{false, kRZ});
  const bool c = !(in.psrc == Pred{});
  if (in.arrive) {
    std::vector<std::string> ops;
    const bool full = in.reg0 != kRZ || !(in.pdst == Pred{});
    if (full) ops = {register_name(in.reg0), predicate_name(in.pdst)};
    ops.push_back(operand_text(in.bar));
    ops.push_back(operand_text(in.tcount));
    if (c) ops.push_back(predicate_name(in.psrc));
    return "BAR.ARV" + join(ops);
  }
  static constexpr std::array<std::string_view, 3> kRed = {"POPC", "AND", "OR"};
  std::vector<std::string> ops = {register_name(in.reg0)};
  if (in.mode != 0 || !(in.pdst == Pred{})) ops.push_back(predicate_name(in.pdst));
  ops.push_back(operand_text(in.bar));
  if (tcount) ops.push_back(operand_text(in.tcount));
  // c is required but for bar.sync (BAR.RED.POPC RZ, ...): printed then, PT or not.
  if (c || in.mode != 0 || in.reg0 != kRZ) ops.push_back(predicate_name(in.psrc));
  return fmt::format("BAR.RED.{}", kRed[in.mode]) + join(ops);
}

std::string atom_mnemonic(const Instr& in) {
  std::string s(to_string(in.op));
  if (in.e) s += ".E";
  s += ".";
  s += kAtomOp[in.atom_op];
  switch (in.atom_type) {
    case 5: s += ".U64"; break;
    case 7: s += ".S32"; break;
    case 11: s += ".F32.FTZ.RN"; break;
    default: break;
  }
  return s;
}

std::string print_body(const Instr& in) {
  using detail::predicate_name;
  using detail::register_name;
  const std::string name(to_string(in.op));
  switch (in.op) {
    case Opcode::SCHI: {
      std::vector<std::string> ops;
      for (unsigned v : in.sched) ops.push_back(hex(v));
      return name + join(ops);
    }
    case Opcode::BRA:
    case Opcode::JMP:
      return name + (in.u ? ".U" : "") + (in.lmt ? ".LMT" : "") + " " + target_text(in);
    case Opcode::CAL:
    case Opcode::JCAL:
    case Opcode::PRET: return name + (in.noinc ? ".NOINC" : "") + " " + target_text(in);
    case Opcode::SSY:
    case Opcode::PBK:
    case Opcode::PCNT:
    case Opcode::PLONGJMP: return name + " " + target_text(in);
    case Opcode::NOP: {
      std::string s = name + (in.trig ? ".TRIG" : "");
      if (in.unit) s += "." + std::string(kNopUnit[in.unit]);
      if (in.s) s += ".S";
      std::vector<std::string> ops;
      if (in.cc != 15) ops.push_back("CC." + std::string(kCC[in.cc]));
      if (in.imm) ops.push_back(hex(in.imm));
      return s + join(ops);
    }
    case Opcode::BAR: return print_bar(in);
    case Opcode::B2R:
      return name +
             (in.unit == 1   ? ".XLU"
              : in.unit == 2 ? ".ALU"
                             : "") +
             (in.s ? ".S" : "") + join({register_name(in.reg0), hex(in.imm)});
    case Opcode::MEMBAR: return name + "." + std::string(kLevel[in.mode]);
    case Opcode::ATOM: {
      std::vector<std::string> ops = {register_name(in.reg3), address_text(in),
                                      register_name(in.reg0)};
      if (in.reg4 != kRZ || in.atom_op == 9) ops.push_back(register_name(in.reg4));
      return atom_mnemonic(in) + join(ops);
    }
    case Opcode::RED: return atom_mnemonic(in) + join({address_text(in), register_name(in.reg0)});
    case Opcode::VOTE: {
      const std::string m = name + "." + std::string(kVoteMode[in.mode]);
      const bool vtg_short =
          in.mode >= 5 && in.reg0 == 0 && in.pdst == Pred{0, false} && in.psrc == Pred{0, false};
      if (vtg_short) return m + " " + hex(in.imm);
      std::vector<std::string> ops = {register_name(in.reg0), predicate_name(in.pdst),
                                      predicate_name(in.psrc)};
      if (in.imm) ops.push_back(hex(in.imm));
      return m + join(ops);
    }
    case Opcode::LD:
    case Opcode::ST: {
      std::string s = name + (in.e ? ".E" : "");
      const auto& cache = in.op == Opcode::LD ? kLoadCache : kStoreCache;
      if (in.cache) s += "." + std::string(cache[in.cache]);
      if (in.mem_type != 4) s += "." + std::string(kMemType[in.mem_type]);
      return in.op == Opcode::LD ? s + join({register_name(in.reg0), address_text(in)})
                                 : s + join({address_text(in), register_name(in.reg0)});
    }
    case Opcode::MOV32I: return name + join({register_name(in.reg0), signed_hex(in.offset)});
    default: return name;
  }
}

}  // namespace

namespace detail {

Instr parse_instruction(const std::vector<redscope::detail::Token>& toks, const std::string& file,
                        std::map<std::string, SourceLoc>* operands) {
  return TextParser(toks, file, operands).run();
}

SourceLoc error_loc(const SassError& e, const std::vector<redscope::detail::Token>& toks,
                    const std::map<std::string, SourceLoc>& operands) {
  std::string f = e.field;
  if (f.rfind("offset", 0) == 0) f = "offset";
  if (const auto it = operands.find(f); it != operands.end()) return it->second;
  return toks.front().loc;
}

bool register_number(std::string_view s, unsigned& out) {
  if (s == "RZ") {
    out = kRZ;
    return true;
  }
  if (s.size() < 2 || s.size() > 3 || s[0] != 'R') return false;
  unsigned v = 0;
  auto [p, ec] = std::from_chars(s.data() + 1, s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v > 63) return false;
  out = v;
  return true;
}

bool predicate_number(std::string_view s, unsigned& out) {
  if (s == "PT") {
    out = kPT;
    return true;
  }
  if (s.size() != 2 || s[0] != 'P' || s[1] < '0' || s[1] > '6') return false;
  out = static_cast<unsigned>(s[1] - '0');
  return true;
}

std::string register_name(unsigned r) { return r == kRZ ? "RZ" : fmt::format("R{}", r); }
std::string predicate_name(const Pred& p) {
  return (p.negated ? "!" : "") +
         (p.index == kPT ? std::string("PT") : fmt::format("P{}", p.index));
}

}  // namespace detail

ParseResult parse(std::string_view text) {
  static const std::string kFile = "<sass>";
  try {
    std::vector<redscope::detail::Token> toks = redscope::detail::tokenize(text, kFile);
    toks.erase(std::remove_if(toks.begin(), toks.end(),
                              [](const auto& t) { return t.kind == Tok::Newline; }),
               toks.end());
    return ParseResult{detail::parse_instruction(toks, kFile), {}};
  } catch (const InputError& e) {
    return ParseResult{std::nullopt, SassError{e.diagnostic().loc.col, e.diagnostic().message, {}}};
  }
}

std::string print(const Instr& in) {
  std::string guard;
  if (!(in.guard == Pred{})) guard = "@" + detail::predicate_name(in.guard) + " ";
  return guard + print_body(in);
}

namespace {

// The lines of `toks` (split at newlines), each ending with a Tok::End.
std::vector<std::vector<Token>> token_lines(std::vector<Token> toks) {
  std::vector<std::vector<Token>> out(1);
  for (Token& t : toks) {
    if (t.kind == Tok::Newline || t.kind == Tok::End) {
      if (out.back().empty()) continue;
      out.back().push_back(Token{Tok::End, "end of line", t.loc});
      out.emplace_back();
      continue;
    }
    out.back().push_back(std::move(t));
  }
  out.pop_back();
  return out;
}

// cuobjdump's address prefix (`/*00d0*/` opening a listing line): the
// instruction's byte address, as hex digits alone in the line's first
// comment, with the prefix's text.
struct AddressPrefix {
  std::uint64_t address = 0;
  std::string text;
};
std::optional<AddressPrefix> address_prefix(std::string_view line) {
  const std::size_t open = line.find_first_not_of(" \t");
  if (open == std::string_view::npos || line.substr(open, 2) != "/*") return std::nullopt;
  const std::size_t close = line.find("*/", open + 2);
  if (close == std::string_view::npos) return std::nullopt;
  const std::string_view digits = line.substr(open + 2, close - open - 2);
  std::uint64_t a = 0;
  const auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), a, 16);
  if (digits.empty() || digits.size() > 16 || ec != std::errc() ||
      p != digits.data() + digits.size())
    return std::nullopt;  // `/* 0x... */` (a word) or any other comment
  return AddressPrefix{a, std::string(line.substr(open, close + 2 - open))};
}

// The prefixes of a whole text, by line number (from 1).
std::map<int, AddressPrefix> address_prefixes(std::string_view text) {
  std::map<int, AddressPrefix> out;
  int line_no = 0;
  for (std::size_t pos = 0; pos <= text.size();) {
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    ++line_no;
    if (auto p = address_prefix(text.substr(pos, eol - pos))) out[line_no] = std::move(*p);
    pos = eol + 1;
  }
  return out;
}

// A listing line's relative target is written absolute, as cuobjdump prints
// it: the word holds target - (address + 8). Moves such a target by `by`
// (encode: -(address + 8); decode: +(address + 8)); others stay.
void shift_relative_target(Instr& in, std::int64_t by) {
  if (detail::is_branch(in.op) && !detail::is_absolute(in.op) &&
      in.target.kind == Target::Kind::Imm)
    in.target.imm += by;
}

}  // namespace

Listing encode_listing(std::string_view text, const std::string& file) {
  Listing out;
  std::vector<std::vector<Token>> lines;
  try {
    lines = token_lines(redscope::detail::tokenize(text, file));
  } catch (const InputError& e) {
    out.errors.push_back(e.diagnostic());
    return out;
  }
  // An instruction's address: its line's prefix (cuobjdump's `/*00d0*/`;
  // its targets are then absolute), else 8 past the previous instruction's
  // (from 0x0; targets relative, the seed's syntax).
  const std::map<int, AddressPrefix> prefixes = address_prefixes(text);
  LabelTable labels;
  struct Line {
    Instr instr;
    const std::vector<Token>* toks;
    std::map<std::string, SourceLoc> operands;
    std::uint64_t address = 0;
  };
  std::vector<Line> code;
  std::vector<std::pair<std::string, std::size_t>> pending;  // labels: the next code index
  std::uint64_t next_address = 0;
  for (auto& line : lines) {
    // `name:` alone, or before the instruction it labels (`L: EXIT`).
    if (line.size() >= 3 && line[0].kind == Tok::Ident && line[1].kind == Tok::Colon) {
      const bool twice = std::any_of(pending.begin(), pending.end(),
                                     [&](const auto& p) { return p.first == line[0].text; });
      if (twice)
        out.errors.push_back(
            Diagnostic{file, line[0].loc, fmt::format("label '{}' defined twice", line[0].text)});
      pending.emplace_back(line[0].text, code.size());
      line.erase(line.begin(), line.begin() + 2);
      if (line.size() == 1) continue;  // only the End token is left
    }
    const auto prefix = prefixes.find(line[0].loc.line);
    Line l{Instr{}, &line, {}, prefix != prefixes.end() ? prefix->second.address : next_address};
    next_address = l.address + 8;
    try {
      l.instr = detail::parse_instruction(line, file, &l.operands);
      if (prefix != prefixes.end())
        shift_relative_target(l.instr, -static_cast<std::int64_t>(l.address + 8));
    } catch (const InputError& e) {
      out.errors.push_back(e.diagnostic());
      l.toks = nullptr;  // keeps the addresses of later lines
    }
    code.push_back(std::move(l));
  }
  for (const auto& [name, index] : pending)
    labels.labels.emplace_back(name, index < code.size() ? code[index].address : next_address);
  for (std::size_t i = 0; i < code.size(); ++i) {
    if (!code[i].toks) continue;
    const EncodeResult r = encode(code[i].instr, &labels, code[i].address);
    if (r.error)
      out.errors.push_back(Diagnostic{
          file, detail::error_loc(*r.error, *code[i].toks, code[i].operands), r.error->message});
    else
      out.lines.push_back(word_text(r.word));
  }
  std::stable_sort(out.errors.begin(), out.errors.end(),
                   [](const auto& a, const auto& b) { return a.loc.line < b.loc.line; });
  return out;
}

namespace {

// Where the word of one `decode` line is: the line itself (`0x...`, a `;`
// allowed), or, in a line of cuobjdump's listing (`/*0008*/ MEMBAR.GL;
// /* 0xe000000000001c25 */`, or the bare `/* 0x... */` of a SCHI word), the
// last comment that holds a 0x number; other comments (the `/*0008*/`
// address) are passed over. False: nothing on the line.
bool word_span(std::string_view line, std::size_t& a, std::size_t& b) {
  bool found = false;
  for (std::size_t open = line.find("/*"); open != std::string_view::npos;
       open = line.find("/*", open + 2)) {
    const std::size_t close = line.find("*/", open + 2);
    const std::size_t x = line.find_first_not_of(" \t", open + 2);
    if (close == std::string_view::npos || x >= close) break;
    if (line.substr(x, 2) == "0x" || line.substr(x, 2) == "0X") {
      a = x;
      b = line.find_last_not_of(" \t", close - 1) + 1;
      found = true;
    }
  }
  if (found) return true;
  a = line.find_first_not_of(" \t\r");
  if (a == std::string_view::npos) return false;
  b = line.find_last_not_of(" \t\r;") + 1;
  return true;
}

}  // namespace

Listing decode_listing(std::string_view text, const std::string& file) {
  Listing out;
  int line_no = 0;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    ++line_no;
    pos = eol + 1;
    const std::optional<AddressPrefix> prefix = address_prefix(line);
    if (const std::size_t c = line.find("//"); c != std::string_view::npos)
      line = line.substr(0, c);
    std::size_t a = 0, b = 0;
    if (!word_span(line, a, b)) continue;
    const std::string_view w = line.substr(a, b - a);
    const SourceLoc loc{line_no, static_cast<int>(a) + 1};
    std::uint64_t v = 0;
    const bool hex = w.size() > 2 && w[0] == '0' && (w[1] == 'x' || w[1] == 'X');
    const auto [p, ec] = hex ? std::from_chars(w.data() + 2, w.data() + w.size(), v, 16)
                             : std::from_chars(w.data(), w.data(), v, 16);
    if (!hex || ec != std::errc() || p != w.data() + w.size() || w.size() > 18) {
      out.errors.push_back(
          Diagnostic{file, loc,
                     fmt::format("expected a 64-bit word: 0x and 1 to 16 hex digits, found '{}'",
                                 printable(w))});
      continue;
    }
    DecodeResult r = decode(v);
    if (r.instr && prefix) {
      // A listing line keeps its address, and its target is printed
      // absolute, as cuobjdump prints it (encode reads it back so).
      shift_relative_target(*r.instr, static_cast<std::int64_t>(prefix->address + 8));
      out.lines.push_back(prefix->text + " " + print(*r.instr));
    } else if (r.instr) {
      out.lines.push_back(print(*r.instr));
    } else
      out.errors.push_back(Diagnostic{file, loc, r.error.message});
  }
  return out;
}

}  // namespace redscope::sass
