// Kepler (sm_30) SASS: the 64-bit encodings of the execution-control,
// synchronization and atomic instructions of the seed
// ../shared/seeds/sass-sm30-control-sync-atomic.txt, plus the global loads,
// stores and MOV32I that litmus tests need (docs/sass.md lists where each
// encoding comes from and where redscope departs from the seed, with the
// evidence).
//
// A word is a 64-bit value; bit 0 is its least significant bit, which is
// the first character of the seed's template strings. The text form is
// cuobjdump's spelling; `print` gives the canonical text that `parse`
// accepts, so print(decode(w)) re-encodes to w for every valid word w.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "redscope/core/diagnostic.hpp"

namespace redscope::sass {

enum class Opcode : std::uint8_t {
  SCHI,
  SSY,
  BRA,
  CAL,
  PRET,
  RET,
  JMP,
  JCAL,
  EXIT,
  NOP,
  PBK,
  BRK,
  PCNT,
  CONT,
  PLONGJMP,
  LONGJMP,
  BAR,
  B2R,
  MEMBAR,
  ATOM,
  RED,
  VOTE,
  // Beyond the seed (docs/sass.md "Beyond the seed"): what litmus tests need.
  LD,
  ST,
  MOV32I,
};
std::string_view to_string(Opcode op);
// The opcodes the seed documents, in its order.
std::vector<Opcode> seed_opcodes();

inline constexpr unsigned kRZ = 63;  // the zero register: reads 0, writes are dropped
inline constexpr unsigned kPT = 7;   // the true predicate

// A predicate operand: P0..P6 or PT, possibly negated (`!P1`).
struct Pred {
  unsigned index = kPT;
  bool negated = false;
  bool operator==(const Pred&) const = default;
};

// A register-or-immediate operand (BAR's barrier and thread count).
struct RegOrImm {
  bool immediate = false;
  std::uint64_t value = kRZ;  // the register number, or the immediate
  bool operator==(const RegOrImm&) const = default;
};

// A branch target: a relative (or, for JMP and JCAL, absolute) immediate,
// a constant-memory operand c[bank][offset], or a label to be resolved.
struct Target {
  enum class Kind : std::uint8_t { Imm, Const, Label };
  Kind kind = Kind::Imm;
  std::int64_t imm = 0;
  unsigned bank = 0;
  std::uint64_t offset = 0;
  std::string label;
  bool operator==(const Target&) const = default;
};

// One instruction, its fields already in their encoded values. Which
// members an opcode uses is listed in docs/sass.md and in `fields()`.
struct Instr {
  Opcode op = Opcode::NOP;
  Pred guard;                       // @P0 / @!P0; PT when absent
  std::array<unsigned, 7> sched{};  // SCHI
  Target target;                    // branches
  bool lmt = false, u = false;      // BRA, JMP
  bool noinc = false;               // CAL, JCAL, PRET
  unsigned cc = 15;                 // NOP: condition code (15 = .T)
  bool s = false;                   // NOP, B2R: .S
  bool trig = false;                // NOP: .TRIG
  unsigned unit = 0;                // NOP: .Op (0 none .. 8 .FMUL); B2R: .Op (0, 1 .XLU, 2 .ALU)
  std::uint64_t imm = 0;            // NOP, B2R, VOTE immediates (unsigned)
  std::int64_t offset = 0;          // ATOM, RED, LD, ST address offset; MOV32I value
  unsigned mode = 0;     // BAR: 0 .POPC 1 .AND 2 .OR; VOTE: mode; MEMBAR: level 0 .CTA 1 .GL 2 .SYS
  bool arrive = false;   // BAR.ARV
  RegOrImm bar, tcount;  // BAR
  Pred pdst, psrc;       // BAR p, c; VOTE p0, p1
  unsigned atom_op = 0;  // ATOM, RED: 0 .ADD .. 9 .CAS
  unsigned atom_type = 4;  // ATOM, RED: 4 (default .U32) 5 .U64 7 .S32 11 .F32.FTZ.RN
  bool e = false;          // .E: 64-bit addressing
  unsigned mem_type = 4;   // LD, ST: 0 .U8 1 .S8 2 .U16 3 .S16 4 (32) 5 .64 6 .128
  unsigned cache = 0;      // LD: .CA .CG .CS .CV; ST: .WB .CG .CS .WT
  unsigned reg0 = kRZ, reg1 = kRZ, reg3 = kRZ, reg4 = kRZ;
  bool operator==(const Instr&) const = default;
};

// A field of an opcode's word: its bits [lo, lo + width), as named in docs.
struct Field {
  std::string_view name;
  unsigned lo = 0;
  unsigned width = 0;
};
// The operand and modifier fields of `op` (every other bit is fixed).
std::vector<Field> fields(Opcode op);
// The bits every `op` word has, and which bits those are.
std::uint64_t fixed_bits(Opcode op);
std::uint64_t fixed_mask(Opcode op);
// The seed's template string for `op` (LSB first, spaces as in the seed),
// or "" for the opcodes beyond the seed.
std::string_view seed_template(Opcode op);

// Why an encoding or decoding failed; `column` (from 1) points into the
// text that was parsed, or is 0 for a word.
struct SassError {
  int column = 0;
  std::string message;
  std::string field;  // encode: the operand field at fault ("offset", "target", ...), if any
};

// Labels for resolving `!name` / `name` targets: a label's byte address.
struct LabelTable {
  std::vector<std::pair<std::string, std::uint64_t>> labels;
  std::optional<std::uint64_t> find(std::string_view name) const;
};

// Parses one instruction (a trailing ';' is allowed). Returns the error
// instead of throwing: callers add the file and line.
struct ParseResult {
  std::optional<Instr> instr;
  SassError error;
};
ParseResult parse(std::string_view text);

// The canonical text of `in` (without ';').
std::string print(const Instr& in);

// The word of `in`; labels are resolved against `labels` with `address`
// the instruction's own byte address (targets are relative to the next
// instruction, except JMP's and JCAL's, which are absolute).
struct EncodeResult {
  std::uint64_t word = 0;
  std::optional<SassError> error;
};
EncodeResult encode(const Instr& in, const LabelTable* labels = nullptr, std::uint64_t address = 0);

// The instruction a word holds, or an error naming the field and its bits.
struct DecodeResult {
  std::optional<Instr> instr;
  SassError error;
};
DecodeResult decode(std::uint64_t word);

// `0x` and 16 lowercase hex digits.
std::string word_text(std::uint64_t word);

// A whole input of `redscope sass encode` / `decode`: one output line per
// instruction (or word), or the located errors of every bad line.
struct Listing {
  std::vector<std::string> lines;
  std::vector<Diagnostic> errors;
};
// Lines hold one instruction each (a trailing ';' is allowed), or a label
// `name:` that names the next instruction's address (8 bytes per
// instruction from 0x0); blank lines and `//` comments are skipped.
Listing encode_listing(std::string_view text, const std::string& file);
// Lines hold one word each: 0x and 1 to 16 hex digits.
Listing decode_listing(std::string_view text, const std::string& file);

}  // namespace redscope::sass
