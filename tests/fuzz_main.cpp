// redscope_fuzz: a mutation fuzzer over the parser and every engine (issue
// 12, item 9). It mutates the files of its corpus (litmus/ and
// ../shared/conformance by default) and runs each mutant through
//   parse → run_z3 → expand → run_enum → run_op → check_atomicity → explain → xval_file
// with small limits (unroll 1, 16 paths, 64 outcomes, enum limit 20000), so
// that each input is cheap. An input may only end with a result or an
// InputError located at file:line:col; anything else (another exception, an
// unlocated diagnostic, an internal solver error, a crash or sanitizer report)
// is a finding, written with its mutant under the findings directory.
//
// Each input runs in a forked child (the library is called in-process there;
// the parent only mutates and keeps count), so a crash or a hang ends one
// input, not the run. Time is CPU time, so that load on the machine does not
// make inputs slow: an input over --slow seconds is a slow finding, and one
// over --hang seconds is killed (RLIMIT_CPU) and written as a hang finding.
// Both are reported and the run goes on; they fail the run only with
// --fail-on-slow.
//
//   redscope_fuzz [--seconds N] [--seed S] [--corpus DIR]... [--findings DIR]
//                 [--slow SECONDS] [--hang SECONDS] [--inputs N] [--fail-on-slow] [--no-fork]
//                 [--verbose]
//   redscope_fuzz --replay FILE...     (each file once, in-process: verdict and stage times)
//
// Exit status: 0 when no input failed, 1 on findings, 2 on bad usage.
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include <fmt/format.h>
#include <z3++.h>

#include "redscope/analysis/atomicity.hpp"
#include "redscope/analysis/explain.hpp"
#include "redscope/analysis/xval.hpp"
#include "redscope/driver/suite.hpp"
#include "redscope/engine/engine.hpp"
#include "redscope/frontend/frontend.hpp"
#include "redscope/report/report.hpp"

using namespace redscope;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// Process CPU seconds: the caps compare CPU time, not wall time, so that a
// loaded machine does not turn every input into a "slow" one.
double cpu_now() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

namespace {

struct Options {
  double seconds = 60;
  std::uint64_t seed = 0;
  bool seed_given = false;
  std::vector<std::string> corpus;
  std::string findings = "fuzz-findings";
  double slow = 5;
  double hang = 60;
  std::size_t max_inputs = 0;  // 0: until --seconds
  bool fail_on_slow = false;
  bool verbose = false;             // print every input's diagnostic
  bool no_fork = false;             // run inputs in this process (no crash or hang isolation)
  std::vector<std::string> replay;  // files to run once each, with stage times
};

[[noreturn]] void usage(const std::string& why) {
  std::cerr << "redscope_fuzz: " << why << "\n"
            << "usage: redscope_fuzz [--seconds N] [--seed S] [--corpus DIR]... [--findings DIR]\n"
            << "                     [--slow SECONDS] [--hang SECONDS] [--inputs N] "
               "[--fail-on-slow] [--no-fork] [--verbose]\n"
            << "       redscope_fuzz --replay FILE...\n";
  std::exit(2);
}

Options parse_args(int argc, char** argv) {
  Options o;
  auto need = [&](int& i) -> std::string {
    if (i + 1 >= argc) usage(std::string("missing value after ") + argv[i]);
    return argv[++i];
  };
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      if (a == "--seconds")
        o.seconds = std::stod(need(i));
      else if (a == "--seed") {
        o.seed = std::stoull(need(i));
        o.seed_given = true;
      } else if (a == "--corpus")
        o.corpus.push_back(need(i));
      else if (a == "--findings")
        o.findings = need(i);
      else if (a == "--slow")
        o.slow = std::stod(need(i));
      else if (a == "--hang")
        o.hang = std::stod(need(i));
      else if (a == "--inputs")
        o.max_inputs = std::stoull(need(i));
      else if (a == "--fail-on-slow")
        o.fail_on_slow = true;
      else if (a == "--replay") {
        o.replay.push_back(need(i));
        while (i + 1 < argc && argv[i + 1][0] != '-') o.replay.push_back(argv[++i]);
      } else if (a == "--no-fork")
        o.no_fork = true;
      else if (a == "--verbose")
        o.verbose = true;
      else if (a == "-h" || a == "--help")
        usage("help");
      else
        usage("unknown argument " + a);
    }
  } catch (const std::logic_error&) {
    usage("bad number");
  }
  if (o.corpus.empty()) {
    o.corpus.push_back(std::string(REDSCOPE_SOURCE_DIR) + "/litmus");
    o.corpus.push_back(std::string(REDSCOPE_SHARED_DIR) + "/conformance");
  }
  if (!o.seed_given)
    o.seed =
        static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
  return o;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void spit(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < s.size()) {
    std::size_t end = s.find('\n', start);
    if (end == std::string::npos)
      end = s.size();
    else
      ++end;
    out.push_back(s.substr(start, end - start));
    start = end;
  }
  return out;
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string s;
  for (const std::string& l : lines) s += l;
  return s;
}

