// Addresses held in registers in hand-written PTX tests (docs/litmus-format.md
// "Addresses in registers"): `mov.u64 r0, x` puts x's address in r0 (PTX ISA
// §9.7.9.1 mov), `add.u64`/`sub.u64` move it by a constant, `[r0+4]` uses it.
// Every such address must be the same location and offset on every path, so
// that events stay static: the register is written once, unguarded, before
// its use with no label in between (no path reaches the use another way),
// from a location, a constant or other such registers. A value that only
// depends on a loaded one through `sub r, a, a` or `mul r, a, 0` is a
// constant: that is how an address dependency (diy's DpAddr) is written.
// A location's address used as a value (stored, compared) is an opaque number.
// Surface coordinates computed the same way become the numbers they are.
#include <fmt/format.h>

#include <map>
#include <optional>
#include <string>

#include "redscope/core/diagnostic.hpp"
#include "redscope/frontend/ptx/ptx_instructions.hpp"

namespace redscope::detail {

namespace {

// What a register holds on every path: an address (loc + value) or a number.
struct Static {
  std::optional<std::string> loc;
  std::int64_t value = 0;
};

// The opaque number a location's address reads as: 2^32 times its place in
// the init block, plus one (distinct, and far from small offsets).
std::int64_t address_number(const LitmusTest& t, const std::string& loc) {
  std::int64_t k = 1;
  for (const InitEntry& e : t.init) {
    if (e.thread) continue;
    if (e.name == loc) return k << 32;
    ++k;
  }
  return k << 32;
}

class Resolver {
 public:
  explicit Resolver(const ThreadCode& tc) : tc_(tc) {
    for (std::size_t i = 0; i < tc.code.size(); ++i) {
      const Instruction& in = tc.code[i];
      if (in.dst) writers_[in.dst->name].push_back(i);
      for (const Operand& d : in.dsts) writers_[d.name].push_back(i);
    }
  }

  // What `reg` holds when instruction `use` runs, or why it is not static.
  std::optional<Static> at(const std::string& reg, std::size_t use, std::string& why,
                           int depth = 0) const {
    if (depth > 64) return fail(why, fmt::format("'{}' is computed too deeply", reg));
    const auto it = writers_.find(reg);
    if (it == writers_.end() || it->second.size() != 1)
      return fail(why, fmt::format("'{}' is written {} times (an address register is written "
                                   "once)",
                                   reg, it == writers_.end() ? 0 : it->second.size()));
    const std::size_t w = it->second.front();
    const Instruction& in = tc_.code[w];
    if (w >= use) return fail(why, fmt::format("'{}' is written after its use", reg));
    if (in.guard) return fail(why, fmt::format("'{}' is written under a predicate", reg));
    for (std::size_t k = w + 1; k < use; ++k)
      if (tc_.code[k].kind == InstrKind::Label)
        return fail(why, fmt::format("label '{}' lies between the write of '{}' and its use",
                                     tc_.code[k].label, reg));
    if (in.kind != InstrKind::Local)
      return fail(why, fmt::format("'{}' is loaded from memory", reg));
    return apply(in, w, why, depth);
  }

 private:
  static std::optional<Static> fail(std::string& why, std::string msg) {
    if (why.empty()) why = std::move(msg);
    return std::nullopt;
  }

  std::optional<Static> operand(const Operand& o, std::size_t at_, std::string& why,
                                int depth) const {
    if (o.kind == Operand::Kind::Imm) return Static{std::nullopt, o.value};
    if (o.kind == Operand::Kind::Loc) return Static{o.name, 0};
    return at(o.name, at_, why, depth + 1);
  }

  std::optional<Static> apply(const Instruction& in, std::size_t w, std::string& why,
                              int depth) const {
    const auto& s = in.srcs;
    // a - a and a * 0 are 0 whatever a holds: an address dependency.
    if (in.op == RmwOp::Sub && s.size() == 2 && s[0].kind == Operand::Kind::Reg &&
        s[1].kind == Operand::Kind::Reg && s[0].name == s[1].name)
      return Static{};
    if (in.op == RmwOp::Mul && s.size() == 2)
      for (const Operand& o : s)
        if (o.kind == Operand::Kind::Imm && o.value == 0) return Static{};
    std::vector<Static> v;
    for (const Operand& o : s) {
      std::optional<Static> x = operand(o, w, why, depth);
      if (!x) return std::nullopt;
      v.push_back(*x);
    }
    if (in.op == RmwOp::Mov && v.size() == 1) return v[0];
    if (v.size() != 2) return fail(why, "an address is computed by mov, add or sub");
    const bool a = v[0].loc.has_value(), b = v[1].loc.has_value();
    if (in.op == RmwOp::Add && !(a && b))
      return Static{a ? v[0].loc : v[1].loc, v[0].value + v[1].value};
    if (in.op == RmwOp::Sub && !b) return Static{v[0].loc, v[0].value - v[1].value};
    if (!a && !b && in.op == RmwOp::Mul) return Static{std::nullopt, v[0].value * v[1].value};
    return fail(why,
                fmt::format("'{}' combines addresses in a way that names no location", in.text));
  }

  const ThreadCode& tc_;
  std::map<std::string, std::vector<std::size_t>> writers_;
};

}  // namespace

void resolve_register_addresses(LitmusTest& t) {
  for (ThreadCode& tc : t.threads) {
    const Resolver r(tc);
    for (std::size_t i = 0; i < tc.code.size(); ++i) {
      Instruction& in = tc.code[i];
      if (!in.addr || in.addr->kind != Operand::Kind::Reg) continue;
      std::string why;
      const std::optional<Static> v = r.at(in.addr->name, i, why);
      if (v && !v->loc) why = fmt::format("'{}' holds a number, not an address", in.addr->name);
      if (!v || !v->loc)
        throw InputError(Diagnostic{
            t.file, in.addr->loc,
            fmt::format("the address in '{}' does not resolve to one location and offset on "
                        "every path: {}",
                        in.addr->name, why)});
      const std::int64_t offset = v->value + in.addr->offset;
      if (offset < 0 || offset > (1 << 20))
        throw InputError(Diagnostic{t.file, in.addr->loc, "address offset out of range"});
      in.addr = Operand{Operand::Kind::Loc, *v->loc, 0, offset, in.addr->loc, {}};
    }
  }
  // Surface coordinates computed in registers (`add.u32 r2, r1, 2`): the
  // number they hold on every path; others are left to the expansion's rule
  // (a constant, or a register only the init block sets).
  for (ThreadCode& tc : t.threads) {
    const Resolver r(tc);
    for (std::size_t i = 0; i < tc.code.size(); ++i)
      if (tc.code[i].sured)
        for (Operand& c : tc.code[i].sured->coords) {
          std::string why;
          if (c.kind != Operand::Kind::Reg) continue;
          const std::optional<Static> v = r.at(c.name, i, why);
          if (v && !v->loc)
            c = Operand{Operand::Kind::Imm, std::to_string(v->value), v->value, 0, c.loc, {}};
        }
  }
  // What is left of a location in a register is its opaque number.
  for (ThreadCode& tc : t.threads)
    for (Instruction& in : tc.code)
      for (Operand& o : in.srcs)
        if (o.kind == Operand::Kind::Loc && in.kind == InstrKind::Local)
          o = Operand{Operand::Kind::Imm, o.name, address_number(t, o.name), 0, o.loc, {}};
}

}  // namespace redscope::detail
