// `redscope ptxas-check` (redscope/analysis/ptxas_check.hpp, docs/cli.md):
// each PTX litmus test wrapped into a PTX module and assembled by NVIDIA's
// ptxas; each instruction's verdict compared with redscope's.
//
// The module of a test: `.version` (the highest the ptxas reads), `.target
// sm_NN` (the test's: ptxas checks the feature rules of a lower .target
// even when it assembles for sm_75, the oldest it generates code for),
// `.address_size 64`, and one `.entry` per thread. A location the thread
// reaches is a `.param .u64` loaded into a register named as the location
// (so `[x]`, `[x+4]` and `sured [x, {0}]` read as written), or a `.shared`
// variable of the kernel when the test puts it in shared memory. Registers
// are declared from the types of the instructions that use them: `.bN`
// (compatible with every N-bit type), `.pred` for predicates, `.b64` for
// addresses and cache policies. Each instruction keeps its text and line.
//
// ptxas is run on many tests' kernels at once (one module per target);
// a module that stops at a syntax error, crashes ptxas or times out is
// re-run file by file, then instruction by instruction, so that one
// instruction ptxas cannot read costs no other its verdict.
#include "redscope/analysis/ptxas_check.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "redscope/core/parallel.hpp"
#include "redscope/core/subprocess.hpp"
#include "redscope/events/events.hpp"
#include "redscope/frontend/frontend.hpp"
#include "redscope/frontend/ptx_cells.hpp"
#include "redscope/registry/registry.hpp"

namespace redscope {

namespace fs = std::filesystem;

std::string_view to_string(PtxasVerdict v) {
  switch (v) {
    case PtxasVerdict::Agree: return "agree";
    case PtxasVerdict::Disagree: return "disagree";
    case PtxasVerdict::CannotJudge: return "cannot judge";
  }
  return "?";
}

namespace {

// ---- running ptxas ----------------------------------------------------------

struct PtxasMessage {
  int line = 0;      // in the module; 0: none
  std::string kind;  // error, warning, fatal, info
  std::string text;
};

struct PtxasRun {
  bool started = false;
  bool timed_out = false;
  int signal = 0;  // killed by this signal (a crash)
  int exit_code = 0;
  std::vector<PtxasMessage> messages;
  std::string output;  // everything it printed
  bool crashed() const { return signal != 0 && !timed_out; }
  bool fatal_at_line() const {
    return std::any_of(messages.begin(), messages.end(),
                       [](const PtxasMessage& m) { return m.kind == "fatal" && m.line > 0; });
  }
};

std::string trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(b, e - b + 1));
}

// `ptxas m.ptx, line 11; error   : Arguments mismatch for instruction 'red'`
std::vector<PtxasMessage> parse_ptxas_output(const std::string& out) {
  std::vector<PtxasMessage> msgs;
  std::istringstream in(out);
  std::string l;
  while (std::getline(in, l)) {
    if (l.rfind("ptxas", 0) != 0) continue;
    PtxasMessage m;
    std::size_t rest = 5;
    const std::size_t at = l.find(", line ");
    if (at != std::string::npos) {
      m.line = std::atoi(l.c_str() + at + 7);
      const std::size_t semi = l.find(';', at);
      rest = semi == std::string::npos ? l.size() : semi + 1;
    }
    const std::size_t colon = l.find(':', rest);
    if (colon == std::string::npos) continue;
    m.kind = trim(std::string_view(l).substr(rest, colon - rest));
    m.text = trim(std::string_view(l).substr(colon + 1));
    msgs.push_back(std::move(m));
  }
  return msgs;
}

// Runs `argv` (core/subprocess.hpp: its own process group, killed whole when
// it ends or after `timeout`, so a wrapper script's own children never
// outlive the call), its output read back and its messages parsed.
PtxasRun run_tool(const std::vector<std::string>& argv, const ScratchDir& scratch, double timeout) {
  constexpr std::size_t kMaxOutput = std::size_t{64} << 20;
  const ProcessRun p =
      redscope::run_process(argv, scratch.dir(), {.seconds = timeout, .max_output = kMaxOutput});
  PtxasRun r;
  r.started = p.started;
  r.timed_out = p.timed_out;
  r.signal = p.signal;
  r.exit_code = p.exit_code;
  r.output = p.output;
  r.messages = parse_ptxas_output(r.output);
  return r;
}

PtxasRun run_ptxas(const PtxasTool& tool, ScratchDir& scratch, const std::string& module,
                   int target, double timeout) {
  const std::string ptx = scratch.file("ptx");
  {
    std::ofstream f(ptx);
    f << module;
  }
  // ptxas generates code for sm_75 and later; for a lower .target it
  // assembles for sm_75 and still checks the .target's feature rules.
  const std::string arch = fmt::format("-arch=sm_{}", std::max(target, 75));
  PtxasRun r = run_tool({tool.path, arch, "-o", "/dev/null", ptx}, scratch, timeout);
  std::error_code ec;
  fs::remove(ptx, ec);
  return r;
}

// ---- one test, as PTX -----------------------------------------------------