// ---- mutation --------------------------------------------------------------

struct Corpus {
  std::vector<std::string> files, texts;
  std::vector<std::string> tokens;  // words of every file
  std::vector<std::string> cells;   // instruction cells of code lines ("ld.weak r0, x")
};

Corpus load_corpus(const std::vector<std::string>& dirs) {
  Corpus c;
  std::set<std::string> tokens, cells;
  for (const std::string& d : dirs) {
    if (!fs::exists(d)) {
      std::cerr << "redscope_fuzz: corpus " << d << " not found, skipped\n";
      continue;
    }
    for (const std::string& f : collect_litmus_files({d})) {
      c.files.push_back(f);
      c.texts.push_back(slurp(f));
      const std::string& t = c.texts.back();
      std::string w;
      for (char ch : t) {
        if (std::isspace(static_cast<unsigned char>(ch)) || ch == '|' || ch == ';' || ch == ',') {
          if (!w.empty()) tokens.insert(w);
          w.clear();
        } else {
          w += ch;
        }
      }
      for (const std::string& line : split_lines(t)) {
        if (line.find('|') == std::string::npos) continue;
        std::size_t start = 0;
        for (;;) {
          std::size_t bar = line.find_first_of("|;", start);
          std::string cell =
              line.substr(start, bar == std::string::npos ? std::string::npos : bar - start);
          const auto b = cell.find_first_not_of(" \t"), e = cell.find_last_not_of(" \t\r\n");
          if (b != std::string::npos) cells.insert(cell.substr(b, e - b + 1));
          if (bar == std::string::npos || line[bar] == ';') break;
          start = bar + 1;
        }
      }
    }
  }
  c.tokens.assign(tokens.begin(), tokens.end());
  c.cells.assign(cells.begin(), cells.end());
  return c;
}

const std::vector<std::string> kBoundary = {"0",
                                            "1",
                                            "-1",
                                            "2",
                                            "7",
                                            "8",
                                            "15",
                                            "16",
                                            "31",
                                            "32",
                                            "63",
                                            "64",
                                            "127",
                                            "128",
                                            "255",
                                            "256",
                                            "65535",
                                            "65536",
                                            "2147483647",
                                            "2147483648",
                                            "-2147483648",
                                            "-2147483649",
                                            "4294967295",
                                            "4294967296",
                                            "9223372036854775807",
                                            "9223372036854775808",
                                            "-9223372036854775808",
                                            "18446744073709551615",
                                            "18446744073709551616",
                                            "99999999999999999999999999",
                                            "0x7fffffff",
                                            "0xffffffff",
                                            "0x8000000000000000",
                                            "0xffffffffffffffff",
                                            "0x",
                                            "0x1p",
                                            "1e308",
                                            "1e309",
                                            "-0.0",
                                            "0.0",
                                            "nan",
                                            "-nan",
                                            "inf",
                                            "-inf",
                                            "3.4028235e38",
                                            "1.4e-45",
                                            "5e-324",
                                            "0.1",
                                            "1.5",
                                            "65504",
                                            "65520",
                                            "00",
                                            "-",
                                            "+1",
                                            "1.",
                                            ".5"};

class Mutator {
 public:
  Mutator(const Corpus& c, std::mt19937_64& rng) : c_(c), rng_(rng) {}

