// The static values of an entry's registers: constants and the addresses of
// locations, followed through the instructions nvcc computes them with
// (ld.param, cvta, mov of a symbol, cvt, add/sub, mul/mad .lo/.wide, shl).
#include "dialects/cuda/ptx_values.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "redscope/frontend/lexer.hpp"

namespace redscope::cuda::detail {

namespace {

std::string trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return std::string(s);
}

// Operands split at the commas outside brackets and braces.
std::vector<std::string> split_operands(std::string_view s) {
  std::vector<std::string> out;
  int depth = 0;
  std::size_t from = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '[' || s[i] == '{') ++depth;
    if (s[i] == ']' || s[i] == '}') --depth;
    if (s[i] == ',' && depth == 0) {
      out.push_back(trim(s.substr(from, i - from)));
      from = i + 1;
    }
  }
  if (!trim(s.substr(from)).empty() || !out.empty()) out.push_back(trim(s.substr(from)));
  return out;
}

std::vector<std::string> split_on(std::string_view s, char sep) {
  std::vector<std::string> out;
  std::size_t from = 0;
  for (std::size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == sep) {
      out.push_back(trim(s.substr(from, i - from)));
      from = i + 1;
    }
  return out;
}

// Instructions that write no register through their first operand.
bool writes_nothing(std::string_view base) {
  static constexpr std::string_view kNone[] = {"st",    "red",      "bra",       "bar",  "barrier",
                                               "fence", "membar",   "ret",       "exit", "trap",
                                               "call",  "prefetch", "prefetchu", "brkpt"};
  return std::find(std::begin(kNone), std::end(kNone), base) != std::end(kNone);
}

std::vector<std::string> written_registers(const std::string& first) {
  std::vector<std::string> out;
  std::string s = first;
  if (s.size() >= 2 && s.front() == '{' && s.back() == '}') s = s.substr(1, s.size() - 2);
  for (const std::string& r : split_on(s, s.find('|') != std::string::npos ? '|' : ','))
    if (is_register(r)) out.push_back(r);
  return out;
}

}  // namespace

bool PtxInstr::has(std::string_view q) const {
  return std::find(parts.begin() + (parts.empty() ? 0 : 1), parts.end(), q) != parts.end();
}

std::optional<DataType> PtxInstr::type() const {
  for (auto p = parts.rbegin(); p != parts.rend(); ++p)
    if (auto t = parse_data_type(*p)) return t;
  return std::nullopt;
}

std::string PtxInstr::where() const {
  return fmt::format("'{}' (PTX line {})", printable(st->text), st->line);
}

PtxInstr split_instruction(const PtxStatement& st) {
  PtxInstr in;
  in.st = &st;
  std::string_view t = st.code;
  if (!t.empty() && t[0] == '@') {
    const std::size_t sp = std::min(t.find(' '), t.size());
    std::string_view g = t.substr(1, sp - 1);
    if (!g.empty() && g[0] == '!') {
      in.negated = true;
      g.remove_prefix(1);
    }
    in.guard = std::string(g);
    t.remove_prefix(std::min(sp + 1, t.size()));
  }
  const std::size_t sp = std::min(t.find(' '), t.size());
  in.opcode = std::string(t.substr(0, sp));
  in.parts = split_on(in.opcode, '.');
  in.ops = split_operands(t.substr(std::min(sp + 1, t.size())));
  if (!writes_nothing(in.base()) && !in.ops.empty()) in.dsts = written_registers(in.ops[0]);
  return in;
}

bool is_register(std::string_view op) {
  if (op.size() < 2 || op[0] != '%') return false;
  return std::all_of(op.begin() + 1, op.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '$' || c == '.';
  });
}

std::optional<std::int64_t> immediate_value(std::string_view op) {
  const bool negative = !op.empty() && op[0] == '-';
  if (negative) op.remove_prefix(1);
  std::optional<std::uint64_t> v;
  const bool f = op.size() == 10 && op[0] == '0' && (op[1] == 'f' || op[1] == 'F');
  const bool d = op.size() == 18 && op[0] == '0' && (op[1] == 'd' || op[1] == 'D');
  if (f || d) {
    if (negative) return std::nullopt;
    v = redscope::detail::unsigned_integer("0x" + std::string(op.substr(2)));
  } else {
    v = redscope::detail::unsigned_integer(op);
  }
  if (!v) return std::nullopt;
  return negative ? static_cast<std::int64_t>(0 - *v) : static_cast<std::int64_t>(*v);
}

std::int64_t fit(std::int64_t v, DataType t) {
  const unsigned w = width_of(t);
  if (w >= 64 || w == 0) return v;
  const std::uint64_t mask = (std::uint64_t{1} << w) - 1;
  std::uint64_t u = static_cast<std::uint64_t>(v) & mask;
  if (is_signed(t) && (u >> (w - 1)) != 0) u |= ~mask;
  return static_cast<std::int64_t>(u);
}

