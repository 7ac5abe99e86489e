// Instr <-> 64-bit word for the sm_30 table (sass_isa.cpp). Encoding
// checks that every value fits its field and is one the seed's tables
// allow; decoding checks the fixed bits of the opcode's template and each
// field's value, and names the field and its bits when one is off.
#include <fmt/format.h>

#include <stdexcept>
#include <utility>

#include "dialects/sass/sass_fields.hpp"
#include "redscope/dialects/sass/sass.hpp"

namespace redscope::sass {

namespace detail {

bool is_branch(Opcode op) {
  switch (op) {
    case Opcode::SSY:
    case Opcode::BRA:
    case Opcode::CAL:
    case Opcode::PRET:
    case Opcode::JMP:
    case Opcode::JCAL:
    case Opcode::PBK:
    case Opcode::PCNT:
    case Opcode::PLONGJMP: return true;
    default: return false;
  }
}
bool is_absolute(Opcode op) { return op == Opcode::JMP || op == Opcode::JCAL; }

}  // namespace detail

namespace {

using detail::is_absolute;
using detail::is_branch;

using detail::field_mask;
using detail::info;
using detail::OpInfo;

// Thrown inside this file only; the public functions return it.
struct Fail {
  explicit Fail(std::string m, std::string f = {}) : message(std::move(m)), field(std::move(f)) {}
  std::string message;
  std::string field;  // the operand field at fault, if one is
};

const Field& field(const OpInfo& oi, std::string_view name) {
  for (const Field& f : oi.fields)
    if (f.name == name) return f;
  throw std::logic_error(fmt::format("{} has no field {}", to_string(oi.op), name));
}

std::string bits_of(const Field& f) {
  return f.width == 1 ? fmt::format("bit {}", f.lo)
                      : fmt::format("bits {}-{}", f.lo, f.lo + f.width - 1);
}

// The LSB-first string of bits [lo, lo + n) of w, as the seed writes them.
std::string lsb_first(std::uint64_t w, unsigned lo, unsigned n) {
  std::string s;
  for (unsigned k = 0; k < n; ++k) s += ((w >> (lo + k)) & 1) ? '1' : '0';
  return s;
}

// ATOM/RED type: value bit 0 is word bit 9, value bits 1-3 are word bits
// 59-61 ("mod 0 together with mod2 0:2 gives mod3", docs/sass.md).
bool valid_atom_type(unsigned t) { return t == 4 || t == 5 || t == 7 || t == 11; }
bool valid_vote_mode(unsigned m) { return m <= 2 || (m >= 5 && m <= 7); }

class Writer {
 public:
  explicit Writer(const OpInfo& oi) : oi_(oi), w_(oi.default_word() & ~oi.operand_mask()) {}

  void put(std::string_view name, std::uint64_t v) {
    const Field& f = field(oi_, name);
    if (f.width < 64 && v >> f.width)
      throw Fail{fmt::format("{}: {} = {:#x} does not fit its {}-bit field ({})", to_string(oi_.op),
                             name, v, f.width, bits_of(f)),
                 std::string(name)};
    w_ = (w_ & ~field_mask(f)) | (v << f.lo);
  }
  void put_signed(std::string_view name, std::int64_t v, unsigned width) {
    const std::int64_t lim = std::int64_t{1} << (width - 1);
    if (v < -lim || v >= lim)
      throw Fail{
          fmt::format("{}: {} {}{:#x} does not fit a signed {}-bit field", to_string(oi_.op), name,
                      v < 0 ? "-" : "",
                      v < 0 ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v),
                      width),
          std::string(name)};
    put(name, static_cast<std::uint64_t>(v) & ((1ULL << width) - 1));
  }
  void put_pred(std::string_view name, std::string_view neg, const Pred& p) {
    put(name, p.index);
    if (!neg.empty())
      put(neg, p.negated ? 1 : 0);
    else if (p.negated)
      throw Fail{fmt::format("{}: {} cannot be negated", to_string(oi_.op), name)};
  }
  std::uint64_t word() const { return w_; }