  // A mutant of a random corpus file, and a short description of the edits.
  std::pair<std::string, std::string> next() {
    const std::size_t f = pick(c_.texts.size());
    std::string s = c_.texts[f];
    std::string how = fs::path(c_.files[f]).filename().string();
    const int edits = chance(60) ? 1 : chance(60) ? 2 : 3 + static_cast<int>(pick(2));
    for (int e = 0; e < edits; ++e) how += " " + mutate(s);
    return {s, how};
  }

 private:
  std::size_t pick(std::size_t n) {
    return n == 0 ? 0 : std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_);
  }
  bool chance(int percent) { return static_cast<int>(pick(100)) < percent; }

  static std::string trimmed(const std::string& l) {
    const auto b = l.find_first_not_of(" \t");
    return b == std::string::npos ? "" : l.substr(b);
  }
  // The thread header line ("P0@cta 0,gpu 0 | P1 ;"), or lines.size().
  static std::size_t header_line(const std::vector<std::string>& lines) {
    for (std::size_t i = 0; i < lines.size(); ++i)
      if (trimmed(lines[i]).rfind("P0", 0) == 0 && lines[i].find(';') != std::string::npos)
        return i;
    return lines.size();
  }
  // A line of the instruction table (after the header, before the condition).
  std::size_t code_line(const std::vector<std::string>& lines) {
    std::vector<std::size_t> code;
    for (std::size_t i = header_line(lines) + 1; i < lines.size(); ++i) {
      const std::string t = trimmed(lines[i]);
      if (t.rfind("exists", 0) == 0 || t.rfind("forall", 0) == 0 || t.rfind("~exists", 0) == 0 ||
          t.rfind("locations", 0) == 0 || t.rfind("filter", 0) == 0)
        break;
      if (lines[i].find(';') != std::string::npos) code.push_back(i);
    }
    if (code.empty()) return pick(lines.size());
    return code[pick(code.size())];
  }

  // Replaces column `col` of a code line by `cell`.
  static std::string with_cell(const std::string& line, std::size_t col, const std::string& cell) {
    std::vector<std::size_t> bars{static_cast<std::size_t>(-1)};
    for (std::size_t i = 0; i < line.size(); ++i)
      if (line[i] == '|') bars.push_back(i);
    const std::size_t end_all =
        line.find(';') == std::string::npos ? line.find_last_not_of("\r\n") + 1 : line.rfind(';');
    col %= bars.size();
    const std::size_t b = bars[col] + 1;
    const std::size_t e = col + 1 < bars.size() ? bars[col + 1] : end_all;
    if (b > e || e > line.size()) return line;
    return line.substr(0, b) + " " + cell + " " + line.substr(e);
  }

  std::string mutate(std::string& s) {
    static const std::string alphabet = ";|,{}[]()\n0123456789.:=~/\\ -@+*&!<>rPxyLCabz\"\t";
    if (s.empty()) {
      s = "PTX x\n{}\n P0 ;\n ld.weak r0, x ;\nexists (P0:r0=0)\n";
      return "reset";
    }
    auto pos = [&] { return pick(s.size()); };
    std::vector<std::string> lines = split_lines(s);
    // Byte edits mostly break the syntax; a quarter of the edits are those,
    // the rest keep most of the structure so that mutants reach the engines.
    static const std::size_t byte_ops[] = {0, 1, 2, 13, 14};
    static const std::size_t struct_ops[] = {3, 4, 5, 6, 7, 8, 9, 10, 10, 11, 12, 12, 15};
    const std::size_t op =
        chance(25) ? byte_ops[pick(std::size(byte_ops))] : struct_ops[pick(std::size(struct_ops))];
    switch (op) {
      case 0: {
        const std::size_t p = pos();
        s.erase(p, 1 + pick(std::min<std::size_t>(8, s.size() - p)));
        return "del-bytes";
      }
      case 1: s.insert(pos(), 1, alphabet[pick(alphabet.size())]); return "ins-byte";
      case 2: s[pos()] = alphabet[pick(alphabet.size())]; return "set-byte";
      case 3: {  // duplicate a line, now and then many times
        const std::size_t l = code_line(lines);
        const std::size_t k = chance(90) ? 1 + pick(3) : (chance(50) ? 20 : 200);
        lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(l), k, lines[l]);
        s = join_lines(lines);
        return fmt::format("dup-line*{}", k);
      }
      case 4: {
        lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(pick(lines.size())));
        s = join_lines(lines);
        return "del-line";
      }
      case 5: {
        std::swap(lines[pick(lines.size())], lines[pick(lines.size())]);
        s = join_lines(lines);
        return "swap-lines";
      }
      case 6:
      case 7: {  // replace a word by a word of the corpus
        if (c_.tokens.empty()) return "noop";
        const std::size_t p = s.find_first_not_of(" \t\n|;,", pos());
        if (p == std::string::npos) return "noop";
        std::size_t e = s.find_first_of(" \t\n|;,", p);
        if (e == std::string::npos) e = s.size();
        s.replace(p, e - p, c_.tokens[pick(c_.tokens.size())]);
        return "token";
      }
      case 8: {  // a number becomes a boundary value
        std::size_t p = s.find_first_of("0123456789", pos());
        if (p == std::string::npos) p = s.find_first_of("0123456789");
        if (p == std::string::npos) return "noop";
        std::size_t e = s.find_first_not_of("0123456789.xXabcdefABCDEF", p);
        if (e == std::string::npos) e = s.size();
        if (p > 0 && s[p - 1] == '-') --p;
        s.replace(p, e - p, kBoundary[pick(kBoundary.size())]);
        return "boundary";
      }
      case 9: {  // splice: a prefix of this file, a suffix of another
        const std::string& o = c_.texts[pick(c_.texts.size())];
        const std::vector<std::string> other = split_lines(o);
        if (other.empty()) return "noop";
        const std::size_t a = pick(lines.size() + 1), b = pick(other.size());
        std::vector<std::string> out(lines.begin(), lines.begin() + static_cast<std::ptrdiff_t>(a));
        out.insert(out.end(), other.begin() + static_cast<std::ptrdiff_t>(b), other.end());
        s = join_lines(out);
        return "splice";
      }
      case 10: {  // a cell of a code line becomes a cell of the corpus
        if (c_.cells.empty()) return "noop";
        const std::size_t l = code_line(lines);
        lines[l] = with_cell(lines[l], pick(4), c_.cells[pick(c_.cells.size())]);
        s = join_lines(lines);
        return "cell";
      }
      case 11: {  // deep nesting
        static const std::vector<std::string> open = {"(", "~", "~(", "[", "{", "\"", "!"};
        const std::string& o = open[pick(open.size())];
        const std::size_t k = chance(70) ? 1 + pick(20) : (chance(50) ? 300 : 5000);
        std::string ins;
        for (std::size_t i = 0; i < k; ++i) ins += o;
        std::size_t p = s.rfind("exists");
        if (p == std::string::npos || chance(30))
          p = pos();
        else
          p = s.find('(', p) == std::string::npos ? pos() : s.find('(', p);
        s.insert(p, ins);
        if (chance(50))
          s.insert(std::min(s.size(), p + ins.size() + 1 + pick(20)),
                   std::string(k, o == "["   ? ']'
                                  : o == "{" ? '}'
                                             : ')'));
        return fmt::format("nest*{}", k);
      }
      case 12: {  // a chain of dependent local operations in one column
        static const std::vector<std::string> ops = {
            "add r0, r0, 1",         "add r0, r0, r0",    "mul r1, r1, r0",
            "sub r2, r2, r0",        "@p0 add r0, r0, 1", "add.f32 r0, r0, r0",
            "setp.eq.s32 p0, r0, 1", "mov r0, r1",        "mov r1, r0"};
        const std::size_t l = code_line(lines);
        const std::size_t k = chance(80) ? 1 + pick(8) : (chance(50) ? 64 : 1200);
        const std::size_t col = pick(4);
        std::vector<std::string> chain;
        for (std::size_t i = 0; i < k; ++i)
          chain.push_back(with_cell(lines[l], col, ops[pick(ops.size())]));
        lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(l), chain.begin(), chain.end());
        s = join_lines(lines);
        return fmt::format("chain*{}", k);
      }
      case 13: s.resize(pos()); return "truncate";
      case 14: {  // copy a random span elsewhere
        const std::size_t a = pos(), n = 1 + pick(std::min<std::size_t>(64, s.size() - a));
        s.insert(pos(), s.substr(a, n));
        return "copy-span";
      }
      default: {  // a column more: a new thread, with a copy of the last one's code
        const std::size_t h = header_line(lines);
        for (std::size_t i = h; i < lines.size(); ++i) {
          std::string& l = lines[i];
          const std::string t = trimmed(l);
          if (t.rfind("exists", 0) == 0 || t.rfind("forall", 0) == 0 ||
              t.rfind("~exists", 0) == 0 || t.rfind("locations", 0) == 0)
            break;
          if (l.find(';') == std::string::npos) continue;
          if (i == h) {
            const std::size_t semi = l.rfind(';');
            l.insert(semi, fmt::format("| P{} ", std::count(l.begin(), l.end(), '|') + 1));
            continue;
          }
          const std::size_t semi = l.rfind(';');
          if (semi == std::string::npos) continue;
          const std::size_t bar = l.rfind('|');
          l.insert(semi, "| " + l.substr(bar + 1, semi - bar - 1));
        }
        s = join_lines(lines);
        return "add-column";
      }
    }
  }

  const Corpus& c_;
  std::mt19937_64& rng_;
};