// A register's PTX type: the bit-size type of its width, or .pred.
constexpr int kPred = 1;

// The width of a register that holds an operand of PTX type `t` (8-bit
// values live in 16-bit registers), 0 when `t` is no type.
int register_width(std::string_view t) {
  static constexpr std::pair<std::string_view, int> kTypes[] = {
      {"b8", 16},  {"u8", 16},  {"s8", 16},    {"b16", 16},    {"u16", 16},
      {"s16", 16}, {"f16", 16}, {"bf16", 16},  {"b32", 32},    {"u32", 32},
      {"s32", 32}, {"f32", 32}, {"f16x2", 32}, {"bf16x2", 32}, {"b64", 64},
      {"u64", 64}, {"s64", 64}, {"f64", 64},   {"b128", 128},  {"pred", kPred}};
  for (const auto& [n, w] : kTypes)
    if (n == t) return w;
  return 0;
}

std::string register_type(int w) { return w == kPred ? ".pred" : fmt::format(".b{}", w); }

std::vector<std::string> split_dots(std::string_view s) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == '.') {
      parts.emplace_back(s.substr(start, i - start));
      start = i + 1;
    }
  return parts;
}

// An operand of a cell, split at the top-level commas.
struct CellOperand {
  std::vector<const CellWord*> words;
  bool bracketed() const { return !words.empty() && words.front()->text == "["; }
  bool braced() const { return !words.empty() && words.front()->text == "{"; }
};

// What a cell needs declared, or why it is not handed to ptxas.
struct CellUse {
  std::vector<std::pair<std::string, int>> registers;  // name, width (kPred: .pred)
  std::vector<std::string> locations;                  // addressed by name
  std::vector<std::string> shared_locations;           // addressed through a .shared space
  std::map<std::string, std::int64_t> max_offset;      // [x+N]
  std::string not_ptx;                                 // why it is not PTX ptxas can judge
};

bool is_dat3m_branch(std::string_view b) {
  return b == "goto" || b == "beq" || b == "bne" || b == "blt" || b == "bgt" || b == "ble" ||
         b == "bge";
}

class CellReader {
 public:
  CellReader(const PtxCells& cells, const PtxasTool& tool) : cells_(cells), tool_(tool) {
    for (const InitEntry& e : cells.test.init)
      if (!e.thread) declared_.insert(e.name);
    for (const AliasDecl& a : cells.test.aliases) declared_.insert(a.name);
  }