std::string immediate_text(std::int64_t v, DataType t) {
  const auto u = static_cast<std::uint64_t>(fit(v, t));
  if (is_float(t))
    return width_of(t) == 64 ? fmt::format("0d{:016X}", u)
                             : fmt::format("0f{:08X}", u & 0xffffffffULL);
  if (is_signed(t)) return fmt::format("{}", static_cast<std::int64_t>(u));
  return fmt::format("{}", u);
}

PtxValues::PtxValues(const std::vector<PtxInstr>& instrs, const AddressPlan& plan)
    : instrs_(instrs),
      plan_(plan) {
  for (std::size_t i = 0; i < instrs_.size(); ++i)
    for (const std::string& d : instrs_[i].dsts) defs_[d].push_back(i);
}

const std::vector<std::size_t>& PtxValues::defs(const std::string& r) const {
  static const std::vector<std::size_t> kNone;
  const auto it = defs_.find(r);
  return it == defs_.end() ? kNone : it->second;
}

Sym PtxValues::reg(const std::string& r) {
  const std::vector<std::size_t>& d = defs(r);
  if (d.empty())
    return Sym::unknown(
        fmt::format("{} is no register the kernel writes: special registers "
                    "such as %tid.x are not modelled",
                    printable(r)));
  if (d.size() > 1)
    return Sym::unknown(
        fmt::format("{} is written more than once (PTX lines {} and {}), so its "
                    "value changes at run time",
                    printable(r), instrs_[d[0]].st->line, instrs_[d[1]].st->line));
  const PtxInstr& in = instrs_[d[0]];
  if (!in.guard.empty())
    return Sym::unknown(
        fmt::format("{} is written under a predicate by {}", printable(r), in.where()));
  if (auto m = memo_.find(r); m != memo_.end()) return m->second;
  if (active_.count(r))
    return Sym::unknown(fmt::format("{} is computed from itself by {}", printable(r), in.where()));
  if (depth_ > kMaxDepth)
    return Sym::unknown(fmt::format("{} is computed by a chain of more than {} instructions",
                                    printable(r), kMaxDepth));
  active_.insert(r);
  ++depth_;
  Sym s = in.dsts.size() == 1 ? eval(in) : Sym::unknown(in.where() + " writes several registers");
  --depth_;
  active_.erase(r);
  memo_[r] = s;
  return s;
}

Sym PtxValues::operand(const std::string& op) {
  if (is_register(op)) return reg(op);
  if (auto v = immediate_value(op)) {
    Sym s;
    s.kind = Sym::Kind::Const;
    s.value = *v;
    return s;
  }
  if (auto it = plan_.shared.find(op); it != plan_.shared.end()) {
    Sym s;
    s.kind = Sym::Kind::Addr;
    s.target = it->second;
    s.window = Window::Shared;  // mov of a .shared variable: its shared-window address
    return s;
  }
  return Sym::unknown(fmt::format("'{}' is no location of the test", printable(op)));
}

Sym PtxValues::computed(std::size_t instr) { return eval(instrs_.at(instr)); }

Sym PtxValues::eval(const PtxInstr& in) {
  const std::string base = in.base();
  const std::size_t n = in.ops.size();
  if (base == "ld" && in.has("param") && n == 2) return param(in);
  if (base == "mov" && n == 2) {
    Sym s = operand(in.ops[1]);
    if (s.kind == Sym::Kind::Const) s.value = fit(s.value, in.type().value_or(DataType::B64));
    return s;
  }
  if (base == "cvta" && n == 2) return cvta(in);
  if (base == "cvt" && n == 2) return convert(in);
  if ((base == "add" || base == "sub") && n == 3 && in.parts.size() == 2)
    return add_like(in, operand(in.ops[1]), operand(in.ops[2]), base == "sub");
  if (base == "mul" && n == 3) return mul_like(in, false);
  if (base == "mad" && n == 4) return mul_like(in, true);
  if (base == "shl" && n == 3) {
    const Sym a = operand(in.ops[1]), b = operand(in.ops[2]);
    if (a.kind == Sym::Kind::Const && b.kind == Sym::Kind::Const && b.value >= 0 && b.value < 64) {
      Sym s = a;
      s.value = fit(static_cast<std::int64_t>(static_cast<std::uint64_t>(a.value) << b.value),
                    in.type().value_or(DataType::B64));
      return s;
    }
  }
  if (base == "selp") return Sym::unknown(in.where() + " chooses its value at run time");
  return Sym::unknown(in.where() + " computes neither a constant nor an address redscope follows");
}