// ---- running one input -----------------------------------------------------

struct Verdict {
  enum Kind { Result, Diagnostic, Finding } kind = Result;
  std::string stage;   // where it ended (finding or diagnostic)
  std::string detail;  // the finding
};

const std::regex kLocated(R"(^[^:\n]+:([0-9]+):([0-9]+): error: [^\n]+)");

// A diagnostic is acceptable when it names `file` with a line and column.
std::optional<std::string> check_located(const std::string& rendered, const std::string& file) {
  std::smatch m;
  if (rendered.rfind(file + ":", 0) != 0 || !std::regex_search(rendered, m, kLocated))
    return "diagnostic without file:line:col: " + rendered;
  if (m[1] == "0") return "diagnostic at line 0: " + rendered;
  if (rendered.find("internal") != std::string::npos) return "internal error: " + rendered;
  return std::nullopt;
}

class Runner {
 public:
  Runner(std::string file_for_xval) : xfile_(std::move(file_for_xval)) {
    o_.expand.unroll = 1;
    o_.expand.max_paths = 16;
    o_.max_outcomes = 64;
    o_.enum_limit = 20000;
    o_.workers = 1;
  }

  std::map<std::string, double> stage_seconds;
  std::size_t enum_skipped = 0;

  // The enumerator's --enum-limit counts rf candidates only; its coherence
  // fence-SC and barrier choices (3 per pair of writes to a cell, 2 per pair
  // of fence.sc, which arrivals each barrier saw) are not bounded, so inputs whose estimate exceeds
  // 2^kEnumMaxLog2 skip run_enum (counted; see docs/testing.md).
  static constexpr double kEnumMaxLog2 = 18;
  double enum_search_log2(const LitmusTest& t) const {
    const Expansion ex = expand(t, o_.expand);
    double worst = 0;
    for (const Skeleton& sk : ex.skeletons) {
      std::map<std::string, double> writes;
      double fences = 0, barriers = 0;
      for (EventId e = 0; e < sk.size(); ++e) {
        const Event& ev = sk.ev(e);
        if (ev.is_write() && !ev.is_init) writes[ev.loc] += 1;
        if (ev.is_sc_fence()) fences += 1;
        if (ev.is_barrier()) barriers += 1;
      }
      double l = fences * (fences - 1) / 2 + barriers * (barriers - 1) / 2;
      for (const auto& [loc, w] : writes) l += w * (w - 1) / 2 * 1.585;
      worst = std::max(worst, l);
    }
    return worst;
  }

