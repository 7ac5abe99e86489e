// The seed's cycle tables applied to a PTO program (analysis/pto_cycles.hpp).
#include "redscope/dialects/pto/pto_cycles.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace redscope {

namespace {

namespace p = pto;

// A2/A3 constants (seed, "A2/A3 Latency and Throughput").
constexpr unsigned kStartup = 13;        // A2A3_STARTUP_REDUCE
constexpr unsigned kComplFpCgop = 21;    // A2A3_COMPL_FP_CGOP: f16 group reductions
constexpr unsigned kComplFpBinop = 19;   // A2A3_COMPL_FP_BINOP: f32, i32 reductions
constexpr unsigned kComplIntBinop = 17;  // A2A3_COMPL_INT_BINOP: i16 reductions
constexpr unsigned kRpt1 = 1;            // A2A3_RPT_1: i16 group reductions
constexpr unsigned kRpt2 = 2;            // A2A3_RPT_2: i32/f32/f16 reductions
constexpr unsigned kInterval = 18;       // A2A3_INTERVAL

void a2a3(PtoCycleRow& r, p::Reduce op, p::Elem e) {
  const bool group = p::is_group(op);
  r.startup = kStartup;
  r.interval = kInterval;
  switch (e) {
    case p::Elem::I16:
      r.completion = kComplIntBinop;
      r.per_repeat = group ? kRpt1 : kRpt2;
      if (!group) r.assumed = "per_repeat: RPT_1 is for i16 group reductions; RPT_2 assumed";
      break;
    case p::Elem::F16:
      r.completion = kComplFpCgop;
      r.per_repeat = kRpt2;
      if (!group) r.assumed = "completion: the seed gives f16 only for group reductions (21)";
      break;
    case p::Elem::I32:
    case p::Elem::F32:
      r.completion = kComplFpBinop;
      r.per_repeat = kRpt2;
      break;
    case p::Elem::I64:
      r.completion = kComplFpBinop;
      r.per_repeat = kRpt2;
      r.assumed = "the seed has no i64 figures; the i32 ones are assumed";
      break;
  }
  const std::uint64_t n = r.repeats;
  r.cycles = r.startup + r.completion + n * r.per_repeat + (n - 1) * r.interval;
  r.formula = fmt::format("{} + {} + {}×{} + {}×{} = {}", r.startup, r.completion, n, r.per_repeat,
                          n - 1, r.interval, *r.cycles);
}

// A5 latency table (seed, "A5 Latency and Throughput").
std::optional<unsigned> a5_latency(p::Reduce op, p::Elem e) {
  if (op == p::Reduce::PrefixAdd && !p::is_float(e)) return std::nullopt;
  switch (e) {
    case p::Elem::F32: return 19;
    case p::Elem::F16: return 21;
    case p::Elem::I32: return 19;
    case p::Elem::I16: return 17;
    case p::Elem::I64: return std::nullopt;
  }
  return std::nullopt;
}

void a5(PtoCycleRow& r, p::Reduce op, p::Elem e) {
  const auto lat = a5_latency(op, e);
  if (!lat) {
    r.formula =
        fmt::format("no A5 latency for pto.{} {} in the seed", p::op_name(op), p::to_string(e));
    return;
  }
  r.latency = *lat;
  r.cycles = std::uint64_t{r.repeats} * *lat;
  r.formula = fmt::format("{}×{} = {}", r.repeats, *lat, *r.cycles);
}

}  // namespace

PtoCycles pto_cycles(const p::Program& program, PtoArch arch) {
  PtoCycles out;
  out.arch = arch;
  std::map<std::string, std::size_t> other;
  for (const p::StaticOp& s : program.statics) {
    if (s.executions == 0) {
      if (s.kind == p::OpKind::Reduce)
        out.never_run.push_back(fmt::format("{}:{} {}", s.loc.line, s.loc.col, s.mnemonic));
      continue;
    }
    if (s.kind != p::OpKind::Reduce) {
      other[s.mnemonic] += s.executions;
      continue;
    }
    PtoCycleRow r;
    r.loc = s.loc;
    r.core = s.core;
    r.op = s.mnemonic;
    r.text = s.text;
    r.elem = s.elem;
    r.repeats = s.executions;
    if (arch == PtoArch::A2A3)
      a2a3(r, s.reduce, s.elem);
    else
      a5(r, s.reduce, s.elem);
    if (r.cycles) {
      out.total += *r.cycles;
      out.per_core[r.core] += *r.cycles;
    }
    out.rows.push_back(std::move(r));
  }
  for (const auto& [m, n] : other) out.uncounted.push_back(fmt::format("{} ({})", m, n));
  return out;
}

