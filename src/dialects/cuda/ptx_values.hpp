// The static values of an entry's registers (docs/cuda.md "How nvcc's PTX
// is read"): which registers hold a constant, which hold the address of a
// location (a location, a byte offset and the address window), and why the
// others are not static. Private to dialects/cuda.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "dialects/cuda/ptx_module.hpp"
#include "redscope/core/types.hpp"

namespace redscope::cuda::detail {

// One instruction statement, split: `@!%p mnemonic.q.q op, op, ...`.
struct PtxInstr {
  const PtxStatement* st = nullptr;
  std::string guard;  // the predicate register, or ""
  bool negated = false;
  std::string opcode;                  // "st.global.u32"
  std::vector<std::string> parts;      // {"st", "global", "u32"}
  std::vector<std::string> ops;        // operands as written (registers renamed)
  std::vector<std::string> dsts;       // the registers it writes
  bool has(std::string_view q) const;  // a qualifier
  std::string base() const { return parts.empty() ? std::string() : parts[0]; }
  std::optional<DataType> type() const;  // its last type qualifier
  std::string where() const;             // "'st.global.u32 [%rd1], %r1' (PTX line 57)"
};

PtxInstr split_instruction(const PtxStatement& st);

bool is_register(std::string_view op);  // %r1, %rd2, %tmp.b1, %tid.x
// An integer or PTX float-bits immediate (1, -4, 0x10, 0f3F800000): its bits.
std::optional<std::int64_t> immediate_value(std::string_view op);
// `v` as an immediate of type `t` (decimal, or 0f/0d bits for floats).
std::string immediate_text(std::int64_t v, DataType t);
// `v` truncated to the width of `t` and extended by its signedness.
std::int64_t fit(std::int64_t v, DataType t);

// Address windows (PTX ISA §6.4.1 "Generic addressing"; cvta converts).
enum class Window : std::uint8_t { Generic, Global, Shared };

// What an address may point to: a location of the test, or __out.
struct AddrTarget {
  std::string name;  // the location's name ("" for __out)
  bool shared = false;
  bool out = false;
};

struct Sym {
  enum class Kind : std::uint8_t { Unknown, Const, Addr };
  Kind kind = Kind::Unknown;
  std::int64_t value = 0;  // Const: the value; Addr: the byte offset
  std::size_t target = 0;  // Addr: index into the targets
  Window window = Window::Generic;
  std::string why;  // Unknown: why it is not static (a clause)
  static Sym unknown(std::string why) {
    Sym s;
    s.why = std::move(why);
    return s;
  }
};

// The kernel's parameters and shared variables as targets of addresses.
struct AddressPlan {
  std::vector<AddrTarget> targets;
  std::map<std::string, std::size_t> params;  // .param name -> target
  std::map<std::string, std::size_t> shared;  // PTX symbol -> target
};

// Evaluates registers defined once, without a predicate: their one
// definition gives their value wherever they are read (nvcc's registers
// are in SSA form but for the copies it makes for loops and joins, which
// are written more than once and are never static here).
class PtxValues {
 public:
  PtxValues(const std::vector<PtxInstr>& instrs, const AddressPlan& plan);

  Sym reg(const std::string& r);       // a register's value
  Sym operand(const std::string& op);  // register, immediate or symbol
  Sym computed(std::size_t instr);     // what instruction `instr` computes
  const std::vector<std::size_t>& defs(const std::string& r) const;
  const AddressPlan& plan() const { return plan_; }

 private:
  Sym eval(const PtxInstr& in);
  Sym add_like(const PtxInstr& in, const Sym& a, const Sym& b, bool sub);
  Sym mul_like(const PtxInstr& in, bool mad);
  Sym convert(const PtxInstr& in);
  Sym cvta(const PtxInstr& in);
  Sym param(const PtxInstr& in);

  const std::vector<PtxInstr>& instrs_;
  const AddressPlan& plan_;
  std::map<std::string, std::vector<std::size_t>> defs_;
  std::map<std::string, Sym> memo_;
  std::set<std::string> active_;
  int depth_ = 0;
  static constexpr int kMaxDepth = 256;  // bounds the recursion through registers
};

}  // namespace redscope::cuda::detail
