// The sm_30 encodings: one table row per opcode (its template, its fields),
// and encode/decode between Instr and words. docs/sass.md explains the
// reading of the seed that this table encodes; in short:
//   - a template string is the word LSB first: character k is bit k;
//   - the seed numbers the bits of a modifier field (its "mod" at bits 4-9,
//     its "mod2" groups) from the field's top bit, while the values in its
//     tables are LSB first. So "MEMBAR mod 3:4 = 10 is .GL" is bit 5 set:
//     0xe000000000001c25, as cuobjdump prints. Read that way every table of
//     the seed agrees with the words nouveau emits and envytools decodes;
//     read bottom-up, MEMBAR.GL would be 0x...1c85 and the template of NOP
//     would default to condition code 30 instead of .T (15).
//   - BRK's template is 63 characters long (its mod group has five); the
//     hardware word is EXIT's layout with opcode 010101 (0xa800000000001de7).
//   - PRET's template sets bit 15 where the hardware's default (not .NOINC)
//     is bit 16, as for CAL: PRET 0x0 is 0x7800000000010007.
//   - SSY, CAL, JCAL, PRET, PBK, PCNT and PLONGJMP are not predicated: the
//     hardware ignores bits 10-13 (envytools' gf100 table reads no guard for
//     joinat, call, preret, prebrk, precont, prelongjmp), so any value there
//     decodes to the same text. SSY's template holds P0 there; nvcc writes
//     PT (0x60000002c0001c07 in a real sm_30 listing), and so does encode.
#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "dialects/sass/sass_fields.hpp"
#include "redscope/dialects/sass/sass.hpp"