 private:
  const OpInfo& oi_;
  std::uint64_t w_;
};

void encode_target(Writer& w, const Instr& in, const LabelTable* labels, std::uint64_t address) {
  const bool abs = is_absolute(in.op);
  const Target& t = in.target;
  if (t.kind == Target::Kind::Const) {
    w.put("const", 1);
    if (t.offset > 0xffff)
      throw Fail{fmt::format("{}: constant offset {:#x} does not fit its 16 bits (26-41)",
                             to_string(in.op), t.offset),
                 "target"};
    if (t.bank > 15)
      throw Fail{fmt::format("{}: constant bank {:#x} does not fit its 4 bits (42-45)",
                             to_string(in.op), t.bank),
                 "target"};
    w.put("target", t.offset | (std::uint64_t{t.bank} << 16));
    return;
  }
  std::int64_t v = t.imm;
  if (t.kind == Target::Kind::Label) {
    const auto a = labels ? labels->find(t.label) : std::nullopt;
    if (!a)
      throw Fail{fmt::format("{}: undefined label '{}'", to_string(in.op), t.label), "target"};
    v = abs ? static_cast<std::int64_t>(*a)
            : static_cast<std::int64_t>(*a) - static_cast<std::int64_t>(address + 8);
  }
  if (!abs) return w.put_signed("target", v, 24);
  if (v < 0 || v > 0xffffffffLL)
    throw Fail{
        fmt::format("{}: the absolute target {}{:#x} does not fit its 32 bits (26-57)",
                    to_string(in.op), v < 0 ? "-" : "",
                    v < 0 ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v)),
        "target"};
  w.put("target", static_cast<std::uint64_t>(v));
}

void encode_bar(Writer& w, const Instr& in) {
  if (in.mode > 2) throw Fail{"BAR: .RED.Op 3 is invalid (the seed's table: 11 = invalid)"};
  if (in.arrive && in.mode != 0) throw Fail{"BAR.ARV takes no reduction operation"};
  w.put(".RED.Op", in.mode);
  w.put(".ARV", in.arrive ? 1 : 0);
  w.put("reg0", in.reg0);
  if (in.bar.immediate && in.bar.value > 15)
    throw Fail{fmt::format("BAR: barrier {:#x} is out of range (0 to 15)", in.bar.value), "bar"};
  w.put("bar", in.bar.value);
  w.put("bar.imm", in.bar.immediate ? 1 : 0);
  if (!in.tcount.immediate && in.tcount.value > 63)
    throw Fail{"BAR: the thread-count register does not fit its 6-bit field"};
  w.put("tcount", in.tcount.value);
  w.put("tcount.imm", in.tcount.immediate ? 1 : 0);
  w.put_pred("c", "c.not", in.psrc);
  w.put_pred("p", "", in.pdst);
}

void encode_memory(Writer& w, const Instr& in) {
  w.put("reg0", in.reg0);
  w.put("reg1", in.reg1);
  w.put(".E", in.e ? 1 : 0);
  if (in.op == Opcode::ATOM || in.op == Opcode::RED) {
    const unsigned max_op = in.op == Opcode::ATOM ? 9 : 7;
    if (in.atom_op > max_op)
      throw Fail{fmt::format("{}: .Op {} is invalid{}", to_string(in.op), in.atom_op,
                             in.op == Opcode::RED ? " (.EXCH and .CAS are ATOM only)" : "")};
    w.put(".Op", in.atom_op);
    if (!valid_atom_type(in.atom_type))
      throw Fail{fmt::format("{}: type {} is invalid", to_string(in.op), in.atom_type)};
    w.put("type.0", in.atom_type & 1);
    w.put("type.1-3", in.atom_type >> 1);
  }
  if (in.op == Opcode::ATOM) {
    w.put("reg3", in.reg3);
    w.put("reg4", in.reg4);
    const std::int64_t lim = 1 << 19;
    if (in.offset < -lim || in.offset >= lim)
      throw Fail{fmt::format("ATOM: offset {}{:#x} does not fit its signed 20 bits (26-42, 55-57)",
                             in.offset < 0 ? "-" : "",
                             in.offset < 0 ? 0 - static_cast<std::uint64_t>(in.offset)
                                           : static_cast<std::uint64_t>(in.offset)),
                 "offset"};
    const auto u = static_cast<std::uint64_t>(in.offset) & 0xfffff;
    w.put("offset.lo", u & 0x1ffff);
    w.put("offset.hi", u >> 17);
    return;
  }
  w.put_signed("offset", in.offset, 32);
  if (in.op == Opcode::LD || in.op == Opcode::ST) {
    if (in.mem_type > 6) throw Fail{"LD/ST: type 7 is invalid"};
    w.put("type", in.mem_type);
    w.put("cache", in.cache);
  }
}