  CellUse read(const PtxCell& cell) const {
    CellUse u;
    const std::vector<CellWord>& w = cell.words;
    std::size_t i = 0;
    if (i < w.size() && w[i].text == "@") {
      ++i;
      if (i < w.size() && w[i].text == "!") ++i;
      if (i < w.size() && w[i].kind == CellWord::Kind::Word)
        u.registers.emplace_back(w[i].text, kPred);
      ++i;
    }
    if (i >= w.size() || w[i].kind != CellWord::Kind::Word) return u;  // ptxas judges the syntax
    const std::vector<std::string> parts = split_dots(w[i].text);
    const std::string& base = parts[0];
    ++i;
    int width = 0;
    for (std::size_t k = 1; k < parts.size() && !width; ++k) width = register_width(parts[k]);
    const bool hint = std::find(parts.begin(), parts.end(), "L2::cache_hint") != parts.end();
    bool shared = false;
    for (const std::string& p : parts)
      shared = shared || p == "shared" || p == "shared::cta" || p == "shared::cluster";
    // Operands at the top-level commas.
    std::vector<CellOperand> ops(1);
    int depth = 0;
    for (; i < w.size(); ++i) {
      const std::string& t = w[i].text;
      if (w[i].kind == CellWord::Kind::Punct && (t == "[" || t == "{")) ++depth;
      if (w[i].kind == CellWord::Kind::Punct && (t == "]" || t == "}")) --depth;
      if (depth == 0 && w[i].kind == CellWord::Kind::Punct && t == ",") {
        ops.emplace_back();
        continue;
      }
      ops.back().words.push_back(&w[i]);
    }
    if (ops.back().words.empty()) ops.pop_back();

    // Dat3M's forms, which are not PTX (docs/litmus-format.md).
    const bool memory = base == "ld" || base == "st" || base == "atom" || base == "red";
    if (is_dat3m_branch(base)) {
      u.not_ptx = fmt::format("Dat3M's branch '{}' (PTX branches with setp and bra)", base);
      return u;
    }
    if ((base == "bar" || base == "barrier") && parts.size() == 3 && parts[1] == "cta") {
      u.not_ptx =
          "Dat3M's barrier convention (bar.cta.sync a, b names barrier a.b; PTX's b is a "
          "thread count)";
      return u;
    }
    if (base == "suld" || base == "sust" || base == "tld" || base == "cold") {
      u.not_ptx = fmt::format(
          "Dat3M's proxy access '{}' (not PTX syntax: PTX's suld/sust take "
          "a geometry and coordinates)",
          base);
      return u;
    }
    if (base == "fence" && parts.size() >= 3 && parts[1] == "proxy" &&
        (parts[2] == "surface" || parts[2] == "texture" || parts[2] == "constant")) {
      u.not_ptx = fmt::format(
          "Dat3M's proxy fence 'fence.proxy.{}' (PTX has fence.proxy.alias, "
          ".async and .tensormap)",
          parts[2]);
      return u;
    }
    if ((memory || base == "add" || base == "sub" || base == "mul" || base == "div" ||
         base == "mov") &&
        !width) {
      u.not_ptx = fmt::format("Dat3M shorthand: untyped '{}'", base);
      return u;
    }
    // Every PTX ld, st, atom and red has one address in brackets.
    if (memory &&
        std::none_of(ops.begin(), ops.end(), [](const CellOperand& o) { return o.bracketed(); })) {
      const std::size_t at = base == "st" || base == "red" ? 0 : 1;
      const std::string name =
          at < ops.size() && !ops[at].words.empty() ? ops[at].words.front()->text : "";
      u.not_ptx = fmt::format("Dat3M shorthand: address '{}' without brackets", name);
      return u;
    }
    if (base == "multimem" && tool_.max_ptx < 91) {
      u.not_ptx = fmt::format(
          "needs PTX ISA 9.1 (multimem.cp.reduce.async.bulk); ptxas {} reads "
          "PTX ISA up to {}.{}",
          tool_.release, tool_.max_ptx / 10, tool_.max_ptx % 10);
      return u;
    }

    // Declarations: registers at the instruction's width, addresses.
    const int value_width = width ? width : 32;
    auto value = [&](const CellWord* x, int wd) {
      if (x->kind == CellWord::Kind::Word && x->text != "inf" && x->text != "nan")
        u.registers.emplace_back(x->text, wd);
    };
    auto address = [&](const CellOperand& o) {
      // [base], [base+N], sured's [base, {x, y}]
      std::size_t k = 1;
      if (k < o.words.size() && o.words[k]->kind == CellWord::Kind::Word) {
        const std::string& n = o.words[k]->text;
        if (is_location(cell, n)) {
          u.locations.push_back(n);
          if (shared) u.shared_locations.push_back(n);
          std::int64_t off = 0;
          if (k + 2 < o.words.size() && o.words[k + 1]->text == "+" &&
              o.words[k + 2]->kind == CellWord::Kind::Number)
            off = std::strtoll(o.words[k + 2]->text.c_str(), nullptr, 0);
          u.max_offset[n] = std::max(u.max_offset[n], off);
        } else {
          u.registers.emplace_back(n, 64);
        }
      }
      for (k = 2; k < o.words.size(); ++k)  // sured's coordinates
        if (o.words[k]->kind == CellWord::Kind::Word) value(o.words[k], 32);
    };
    for (std::size_t k = 0; k < ops.size(); ++k) {
      const CellOperand& o = ops[k];
      if (o.bracketed()) {
        address(o);
        continue;
      }
      if (base == "bra") continue;  // a label
      int wd = value_width;
      if (base == "setp" && k == 0) wd = kPred;
      if (base == "createpolicy" || (hint && k + 1 == ops.size() && k > 0)) wd = 64;
      for (const CellWord* x : o.words) value(x, wd);
    }
    return u;
  }

 private:
  // A name in an address is a location unless it is spelled as a register
  // (`%anything`, `r12`: the litmus lexer's rule) or the thread's init sets
  // it as one (`P0:rs = sA`, a register holding a surface).
  bool is_location(const PtxCell& cell, const std::string& n) const {
    if (declared_.count(n)) return true;
    for (const InitEntry& e : cells_.test.init)
      if (e.thread && static_cast<std::size_t>(*e.thread) == cell.thread && e.name == n)
        return false;
    const bool numbered_r =
        n.size() >= 2 && n[0] == 'r' &&
        std::all_of(n.begin() + 1, n.end(), [](char c) { return c >= '0' && c <= '9'; });
    return !n.empty() && n[0] != '%' && !numbered_r;
  }

  const PtxCells& cells_;
  const PtxasTool& tool_;
  std::set<std::string> declared_;
};

// A file, read and planned: what each thread's kernel declares and holds.
struct FilePlan {
  std::string file;
  PtxasFileResult result;
  bool ptx = false;  // a PTX litmus test whose cells were read
  PtxCells cells;
  std::vector<int> line_of_cell;  // cell -> index into result.lines (-1: a label)
  std::vector<CellUse> uses;
  struct Thread {
    std::vector<std::string> params;             // locations reached through an address
    std::map<std::string, std::int64_t> shared;  // .shared variables and their sizes
    std::vector<std::pair<std::string, int>> registers;
    std::vector<std::size_t> cells;  // in program order
  };
  std::vector<Thread> threads;
  // What ptxas said about each cell, and which cells no ptxas run could judge.
  std::map<std::size_t, std::vector<std::string>> errors;
  std::map<std::size_t, std::string> unjudged;  // cell -> why (ptxas crashed, timed out)
  std::string module_problem;                   // ptxas rejects the wrapping itself
  bool done = false;                            // ptxas's verdicts are in
  bool assembled = false;                       // some cell went to ptxas
};

