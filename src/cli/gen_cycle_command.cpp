// `redscope gen cycle` (docs/cli.md "redscope gen cycle", docs/cycles.md):
// litmus tests from diy7-style cycles of relaxations with GPU annotations.
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/gen_command.hpp"
#include "cli/progress.hpp"
#include "redscope/core/budget.hpp"
#include "redscope/core/cli_args.hpp"
#include "redscope/core/diagnostic.hpp"
#include "redscope/core/output.hpp"
#include "redscope/generate/cycle.hpp"
#include "redscope/registry/registry.hpp"

namespace redscope::cli {

namespace {

namespace gen = redscope::generate;

constexpr std::string_view kCycleUsage = R"(Usage:
  redscope gen cycle [options] CYCLE        one test, on standard output
  redscope gen cycle [options] --out DIR CYCLE...
                                            one DIR/NAME.litmus per cycle
  redscope gen cycle [options] --out DIR --size N [--edges LIST] [--relax LIST]
                                            every cycle of at most N edges that
                                            diy7 makes (docs/cycles.md)

A CYCLE is one argument: edges in diy7's vocabulary separated by spaces,
e.g. "PodWW Rfe PodRR Fre" (MP), each optionally annotated (docs/cycles.md):
  EDGE[SRC,TGT]   the .sem/.scope/state space of the edge's two events, e.g.
                  PodWW[weak,release.gpu]; [X] annotates both (Rmw[acq_rel.gpu])
  EDGE@LEVEL      where an external edge's threads are: cta (same CTA),
                  cluster (another CTA, same cluster), gpu (another cluster,
                  same GPU), sys (another GPU)
Edges: Po{s,d}XY Rfi Rfe Fri Fre Coi Coe (Wsi Wse) Dp{Addr,Data,Ctrl}{s,d}Y Rmw
       Fence.{sc,acq_rel}.{cta,cluster,gpu,sys}[{s,d}XY] FencedXY (X, Y: R W *)

Options:
  --out DIR          write one NAME.litmus per test in DIR (created if needed)
  --size N           enumerate every cycle of 2 to N edges (N at most 8) over
                     the vocabulary, up to rotation, each test once; needs --out
  --edges LIST       the vocabulary of --size, comma- or space-separated
                     (default: Rfe Fre Coe PodWW PodWR PodRW PodRR PosWW PosWR
                     PosRW PosRR)
  --safe LIST        the same as --edges (diy7's name)
  --relax LIST       diy's -relax: more words for --size; each cycle uses one
                     of them (once or more) and no other, with --edges
  --mix              diy's -mix true: a cycle may use several --relax words
  --minrelax N       with --mix: at least N of them (default 1)
  --maxrelax N       with --mix: at most N of them (default 100; 1: as
                     without --mix, 0: no cycle)
  --mode MODE        diy's -mode, which adjacent edges a cycle may hold:
                     default, sc, critical, mixed, uni, free, thin, total,
                     ppo, transitive (docs/cycles.md)
  --nprocs N         diy's -nprocs: threads at most (default 4)
  --ins N            diy's -ins: edges per thread at most (default 4)
  --oneloc           diy's -oneloc: keep cycles of one location (CoRR, ...;
                     modes default and sc drop them even so, uni keeps them)
  --keep-com-pairs   keep two external communications that only order a
                     location's writes again (Coe Coe, Fre Coe, Rfe Fre),
                     which diy7 never puts in a row
  --sem SEM          accesses no annotation names: weak (default) or
                     relaxed.SCOPE (Rmw events: relaxed.gpu when weak)
  --placement LEVEL  external edges without @: cta, cluster, gpu (default), sys
  --space SPACE      locations no annotation names: global (default), shared
  --obs OBS          diy's -obs, for a location of three writes or more:
                     avoid (default: no test), accept (an observer thread
                     loads it once per write), force (observers from two
                     writes on), local (its final value only)
  --lang LANG        the tests' language: ptx (default) or cuda (CUDA C++ that
                     nvcc 13 compiles to the PTX test's accesses; no
                     dependencies, no cluster scope)
  --max-tests N      --size stops with an error past N tests (default 10000;
                     0: no bound); nothing is written then
  --timeout SECONDS  --size stops with an error after SECONDS (default 60; 0:
                     none); nothing is written then
  -q                 no summary line, no progress line (--size on a terminal)
  diy7's spellings with one dash are read as these: -size, -safe, -relax,
  -mode, -nprocs, -ins, -oneloc, -obs, -minrelax, -maxrelax, -mix BOOL
  -h, --help         this text
Files are written whole (a new file renamed into place: a symbolic link at
DIR/NAME.litmus is replaced, never written through); --size writes into a
staging folder in DIR and moves its tests in once all are made. Cycles that
make the same program as an earlier one are skipped (named on the summary).
Exit status: 0 written, 2 bad command line or bad cycle (the error names the
cycle, the column and the edge), 1 a file could not be written or --size was
stopped by --max-tests or --timeout (nothing written).
)";