Sym PtxValues::add_like(const PtxInstr& in, const Sym& a, const Sym& b, bool sub) {
  if (a.kind == Sym::Kind::Unknown) return a;
  if (b.kind == Sym::Kind::Unknown) return b;
  const auto wrap = [&](std::int64_t x, std::int64_t y) {
    const auto ux = static_cast<std::uint64_t>(x), uy = static_cast<std::uint64_t>(y);
    return static_cast<std::int64_t>(sub ? ux - uy : ux + uy);
  };
  if (b.kind == Sym::Kind::Const) {
    Sym s = a;
    s.value = a.kind == Sym::Kind::Const
                  ? fit(wrap(a.value, b.value), in.type().value_or(DataType::B64))
                  : wrap(a.value, b.value);
    return s;
  }
  if (a.kind == Sym::Kind::Const && !sub) {
    Sym s = b;
    s.value = wrap(b.value, a.value);
    return s;
  }
  return Sym::unknown(in.where() + " combines two addresses");
}

Sym PtxValues::mul_like(const PtxInstr& in, bool mad) {
  if (in.has("hi")) return Sym::unknown(in.where() + " keeps the high half of a product");
  const Sym a = operand(in.ops[1]), b = operand(in.ops[2]);
  for (const Sym* s : {&a, &b}) {
    if (s->kind == Sym::Kind::Unknown) return *s;
    if (s->kind == Sym::Kind::Addr) return Sym::unknown(in.where() + " multiplies an address");
  }
  const DataType t = in.type().value_or(DataType::S64);
  // .wide: the operands at their type, the product twice as wide (PTX ISA: mul).
  const bool wide = in.has("wide");
  const DataType result = !wide ? t : is_signed(t) ? DataType::S64 : DataType::U64;
  const std::int64_t p = fit(static_cast<std::int64_t>(static_cast<std::uint64_t>(fit(a.value, t)) *
                                                       static_cast<std::uint64_t>(fit(b.value, t))),
                             result);
  Sym c;
  c.kind = Sym::Kind::Const;
  if (mad) c = operand(in.ops[3]);
  if (c.kind == Sym::Kind::Unknown) return c;
  const auto sum = static_cast<std::int64_t>(static_cast<std::uint64_t>(c.value) +
                                             static_cast<std::uint64_t>(p));
  c.value = c.kind == Sym::Kind::Const ? fit(sum, result) : sum;
  return c;
}

// cvt between integer types: constants change width, addresses are copied
// (cvt.u64.u32 of a shared-window address, as nvcc does before cvta.shared).
Sym PtxValues::convert(const PtxInstr& in) {
  const auto to = in.parts.size() == 3 ? parse_data_type(in.parts[1]) : std::nullopt;
  const auto from = in.parts.size() == 3 ? parse_data_type(in.parts[2]) : std::nullopt;
  if (!to || !from || is_float(*to) || is_float(*from))
    return Sym::unknown(in.where() + " converts other than between integer types");
  Sym s = operand(in.ops[1]);
  if (s.kind == Sym::Kind::Const) s.value = fit(fit(s.value, *from), *to);
  if (s.kind == Sym::Kind::Addr && s.window != Window::Shared && width_of(*to) < 64)
    return Sym::unknown(in.where() + " truncates a 64-bit address");
  return s;
}

// cvta.to.SPACE (generic -> SPACE window) and cvta.SPACE (SPACE -> generic),
// PTX ISA: cvta; the address must be one of a location in that space.
Sym PtxValues::cvta(const PtxInstr& in) {
  const bool to = in.parts.size() > 2 && in.parts[1] == "to";
  const std::string sp = in.parts.size() > 2 ? in.parts[to ? 2 : 1] : "";
  const bool shared = sp == "shared" || sp == "shared::cta";
  if (sp != "global" && !shared)
    return Sym::unknown(in.where() +
                        " converts an address of a state space redscope does not read");
  Sym s = operand(in.ops[1]);
  if (s.kind == Sym::Kind::Unknown) return s;
  if (s.kind == Sym::Kind::Const) return Sym::unknown(in.where() + " converts a constant address");
  const bool is_shared = plan_.targets.at(s.target).shared;
  const Window space = shared ? Window::Shared : Window::Global;
  if (is_shared != shared || s.window != (to ? Window::Generic : space))
    return Sym::unknown(in.where() + " converts an address that is not in the window it names");
  s.window = to ? space : Window::Generic;
  return s;
}

Sym PtxValues::param(const PtxInstr& in) {
  const std::string& a = in.ops[1];
  const std::string name = a.size() > 2 && a.front() == '[' && a.back() == ']'
                               ? trim(a.substr(1, a.size() - 2))
                               : std::string();
  const auto it = plan_.params.find(name);
  if (it == plan_.params.end())
    return Sym::unknown(in.where() + " reads no parameter of the kernel convention");
  Sym s;
  s.kind = Sym::Kind::Addr;
  s.target = it->second;
  s.window = Window::Generic;  // a pointer argument: a generic address (PTX ISA §6.4.1)
  return s;
}

}  // namespace redscope::cuda::detail