// The bytes a declaration of `e` holds (64 when nothing says).
std::int64_t declared_bytes(const InitEntry& e) {
  std::int64_t elem = e.type ? static_cast<std::int64_t>(width_of(*e.type) / 8) : 8;
  std::int64_t n = e.count ? static_cast<std::int64_t>(*e.count) : 1;
  if (!e.dims.empty()) {
    n = 1;
    for (std::size_t d : e.dims) n *= static_cast<std::int64_t>(d);
  }
  return std::max<std::int64_t>(elem * n, 16);
}

void plan_file(FilePlan& p, const PtxasTool& tool, std::size_t max_bytes) {
  PtxasFileResult& r = p.result;
  r.file = p.file;
  std::string text;
  try {
    text = read_litmus_source(p.file, max_bytes);
  } catch (const InputError& e) {
    r.redscope_accepts = false;
    r.redscope_error = e.diagnostic();
    r.reason = fmt::format("cannot be read: {}", e.diagnostic().message);
    return;
  }
  const Dialect* d = dialect_for(p.file, std::string_view(text).substr(0, kDialectHeadBytes));
  if (d && d->name != "ptx-litmus") {
    r.reason = fmt::format("not a PTX litmus test ({})", d->name);
    return;
  }
  // redscope's own verdict on the whole file: read and expanded.
  try {
    const LitmusTest t = parse_litmus(text, p.file);
    (void)expand(t, ExpandOptions{});
  } catch (const InputError& e) {
    r.redscope_accepts = false;
    r.redscope_error = e.diagnostic();
  } catch (const std::exception& e) {
    r.redscope_accepts = false;
    r.redscope_error = Diagnostic{p.file, {}, e.what()};
  }
  p.cells = ptx_cells(text, p.file);
  r.target_sm = p.cells.test.target_sm;
  if (p.cells.cells.empty()) {
    r.reason = r.redscope_error ? fmt::format("redscope rejects it before its instructions: {}",
                                              r.redscope_error->message)
                                : "no instruction";
    return;
  }
  p.ptx = true;
  const CellReader reader(p.cells, tool);
  p.threads.resize(p.cells.test.threads.size());
  std::map<std::string, std::int64_t> sizes;
  for (const InitEntry& e : p.cells.test.init)
    if (!e.thread) sizes[e.name] = declared_bytes(e);
  std::set<std::string> shared;
  for (const InitEntry& e : p.cells.test.init)
    if (!e.thread && e.space && *e.space != Space::Global && *e.space != Space::Generic)
      shared.insert(e.name);
  p.uses.resize(p.cells.cells.size());
  for (std::size_t c = 0; c < p.cells.cells.size(); ++c) {
    const PtxCell& cell = p.cells.cells[c];
    const bool label = cell.label || (cell.words.size() == 2 && cell.words[1].text == ":");
    if (label) {
      p.line_of_cell.push_back(-1);
      if (cell.thread < p.threads.size()) p.threads[cell.thread].cells.push_back(c);
      continue;
    }
    p.line_of_cell.push_back(static_cast<int>(r.lines.size()));
    PtxasLine line;
    line.loc = cell.loc;
    line.text = cell.text;
    line.redscope_accepts = !cell.error;
    if (cell.error) line.redscope_message = cell.error->message;
    p.uses[c] = reader.read(cell);
    line.not_checked = p.uses[c].not_ptx;
    for (const std::string& s : p.uses[c].shared_locations) shared.insert(s);
    r.lines.push_back(std::move(line));
    if (cell.thread < p.threads.size()) p.threads[cell.thread].cells.push_back(c);
  }
  // Registers: one PTX type each. A litmus register is untyped; one read at
  // two widths cannot be declared for both, and those lines are not judged.
  for (FilePlan::Thread& th : p.threads) {
    std::map<std::string, int> width;
    for (std::size_t c : th.cells) {
      const int li = p.line_of_cell[c];
      if (li < 0 || !r.lines[static_cast<std::size_t>(li)].not_checked.empty()) continue;
      const CellUse& u = p.uses[c];
      for (const auto& [name, wd] : u.registers) {
        const auto [it, fresh] = width.emplace(name, wd);
        if (!fresh && it->second != wd) {
          r.lines[static_cast<std::size_t>(li)].not_checked = fmt::format(
              "register '{}' is used here as {} and before as {} (a litmus register is "
              "untyped, a PTX register has one type)",
              name, register_type(wd), register_type(it->second));
          break;
        }
      }
      if (!r.lines[static_cast<std::size_t>(li)].not_checked.empty()) continue;
      for (const std::string& l : u.locations) {
        if (shared.count(l)) {
          const std::int64_t need = std::max(sizes.count(l) ? sizes[l] : 16,
                                             u.max_offset.count(l) ? u.max_offset.at(l) + 16 : 16);
          th.shared[l] = std::max(th.shared[l], need);
        } else if (std::find(th.params.begin(), th.params.end(), l) == th.params.end()) {
          th.params.push_back(l);
        }
      }
    }
    for (const auto& [name, wd] : width)
      if (!th.shared.count(name) &&
          std::find(th.params.begin(), th.params.end(), name) == th.params.end())
        th.registers.emplace_back(name, wd);
  }
  for (const PtxasLine& l : r.lines) p.assembled = p.assembled || l.not_checked.empty();
}

