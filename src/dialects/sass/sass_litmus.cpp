// The SASS litmus dialect (docs/litmus-format.md "SASS litmus tests"): the
// herd container with sm_30 instructions in its cells, as text or as 64-bit
// words, lowered onto the events every engine reads (docs/model.md "SASS
// (sm_30)" states the choices):
//   LD / ST               ld / st .relaxed.gpu (.CV / .WT: .sys) on global memory
//   ATOM / RED            atom / red .relaxed.gpu on global memory
//   MEMBAR.CTA/.GL/.SYS   fence.sc.cta / .gpu / .sys
//   BAR.RED.POPC RZ, b, n bar.sync b with n arrivals; BAR.ARV b, n: bar.arrive
//   VOTE.ALL/.ANY/.EQ     a register operation of a one-thread warp
//   BRA / JMP label       a jump; PBK / BRK and PCNT / CONT jump to the
//                         innermost open PBK (PCNT) target; EXIT ends the thread
//   SSY, NOP, SCHI        no effect on outcomes (reconvergence and timing)
// A register names a location only through the init block (`P0:R2 = x;`);
// `[R2+0x4]` is then x at byte offset 4.
#include "redscope/dialects/sass/sass_litmus.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "dialects/sass/sass_text.hpp"
#include "redscope/frontend/container.hpp"

namespace redscope::detail {

namespace {

using sass::Instr;
using sass::Opcode;

constexpr std::string_view kExitLabel = "(exit)";

// A branch target given as a relative address: resolved once the thread's
// instructions are all read.
struct AddressTarget {
  std::size_t code_index;  // the Goto in the thread's code
  std::int64_t address;    // byte address of the target
  SourceLoc loc;
};

struct ThreadState {
  std::uint64_t address = 0;                     // byte address of the next SASS instruction
  std::map<std::uint64_t, std::size_t> code_at;  // instruction address → code index
  // PBK/PCNT targets not yet passed: the label, and the byte address of a
  // target given as an offset (a word, or `PBK 0x10`).
  struct OpenTarget {
    Opcode op;
    std::string label;
    std::optional<std::int64_t> address;
  };
  std::vector<OpenTarget> open;
  std::vector<AddressTarget> targets;
};

class SassCells {
 public:
  void cell(const InstructionCell& c, ThreadCode& tc) {
    ThreadState& st = state_[tc.name];
    const auto& toks = c.toks;
    if (toks.size() == 3 && toks[0].kind == Tok::Ident && toks[1].kind == Tok::Colon)
      return label(c, tc, st, toks[0]);
    Instr in;
    const std::string text = cell_text(toks);
    if (toks.size() == 2 && toks[0].kind == Tok::Number && is_word(toks[0].text)) {
      const auto d =
          sass::decode(static_cast<std::uint64_t>(integer_value(toks[0], false, c.file)));
      if (!d.instr) fail(c, toks[0].loc, d.error.message);
      in = *d.instr;
    } else {
      std::map<std::string, SourceLoc> operands;
      in = sass::detail::parse_instruction(toks, c.file, &operands);
      // Everything the encoder checks (field widths, table values) holds
      // for litmus text too, so a test only holds instructions that exist.
      if (in.target.kind != sass::Target::Kind::Label) {
        const auto e = sass::encode(in);
        if (e.error) fail(c, sass::detail::error_loc(*e.error, toks, operands), e.error->message);
      }
    }
    st.code_at.emplace(st.address, tc.code.size());
    // A break target given by address is passed once its instruction is
    // reached, as a label is once defined (label()).
    std::erase_if(st.open, [&](const auto& o) {
      return o.op == Opcode::PBK && o.address &&
             *o.address <= static_cast<std::int64_t>(st.address);
    });
    Instruction base;
    base.loc = toks[0].loc;
    base.text = text;
    lower(c, tc, st, in, std::move(base));
    st.address += 8;
  }

  // Resolves address targets and the exit label once every cell is read.
  void finish(LitmusTest& t) {
    for (ThreadCode& tc : t.threads) {
      ThreadState& st = state_[tc.name];
      st.code_at.emplace(st.address, tc.code.size());
      if (tc.labels.count(std::string(kExitLabel)))
        tc.labels[std::string(kExitLabel)] = tc.code.size();
      for (const AddressTarget& a : st.targets) {
        const auto it = a.address < 0 ? st.code_at.end()
                                      : st.code_at.find(static_cast<std::uint64_t>(a.address));
        if (it == st.code_at.end())
          throw InputError(Diagnostic{
              t.file, a.loc,
              fmt::format("branch target {:#x} is not the address of an instruction of {} "
                          "(each instruction, SCHI included, takes 8 bytes from 0x0)",
                          a.address, tc.name)});
        const std::string name = fmt::format("(0x{:x})", a.address);
        tc.labels[name] = it->second;
        tc.code[a.code_index].label = name;
      }
    }
  }