std::uint64_t encode_or_throw(const Instr& in, const LabelTable* labels, std::uint64_t address) {
  const OpInfo& oi = info(in.op);
  Writer w(oi);
  if (oi.guarded)
    w.put_pred("pred", "pred.not", in.guard);
  else if (!(in.guard == Pred{}))
    throw Fail{in.op == Opcode::SCHI
                   ? std::string("SCHI takes no guard predicate (a scheduling word: bits 4-59 "
                                 "hold its seven operands)")
                   : fmt::format("{} takes no guard predicate: it is not predicated (the "
                                 "hardware ignores bits 10-13)",
                                 to_string(in.op))};
  if (is_branch(in.op)) encode_target(w, in, labels, address);
  switch (in.op) {
    case Opcode::SCHI:
      for (unsigned i = 0; i < 7; ++i) w.put(fmt::format("op{}", i), in.sched[i]);
      break;
    case Opcode::BRA:
    case Opcode::JMP:
      w.put(".U", in.u ? 1 : 0);
      w.put(".LMT", in.lmt ? 1 : 0);
      break;
    case Opcode::CAL:
    case Opcode::JCAL:
    case Opcode::PRET: w.put("inc", in.noinc ? 0 : 1); break;
    case Opcode::NOP:
      w.put(".S", in.s ? 1 : 0);
      w.put("CC", in.cc);
      w.put("imm", in.imm);
      w.put(".TRIG", in.trig ? 1 : 0);
      if (in.unit > 8) throw Fail{fmt::format("NOP: .Op {} is not in the seed's table", in.unit)};
      w.put(".Op", in.unit);
      break;
    case Opcode::BAR: encode_bar(w, in); break;
    case Opcode::B2R:
      w.put(".S", in.s ? 1 : 0);
      if (in.unit > 2) throw Fail{"B2R: .Op 11 is invalid"};
      w.put(".Op", in.unit);
      w.put("reg0", in.reg0);
      w.put("imm", in.imm);
      break;
    case Opcode::MEMBAR:
      if (in.mode > 2) throw Fail{"MEMBAR: level 11 is invalid"};
      w.put(".Lvl", in.mode);
      break;
    case Opcode::ATOM:
    case Opcode::RED:
    case Opcode::LD:
    case Opcode::ST: encode_memory(w, in); break;
    case Opcode::VOTE:
      if (!valid_vote_mode(in.mode)) throw Fail{fmt::format("VOTE: mode {} is invalid", in.mode)};
      w.put(".Mode", in.mode);
      w.put("reg0", in.reg0);
      w.put_pred("p1", "p1.not", in.psrc);
      w.put("imm", in.imm);
      w.put_pred("p0", "", in.pdst);
      break;
    case Opcode::MOV32I:
      w.put("reg0", in.reg0);
      if (in.offset < -(std::int64_t{1} << 31) || in.offset > 0xffffffffLL)
        throw Fail{"MOV32I: the immediate does not fit its 32 bits (26-57)", "imm"};
      w.put("imm", static_cast<std::uint64_t>(in.offset) & 0xffffffffULL);
      break;
    default: break;
  }
  return w.word();
}

// ---- decoding ---------------------------------------------------------------

class Reader {
 public:
  Reader(const OpInfo& oi, std::uint64_t w) : oi_(oi), w_(w) {}
  std::uint64_t get(std::string_view name) const {
    const Field& f = field(oi_, name);
    return (w_ & field_mask(f)) >> f.lo;
  }
  std::int64_t get_signed(std::string_view name, unsigned width) const {
    const std::uint64_t v = get(name);
    return (v >> (width - 1)) ? static_cast<std::int64_t>(v) - (std::int64_t{1} << width)
                              : static_cast<std::int64_t>(v);
  }
  [[noreturn]] void invalid(std::string_view name, std::string_view why) const {
    const Field& f = field(oi_, name);
    throw Fail{fmt::format("{}: {} ({}) hold {} (LSB first: {}); {}", to_string(oi_.op), name,
                           bits_of(f), get(name), lsb_first(w_, f.lo, f.width), why)};
  }
  Pred pred(std::string_view name, std::string_view neg) const {
    return Pred{static_cast<unsigned>(get(name)), !neg.empty() && get(neg) == 1};
  }

 private:
  const OpInfo& oi_;
  std::uint64_t w_;
};