// Where a module's lines come from: module line -> (plan, cell).
struct LineMap {
  std::map<int, std::pair<std::size_t, std::size_t>> cell_at;
};

// Appends the kernels of plan `pi` to `out`: every cell, or only `only`
// (labels always), skipping `skip`.
void emit_kernels(const FilePlan& p, std::size_t pi, std::string& out, int& line, LineMap& map,
                  const std::set<std::size_t>& skip, std::optional<std::size_t> only) {
  auto put = [&](const std::string& s) {
    out += s;
    out += '\n';
    ++line;
  };
  for (std::size_t t = 0; t < p.threads.size(); ++t) {
    const FilePlan::Thread& th = p.threads[t];
    std::string params;
    for (const std::string& l : th.params)
      params += fmt::format("{}.param .u64 _param_{}", params.empty() ? "" : ", ", l);
    put(fmt::format(".visible .entry f{}_{}({})", pi, p.cells.test.threads[t].name, params));
    put("{");
    for (const std::string& l : th.params) put(fmt::format("  .reg .b64 {};", l));
    for (const auto& [name, size] : th.shared)
      put(fmt::format("  .shared .align 16 .b8 {}[{}];", name, size));
    for (const auto& [name, wd] : th.registers)
      put(fmt::format("  .reg {} {};", register_type(wd), name));
    for (const std::string& l : th.params)
      put(fmt::format("  ld.param.u64 {}, [_param_{}];", l, l));
    for (std::size_t c : th.cells) {
      const int li = p.line_of_cell[c];
      const PtxCell& cell = p.cells.cells[c];
      if (li < 0) {
        put(cell.text);
        continue;
      }
      const PtxasLine& l = p.result.lines[static_cast<std::size_t>(li)];
      if (!l.not_checked.empty() || skip.count(c) || (only && *only != c)) {
        put("  // " + cell.text);
        continue;
      }
      map.cell_at[line + 1] = {pi, c};
      put(fmt::format("  {};", cell.text));
    }
    put("  ret;");
    put("}");
  }
}

std::string module_head(const PtxasTool& tool, int target, int& line) {
  line = 3;
  return fmt::format(".version {}.{}\n.target sm_{}\n.address_size 64\n", tool.max_ptx / 10,
                     tool.max_ptx % 10, target);
}

// The outcome of one run for the plans it held: errors by cell, and
// whether the run judged them (no crash, no timeout, no syntax error).
struct RunOutcome {
  bool judged = false;
  std::set<std::size_t> plans_with_errors;
  std::string module_problem;  // a message on a line that is no instruction
  std::optional<std::pair<std::size_t, std::size_t>> fatal_cell;
};

RunOutcome attribute(const PtxasRun& run, const LineMap& map, std::vector<FilePlan*>& plans,
                     bool record) {
  RunOutcome o;
  if (!run.started) {
    o.module_problem = "ptxas could not be started";
    return o;
  }
  if (run.timed_out || run.crashed()) return o;
  for (const PtxasMessage& m : run.messages) {
    if (m.kind != "error" && m.kind != "fatal") continue;
    const auto it = map.cell_at.find(m.line);
    if (it == map.cell_at.end()) {
      if (m.line == 0 && m.text.find("aborted due to errors") != std::string::npos) continue;
      if (o.module_problem.empty())
        o.module_problem =
            m.line ? fmt::format("line {} of the module: {}", m.line, m.text) : m.text;
      continue;
    }
    o.plans_with_errors.insert(it->second.first);
    if (record) plans[it->second.first]->errors[it->second.second].push_back(m.text);
    if (m.kind == "fatal") o.fatal_cell = it->second;
  }
  o.judged = !run.fatal_at_line() && o.module_problem.empty();
  return o;
}

std::string crash_words(const PtxasRun& run, double timeout) {
  if (run.timed_out) return fmt::format("ptxas timed out (after {:g} s)", timeout);
  return fmt::format("ptxas crashed (signal {}{})", run.signal,
                     run.signal == SIGSEGV ? ", a segmentation fault" : "");
}

class Checker {
 public:
  Checker(const PtxasCheckOptions& o, ScratchDir& s) : opts_(o), scratch_(s) {}