  template <class F>
  auto timed(const std::string& stage, F&& f) {
    struct Add {
      std::map<std::string, double>& m;
      const std::string& s;
      double t0;
      ~Add() { m[s] += cpu_now() - t0; }
    } add{stage_seconds, stage, cpu_now()};
    return f();
  }

  Verdict run(const std::string& text) {
    const std::string file = "mutant.litmus";
    std::string stage = "parse";
    try {
      const LitmusTest t = timed(stage, [&] { return parse_litmus(text, file); });
      stage = "run_z3";
      const TestResult z = timed(stage, [&] { return run_z3(t, o_); });
      (void)render_text(z);
      (void)render_json({z});
      stage = "expand";
      const double log2_co = timed(stage, [&] { return enum_search_log2(t); });
      stage = "run_enum";
      if (log2_co <= kEnumMaxLog2) {
        const TestResult e = timed(stage, [&] { return run_enum(t, o_); });
        (void)render_text(e);
      } else {
        ++enum_skipped;
      }
      stage = "run_op";
      const TestResult op = timed(stage, [&] { return run_op(t, o_); });
      (void)render_text(op);
      stage = "atomicity";
      const AtomicityResult a = timed(stage, [&] { return check_atomicity(t, o_); });
      (void)render_atomicity_text(a);
      (void)render_atomicity_json({a});
      stage = "explain";
      const Explanation x = timed(stage, [&] { return explain(t, o_, ExplainRequest{}); });
      (void)render_text(x);
      (void)render_json(x);
      stage = "xval";
      const XvalResult v = timed(stage, [&] { return xval_file(xfile_, o_); });
      (void)render_xval_text(v);
      (void)render_xval_json({v});
      if (v.error) {
        if (auto bad = check_located(*v.error, xfile_)) return {Verdict::Finding, stage, *bad};
        return {Verdict::Diagnostic, stage, *v.error};
      }
      return {Verdict::Result, "", ""};
    } catch (const InputError& e) {
      if (auto bad = check_located(e.diagnostic().render(), file))
        return {Verdict::Finding, stage, *bad};
      return {Verdict::Diagnostic, stage, e.diagnostic().render()};
    } catch (const z3::exception& e) {
      return {Verdict::Finding, stage, std::string("z3::exception: ") + e.msg()};
    } catch (const std::exception& e) {
      return {Verdict::Finding, stage, std::string("unexpected exception: ") + e.what()};
    } catch (...) {
      return {Verdict::Finding, stage, "unexpected non-std exception"};
    }
  }