namespace redscope::sass {

namespace {

using detail::OpInfo;

// The guard: predicate bits 10-12, negation bit 13 (PT = 7, not negated).
constexpr Field kPred{"pred", 10, 3};
constexpr Field kPredNot{"pred.not", 13, 1};
constexpr Field kConst{"const", 14, 1};  // target is c[bank][offset]
constexpr Field kRel24{"target", 26, 24};
constexpr Field kAbs32{"target", 26, 32};
constexpr Field kReg0{"reg0", 14, 6};
constexpr Field kReg1{"reg1", 20, 6};
constexpr std::uint64_t kGuardBits = 0x3c00;  // bits 10-13

std::vector<OpInfo> build_table() {
  std::vector<OpInfo> t;
  auto add = [&](Opcode op, std::string_view tmpl, bool guarded, std::vector<Field> f,
                 std::uint64_t hw_fixed = 0) {
    OpInfo row{op, tmpl, guarded, std::move(f), hw_fixed, 0};
    if (!guarded) row.ignored = kGuardBits & ~row.operand_mask();  // SCHI: operands there
    t.push_back(std::move(row));
  };
  auto with_guard = [](std::vector<Field> f) {
    f.insert(f.begin(), {kPred, kPredNot});
    return f;
  };
  std::vector<Field> sched;
  static constexpr std::array<std::string_view, 7> kOps = {"op0", "op1", "op2", "op3",
                                                           "op4", "op5", "op6"};
  for (unsigned i = 0; i < 7; ++i) sched.push_back(Field{kOps[i], 4 + 8 * i, 8});
  add(Opcode::SCHI, "1110 00000000 00000000 00000000 00000000 00000000 00000000 00000000 0100",
      false, sched);
  add(Opcode::SSY, "1110 000000 1110 000000 000000 000000000000000000000000 00000000 000110", false,
      {kConst, kRel24});
  add(Opcode::BRA, "1110 011110 1110 000000 000000 000000000000000000000000 00000000 000010", true,
      with_guard({kConst, {".U", 15, 1}, {".LMT", 16, 1}, kRel24}));
  add(Opcode::CAL, "1110 000000 0000 001000 000000 000000000000000000000000 00000000 001010", false,
      {kConst, {"inc", 16, 1}, kRel24});
  // The seed's PRET template sets bit 15; the hardware's sets bit 16, as CAL's
  // does (docs/sass.md, deviation 7).
  add(Opcode::PRET, "1110 000000 0000 001000 000000 000000000000000000000000 00000000 011110",
      false, {kConst, {"inc", 16, 1}, kRel24});
  add(Opcode::RET, "1110 011110 1110 000000 000000 00000000000000000000000000000000 001001", true,
      with_guard({}));
  add(Opcode::JMP, "1110 011110 1110 000000 000000 000000000000000000000000 00000000 000000", true,
      with_guard({kConst, {".U", 15, 1}, {".LMT", 16, 1}, kAbs32}));
  add(Opcode::JCAL, "1110 000000 0000 001000 000000 000000000000000000000000 00000000 001000",
      false, {kConst, {"inc", 16, 1}, kAbs32});
  add(Opcode::EXIT, "1110 011110 1110 000000 000000 00000000000000000000000000000000 000001", true,
      with_guard({}));
  add(Opcode::NOP, "0010 011110 1110 000000 000000 0000000000000000 00000000 00000000 000010", true,
      with_guard({{".S", 4, 1}, {"CC", 5, 5}, {"imm", 26, 16}, {".TRIG", 50, 1}, {".Op", 51, 4}}));
  add(Opcode::PBK, "1110 000000 1110 0 00000 000000 000000000000000000000000 00000000 010110",
      false, {kConst, kRel24});
  // The seed's BRK template has five characters in its mod group; the
  // hardware's has six (docs/sass.md, deviation 1).
  add(Opcode::BRK, "1110 011110 1110 000000 000000 00000000000000000000000000000000 010101", true,
      with_guard({}));
  add(Opcode::PCNT, "1110 000000 1110 0 00000 000000 000000000000000000000000 00000000 001110",
      false, {kConst, kRel24});
  add(Opcode::CONT, "1110 011110 1110 000000 000000 00000000000000000000000000000000 001101", true,
      with_guard({}));
  add(Opcode::PLONGJMP, "1110 000000 1110 000000 000000 000000000000000000000000 00000000 011010",
      false, {kConst, kRel24});
  add(Opcode::LONGJMP, "1110 011110 1110 000000 000000 00000000000000000000000000000000 010001",
      true, with_guard({}));
  add(Opcode::BAR, "0010 000000 1110 000000 000000 111111000000 00000000   00 0 1110 111 00 001010",
      true,
      with_guard({{".RED.Op", 5, 2},
                  {".ARV", 7, 1},
                  kReg0,
                  {"bar", 20, 6},
                  {"tcount", 26, 12},
                  {"tcount.imm", 46, 1},
                  {"bar.imm", 47, 1},
                  {"c", 49, 3},
                  {"c.not", 52, 1},
                  {"p", 53, 3}}));
  add(Opcode::B2R, "0010 000000 1110 000000 000000 00000000000000000000000000000000 011100", true,
      with_guard({{".S", 4, 1}, {".Op", 8, 2}, kReg0, {"imm", 20, 6}}));
  add(Opcode::MEMBAR, "1010 000000 1110 000000 000000 00000000000000000000000000000000 000111",
      true, with_guard({{".Lvl", 5, 2}}));
  add(Opcode::ATOM,
      "1010 000000 1110 000000 000000 00000000000000000 000000 000000      000 0010 10", true,
      with_guard({{".Op", 5, 4},
                  {"type.0", 9, 1},
                  kReg0,
                  kReg1,
                  {"offset.lo", 26, 17},
                  {"reg3", 43, 6},
                  {"reg4", 49, 6},
                  {"offset.hi", 55, 3},
                  {".E", 58, 1},
                  {"type.1-3", 59, 3}}));
  add(Opcode::RED, "1010 000000 1110 000000 000000 00000000000000000000000000000000 0010 00", true,
      with_guard({{".Op", 5, 4},
                  {"type.0", 9, 1},
                  kReg0,
                  kReg1,
                  {"offset", 26, 32},
                  {".E", 58, 1},
                  {"type.1-3", 59, 3}}));
  add(Opcode::VOTE, "0010 000000 1110 000000 0000 00 0000000000000000000000000000 000 0 010010",
      true,
      with_guard({{".Mode", 5, 3},
                  kReg0,
                  {"p1", 20, 3},
                  {"p1.not", 23, 1},
                  {"imm", 26, 28},
                  {"p0", 54, 3}}));
  // Beyond the seed: nouveau's emitLOAD/emitSTORE/emitMOV (docs/sass.md).
  const std::vector<Field> ldst = {{"type", 5, 3}, {"cache", 8, 2},    kReg0,
                                   kReg1,          {"offset", 26, 32}, {".E", 58, 1}};
  add(Opcode::LD, "", true, with_guard(ldst), 0x8000000000000005ULL);
  add(Opcode::ST, "", true, with_guard(ldst), 0x9000000000000005ULL);
  add(Opcode::MOV32I, "", true, with_guard({kReg0, {"imm", 26, 32}}), 0x18000000000001e2ULL);
  return t;
}

}  // namespace

namespace detail {

std::uint64_t template_word(std::string_view tmpl) {
  std::uint64_t w = 0;
  unsigned bit = 0;
  for (char c : tmpl) {
    if (c == ' ') continue;
    if (bit >= 64) throw std::logic_error("template longer than 64 bits");
    if (c == '1') w |= 1ULL << bit;
    ++bit;
  }
  if (bit != 64) throw std::logic_error("template shorter than 64 bits");
  return w;
}

std::uint64_t field_mask(const Field& f) {
  return (f.width >= 64 ? ~0ULL : ((1ULL << f.width) - 1)) << f.lo;
}

const std::vector<OpInfo>& table() {
  static const std::vector<OpInfo> kTable = build_table();
  return kTable;
}

const OpInfo& info(Opcode op) {
  for (const OpInfo& i : table())
    if (i.op == op) return i;
  throw std::logic_error("opcode without a table row");
}

std::uint64_t OpInfo::default_word() const { return tmpl.empty() ? hw_fixed : template_word(tmpl); }

std::uint64_t OpInfo::operand_mask() const {
  std::uint64_t m = 0;
  for (const Field& f : fields) m |= field_mask(f);
  return m;
}

}  // namespace detail

std::string_view to_string(Opcode op) {
  static constexpr std::array<std::string_view, 25> kNames = {
      "SCHI",   "SSY",  "BRA", "CAL",  "PRET", "RET",      "JMP",     "JCAL", "EXIT",
      "NOP",    "PBK",  "BRK", "PCNT", "CONT", "PLONGJMP", "LONGJMP", "BAR",  "B2R",
      "MEMBAR", "ATOM", "RED", "VOTE", "LD",   "ST",       "MOV32I"};
  return kNames[static_cast<std::size_t>(op)];
}

std::vector<Opcode> seed_opcodes() {
  std::vector<Opcode> out;
  for (const auto& i : detail::table())
    if (!i.tmpl.empty()) out.push_back(i.op);
  return out;
}

std::vector<Field> fields(Opcode op) { return detail::info(op).fields; }
std::uint64_t fixed_mask(Opcode op) { return ~detail::info(op).operand_mask(); }
std::uint64_t fixed_bits(Opcode op) {
  const auto& i = detail::info(op);
  return i.default_word() & ~i.operand_mask();
}
std::string_view seed_template(Opcode op) { return detail::info(op).tmpl; }

std::optional<std::uint64_t> LabelTable::find(std::string_view name) const {
  for (const auto& [n, a] : labels)
    if (n == name) return a;
  return std::nullopt;
}

std::string word_text(std::uint64_t word) { return fmt::format("0x{:016x}", word); }

}  // namespace redscope::sass