  // One file alone: syntax errors (after which ptxas reads no further) are
  // taken one at a time, crashes and timeouts instruction by instruction.
  void run_file(FilePlan& p) {
    std::vector<FilePlan*> one{&p};
    p.errors.clear();
    std::set<std::size_t> skip;
    for (std::size_t round = 0; round <= p.cells.cells.size(); ++round) {
      std::string text;
      int line = 0;
      text = module_head(opts_.tool, p.result.target_sm, line);
      LineMap map;
      emit_kernels(p, 0, text, line, map, skip, std::nullopt);
      const PtxasRun run =
          run_ptxas(opts_.tool, scratch_, text, p.result.target_sm, opts_.timeout_seconds);
      if (run.timed_out || run.crashed()) return run_cells(p, skip);
      const RunOutcome o = attribute(run, map, one, true);
      if (!o.module_problem.empty()) {
        p.module_problem = o.module_problem;
        return;
      }
      if (!o.fatal_cell) {
        p.done = true;
        return;
      }
      // A syntax error stops ptxas: keep its verdict, read the rest without it.
      skip.insert(o.fatal_cell->second);
      for (auto& [c, msgs] : p.errors)
        if (!skip.count(c)) msgs.clear();
      std::erase_if(p.errors, [&](const auto& e) { return e.second.empty(); });
    }
    p.done = true;
  }

  // Each instruction in a module of its own (labels kept, for branches).
  void run_cells(FilePlan& p, const std::set<std::size_t>& decided) {
    std::vector<FilePlan*> one{&p};
    for (std::size_t c = 0; c < p.cells.cells.size(); ++c) {
      const int li = p.line_of_cell[c];
      if (li < 0 || decided.count(c) ||
          !p.result.lines[static_cast<std::size_t>(li)].not_checked.empty())
        continue;
      p.errors.erase(c);
      std::string text;
      int line = 0;
      text = module_head(opts_.tool, p.result.target_sm, line);
      LineMap map;
      emit_kernels(p, 0, text, line, map, {}, c);
      const PtxasRun run =
          run_ptxas(opts_.tool, scratch_, text, p.result.target_sm, opts_.timeout_seconds);
      if (run.timed_out || run.crashed()) {
        p.unjudged[c] = crash_words(run, opts_.timeout_seconds);
        continue;
      }
      const RunOutcome o = attribute(run, map, one, true);
      if (!o.module_problem.empty()) p.module_problem = o.module_problem;
    }
    p.done = true;
  }

  // Several files of one target in one module; a file the batch does not
  // settle is run alone.
  void run_batch(const std::vector<FilePlan*>& plans) {
    if (plans.size() == 1) return run_file(*plans.front());
    std::string text;
    int line = 0;
    text = module_head(opts_.tool, plans.front()->result.target_sm, line);
    LineMap map;
    for (std::size_t i = 0; i < plans.size(); ++i)
      emit_kernels(*plans[i], i, text, line, map, {}, std::nullopt);
    const PtxasRun run = run_ptxas(opts_.tool, scratch_, text, plans.front()->result.target_sm,
                                   opts_.timeout_seconds);
    std::vector<FilePlan*> ps = plans;
    const RunOutcome o = attribute(run, map, ps, false);
    for (std::size_t i = 0; i < plans.size(); ++i) {
      if (o.judged && !o.plans_with_errors.count(i))
        plans[i]->done = true;  // ptxas accepts every instruction of this file
      else
        run_file(*plans[i]);
    }
  }

 private:
  const PtxasCheckOptions& opts_;
  ScratchDir& scratch_;
};

// The verdicts of a planned and assembled file.
void conclude(FilePlan& p) {
  PtxasFileResult& r = p.result;
  if (!p.ptx) return;  // reason already set
  for (std::size_t c = 0; c < p.cells.cells.size(); ++c) {
    const int li = p.line_of_cell[c];
    if (li < 0) continue;
    PtxasLine& l = r.lines[static_cast<std::size_t>(li)];
    if (!l.not_checked.empty()) continue;
    if (const auto u = p.unjudged.find(c); u != p.unjudged.end()) {
      l.not_checked = u->second;
      continue;
    }
    if (!p.done) {
      l.not_checked = "ptxas gave no verdict";
      continue;
    }
    const auto e = p.errors.find(c);
    l.ptxas_accepts = e == p.errors.end() || e->second.empty();
    if (!l.ptxas_accepts) {
      std::vector<std::string> msgs;
      for (const std::string& m : e->second)
        if (std::find(msgs.begin(), msgs.end(), m) == msgs.end()) msgs.push_back(m);
      for (const std::string& m : msgs)
        l.ptxas_message += (l.ptxas_message.empty() ? "" : "; ") + m;
    }
    // redscope calls some valid PTX "not supported yet": no verdict on validity.
    const bool unsupported = !l.redscope_accepts &&
                             (l.redscope_message.find("not supported") != std::string::npos ||
                              l.redscope_message.find("unknown instruction") != std::string::npos);
    if (unsupported && l.ptxas_accepts) {
      l.not_checked = fmt::format("redscope does not support it ({})", l.redscope_message);
      continue;
    }
    l.checked = true;
  }
  if (!p.module_problem.empty()) {
    r.verdict = PtxasVerdict::CannotJudge;
    r.reason = fmt::format("ptxas rejects the module around the test: {}", p.module_problem);
    return;
  }
  const bool any_checked =
      std::any_of(r.lines.begin(), r.lines.end(), [](const PtxasLine& l) { return l.checked; });
  const bool any_disagree =
      std::any_of(r.lines.begin(), r.lines.end(), [](const PtxasLine& l) { return !l.agrees(); });
  if (any_disagree) {
    r.verdict = PtxasVerdict::Disagree;
    return;
  }
  // Why lines were not judged, the gravest first.
  auto first_reason = [&](std::string_view key) -> std::optional<std::string> {
    for (const PtxasLine& l : r.lines)
      if (!l.checked && l.not_checked.find(key) != std::string::npos) return l.not_checked;
    return std::nullopt;
  };
  if (!any_checked) {
    r.verdict = PtxasVerdict::CannotJudge;
    for (std::string_view key : {"ptxas crashed", "ptxas timed out", "needs PTX ISA",
                                 "does not support", "register '", "Dat3M"})
      if (auto why = first_reason(key)) {
        r.reason = fmt::format("no instruction ptxas can judge: {}", *why);
        return;
      }
    r.reason = "no instruction ptxas can judge";
    return;
  }
  if (!r.redscope_accepts && r.redscope_error) {
    const Diagnostic& e = *r.redscope_error;
    for (const PtxasLine& l : r.lines)
      if (!l.redscope_accepts && l.redscope_message == e.message && l.loc.line == e.loc.line) {
        if (l.checked) {
          r.verdict = PtxasVerdict::Agree;  // both reject this instruction
          return;
        }
        r.verdict = PtxasVerdict::CannotJudge;
        r.reason =
            fmt::format("redscope rejects an instruction ptxas cannot judge: {}", l.not_checked);
        return;
      }
    r.verdict = PtxasVerdict::CannotJudge;
    r.reason = fmt::format("redscope rejects it for a rule ptxas does not see: {}", e.message);
    return;
  }
  r.verdict = PtxasVerdict::Agree;
}

}  // namespace