 private:
  static bool is_word(const std::string& s) {
    return s.size() == 18 && s[0] == '0' && s[1] == 'x' &&
           s.find_first_not_of("0123456789abcdefABCDEF", 2) == std::string::npos;
  }
  [[noreturn]] static void fail(const InstructionCell& c, SourceLoc at, std::string msg) {
    throw InputError(Diagnostic{c.file, at, std::move(msg)});
  }
  static std::string cell_text(const std::vector<Token>& toks) {
    std::string s;
    for (const Token& t : toks) {
      if (t.kind == Tok::End) break;
      const bool glue = t.kind == Tok::Comma || t.kind == Tok::RBracket || t.kind == Tok::Plus ||
                        t.kind == Tok::Minus;
      if (!s.empty() && !glue && s.back() != '[' && s.back() != '@' && s.back() != '!' &&
          s.back() != '+' && s.back() != '-')
        s += ' ';
      s += t.text;
    }
    return s;
  }

  void label(const InstructionCell& c, ThreadCode& tc, ThreadState& st, const Token& name) {
    if (tc.labels.count(name.text))
      fail(c, name.loc, fmt::format("label '{}' defined twice in {}", name.text, tc.name));
    tc.labels[name.text] = tc.code.size();
    // A break target is passed once its label is: BRK after it would jump
    // backwards. A continue target is the loop's head, reached before CONT.
    std::erase_if(st.open,
                  [&](const auto& o) { return o.op == Opcode::PBK && o.label == name.text; });
    Instruction in;
    in.kind = InstrKind::Label;
    in.loc = name.loc;
    in.text = name.text + ":";
    in.label = name.text;
    tc.code.push_back(std::move(in));
  }

  static Operand reg(const std::string& name, SourceLoc loc) {
    Operand o;
    o.kind = Operand::Kind::Reg;
    o.name = name;
    o.loc = loc;
    return o;
  }
  static Operand imm(std::int64_t v, SourceLoc loc) {
    Operand o;
    o.value = v;
    o.loc = loc;
    return o;
  }
  static Operand value_reg(unsigned r, SourceLoc loc) {
    if (r == sass::kRZ) return imm(0, loc);
    return reg(sass::detail::register_name(r), loc);
  }
  static Operand pred(const sass::Pred& p, SourceLoc loc) {
    return reg(sass::detail::predicate_name(sass::Pred{p.index, false}), loc);
  }

  // [Rn+off]: the location the init block put in Rn, at byte offset off.
  Operand address(const InstructionCell& c, const ThreadCode& tc, const Instr& in,
                  SourceLoc loc) const {
    const std::string r = sass::detail::register_name(in.reg1);
    if (in.reg1 == sass::kRZ)
      fail(c, loc,
           "absolute addresses are not modelled: put a location's address in a "
           "register in the init block (P0:R2 = x;) and write [R2+0x4]");
    if (const std::string* x = address_in(c.test, tc.name, r)) {
      // The PTX dialect's bound (ptx_instructions.cpp): a location is
      // sized by its accesses, so a far offset would make millions of cells.
      if (in.offset < 0 || in.offset > kMaxOffset)
        fail(c, loc,
             fmt::format("address offset {} out of range: [{}+off] takes 0 to {:#x} (the bytes "
                         "of {} from its start)",
                         in.offset, r, kMaxOffset, *x));
      Operand o = reg(*x, loc);
      o.kind = Operand::Kind::Loc;
      o.offset = in.offset;
      return o;
    }
    fail(c, loc,
         fmt::format("{} does not hold an address: give it one in the init block "
                     "({}:{} = x;)",
                     r, tc.name, r));
  }
  static constexpr std::int64_t kMaxOffset = std::int64_t{1} << 20;