namespace {
std::string_view arch_name(PtoArch a) { return a == PtoArch::A2A3 ? "a2a3" : "a5"; }
std::string_view formula_of(PtoArch a) {
  return a == PtoArch::A2A3
             ? "startup + completion + repeats × per_repeat + (repeats - 1) × interval"
             : "repeats × latency";
}
}  // namespace

std::string render_cycles_text(const PtoCycles& c, const std::string& file) {
  std::string s =
      fmt::format("Cycles {} arch {}: {}\n", file, arch_name(c.arch), formula_of(c.arch));
  for (const PtoCycleRow& r : c.rows) {
    s += fmt::format("{}:{} {} {} {} repeats {}: {}\n", r.loc.line, r.loc.col, r.core, r.op,
                     p::to_string(r.elem), r.repeats, r.formula);
    if (!r.assumed.empty()) s += fmt::format("  assumed: {}\n", r.assumed);
  }
  s += fmt::format("Total {} cycles over {} reduction(s)\n", c.total, c.rows.size());
  if (c.per_core.size() > 1) {
    std::string list;
    std::uint64_t longest = 0;
    for (const auto& [core, n] : c.per_core) {
      list += fmt::format("{}{} {}", list.empty() ? "" : ", ", core, n);
      longest = std::max(longest, n);
    }
    s += fmt::format("Per core: {} (the cores run in parallel: the longest takes {})\n", list,
                     longest);
  }
  if (!c.never_run.empty())
    s += fmt::format("Never run (a loop of no iteration): {}\n", fmt::join(c.never_run, ", "));
  if (!c.uncounted.empty()) {
    std::string list;
    for (const std::string& u : c.uncounted) list += (list.empty() ? "" : ", ") + u;
    s += fmt::format("Not counted (no figures in the seed): {}\n", list);
  }
  return s;
}

Json render_cycles_json(const PtoCycles& c, const std::string& file) {
  Json rows = Json::array();
  for (const PtoCycleRow& r : c.rows) {
    Json o = Json::object();
    o.set("line", r.loc.line).set("col", r.loc.col).set("core", r.core).set("op", r.op);
    o.set("type", p::to_string(r.elem)).set("repeats", r.repeats);
    if (c.arch == PtoArch::A2A3) {
      o.set("startup", static_cast<int>(r.startup))
          .set("completion", static_cast<int>(r.completion));
      o.set("per_repeat", static_cast<int>(r.per_repeat))
          .set("interval", static_cast<int>(r.interval));
    } else {
      o.set("latency", r.cycles ? Json(static_cast<int>(r.latency)) : Json());
    }
    o.set("cycles", r.cycles ? Json(static_cast<std::size_t>(*r.cycles)) : Json());
    o.set("formula", r.formula);
    o.set("assumed", r.assumed.empty() ? Json() : Json(r.assumed));
    o.set("text", r.text);
    rows.push(std::move(o));
  }
  Json o = Json::object();
  o.set("file", file).set("arch", arch_name(c.arch)).set("formula", formula_of(c.arch));
  o.set("instructions", std::move(rows));
  o.set("total", static_cast<std::size_t>(c.total));
  Json cores = Json::object();
  for (const auto& [core, n] : c.per_core) cores.set(core, static_cast<std::size_t>(n));
  o.set("per_core", std::move(cores));
  o.set("never_run", Json::strings(c.never_run));
  o.set("not_counted", Json::strings(c.uncounted));
  return o;
}

}  // namespace redscope