 private:
  EngineOptions o_;
  std::string xfile_;
};

// The verdict of one input run in a forked child, so that a crash, a
// sanitizer report or a hang ends the child and the run goes on. The child
// has RLIMIT_CPU = the hang cap (SIGXCPU), and an alarm at 20 times it.
struct Isolated {
  Verdict v;
  std::map<std::string, double> stages;
  bool enum_skipped = false;
  double cpu = 0;     // the child's user + system seconds
  bool hang = false;  // killed by the CPU or wall cap
};

std::string one_line(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s;
}

Isolated run_isolated(const std::string& text, const std::string& xfile, double hang_cap,
                      bool fork_child) {
  Isolated out;
  if (!fork_child) {
    Runner r(xfile);
    const double c0 = cpu_now();
    out.v = r.run(text);
    out.cpu = cpu_now() - c0;
    out.stages = r.stage_seconds;
    out.enum_skipped = r.enum_skipped > 0;
    return out;
  }
  int fds[2];
  if (pipe(fds) != 0) {
    perror("pipe");
    std::exit(2);
  }
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    perror("fork");
    std::exit(2);
  }
  if (pid == 0) {
    close(fds[0]);
    const auto cap = static_cast<rlim_t>(std::ceil(hang_cap));
    const rlimit rl{cap, cap + 2};
    setrlimit(RLIMIT_CPU, &rl);
    alarm(static_cast<unsigned>(cap * 20));
    Runner r(xfile);
    const Verdict v = r.run(text);
    std::string msg = fmt::format("{}\n{}\n{}\n{}\n", static_cast<int>(v.kind), one_line(v.stage),
                                  one_line(v.detail), r.enum_skipped);
    for (const auto& [st, t] : r.stage_seconds) msg += fmt::format("{}\t{}\n", st, t);
    std::size_t off = 0;
    while (off < msg.size()) {
      const ssize_t n = write(fds[1], msg.data() + off, msg.size() - off);
      if (n <= 0) break;
      off += static_cast<std::size_t>(n);
    }
    close(fds[1]);
    std::_Exit(0);
  }
  close(fds[1]);
  std::string msg;
  char buf[4096];
  for (;;) {
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n > 0) {
      msg.append(buf, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    break;
  }
  close(fds[0]);
  int status = 0;
  rusage ru{};
  while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR) {}
  out.cpu = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
            static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    if (sig == SIGXCPU || sig == SIGALRM || sig == SIGKILL) {
      out.hang = true;
      out.v = {Verdict::Result, "", ""};
      return out;
    }
    out.v = {Verdict::Finding, "child",
             fmt::format("crashed with signal {} ({})", sig, strsignal(sig))};
    return out;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || msg.empty()) {
    out.v = {Verdict::Finding, "child",
             fmt::format("exited with status {} (a sanitizer report?)", WEXITSTATUS(status))};
    return out;
  }
  std::istringstream in(msg);
  std::string kind, skipped, line;
  std::getline(in, kind);
  std::getline(in, out.v.stage);
  std::getline(in, out.v.detail);
  std::getline(in, skipped);
  out.v.kind = static_cast<Verdict::Kind>(std::stoi(kind));
  out.enum_skipped = skipped != "0";
  while (std::getline(in, line)) {
    const auto tab = line.find('\t');
    if (tab != std::string::npos) out.stages[line.substr(0, tab)] = std::stod(line.substr(tab + 1));
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const Options opt = parse_args(argc, argv);
  fs::create_directories(opt.findings);
  const std::string current = opt.findings + "/current.litmus";
  if (fs::exists(current))
    std::cerr << "redscope_fuzz: note: " << current
              << " is the input of a previous run that did not finish (a crash?)\n";
  if (!opt.replay.empty()) {  // reproduce findings: each file once, with its stage times
    int status = 0;
    for (const std::string& f : opt.replay) {
      Runner r(current);
      const std::string text = slurp(f);
      spit(current, text);
      const Verdict v = r.run(text);
      std::cout << f << ": "
                << (v.kind == Verdict::Result       ? "result"
                    : v.kind == Verdict::Diagnostic ? "diagnostic"
                                                    : "FINDING")
                << (v.stage.empty() ? "" : " in " + v.stage)
                << (v.detail.empty() ? "" : ": " + v.detail) << "\n ";
      for (const auto& [st, t] : r.stage_seconds) std::cout << fmt::format(" {} {:.2f} s;", st, t);
      std::cout << "\n";
      if (r.enum_skipped)
        std::cout << "  (run_enum skipped: too many coherence/fence-SC/barrier choices)\n";
      if (v.kind == Verdict::Finding) status = 1;
    }
    fs::remove(current);
    return status;
  }
  const Corpus corpus = load_corpus(opt.corpus);
  if (corpus.texts.empty()) usage("empty corpus");
  std::cout << fmt::format(
                   "redscope_fuzz: seed {}, {} corpus files, {} s, slow > {} s, hang > {} s, "
                   "findings in {}\n",
                   opt.seed, corpus.texts.size(), opt.seconds, opt.slow, opt.hang, opt.findings)
            << std::flush;

  std::mt19937_64 rng(opt.seed);
  Mutator mut(corpus, rng);
  std::size_t inputs = 0, results = 0, diagnostics = 0, failed = 0, slow = 0, hangs = 0,
              enum_skipped = 0;
  std::map<std::string, std::size_t> diag_stage;
  std::map<std::string, double> stage_seconds;
  double cpu_total = 0;
  const auto t0 = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  double next_progress = 15;
  while (elapsed() < opt.seconds && (opt.max_inputs == 0 || inputs < opt.max_inputs)) {
    // The first inputs are corpus files themselves.
    std::string text, how;
    if (inputs < corpus.texts.size() && inputs < 16) {
      text = corpus.texts[inputs];
      how = fs::path(corpus.files[inputs]).filename().string();
    } else
      std::tie(text, how) = mut.next();
    spit(current, text);
    const Isolated r = run_isolated(text, current, opt.hang, !opt.no_fork);
    ++inputs;
    cpu_total += r.cpu;
    enum_skipped += r.enum_skipped ? 1 : 0;
    for (const auto& [st, t] : r.stages) stage_seconds[st] += t;
    const Verdict& v = r.v;
    if (r.hang) {
      ++hangs;
      const std::string base = fmt::format("{}/hang-{}-{}", opt.findings, opt.seed, inputs);
      spit(base + ".litmus", text);
      spit(base + ".txt", fmt::format("killed after {:.1f} CPU s (cap {} s)\nmutations: {}\n",
                                      r.cpu, opt.hang, how));
      std::cout << fmt::format("HANG input (killed after {:.1f} CPU s, {}): {}.litmus\n", r.cpu,
                               how, base)
                << std::flush;
    } else if (v.kind == Verdict::Finding) {
      ++failed;
      const std::string base = fmt::format("{}/finding-{}-{}", opt.findings, opt.seed, inputs);
      spit(base + ".litmus", text);
      spit(base + ".txt", fmt::format("stage: {}\n{}\nmutations: {}\n", v.stage, v.detail, how));
      std::cout << fmt::format("FINDING in {} ({}): {}\n  mutant: {}.litmus\n", v.stage, how,
                               v.detail, base)
                << std::flush;
    } else {
      (v.kind == Verdict::Result ? results : diagnostics)++;
      if (v.kind == Verdict::Diagnostic) diag_stage[v.stage]++;
      if (opt.verbose)
        std::cout << fmt::format("[{}] {}: {}\n", inputs, how,
                                 v.kind == Verdict::Result ? "result" : v.detail);
      if (r.cpu > opt.slow) {
        ++slow;
        const std::string base = fmt::format("{}/slow-{}-{}", opt.findings, opt.seed, inputs);
        spit(base + ".litmus", text);
        std::string times;
        for (const auto& [st, t] : r.stages) times += fmt::format(" {} {:.1f} s;", st, t);
        spit(base + ".txt", fmt::format("{:.1f} CPU s:{}\nmutations: {}\n", r.cpu, times, how));
        std::cout << fmt::format("SLOW input ({:.1f} CPU s > {} s,{} {}): {}.litmus\n", r.cpu,
                                 opt.slow, times, how, base)
                  << std::flush;
      }
    }
    if (elapsed() > next_progress) {
      std::cerr << fmt::format(
          "redscope_fuzz: {:.0f} s, {} inputs ({:.1f}/s), {} failed, {} slow, {} hangs\n",
          elapsed(), inputs, static_cast<double>(inputs) / elapsed(), failed, slow, hangs);
      while (next_progress < elapsed()) next_progress += 15;
    }
  }
  fs::remove(current);
  const double total = elapsed();
  std::cout << fmt::format(
      "redscope_fuzz: {} inputs in {:.1f} s: {:.1f} inputs/s, {:.1f} inputs per CPU second (seed "
      "{})\n",
      inputs, total, static_cast<double>(inputs) / total,
      cpu_total > 0 ? static_cast<double>(inputs) / cpu_total : 0.0, opt.seed);
  std::cout << fmt::format(
      "  {} ran to a result in every engine, {} stopped at a located diagnostic (", results,
      diagnostics);
  bool first = true;
  for (const auto& [s, n] : diag_stage) {
    std::cout << (first ? "" : ", ") << s << " " << n;
    first = false;
  }
  std::cout << ")\n  time per stage:";
  for (const auto& [s, t] : stage_seconds) std::cout << fmt::format(" {} {:.1f} s;", s, t);
  std::cout << "\n";
  if (enum_skipped)
    std::cout << fmt::format(
        "  run_enum skipped on {} inputs with more than 2^{} coherence/fence-SC/barrier choices\n",
        enum_skipped, Runner::kEnumMaxLog2);
  std::cout << fmt::format(
      "{} passed, {} failed, {} slow (> {} CPU s), {} hangs (killed at {} CPU s)\n",
      results + diagnostics, failed, slow, opt.slow, hangs, opt.hang);
  if (failed) return 1;
  if ((slow || hangs) && opt.fail_on_slow) return 1;
  return 0;
}