void decode_target(const Reader& r, Instr& in, std::uint64_t w) {
  const bool abs = is_absolute(in.op);
  if (r.get("const")) {
    in.target.kind = Target::Kind::Const;
    const std::uint64_t v = r.get("target");
    if (v >> 20)
      throw Fail{fmt::format("{}: bits 46-{} must be 0 in a c[bank][offset] target (LSB first: {})",
                             to_string(in.op), abs ? 57 : 49, lsb_first(w, 46, abs ? 12 : 4))};
    in.target.offset = v & 0xffff;
    in.target.bank = static_cast<unsigned>(v >> 16);
    return;
  }
  in.target.imm = abs ? static_cast<std::int64_t>(r.get("target")) : r.get_signed("target", 24);
}

void decode_memory(const Reader& r, Instr& in) {
  in.reg0 = static_cast<unsigned>(r.get("reg0"));
  in.reg1 = static_cast<unsigned>(r.get("reg1"));
  in.e = r.get(".E") == 1;
  if (in.op == Opcode::ATOM || in.op == Opcode::RED) {
    in.atom_op = static_cast<unsigned>(r.get(".Op"));
    const unsigned max_op = in.op == Opcode::ATOM ? 9 : 7;
    if (in.atom_op > max_op)
      r.invalid(".Op", in.op == Opcode::ATOM
                           ? "the seed's table calls 10 and above invalid"
                           : "RED takes .ADD to .XOR (0-7); .EXCH and .CAS are ATOM only");
    in.atom_type = static_cast<unsigned>(r.get("type.0") | (r.get("type.1-3") << 1));
    if (!valid_atom_type(in.atom_type))
      throw Fail{
          fmt::format("{}: the type (bit 9 with bits 59-61) is {}; the seed's table "
                      "allows 4 (.U32), 5 (.U64), 7 (.S32) and 11 (.F32.FTZ.RN)",
                      to_string(in.op), in.atom_type)};
  }
  if (in.op == Opcode::ATOM) {
    in.reg3 = static_cast<unsigned>(r.get("reg3"));
    in.reg4 = static_cast<unsigned>(r.get("reg4"));
    const std::uint64_t u = r.get("offset.lo") | (r.get("offset.hi") << 17);
    in.offset = (u >> 19) ? static_cast<std::int64_t>(u) - (1 << 20) : static_cast<std::int64_t>(u);
    return;
  }
  in.offset = r.get_signed("offset", 32);
  if (in.op == Opcode::LD || in.op == Opcode::ST) {
    in.mem_type = static_cast<unsigned>(r.get("type"));
    if (in.mem_type == 7) r.invalid("type", "7 is not a load/store size");
    in.cache = static_cast<unsigned>(r.get("cache"));
  }
}