std::optional<PtxasTool> find_ptxas(const std::optional<std::string>& given, std::string& why,
                                    double timeout) {
  // The probes wait at most 20 s, and never longer than a ptxas call may.
  const double probe_timeout = timeout > 0 ? std::min(timeout, 20.0) : 20.0;
  bool hung = false;
  std::vector<std::string> candidates;
  if (given) {
    if (given->find('/') == std::string::npos)
      candidates = on_path(*given);  // a bare name, as a shell finds it
    else
      candidates.push_back(*given);
  } else {
    candidates = on_path("ptxas");
    if (const char* home = std::getenv("CUDA_HOME"); home && *home)
      candidates.push_back(std::string(home) + "/bin/ptxas");
    candidates.push_back("/usr/local/cuda/bin/ptxas");
  }
  ScratchDir scratch("redscope-ptxas");
  for (const std::string& c : candidates) {
    if (access(c.c_str(), X_OK) != 0 || fs::is_directory(c)) continue;
    if (!scratch.ok()) break;
    PtxasTool t;
    t.path = c;
    const PtxasRun v = run_tool({c, "--version"}, scratch, probe_timeout);
    hung = hung || v.timed_out;
    if (!v.started || v.timed_out || v.exit_code != 0 || v.signal) continue;
    const std::size_t rel = v.output.find("release ");
    if (rel != std::string::npos) {
      const std::size_t e = v.output.find(',', rel);
      t.release =
          v.output.substr(rel + 8, e == std::string::npos ? std::string::npos : e - rel - 8);
    }
    // The highest .version it reads: the one a too-new .version names.
    const std::string probe = scratch.file("ptx");
    {
      std::ofstream f(probe);
      f << ".version 99.9\n.target sm_75\n.address_size 64\n";
    }
    const PtxasRun pv =
        run_tool({c, "-arch=sm_75", "-o", "/dev/null", probe}, scratch, probe_timeout);
    hung = hung || pv.timed_out;
    const std::size_t cur = pv.output.find("current version is '");
    if (cur != std::string::npos) {
      const int major = std::atoi(pv.output.c_str() + cur + 20);
      const std::size_t dot = pv.output.find('.', cur + 20);
      const int minor = dot == std::string::npos ? 0 : std::atoi(pv.output.c_str() + dot + 1);
      t.max_ptx = major * 10 + minor;
    }
    if (t.max_ptx == 0) continue;
    return t;
  }
  const std::string late =
      hung ? fmt::format(" (a probe got no answer within {:g} s: --timeout)", probe_timeout) : "";
  why = given
            ? fmt::format("'{}' is not a ptxas that runs{}", *given, late)
            : fmt::format("no ptxas on PATH, in $CUDA_HOME/bin or in /usr/local/cuda/bin{}", late);
  return std::nullopt;
}

