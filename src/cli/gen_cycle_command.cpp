// `redscope gen cycle` (docs/cli.md "redscope gen cycle", docs/cycles.md):
// litmus tests from diy7-style cycles of relaxations with GPU annotations.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "cli/gen_command.hpp"
#include "cli/progress.hpp"
#include "redscope/core/cli_args.hpp"
#include "redscope/core/diagnostic.hpp"
#include "redscope/generate/cycle.hpp"

namespace redscope::cli {

namespace {

namespace gen = redscope::generate;

constexpr std::string_view kCycleUsage = R"(Usage:
  redscope gen cycle [options] CYCLE        one test, on standard output
  redscope gen cycle [options] --out DIR CYCLE...
                                            one DIR/NAME.litmus per cycle
  redscope gen cycle [options] --out DIR --size N [--edges LIST] [--relax LIST]
                                            every cycle of at most N edges

A CYCLE is one argument: edges in diy7's vocabulary separated by spaces,
e.g. "PodWW Rfe PodRR Fre" (MP), each optionally annotated (docs/cycles.md):
  EDGE[SRC,TGT]   the .sem/.scope/state space of the edge's two events, e.g.
                  PodWW[weak,release.gpu]; [X] annotates both (Rmw[acq_rel.gpu])
  EDGE@LEVEL      where an external edge's threads are: cta (same CTA),
                  cluster (another CTA, same cluster), gpu (another cluster,
                  same GPU), sys (another GPU)
Edges: Po{s,d}XY Rfi Rfe Fri Fre Coi Coe (Wsi Wse) Dp{Data,Ctrl}{s,d}Y Rmw
       Fence.{sc,acq_rel}.{cta,cluster,gpu,sys}[{s,d}XY] FencedXY (X, Y: R W *)

Options:
  --out DIR          write one NAME.litmus per test in DIR (created if needed)
  --size N           enumerate every cycle of 2 to N edges (N at most 8) over
                     the vocabulary, up to rotation, each test once; needs --out
  --edges LIST       the vocabulary of --size, comma- or space-separated
                     (default: Rfe Fre Coe PodWW PodWR PodRW PodRR PosWW PosWR
                     PosRW PosRR)
  --relax LIST       diy's -relax: more words for --size, and each cycle uses
                     at least one of them (--edges are then diy's -safe)
  --sem SEM          accesses no annotation names: weak (default) or
                     relaxed.SCOPE (Rmw events: relaxed.gpu when weak)
  --placement LEVEL  external edges without @: cta, cluster, gpu (default), sys
  --space SPACE      locations no annotation names: global (default), shared
  -q                 no summary line, no progress line (--size on a terminal)
  -h, --help         this text
Exit status: 0 written, 2 bad command line or bad cycle (the error names the
cycle, the column and the edge), 1 a file could not be written.
)";

struct Options {
  std::optional<std::string> out;
  std::optional<std::size_t> size;
  std::optional<std::string> edges, relax;
  gen::CycleOptions cycle;
  bool quiet = false;
  std::vector<std::string> cycles;
};

[[noreturn]] void usage(const std::string& msg) {
  fmt::print(stderr, "redscope gen cycle: {}\n(redscope gen cycle --help)\n", msg);
  std::exit(2);
}

gen::Level level_arg(std::string_view v) {
  if (v == "cta") return gen::Level::Cta;
  if (v == "cluster") return gen::Level::Cluster;
  if (v == "gpu") return gen::Level::Gpu;
  if (v == "sys") return gen::Level::Sys;
  usage(fmt::format("--placement is cta, cluster, gpu or sys, not '{}'", printable(v)));
}

Options parse_args(int argc, char** argv) {
  Options o;
  for (int i = 3; i < argc; ++i) {
    const std::string_view a = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(fmt::format("{} needs a value", a));
      return argv[++i];
    };
    if (a == "-h" || a == "--help") {
      fmt::print("{}", kCycleUsage);
      std::exit(0);
    } else if (a == "--out") {
      o.out = value();
      if (o.out->empty()) usage("--out needs a folder name, not an empty string");
    } else if (a == "--size") {
      const std::string v = value();
      const std::optional<long long> n = parse_whole(v, 2, 8);
      if (!n) usage(fmt::format("--size takes a whole number from 2 to 8, not '{}'", printable(v)));
      o.size = static_cast<std::size_t>(*n);
    } else if (a == "--edges") {
      o.edges = value();
    } else if (a == "--relax") {
      o.relax = value();
    } else if (a == "--sem") {
      o.cycle.sem = value();
      try {
        gen::parse_default_sem(o.cycle.sem, "--sem");
      } catch (const InputError& e) {
        usage(e.diagnostic().message);
      }
    } else if (a == "--placement") {
      o.cycle.placement = level_arg(value());
    } else if (a == "--space") {
      const std::string v = value();
      if (v != "global" && v != "shared")
        usage(fmt::format("--space is global or shared, not '{}'", printable(v)));
      o.cycle.space = v == "shared" ? gen::Space::Shared : gen::Space::Global;
    } else if (a == "-q") {
      o.quiet = true;
    } else if (a.size() > 1 && a[0] == '-') {
      usage(fmt::format("unknown option '{}'", printable(a)));
    } else {
      o.cycles.emplace_back(a);
    }
  }
  if (o.size && !o.cycles.empty()) usage("--size enumerates cycles: give no CYCLE with it");
  if (!o.size && o.cycles.empty())
    usage("needs a CYCLE (e.g. \"PodWW Rfe PodRR Fre\") or --size N");
  if ((o.edges || o.relax) && !o.size) usage("--edges and --relax are the vocabulary of --size");
  if (!o.out && (o.size || o.cycles.size() > 1))
    usage("several tests need --out DIR (one file per test)");
  return o;
}

// The words of --edges or --relax: separated by commas or spaces, except inside an
// annotation's brackets ("PodWW[,release.gpu]"); each is checked here, so
// that an error gives its column in the list.
std::vector<std::string> vocabulary_of(const std::string& list, const char* option) {
  std::vector<std::string> words;
  std::string word;
  int depth = 0;
  for (std::size_t i = 0; i <= list.size(); ++i) {
    const char c = i < list.size() ? list[i] : ',';
    depth += c == '[' ? 1 : c == ']' ? -1 : 0;
    if ((c == ',' || c == ' ') && depth <= 0) {
      if (!word.empty()) {
        gen::parse_edge(word, option, i - word.size() + 1, words.size() + 1);
        words.push_back(word);
      }
      word.clear();
    } else {
      word += c;
    }
  }
  if (words.empty()) usage(fmt::format("{} needs at least one edge", option));
  return words;
}

// Writes each test to DIR/NAME.litmus as it comes (streaming).
class Writer {
 public:
  explicit Writer(const std::string& dir) : dir_(dir) {
    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
    if (ec) fail(fmt::format("cannot create {}: {}", dir_, ec.message()));
  }
  void write(const gen::GeneratedTest& t) {
    const std::string path = (std::filesystem::path(dir_) / (t.name + ".litmus")).string();
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f << t.text;
    if (!f.flush()) fail(fmt::format("cannot write {}", path));
    ++written_;
  }
  std::size_t written() const { return written_; }