struct Options {
  std::optional<std::string> out;
  std::optional<std::size_t> size;
  std::optional<std::string> edges, relax;
  std::string edges_option = "--edges";  // or diy's name, --safe
  gen::PairRules rules;
  std::size_t nprocs = 4, ins = 4;
  bool mix = false, relax_option = false;  // the latter: --minrelax or --maxrelax
  std::size_t min_relax = 1, max_relax = 100;
  bool oneloc = false, enumeration_option = false;  // the latter: one of the four above
  gen::CycleOptions cycle;
  bool quiet = false;
  std::vector<std::string> cycles;
  GenBudget budget;  // of --size
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

// diy7's own spelling of an option (gen/config.ml: one dash), as ours.
// `-mix` takes diy's boolean ("-mix true"): "false" is our default.
std::string diy_spelling(std::string_view a) {
  static constexpr std::array<std::string_view, 11> kDiy = {
      "-size",   "-safe", "-relax",    "-mode",     "-nprocs", "-ins",
      "-oneloc", "-obs",  "-minrelax", "-maxrelax", "-mix"};
  for (std::string_view d : kDiy)
    if (a == d) return "-" + std::string(a);
  return std::string(a);
}

Options parse_args(int argc, char** argv) {
  Options o;
  for (int i = 3; i < argc; ++i) {
    const std::string spelled = diy_spelling(argv[i]);
    const std::string_view a = spelled;
    if (a == "--mix" && std::string_view(argv[i]) == "-mix") {  // diy's -mix BOOL
      const std::string_view b = i + 1 < argc ? argv[i + 1] : "";
      if (b != "true" && b != "false") usage("-mix takes true or false (diy7's -mix BOOL)");
      ++i;
      if (b == "false") continue;
    }
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(fmt::format("{} needs a value", a));
      return argv[++i];
    };
    if (is_gen_budget_option(a)) {
      if (auto bad = set_gen_budget(a, value(), o.budget)) usage(*bad);
    } else if (a == "-h" || a == "--help") {
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
    } else if (a == "--edges" || a == "--safe") {
      o.edges = value();
      o.edges_option = a;
    } else if (a == "--mode") {
      const std::string v = value();
      const auto m = gen::parse_mode(v);
      if (!m) usage(fmt::format("--mode is {}, not '{}'", gen::mode_names(), printable(v)));
      o.rules.mode = *m;
      o.enumeration_option = true;
    } else if (a == "--nprocs" || a == "--ins") {
      const std::string v = value();
      const std::optional<long long> n = parse_whole(v, a == "--ins" ? 1 : 2, 128);
      if (!n)
        usage(fmt::format("{} takes a whole number from {} to 128, not '{}'", a,
                          a == "--ins" ? 1 : 2, printable(v)));
      (a == "--ins" ? o.ins : o.nprocs) = static_cast<std::size_t>(*n);
      o.enumeration_option = true;
    } else if (a == "--mix") {
      o.mix = true;
    } else if (a == "--minrelax" || a == "--maxrelax") {
      const std::string v = value();
      const std::optional<long long> n = parse_whole(v, 0, 1000);
      if (!n)
        usage(fmt::format("{} takes a whole number from 0 to 1000, not '{}'", a, printable(v)));
      (a == "--minrelax" ? o.min_relax : o.max_relax) = static_cast<std::size_t>(*n);
      o.relax_option = true;
    } else if (a == "--oneloc") {
      o.oneloc = o.enumeration_option = true;
    } else if (a == "--keep-com-pairs") {
      o.rules.keep_com_pairs = o.enumeration_option = true;
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
    } else if (a == "--obs") {
      const std::string v = value();
      const auto obs = gen::parse_observers(v);
      if (!obs)
        usage(fmt::format("--obs is avoid, accept, force or local, not '{}'", printable(v)));
      o.cycle.obs = *obs;
    } else if (a == "--lang") {
      const std::string v = value();
      o.cycle.lang = v == "ptx" ? nullptr : cycle_language(v);
      if (v != "ptx" && !o.cycle.lang)
        usage(fmt::format("--lang is ptx or {}, not '{}'", fmt::join(cycle_languages(), ", "),
                          printable(v)));
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
  if ((o.mix || o.relax_option) && !o.relax)
    usage("--mix, --minrelax and --maxrelax say how --size uses --relax's words: give --relax");
  if (o.relax_option && !o.mix) usage("--minrelax and --maxrelax need --mix (diy's -mix true)");
  if (o.enumeration_option && !o.size)
    usage("--mode, --nprocs, --ins, --oneloc and --keep-com-pairs shape --size's enumeration");
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

// A file that cannot be written, or a budget that stopped --size: exit 1,
// once the staging folder is gone (thrown, so that destructors run).
struct Failed {
  std::string message;
};

[[noreturn]] void fail(const std::string& msg) { throw Failed{msg}; }

void make_folder(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) fail(fmt::format("cannot create {}: {}", dir, ec.message()));
}

// Writes DIR/NAME.litmus: a new file renamed into place, so a link at that
// name is replaced, never written through (write_file_replacing).
void write_test(const std::string& dir, const gen::GeneratedTest& t) {
  try {
    write_file_replacing((std::filesystem::path(dir) / (t.name + ".litmus")).string(), t.text);
  } catch (const std::runtime_error& e) {
    fail(e.what());
  }
}

// The tests of --size, staged in DIR/.gen-cycle-PID.tmp as they come
// (streaming) and moved into DIR once every one is written: a run stopped by
// a budget, or killed, leaves DIR as it was (`.part` names: `redscope run`
// claims no file a killed run leaves there).
class StagedWriter {
 public:
  explicit StagedWriter(const std::string& dir)
      : dir_(dir),
        staging_(std::filesystem::path(dir) / fmt::format(".gen-cycle-{}.tmp", getpid())) {
    make_folder(dir_);
    std::error_code ec;
    std::filesystem::remove_all(staging_, ec);
    if (!std::filesystem::create_directory(staging_, ec) || ec)
      fail(fmt::format("cannot create {}: {}", staging_.string(), ec.message()));
  }
  ~StagedWriter() {
    std::error_code ec;
    std::filesystem::remove_all(staging_, ec);
  }
  StagedWriter(const StagedWriter&) = delete;
  StagedWriter& operator=(const StagedWriter&) = delete;

  void write(const gen::GeneratedTest& t) {
    const auto file = staging_ / (t.name + ".litmus.part");
    try {
      if (!write_new_file(file.string(), t.text))
        fail(fmt::format("two tests named {} (a bug: names are made unique)", t.name));
    } catch (const std::runtime_error& e) {
      fail(e.what());
    }
  }
  // Moves every staged test into DIR (a rename replaces a link of that name).
  void commit() {
    for (const auto& e : std::filesystem::directory_iterator(staging_)) {
      std::error_code ec;
      const auto to = std::filesystem::path(dir_) / e.path().stem();  // NAME.litmus
      std::filesystem::rename(e.path(), to, ec);
      if (ec) fail(fmt::format("cannot write {}: {}", to.string(), ec.message()));
    }
  }

 private:
  std::string dir_;
  std::filesystem::path staging_;
};

// Thrown when --max-tests or --timeout stops an enumeration.
struct Stopped {
  std::string why;
};

int enumerate(const Options& o) {
  gen::EnumerateOptions e;
  e.max_edges = *o.size;
  if (o.edges) e.vocabulary = vocabulary_of(*o.edges, o.edges_option.c_str());
  if (o.relax) e.relax = vocabulary_of(*o.relax, "--relax");
  e.rules = o.rules;
  e.nprocs = o.nprocs;
  e.ins = o.ins;
  e.oneloc = o.oneloc;
  e.mix = o.mix;
  e.min_relax = o.min_relax;
  e.max_relax = o.max_relax;
  e.cycle = o.cycle;
  const Budget budget(BudgetLimits{o.budget.timeout, 0});
  e.budget = &budget;
  StagedWriter w(*o.out);
  try {
    // The progress line (a terminal only, after a second): candidate cycles tried.
    Progress progress(gen::count_candidates(e), o.quiet, "cycles");
    e.tried = [&](std::size_t i) {
      progress.started(i, "");
      progress.finished(i, false);
    };
    std::size_t written = 0;
    const gen::EnumerateCount count = gen::for_each_cycle(e, [&](const auto& t) {
      if (o.budget.max_tests && written == o.budget.max_tests)
        throw Stopped{fmt::format("more than {} tests (--max-tests)", o.budget.max_tests)};
      w.write(t);
      ++written;
    });
    w.commit();
    if (!o.quiet)
      progress.print(stdout,
                     fmt::format("{} tests in {} (cycles of 2 to {} edges; {} duplicate tests "
                                 "skipped)\n",
                                 count.tests, *o.out, *o.size, count.duplicates));
  } catch (const Stopped& s) {
    fail(
        fmt::format("stopped: {}; nothing written to {} (raise the bound, or narrow --size, "
                    "--edges, --relax)",
                    s.why, *o.out));
  } catch (const BudgetExceeded&) {
    fail(
        fmt::format("stopped: over {} s (--timeout); nothing written to {} (raise the bound, "
                    "or narrow --size, --edges, --relax)",
                    o.budget.timeout, *o.out));
  }
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
  make_folder(*o.out);
  // A cycle whose program an earlier one made is skipped, as --size skips it
  // (`PodWW Rfe PodRR Fre` and `PodWW Rfe@gpu PodRR Fre` are one MP); another
  // program of an earlier name gets NAME-v2, NAME-v3, ...
  std::map<std::string, std::size_t> programs;  // program -> its cycle (1-based)
  std::set<std::string> names;
  std::vector<std::string> skipped;
  std::size_t written = 0;
  for (std::size_t i = 0; i < tests.size(); ++i) {
    gen::GeneratedTest& t = tests[i];
    const auto [it, fresh] = programs.emplace(std::string(gen::test_program(t)), i + 1);
    if (!fresh) {
      skipped.push_back(fmt::format("cycle {} is cycle {}'s test", i + 1, it->second));
      continue;
    }
    if (names.count(t.name)) {
      std::string renamed;
      for (int v = 2; renamed.empty() || names.count(renamed); ++v)
        renamed = fmt::format("{}-v{}", t.name, v);
      t.text.replace(0, t.text.find('\n'), "PTX " + renamed);
      t.name = renamed;
    }
    names.insert(t.name);
    write_test(*o.out, t);
    ++written;
  }
  if (!o.quiet)
    fmt::print("{} tests in {}{}\n", written, *o.out,
               skipped.empty() ? ""
                               : fmt::format(" ({} duplicate cycles skipped: {})", skipped.size(),
                                             fmt::join(skipped, "; ")));
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
  } catch (const Failed& f) {
    fmt::print(stderr, "redscope gen cycle: {}\n", f.message);
    return 1;
  }
}

}  // namespace redscope::cli