void decode_fields(const Reader& r, Instr& in, std::uint64_t w) {
  if (is_branch(in.op)) decode_target(r, in, w);
  switch (in.op) {
    case Opcode::SCHI:
      for (unsigned i = 0; i < 7; ++i)
        in.sched[i] = static_cast<unsigned>(r.get(fmt::format("op{}", i)));
      break;
    case Opcode::BRA:
    case Opcode::JMP:
      in.u = r.get(".U") == 1;
      in.lmt = r.get(".LMT") == 1;
      break;
    case Opcode::CAL:
    case Opcode::JCAL:
    case Opcode::PRET: in.noinc = r.get("inc") == 0; break;
    case Opcode::NOP:
      in.s = r.get(".S") == 1;
      in.cc = static_cast<unsigned>(r.get("CC"));
      in.imm = r.get("imm");
      in.trig = r.get(".TRIG") == 1;
      in.unit = static_cast<unsigned>(r.get(".Op"));
      if (in.unit > 8) r.invalid(".Op", "the seed's table stops at 8 (.FMUL)");
      break;
    case Opcode::BAR:
      in.mode = static_cast<unsigned>(r.get(".RED.Op"));
      if (in.mode == 3) r.invalid(".RED.Op", "the seed's table calls 11 invalid");
      in.arrive = r.get(".ARV") == 1;
      if (in.arrive && in.mode != 0)
        r.invalid(".RED.Op", "BAR.ARV takes no reduction (the seed spells none for it)");
      in.reg0 = static_cast<unsigned>(r.get("reg0"));
      in.bar = RegOrImm{r.get("bar.imm") == 1, r.get("bar")};
      if (in.bar.immediate && in.bar.value > 15) r.invalid("bar", "a barrier is 0 to 15");
      in.tcount = RegOrImm{r.get("tcount.imm") == 1, r.get("tcount")};
      if (!in.tcount.immediate && in.tcount.value > 63)
        r.invalid("tcount", "a register thread count uses bits 26-31 only");
      in.psrc = r.pred("c", "c.not");
      in.pdst = r.pred("p", "");
      break;
    case Opcode::B2R:
      in.s = r.get(".S") == 1;
      in.unit = static_cast<unsigned>(r.get(".Op"));
      if (in.unit == 3) r.invalid(".Op", "the seed's table calls 11 invalid");
      in.reg0 = static_cast<unsigned>(r.get("reg0"));
      in.imm = r.get("imm");
      break;
    case Opcode::MEMBAR:
      in.mode = static_cast<unsigned>(r.get(".Lvl"));
      if (in.mode == 3) r.invalid(".Lvl", "the seed's table calls 11 invalid");
      break;
    case Opcode::ATOM:
    case Opcode::RED:
    case Opcode::LD:
    case Opcode::ST: decode_memory(r, in); break;
    case Opcode::VOTE:
      in.mode = static_cast<unsigned>(r.get(".Mode"));
      if (!valid_vote_mode(in.mode)) r.invalid(".Mode", "the seed's table has no mode 3 or 4");
      in.reg0 = static_cast<unsigned>(r.get("reg0"));
      in.psrc = r.pred("p1", "p1.not");
      in.imm = r.get("imm");
      in.pdst = r.pred("p0", "");
      break;
    case Opcode::MOV32I:
      in.reg0 = static_cast<unsigned>(r.get("reg0"));
      in.offset = static_cast<std::int64_t>(r.get("imm"));
      break;
    default: break;
  }
}

// The opcode bits (0-3 and the fixed ones of 58-63) name the row.
const OpInfo* row_of(std::uint64_t w) {
  constexpr std::uint64_t kOpBits = 0xfc0000000000000fULL;
  for (const OpInfo& oi : detail::table()) {
    const std::uint64_t id = ~oi.operand_mask() & kOpBits;
    if ((w & id) == (oi.default_word() & id)) return &oi;
  }
  return nullptr;
}

Instr decode_or_throw(std::uint64_t w) {
  const OpInfo* oi = row_of(w);
  if (!oi)
    throw Fail{
        fmt::format("unknown opcode: bits 0-3 read {} and bits 58-63 read {} (LSB first), "
                    "which match no instruction redscope encodes",
                    lsb_first(w, 0, 4), lsb_first(w, 58, 6))};
  const std::uint64_t fixed = ~oi->operand_mask() & ~oi->ignored;
  const std::uint64_t diff = (w ^ oi->default_word()) & fixed;
  if (diff) {
    unsigned lo = 0;
    while (!((diff >> lo) & 1)) ++lo;
    unsigned hi = lo;
    while (hi + 1 < 64 && ((fixed >> (hi + 1)) & 1) && ((diff >> (hi + 1)) & 1)) ++hi;
    throw Fail{fmt::format("{}: {} {} read {} where every {} word has {} (LSB first)",
                           to_string(oi->op), lo == hi ? "bit" : "bits",
                           lo == hi ? fmt::format("{}", lo) : fmt::format("{}-{}", lo, hi),
                           lsb_first(w, lo, hi - lo + 1), to_string(oi->op),
                           lsb_first(oi->default_word(), lo, hi - lo + 1))};
  }
  Instr in;
  in.op = oi->op;
  const Reader r(*oi, w);
  if (oi->guarded) {
    in.guard = r.pred("pred", "pred.not");
  }
  decode_fields(r, in, w);
  return in;
}

}  // namespace

EncodeResult encode(const Instr& in, const LabelTable* labels, std::uint64_t address) {
  try {
    return EncodeResult{encode_or_throw(in, labels, address), std::nullopt};
  } catch (const Fail& f) {
    return EncodeResult{0, SassError{0, f.message, f.field}};
  }
}

DecodeResult decode(std::uint64_t word) {
  try {
    return DecodeResult{decode_or_throw(word), {}};
  } catch (const Fail& f) {
    return DecodeResult{std::nullopt, SassError{0, f.message, f.field}};
  }
}

}  // namespace redscope::sass