  // The location whose address the init block puts in `thread`'s register
  // `r` (`P0:R2 = x;`), or null. Indexed once per test (the init block is
  // complete before the first cell), so each lookup is logarithmic: a
  // scan per instruction was quadratic in the init block (issue 28).
  const std::string* address_in(const LitmusTest& t, const std::string& thread,
                                const std::string& r) const {
    if (!addresses_) {
      std::set<std::string> registers;
      for (const InitEntry& e : t.init)
        if (e.thread) registers.insert(e.name);
      auto is_location_name = [&](const std::string& s) {
        return !s.empty() && (std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_') &&
               s != "inf" && s != "nan" && !registers.count(s);
      };
      addresses_.emplace();
      for (const InitEntry& e : t.init)
        if (e.thread && static_cast<std::size_t>(*e.thread) < t.threads.size() &&
            e.values.size() == 1 && is_location_name(e.values[0].text))
          addresses_->emplace(
              std::pair{t.threads[static_cast<std::size_t>(*e.thread)].name, e.name},
              e.values[0].text);
    }
    const auto it = addresses_->find(std::pair{thread, r});
    return it == addresses_->end() ? nullptr : &it->second;
  }
  // A register the instruction writes must not be one that holds an address.
  void check_write(const InstructionCell& c, const ThreadCode& tc, unsigned r,
                   SourceLoc loc) const {
    const std::string name = sass::detail::register_name(r);
    if (const std::string* x = address_in(c.test, tc.name, name))
      fail(c, loc,
           fmt::format("{} holds the address of {}: redscope resolves addresses "
                       "statically, so a thread may not overwrite it",
                       name, *x));
  }

  void lower(const InstructionCell& c, ThreadCode& tc, ThreadState& st, const Instr& in,
             Instruction base);
  void lower_branch(const InstructionCell& c, ThreadCode& tc, ThreadState& st, const Instr& in,
                    Instruction base);
  void lower_memory(const InstructionCell& c, ThreadCode& tc, const Instr& in, Instruction base);
  void lower_bar(const InstructionCell& c, ThreadCode& tc, const Instr& in, Instruction base);
  void lower_vote(const InstructionCell& c, ThreadCode& tc, const Instr& in, Instruction base);

  std::map<std::string, ThreadState> state_;
  // address_in's index: (thread, register) -> location.
  mutable std::optional<std::map<std::pair<std::string, std::string>, std::string>> addresses_;
};

void SassCells::lower(const InstructionCell& c, ThreadCode& tc, ThreadState& st, const Instr& in,
                      Instruction base) {
  const SourceLoc loc = base.loc;
  if (in.guard.index == sass::kPT && in.guard.negated) return;  // @!PT: never executes
  if (in.guard.index != sass::kPT) {
    base.guard = pred(in.guard, loc);
    base.guard_negated = in.guard.negated;
  }
  switch (in.op) {
    case Opcode::SCHI:  // dispatch timing only
    case Opcode::NOP:   // NOP.S is SYNC: reconvergence, no effect on one thread
    case Opcode::SSY: return;
    case Opcode::MEMBAR:
      base.kind = InstrKind::Fence;
      base.sem = Sem::Sc;
      base.scope = in.mode == 0 ? Scope::Cta : in.mode == 1 ? Scope::Gpu : Scope::Sys;
      tc.code.push_back(std::move(base));
      return;
    case Opcode::ATOM:
    case Opcode::RED:
    case Opcode::LD:
    case Opcode::ST: return lower_memory(c, tc, in, std::move(base));
    case Opcode::BAR: return lower_bar(c, tc, in, std::move(base));
    case Opcode::VOTE: return lower_vote(c, tc, in, std::move(base));
    case Opcode::MOV32I:
      check_write(c, tc, in.reg0, loc);
      if (in.reg0 == sass::kRZ) return;
      base.kind = InstrKind::Local;
      base.op = RmwOp::Mov;
      base.type = DataType::U32;
      base.dst = reg(sass::detail::register_name(in.reg0), loc);
      base.srcs.push_back(imm(in.offset & 0xffffffffLL, loc));
      tc.code.push_back(std::move(base));
      return;
    case Opcode::B2R:
      fail(c, loc, "B2R reads a barrier's reduction result, which redscope does not model");
    case Opcode::CAL:
    case Opcode::JCAL:
    case Opcode::RET:
    case Opcode::PRET:
    case Opcode::LONGJMP:
    case Opcode::PLONGJMP:
      fail(c, loc,
           fmt::format("{}: calls, returns and long jumps are not modelled in litmus "
                       "threads ('redscope sass encode' and 'decode' take them)",
                       sass::to_string(in.op)));
    default: return lower_branch(c, tc, st, in, std::move(base));
  }
}

void SassCells::lower_branch(const InstructionCell& c, ThreadCode& tc, ThreadState& st,
                             const Instr& in, Instruction base) {
  const SourceLoc loc = base.loc;
  base.kind = InstrKind::Goto;
  if (in.op == Opcode::PBK || in.op == Opcode::PCNT) {
    switch (in.target.kind) {
      case sass::Target::Kind::Label:
        st.open.push_back({in.op, in.target.label, std::nullopt});
        break;
      case sass::Target::Kind::Const:
        fail(c, loc,
             fmt::format("{} through constant memory is not modelled: use a label or an offset",
                         sass::to_string(in.op)));
      case sass::Target::Kind::Imm: {  // relative to the next instruction, as BRA's
        const std::int64_t to = static_cast<std::int64_t>(st.address) + 8 + in.target.imm;
        st.open.push_back({in.op, fmt::format("(0x{:x})", to), to});
        break;
      }
    }
    return;
  }
  if (in.op == Opcode::BRK || in.op == Opcode::CONT) {
    const Opcode want = in.op == Opcode::BRK ? Opcode::PBK : Opcode::PCNT;
    auto it =
        std::find_if(st.open.rbegin(), st.open.rend(), [&](const auto& o) { return o.op == want; });
    if (it == st.open.rend())
      fail(c, loc,
           fmt::format("{} without an earlier {} whose target is still ahead",
                       sass::to_string(in.op), sass::to_string(want)));
    base.label = it->label;
    if (it->address) {  // resolved by finish(), as a BRA's offset
      st.targets.push_back(AddressTarget{tc.code.size(), *it->address, loc});
      tc.labels.emplace(base.label, 0);
    }
  } else if (in.op == Opcode::EXIT) {
    base.label = std::string(kExitLabel);
    tc.labels.emplace(base.label, 0);  // placed at the thread's end by finish()
  } else {                             // BRA, JMP
    switch (in.target.kind) {
      case sass::Target::Kind::Label: base.label = in.target.label; break;
      case sass::Target::Kind::Const:
        fail(c, loc, "a branch through constant memory is not modelled: use a label");
      case sass::Target::Kind::Imm: {
        const std::int64_t to = in.op == Opcode::JMP
                                    ? in.target.imm
                                    : static_cast<std::int64_t>(st.address) + 8 + in.target.imm;
        st.targets.push_back(AddressTarget{tc.code.size(), to, loc});
        base.label = fmt::format("(0x{:x})", to);
        tc.labels.emplace(base.label, 0);  // set by finish()
        break;
      }
    }
  }
  tc.code.push_back(std::move(base));
}

DataType atom_data_type(unsigned t) {
  switch (t) {
    case 5: return DataType::U64;
    case 7: return DataType::S32;
    case 11: return DataType::F32;
    default: return DataType::U32;
  }
}

void SassCells::lower_memory(const InstructionCell& c, ThreadCode& tc, const Instr& in,
                             Instruction base) {
  const SourceLoc loc = base.loc;
  base.space = Space::Global;
  base.sem = Sem::Relaxed;
  base.scope = Scope::Gpu;
  base.addr = address(c, tc, in, loc);
  if (in.op == Opcode::LD || in.op == Opcode::ST) {
    static constexpr std::array<std::optional<DataType>, 7> kType = {
        std::nullopt,  std::nullopt,  DataType::U16, DataType::S16,
        DataType::U32, DataType::U64, std::nullopt};
    if (!kType[in.mem_type])
      fail(c, loc, "8-bit and 128-bit accesses are not modelled (use 16, 32 or .64)");
    base.type = *kType[in.mem_type];
    if (in.cache == 3) base.scope = Scope::Sys;  // .CV / .WT: past every cache
    if (in.op == Opcode::LD) {
      check_write(c, tc, in.reg0, loc);
      base.kind = InstrKind::Load;
      base.dst = reg(sass::detail::register_name(in.reg0), loc);
    } else {
      base.kind = InstrKind::Store;
      base.srcs.push_back(value_reg(in.reg0, loc));
    }
    tc.code.push_back(std::move(base));
    return;
  }
  static constexpr std::array<RmwOp, 10> kOp = {RmwOp::Add,  RmwOp::Min, RmwOp::Max, RmwOp::Inc,
                                                RmwOp::Dec,  RmwOp::And, RmwOp::Or,  RmwOp::Xor,
                                                RmwOp::Exch, RmwOp::Cas};
  base.op = kOp[in.atom_op];
  base.type = atom_data_type(in.atom_type);
  const bool float_ok = base.op == RmwOp::Add;
  const bool s32_ok = base.op == RmwOp::Add || base.op == RmwOp::Min || base.op == RmwOp::Max;
  if ((base.type == DataType::F32 && !float_ok) || (base.type == DataType::S32 && !s32_ok))
    fail(c, loc,
         fmt::format("{}: the hardware has .F32 only for .ADD and .S32 only for .ADD, "
                     ".MIN and .MAX",
                     sass::to_string(in.op)));
  base.srcs.push_back(value_reg(in.reg0, loc));
  if (in.op == Opcode::RED) {
    base.kind = InstrKind::Red;
  } else {
    check_write(c, tc, in.reg3, loc);
    base.kind = InstrKind::Atom;
    // RZ as destination: the old value is dropped; a register nobody reads keeps the event.
    base.dst = reg(in.reg3 == sass::kRZ ? "RZ" : sass::detail::register_name(in.reg3), loc);
    if (base.op == RmwOp::Cas) base.srcs.push_back(value_reg(in.reg4, loc));
  }
  tc.code.push_back(std::move(base));
}

void SassCells::lower_bar(const InstructionCell& c, ThreadCode& tc, const Instr& in,
                          Instruction base) {
  const SourceLoc loc = base.loc;
  if (in.reg0 != sass::kRZ || !(in.pdst == sass::Pred{}) || !(in.psrc == sass::Pred{}) ||
      in.mode != 0)
    fail(c, loc,
         "only the barrier of BAR.RED.POPC RZ, b{, n} (bar.sync) and BAR.ARV b, n "
         "(bar.arrive) is modelled, not the reduction's result or predicate");
  base.kind = InstrKind::Barrier;
  base.barrier.arrive_only = in.arrive;
  if (!in.bar.immediate)
    fail(c, loc, "the barrier must be an immediate (0x0-0xf) in a litmus test");
  base.barrier.id = imm(static_cast<std::int64_t>(in.bar.value), loc);
  if (in.tcount.immediate) {
    if (in.tcount.value < 1) fail(c, loc, "the thread count must be at least 1");
    base.barrier.quorum = static_cast<std::int64_t>(in.tcount.value);
  } else if (in.tcount.value != sass::kRZ) {
    fail(c, loc, "a thread count in a register is not modelled: write it as an immediate");
  } else if (in.arrive) {
    fail(c, loc, "BAR.ARV needs a thread count");
  }
  tc.code.push_back(std::move(base));
}

// One litmus thread is one warp with one active lane: .ALL and .ANY give the
// lane's predicate, .EQ is true, and the ballot (Rd) is that predicate as 0/1.
void SassCells::lower_vote(const InstructionCell& c, ThreadCode& tc, const Instr& in,
                           Instruction base) {
  const SourceLoc loc = base.loc;
  if (in.mode >= 5 || in.imm != 0)
    fail(c, loc, "VOTE.VTG is an unconfirmed mode of the seed and is not modelled");
  check_write(c, tc, in.reg0, loc);
  auto setp = [&](const std::string& dst, bool constant_true) {
    Instruction s = base;
    s.kind = InstrKind::Setp;
    s.type = DataType::U32;
    s.dst = reg(dst, loc);
    s.cmp = constant_true ? CmpOp::Eq : in.psrc.negated ? CmpOp::Eq : CmpOp::Ne;
    const Operand zero = imm(0, loc);
    s.srcs = {constant_true                ? zero
              : in.psrc.index == sass::kPT ? imm(1, loc)
                                           : pred(in.psrc, loc),
              zero};
    tc.code.push_back(std::move(s));
  };
  const bool eq = in.mode == 2;
  if (in.pdst.index != sass::kPT)
    setp(sass::detail::predicate_name(sass::Pred{in.pdst.index, false}), eq);
  if (in.reg0 != sass::kRZ) setp(sass::detail::register_name(in.reg0), eq);
}

}  // namespace

std::vector<LitmusTest> parse_sass_litmus(std::string_view text, const std::string& file) {
  SassCells cells;
  const InstructionParser parser = [&cells](const InstructionCell& c, ThreadCode& tc) {
    cells.cell(c, tc);
  };
  LitmusTest t = parse_container(
      text, file, parser,
      ContainerOptions{.arch = "SASS", .address_registers = true, .default_target_sm = 30});
  cells.finish(t);
  // The address registers are resolved; the engines see only value registers.
  std::erase_if(t.init, [&](const InitEntry& e) {
    return e.thread && e.values.size() == 1 && !e.values[0].text.empty() &&
           (std::isalpha(static_cast<unsigned char>(e.values[0].text[0])) ||
            e.values[0].text[0] == '_') &&
           e.values[0].text != "inf" && e.values[0].text != "nan";
  });
  check_references(t);
  std::vector<LitmusTest> out;
  out.push_back(std::move(t));
  return out;
}

}  // namespace redscope::detail