std::vector<PtxasFileResult> ptxas_check(const std::vector<std::string>& files,
                                         const PtxasCheckOptions& opts) {
  std::vector<FilePlan> plans(files.size());
  for (std::size_t i = 0; i < files.size(); ++i) plans[i].file = files[i];
  parallel_for(plans.size(), std::max(1u, opts.jobs),
               [&](std::size_t i) { plan_file(plans[i], opts.tool, opts.max_file_bytes); });
  // Batches: files of one target, up to files_per_call each.
  std::map<int, std::vector<FilePlan*>> by_target;
  for (FilePlan& p : plans)
    if (p.ptx && p.assembled) by_target[p.result.target_sm].push_back(&p);
  std::vector<std::vector<FilePlan*>> batches;
  for (auto& [target, ps] : by_target)
    for (std::size_t i = 0; i < ps.size(); i += std::max<std::size_t>(opts.files_per_call, 1))
      batches.emplace_back(
          ps.begin() + static_cast<std::ptrdiff_t>(i),
          ps.begin() + static_cast<std::ptrdiff_t>(
                           std::min(ps.size(), i + std::max<std::size_t>(opts.files_per_call, 1))));
  ScratchDir scratch("redscope-ptxas");
  Checker checker(opts, scratch);
  parallel_for(batches.size(), std::max(1u, opts.jobs),
               [&](std::size_t b) { checker.run_batch(batches[b]); });
  if (opts.ptx_dir) {
    std::error_code ec;
    fs::create_directories(*opts.ptx_dir, ec);
  }
  std::vector<PtxasFileResult> out;
  for (FilePlan& p : plans) {
    if (p.ptx && !p.assembled) p.done = true;
    conclude(p);
    if (opts.ptx_dir && p.ptx) {
      int line = 0;
      std::string text = module_head(opts.tool, p.result.target_sm, line);
      LineMap map;
      emit_kernels(p, 0, text, line, map, {}, std::nullopt);
      std::ofstream(fs::path(*opts.ptx_dir) / (fs::path(p.file).stem().string() + ".ptx")) << text;
    }
    out.push_back(std::move(p.result));
  }
  return out;
}

std::string ptxas_module_of(const std::string& file, const PtxasTool& tool,
                            std::size_t max_file_bytes, std::string* why_none) {
  FilePlan p;
  p.file = file;
  plan_file(p, tool, max_file_bytes);
  if (!p.ptx) {
    if (why_none) *why_none = p.result.reason;
    return {};
  }
  int line = 0;
  std::string text = module_head(tool, p.result.target_sm, line);
  LineMap map;
  emit_kernels(p, 0, text, line, map, {}, std::nullopt);
  return text;
}

std::string render_ptxas_text(const PtxasFileResult& r, bool brief) {
  std::size_t checked = 0;
  for (const PtxasLine& l : r.lines) checked += l.checked ? 1 : 0;
  std::string out;
  switch (r.verdict) {
    case PtxasVerdict::Agree:
      out = fmt::format("{}: agree ({} of {} instructions assembled; redscope {})", r.file, checked,
                        r.lines.size(),
                        r.redscope_accepts ? "and ptxas accept them" : "and ptxas reject it");
      break;
    case PtxasVerdict::Disagree: out = fmt::format("{}: DISAGREE", r.file); break;
    case PtxasVerdict::CannotJudge:
      out = fmt::format("{}: cannot judge: {}", r.file, r.reason);
      break;
  }
  out += '\n';
  for (const PtxasLine& l : r.lines) {
    const std::string at = fmt::format("{}:{}:{}", r.file, l.loc.line, l.loc.col);
    if (!l.agrees()) {
      if (l.redscope_accepts)
        out += fmt::format("  {}: redscope accepts '{}', ptxas rejects it: {}\n", at, l.text,
                           l.ptxas_message);
      else
        out += fmt::format("  {}: ptxas accepts '{}', redscope rejects it: {}\n", at, l.text,
                           l.redscope_message);
    } else if (!brief && l.checked && !l.ptxas_accepts) {
      out += fmt::format("  {}: both reject '{}' (ptxas: {})\n", at, l.text, l.ptxas_message);
    } else if (!brief && !l.checked) {
      out += fmt::format("  {}: not checked: '{}': {}\n", at, l.text, l.not_checked);
    }
  }
  return out;
}

Json ptxas_json(const PtxasFileResult& r) {
  Json o = Json::object();
  o.set("file", r.file);
  o.set("verdict", std::string(to_string(r.verdict)));
  if (!r.reason.empty()) o.set("reason", r.reason);
  if (r.target_sm > 0) o.set("target", fmt::format("sm_{}", r.target_sm));
  o.set("redscope_accepts", r.redscope_accepts);
  if (r.redscope_error) o.set("redscope_error", r.redscope_error->render());
  Json lines = Json::array();
  for (const PtxasLine& l : r.lines) {
    Json j = Json::object();
    j.set("line", l.loc.line);
    j.set("col", l.loc.col);
    j.set("text", l.text);
    j.set("checked", l.checked);
    if (l.checked) {
      j.set("redscope_accepts", l.redscope_accepts);
      j.set("ptxas_accepts", l.ptxas_accepts);
      j.set("agree", l.agrees());
    } else {
      j.set("not_checked", l.not_checked);
    }
    if (!l.redscope_message.empty()) j.set("redscope_error", l.redscope_message);
    if (!l.ptxas_message.empty()) j.set("ptxas_error", l.ptxas_message);
    lines.push(std::move(j));
  }
  o.set("instructions", std::move(lines));
  return o;
}

}  // namespace redscope