 private:
  [[noreturn]] static void fail(const std::string& msg) {
    fmt::print(stderr, "redscope gen cycle: {}\n", msg);
    std::exit(1);
  }
  std::string dir_;
  std::size_t written_ = 0;
};

int enumerate(const Options& o) {
  gen::EnumerateOptions e;
  e.max_edges = *o.size;
  if (o.edges) e.vocabulary = vocabulary_of(*o.edges, "--edges");
  if (o.relax) e.relax = vocabulary_of(*o.relax, "--relax");
  e.cycle = o.cycle;
  Writer w(*o.out);
  // The progress line (a terminal only, after a second): candidate cycles tried.
  Progress progress(gen::count_candidates(e), o.quiet, "cycles");
  e.tried = [&](std::size_t i) {
    progress.started(i, "");
    progress.finished(i, false);
  };
  const gen::EnumerateCount count = gen::for_each_cycle(e, [&](const auto& t) { w.write(t); });
  if (!o.quiet)
    progress.print(stdout,
                   fmt::format("{} tests in {} (cycles of 2 to {} edges; {} duplicate tests "
                               "skipped)\n",
                               count.tests, *o.out, *o.size, count.duplicates));
  return 0;
}

int explicit_cycles(const Options& o) {
  std::vector<gen::GeneratedTest> tests;  // the command line's cycles: checked before writing
  for (std::size_t i = 0; i < o.cycles.size(); ++i) {
    const std::string source = fmt::format("cycle {}", i + 1);
    tests.push_back(gen::generate_cycle(gen::parse_cycle(o.cycles[i], source), o.cycle, source));
  }
  if (!o.out) {
    fmt::print("{}", tests[0].text);
    return 0;
  }
  Writer w(*o.out);
  std::map<std::string, std::string> bodies;  // name -> text
  std::size_t duplicates = 0;
  for (auto& t : tests) {
    const auto it = bodies.find(t.name);
    if (it != bodies.end() && it->second == t.text) {
      ++duplicates;
      continue;
    }
    if (it != bodies.end()) {
      std::string renamed;
      for (int v = 2; renamed.empty() || bodies.count(renamed); ++v)
        renamed = fmt::format("{}-v{}", t.name, v);
      t.text.replace(0, t.text.find('\n'), "PTX " + renamed);
      t.name = renamed;
    }
    bodies.emplace(t.name, t.text);
    w.write(t);
  }
  if (!o.quiet)
    fmt::print("{} tests in {}{}\n", w.written(), *o.out,
               duplicates ? fmt::format(" ({} duplicate cycles skipped)", duplicates) : "");
  return 0;
}

}  // namespace

int run_gen_cycle(int argc, char** argv) {
  const Options o = parse_args(argc, argv);
  try {
    return o.size ? enumerate(o) : explicit_cycles(o);
  } catch (const InputError& e) {
    fmt::print(stderr, "{}\n", e.what());
    return 2;
  }
}

}  // namespace redscope::cli
