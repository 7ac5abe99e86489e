// redscope command line: `redscope run [options] PATH...`
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "cli/gen_command.hpp"
#include "cli/line_signals.hpp"
#include "cli/mapping_check_command.hpp"
#include "cli/models_command.hpp"
#include "cli/progress.hpp"
#include "cli/ptxas_command.hpp"
#include "cli/report_matrix_command.hpp"
#include "redscope/analysis/atomicity.hpp"
#include "redscope/analysis/compile_check.hpp"
#include "redscope/analysis/explain.hpp"
#include "redscope/analysis/xval.hpp"
#include "redscope/core/allocator.hpp"
#include "redscope/core/cli_args.hpp"
#include "redscope/core/input.hpp"
#include "redscope/driver/engines.hpp"
#include "redscope/driver/html_report.hpp"
#include "redscope/driver/suite.hpp"
#include "redscope/engine/z3/z3.hpp"
#include "redscope/frontend/frontend.hpp"
#include "redscope/model/cat.hpp"
#include "redscope/registry/registry.hpp"
#include "redscope/report/dot.hpp"
#include "redscope/report/merge.hpp"
#include "redscope/report/report.hpp"

namespace {

using redscope::cli::LineSignals;
using redscope::cli::Progress;

// "ptx, ptx-sm6x, sass-sm30": the names --model takes.
std::string builtin_model_names() {
  std::string s;
  for (const redscope::BuiltinModel& m : redscope::kBuiltinModels)
    s += fmt::format("{}{}", s.empty() ? "" : ", ", m.name);
  return s;
}

constexpr const char* kVersion = "0.1.0";

// Exit statuses (stable; also listed in --help and docs/cli.md).
constexpr int kExitOk = 0;
constexpr int kExitInputError = 1;  // some file could not be checked
constexpr int kExitUsage = 2;       // bad command line
constexpr int kExitMismatch = 3;    // --expect found a verdict that differs
constexpr int kExitDefect = 4;  // xval: an outcome reached by the machine is forbidden by the model

constexpr const char* kUsage =
    R"(redscope - memory-model checker for GPU reductions and atomics (PTX, Kepler
SASS) and checker of Ascend PTO vector reductions

Usage:
  redscope run [options] PATH...    check litmus tests; a PATH is a .litmus or
                                    .test file (FILE.test#ROW: one row of a
                                    template), or a folder searched recursively
                                    for *.litmus and *.test
  redscope atomicity [options] PATH...
                                    for every location touched by two or more
                                    RMWs: each pair of RMWs (and each RMW with
                                    each plain store), whether they are mutually
                                    in scope, and whether an allowed execution
                                    loses an update, with a witness
  redscope explain FILE (--outcome "P0:r0=1; x=2" | --condition) [options]
                                    why the model forbids the outcome (the
                                    axioms of a minimal unsat core, each with
                                    the edges that break it, in words) or a
                                    witness execution when it is allowed;
                                    --condition explains the condition's
                                    proposition; takes --format, --model,
                                    --unroll and --dot
  redscope report [options] PATH... --html DIR
                                    a static HTML report: DIR/index.html with
                                    a summary table (verdict, expected verdict
                                    from an expected.csv beside the tests,
                                    outcome count, agreement with the
                                    operational machine, time) and a page per
                                    test (source, outcomes, witness pictures,
                                    explanation); --no-xval skips the machine,
                                    --no-pictures the pictures
  redscope report --matrix ROWS COLS [options] INPUT...
  redscope report --from SPEC [--matrix ROWS COLS] [options]
                                    the verdict of each test of a parameter
                                    matrix as a table, placed by the tests'
                                    Cell= lines (docs/matrix-spec.md): ROWS
                                    and COLS are comma-separated axis names
                                    ('' for none; other axes split the table
                                    into sections). INPUT: folders or test
                                    files (run on -j threads) or the JSON of
                                    `run --format json|jsonl` or `atomicity
                                    --format json`; --from SPEC generates the
                                    spec's cells in memory and checks them
                                    (its verdict, rows and cols apply).
                                    --verdict condition|atomicity|mapping:
                                    allowed/forbidden (default), lost/safe/
                                    unknown, or cuda-check's ok/miscompiled/
                                    racy for CUDA tests;
                                    --format text|csv|json|svg (stdout) or
                                    html (with --html DIR: an index whose
                                    cells link to the test pages above);
                                    exit 2 for an unknown axis, 1 for a test
                                    without Cell=, two tests in one cell or
                                    an error cell
  redscope xval [options] PATH...   check each test by two independent
                                    formulations and classify each outcome as
                                    allowed and reached, allowed but never
                                    reached, or reached but forbidden (a
                                    defect: the trace and what forbids it are
                                    printed). PTX: the Z3 engine allows, the
                                    operational machine reaches; SASS: the
                                    same, on the PTX events SASS lowers to
                                    ("sass, via lowering to PTX events"); PTO:
                                    the Z3 twin allows, the explicit explorer
                                    reaches ("pto: explorer vs z3 twin"; any
                                    difference is a defect)
  redscope merge SHARD.json...      join the JSON of `run --shard i/n
                                    --format json|jsonl` runs into one
                                    run's JSON
                                    (results ordered by file path; - reads
                                    standard input); exit 1 if a shard's test
                                    could not be checked, 2 (nothing printed)
                                    if a SHARD cannot be read, is not valid
                                    JSON, is not what `run` writes or repeats
                                    a test of another; takes --max-file-size
  redscope compile-check PTX.litmus SASS.litmus [options]
                                    run a PTX test and its SASS translation
                                    (threads paired by position, registers by
                                    order of appearance in the conditions,
                                    locations by name) and report every SASS
                                    outcome the PTX model forbids, with the
                                    SASS execution and the PTX axioms it
                                    breaks; exit 1 if there is one; takes
                                    --format text|json, --engine z3|enum,
                                    --unroll
  redscope cuda-check [options] FILE|DIR... [--ptx MODULE.ptx] [--arch sm_XX]
                                    each CUDA test's PTX (nvcc's, for its
                                    Target or --arch; or, for one test, the
                                    module given, whose .entry P0, P1, ...
                                    are its threads) under the PTX model
                                    against its source under the scoped C++
                                    model (--source's reading): "mapping ok",
                                    "MISCOMPILED" (a PTX outcome the source
                                    forbids, with the PTX execution and the
                                    source axioms it breaks) or "racy" (the
                                    source has a heterogeneous race: undefined
                                    behaviour, the race shown); exit 1 if a
                                    test is miscompiled, 2 if one cannot be
                                    checked; takes --format text|json,
                                    --engine z3|enum, --unroll, --nvcc,
                                    --no-cache (docs/cuda.md "Checking the
                                    compiler")
  redscope sass encode|decode [FILE]
                                    Kepler sm_30 SASS: instruction text to
                                    64-bit words and back, one per line
                                    (redscope sass --help; docs/sass.md)
  redscope pto cycles FILE [--arch a2a3|a5] [--format text|json]
                                    the seed's cycle model for each reduction
                                    of a PTO program and the total, formula
                                    shown (redscope pto --help)
  redscope ptxas-check [options] FILE|DIR...
                                    assemble each PTX litmus test's threads
                                    with NVIDIA's ptxas (--ptxas PATH, else
                                    on PATH or in $CUDA_HOME/bin) and report
                                    each file as agreeing with redscope on
                                    which instructions are PTX, disagreeing,
                                    or not judgeable, and why (redscope
                                    ptxas-check --help); exit 2 without a
                                    ptxas, 3 when a file disagrees
  redscope gen cycle [options] CYCLE...
                                    litmus tests from diy7-style cycles of
                                    relaxations ("PodWW Rfe PodRR Fre") with
                                    GPU annotations (.sem/.scope, placement,
                                    state space); --size N --out DIR writes
                                    every cycle of up to N edges (redscope gen
                                    cycle --help; docs/cycles.md)
  redscope gen matrix SPEC --out DIR
                                    one litmus test per cell of a parameter
                                    matrix (a TOML spec: docs/matrix-spec.md)
                                    that the PTX ISA allows, the others
                                    counted by rule (redscope gen matrix
                                    --help)
  redscope models [-I DIR] [FILE.cat...]
                                    the models redscope ships, and which engines
                                    read them as files; with files, what each
                                    defines, reads from the engine (and lacks),
                                    checks and flags, and which reading it gets
  redscope --help | --version

Options (of `run`; `atomicity` takes --format, -j, --model, --unroll,
--verdict and --engine z3|enum (auto: z3 when built in); `xval` those but --verdict, --observe-all and --pto-order; every
command takes -q, -v, --timeout, --max-memory and --max-file-size):
  --format text|json|jsonl
                       output format: text (default, herd7-like), json (one
                       array, streamed: each test's object is printed as it
                       finishes, in input order), jsonl (one object per line,
                       valid however early the run is cut); xval and
                       atomicity print one array, streamed, for both
  -j N, --jobs N       check N tests at once on N threads (default: hardware
                       threads); output order does not depend on N
  --expect CSV         compare each verdict with a Dat3M-style CSV (path,1|0,
                       paths relative to the CSV's folder); prints one line per
                       mismatch and a final "N passed, M failed"
  --model M            memory model: ptx (PTX ISA memory consistency model,
                       sm_70 and later), ptx-sm6x (the same axioms, but an
                       RMW on .shared is not atomic against plain stores),
                       sass-sm30 (models/sass-sm30.cat, the default of SASS
                       litmus tests), scoped-cpp (models/scoped-cpp.cat,
                       RC11 with CUDA's thread scopes: the default of C
                       tests and of CUDA tests read with --source), or
                       your own cat file, FILE.cat, in herd7's cat language
                       (docs/model.md). One in redscope's typed subset is
                       read by the z3 and enum engines, explain, atomicity,
                       xval and report; one beyond it (functions, match,
                       with ... from, herd7's library) runs in herd's
                       interpreter on the enumerator's candidates (z3 and
                       auto step aside, saying why in -v). Default:
                       models/ptx.cat, built in, with variant "sm6x" on for
                       tests whose Target is sm_6x or earlier (also with
                       your own file). `redscope models` lists the shipped
                       ones; `redscope models FILE.cat` what a file defines,
                       reads and checks
  --cat FILE           the same as --model FILE
  -I DIR               a folder where the model's `include "f"` is looked
                       for, after the including file's and the model's own
                       (repeatable; then $REDSCOPE_CATPATH, colon-separated,
                       then the models built in)
  --engine auto|z3|enum|op
                       auto (default): per test, the enumerator or the
                       solver, from the enumerator's choices and the number
                       of outcomes the observables can take (the choice and
                       its reason in -v and JSON; docs/cli.md). z3: the
                       model encoded in Z3, one check per outcome. enum: the
                       enumerator, which builds executions choice by choice,
                       cuts a partial one at its first violation and
                       explores interchangeable threads once. op: the
                       operational machine (see xval)
  --unroll N           times a backward jump may be taken on one path
                       (default 2); longer paths are cut and reported
  --pto-order tree|sequential|both
                       PTO vector programs: the order float vcadd/vcgadd
                       sum in (default both: a condition that depends on the
                       order is reported as such; docs/model.md)
  --observe-all        report every register and location, not only those in
                       the condition and `locations`
  --max-outcomes N     stop with an error beyond N outcomes (default 10000; 0:
                       no limit). run lists outcomes in bounded memory: text
                       keeps no witnesses, and past 1/32 of --max-memory
                       (256 MiB without one) a sorted run of outcomes goes to
                       a file in $TMPDIR, merged back as they are printed
                       (docs/cli.md "Listing many outcomes")
  --verdict            run, atomicity: the verdict only, no outcomes listed
                       (herd7's -speedcheck): stop at the first outcome that
                       decides the condition (satisfies exists/~exists,
                       violates forall; atomicity: a lost update), or prove
                       none exists: z3 asks one query per path with the
                       proposition (forall: its negation) asserted, enum
                       exhausts its search, auto picks; text prints the
                       deciding outcome (States 0 or 1) and "Verdict witness"
                       or "Verdict proof: HOW", JSON "verdict_only": true,
                       "verdict_by": "witness"|"proof", "witness" (docs/cli.md
                       "Verdict-only runs"). Not report --matrix's --verdict
  --shard i/n          check only shard i of n (round-robin over the sorted
                       files: every shard is deterministic; join the JSON
                       outputs with `redscope merge`); run, xval, report
  --dot DIR            write a Graphviz picture of each outcome's witness
                       execution to DIR/FILE-K.dot (FILE: the litmus file's
                       name without .litmus; K: the outcome's line in the
                       States list), and DIR/FILE-K.svg when the `dot`
                       program is installed; drawn from the z3 engine's
                       witnesses (auto then runs z3; enum and op draw none)
  -q, --quiet          no per-test blocks and no progress line: only
                       diagnostics, mismatches and summaries
  -v, --verbose        run: a line per test on stderr (engine and why, outcomes,
                       skeletons, time)
  --timeout SECONDS    per-test time budget (default 300; 0: none). A test
                       past it is reported as an error of kind "timeout" and
                       the run goes on
  --max-memory MB      memory budget (default 8192; 0: none): when the
                       process's resident memory passes it, the tests then
                       running stop with an error of kind "memory" (per test
                       exactly with -j 1)
  --nvcc PATH          the nvcc that compiles CUDA tests (else $CUDA_HOME/bin,
                       PATH, /usr/local/cuda/bin); docs/cuda.md
  --no-cache           compile CUDA tests anew; read and write no cache
                       ($XDG_CACHE_HOME/redscope/cuda)
  --show-ptx           run: print each CUDA thread's PTX as nvcc compiled it
                       (JSON always carries it: "compiled")
  --source             read CUDA tests as their source says, without nvcc:
                       each statement's memory_order and thread_scope as
                       events, under the scoped C++ model (scoped-cpp);
                       not with --engine op or xval (docs/cuda.md "The
                       source side")
  --max-file-size MB   reject input files larger than MB mebibytes (1 to 4096,
                       default 16): tests, --expect, --model, merge and sass
                       inputs, standard input; folders, FIFOs, devices,
                       byte-order marks, UTF-16 and binary files are rejected
                       too (docs/cli.md "Input limits")
Results stream: each test is printed as soon as it and every test before it
have finished, so a cut run keeps what it printed. A path that does not exist
or cannot be read is an error for that path; the others still run. A run that
finds no test file exits 1. A .test file's own claims (permit, assert,
check) are counted in "N passed, M failed" without --expect. While tests
run (run, xval, atomicity, report) and stderr is a terminal, a progress line
there shows tests done/total, the rate, the time left (ETA), the tests
failed so far and the oldest test still being checked with its time; it is
erased before any output and never written to a pipe, a file or with -q.
Memory does not grow with the number of tests beyond their sorted list of
paths: results are printed and counted as they stream, then dropped.

Exit status:
  0  every test was checked (and, with --expect, every verdict matched)
  1  some test or path could not be checked (its diagnostic is printed;
     others still run), or there was nothing to check
  2  bad command line, or tests that need a tool this machine lacks
     (CUDA tests without nvcc: --nvcc PATH)
  3  --expect (run) or an expected.csv beside the tests (report) found
     mismatching verdicts, or no row of the --expect file named a file of
     the run, or a .test claim is not met (the summary reads "N passed,
     M failed, K errors")
  4  xval: the two formulations disagree on an outcome (the operational
     machine reached one the model forbids, or never reached one it allows;
     a PTO program's explorer and Z3 twin differ); report: the machine
     reached an outcome the model forbids
  (atomicity: 0 when every file was checked, whatever it found; 1, 2 as above)
)";

struct Cli {
  std::string format = "text";
  unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  std::optional<std::string> expect;
  int unroll = 2;
  bool observe_all = false;
  std::optional<redscope::ModelRef> model;
  // A dialect's semantics options (--pto-order tree: {"pto-order", "tree"}).
  std::map<std::string, std::string, std::less<>> semantics_options;
  redscope::EngineKind engine = redscope::EngineKind::Auto;
  bool quiet = false, verbose = false;
  std::size_t max_file_bytes = redscope::kDefaultMaxFileBytes;
  redscope::BudgetLimits limits{300, 8192};  // --timeout, --max-memory
  std::size_t max_outcomes = 10000;
  std::optional<std::string> outcome;   // explain --outcome
  bool condition = false;               // explain --condition
  bool verdict = false;                 // run/atomicity --verdict: the verdict only
  std::optional<std::string> dot_dir;   // run/explain --dot
  std::optional<std::string> html_dir;  // report --html
  bool no_xval = false, no_pictures = false;
  unsigned shard = 1, shards = 1;         // --shard i/n
  std::optional<std::string> cat;         // --model FILE.cat (or --cat FILE): the user's model
  std::vector<std::string> include_dirs;  // -I DIR: where its `include`s are looked for
  std::shared_ptr<const redscope::cat::Model> user_model;  // that file, parsed once
  std::vector<std::string> paths;
  std::optional<std::string> nvcc;  // --nvcc PATH: the compiler of CUDA tests
  bool no_cache = false;            // --no-cache: compile CUDA tests anew, keep nothing
  bool show_ptx = false;            // --show-ptx: each CUDA thread's compiled PTX
  bool source = false;              // --source: read CUDA tests as their source says
  std::optional<int> arch;          // cuda-check --arch sm_XX: compile for this target
};

[[noreturn]] void usage_error(const std::string& msg) {
  fmt::print(stderr, "redscope: {}\nTry 'redscope --help'.\n", msg);
  std::exit(kExitUsage);
}

// --model FILE.cat: parsed once, here, once every option is read (so that
// --max-file-size bounds it wherever it is given), so that a bad model is
// one located error (exit 2) before any test runs.
void load_user_model(Cli& c, const std::string& path) {
  try {
    c.user_model = std::make_shared<const redscope::cat::Model>(redscope::cat::load_cat(
        path, c.max_file_bytes, redscope::cli::cat_include_dirs(c.include_dirs)));
    c.cat = path;
  } catch (const redscope::InputError& e) {
    fmt::print(stderr, "{}\n", e.what());
    std::exit(kExitUsage);
  }
}

// Every number of the command line goes through here (cli_args.hpp).
int parse_int(const std::string& opt, const std::string& v, int lo, int hi) {
  const std::optional<long long> x = redscope::cli::parse_whole(v, lo, hi);
  if (!x)
    usage_error(fmt::format("{} takes a whole number from {} to {}, not '{}'", opt, lo, hi,
                            redscope::printable(v)));
  return static_cast<int>(*x);
}

// --html DIR and --dot DIR: a folder to write into, never the current one by
// accident (an empty value) nor a file that is not a folder.
std::string output_folder(const std::string& opt, const std::string& v) {
  if (v.empty()) usage_error(fmt::format("{} needs a folder name, not an empty string", opt));
  std::error_code ec;
  if (std::filesystem::exists(v, ec) && !std::filesystem::is_directory(v, ec))
    usage_error(fmt::format("{} {}: exists and is not a folder", opt, redscope::printable(v)));
  return v;
}

// CUDA tests are compiled with the command line's nvcc, under its limits
// (or read as source: --source).
void install_compiler(const Cli& c) {
  redscope::use_compiler_settings(redscope::CompilerSettings{.path = c.nvcc,
                                                             .use_cache = !c.no_cache,
                                                             .seconds = c.limits.seconds,
                                                             .memory_mb = c.limits.memory_mb,
                                                             .precompiled = false,
                                                             .cache_dir = {},
                                                             .missing = {},
                                                             .source_level = c.source,
                                                             .target_sm = c.arch});
}

// `paths_optional`: the command's tests may come from elsewhere (report --from SPEC).
Cli parse_run(int argc, char** argv, bool paths_optional = false) {
  Cli c;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage_error(fmt::format("{} needs a value", a));
      return argv[++i];
    };
    if (a == "--format") {
      c.format = value();
      if (c.format != "text" && c.format != "json" && c.format != "jsonl")
        usage_error(fmt::format("--format is text, json or jsonl, not '{}'", c.format));
    } else if (a == "-j" || a == "--jobs") {
      c.jobs = static_cast<unsigned>(parse_int(a, value(), 1, 256));
    } else if (a.rfind("-j", 0) == 0 && a.size() > 2) {
      c.jobs = static_cast<unsigned>(parse_int("-j", a.substr(2), 1, 256));
    } else if (a == "--expect") {
      c.expect = value();
    } else if (a == "-I") {
      c.include_dirs.push_back(value());
    } else if (a.rfind("-I", 0) == 0 && a.size() > 2) {
      c.include_dirs.push_back(a.substr(2));
    } else if (a == "--model" || a == "--cat") {
      const std::string m = value();
      if (a == "--model" && redscope::builtin_model_named(m))
        c.model = redscope::builtin_model_named(m);
      else if (a == "--cat" || m.find('/') != std::string::npos ||
               (m.size() > 4 && m.substr(m.size() - 4) == ".cat"))
        c.cat = m;  // loaded after the options (load_user_model)
      else
        usage_error(fmt::format("unknown model '{}' ({}, or a cat file: FILE.cat)", m,
                                builtin_model_names()));
    } else if (a == "--engine") {
      const std::string e = value();
      if (e == "auto")
        c.engine = redscope::EngineKind::Auto;
      else if (e == "z3" && !redscope::z3_available())
        usage_error(redscope::no_z3_message("--engine z3"));
      else if (e == "z3")
        c.engine = redscope::EngineKind::Z3;
      else if (e == "enum")
        c.engine = redscope::EngineKind::Enum;
      else if (e == "op")
        c.engine = redscope::EngineKind::Op;
      else
        usage_error(fmt::format("unknown engine '{}' (available: auto, z3, enum, op)", e));
    } else if (a == "--unroll") {
      c.unroll = parse_int(a, value(), 0, 64);
    } else if (const redscope::SemanticsOption* so = redscope::semantics_option(a)) {
      const std::string o = value();
      if (std::find(so->values.begin(), so->values.end(), o) == so->values.end())
        usage_error(fmt::format("unknown {} '{}' ({})", a, o, so->values_text()));
      c.semantics_options[std::string(so->name)] = o;
    } else if (a == "--observe-all") {
      c.observe_all = true;
    } else if (a == "--max-outcomes") {
      // 0: no limit (a listing's memory is bounded without it: docs/cli.md).
      c.max_outcomes = static_cast<std::size_t>(parse_int(a, value(), 0, 100000000));
      if (c.max_outcomes == 0) c.max_outcomes = std::numeric_limits<std::size_t>::max();
    } else if (a == "--outcome") {
      c.outcome = value();
    } else if (a == "--condition") {
      c.condition = true;
    } else if (a == "--verdict") {
      c.verdict = true;
    } else if (a == "--shard") {
      const std::string v = value();
      const auto slash = v.find('/');
      if (slash == std::string::npos)
        usage_error(fmt::format("--shard takes i/n (e.g. 2/8), not '{}'", v));
      c.shards = static_cast<unsigned>(parse_int("--shard n", v.substr(slash + 1), 1, 100000));
      c.shard = static_cast<unsigned>(
          parse_int("--shard i", v.substr(0, slash), 1, static_cast<int>(c.shards)));
    } else if (a == "--html") {
      c.html_dir = output_folder(a, value());
    } else if (a == "--no-xval") {
      c.no_xval = true;
    } else if (a == "--no-pictures") {
      c.no_pictures = true;
    } else if (a == "--dot") {
      c.dot_dir = output_folder(a, value());
    } else if (a == "-q" || a == "--quiet") {
      c.quiet = true;
    } else if (a == "-v" || a == "--verbose") {
      c.verbose = true;
    } else if (a == "--timeout") {
      c.limits.seconds = parse_int(a, value(), 0, redscope::cli::kMaxTimeoutSeconds);
    } else if (a == "--max-memory") {
      c.limits.memory_mb = static_cast<std::size_t>(parse_int(a, value(), 0, 1 << 24));
    } else if (a == "--max-file-size") {
      c.max_file_bytes =
          static_cast<std::size_t>(parse_int(a, value(), redscope::cli::kMaxFileSizeMinMb,
                                             redscope::cli::kMaxFileSizeMaxMb))
          << 20;
    } else if (a == "--nvcc") {
      c.nvcc = value();
      if (c.nvcc->empty()) usage_error("--nvcc needs the path of nvcc, not an empty string");
    } else if (a == "--no-cache") {
      c.no_cache = true;
    } else if (a == "--show-ptx") {
      c.show_ptx = true;
    } else if (a == "--source") {
      c.source = true;
    } else if (a == "-h" || a == "--help") {
      fmt::print("{}", kUsage);
      std::exit(kExitOk);
    } else if (!a.empty() && a[0] == '-') {
      usage_error(fmt::format("unknown option '{}'", a));
    } else {
      c.paths.push_back(a);
    }
  }
  install_compiler(c);
  if (c.cat) load_user_model(c, *c.cat);
  if (c.paths.empty() && !paths_optional) usage_error("run needs at least one file or folder");
  if (c.cat && c.engine == redscope::EngineKind::Op)
    usage_error(
        "--engine op is the hand-written operational machine and reads no model file; "
        "use --engine z3 or enum with --model FILE.cat");
  return c;
}

// The files named by the command line (with --shard i/n, only those of
// shard i: round-robin over the sorted collection, so every shard's list is
// deterministic). A path that is missing or unreadable is a problem for that
// path alone, returned as an error result; the others still run. Shard 1
// alone reports the problems, so that merged shards hold each once.
struct Inputs {
  std::vector<std::string> files;
  std::vector<redscope::TestResult> problems;
  std::size_t all = 0;  // the tests of every shard
};

Inputs inputs_of_prepared(const Cli& c, bool prepare);
Inputs inputs_of(const Cli& c) { return inputs_of_prepared(c, true); }

// `prepare`: run the dialects' prepare step (CUDA: nvcc for every file at
// once); cuda-check --ptx compiles nothing.
Inputs inputs_of_prepared(const Cli& c, bool prepare) {
  Inputs in;
  std::vector<redscope::Diagnostic> probs;
  const std::vector<std::string> all =
      redscope::collect_litmus_files(c.paths, &probs, c.max_file_bytes);
  in.all = all.size();
  for (std::size_t i = 0; i < all.size(); ++i)
    if (c.shards == 1 || redscope::in_shard(i, c.shard, c.shards)) in.files.push_back(all[i]);
  if (c.shard != 1) probs.clear();
  // Work a dialect does once for all its files (CUDA: one nvcc call); tests
  // this machine cannot check at all (no nvcc) make the command line unusable.
  const std::vector<std::string> missing =
      prepare ? redscope::prepare_test_files(in.files, c.max_file_bytes)
              : std::vector<std::string>{};
  for (const std::string& m : missing) fmt::print(stderr, "redscope: {}\n", m);
  if (!missing.empty()) std::exit(kExitUsage);
  for (const redscope::Diagnostic& d : probs) {
    redscope::TestResult r;
    r.file = d.file;
    r.test = std::filesystem::path(d.file).stem().string();
    r.parsed = false;
    r.error = d.render();
    r.error_at = d;
    r.error_kind = "input";
    in.problems.push_back(std::move(r));
  }
  return in;
}

// Prints each problem; false (after saying so) when there is nothing to check.
// A shard without tests of paths that hold some (more shards than tests) is
// no error: it runs, printing an empty result (JSON "[]", no JSON line).
bool report_inputs(const Cli& c, const Inputs& in) {
  for (const redscope::TestResult& r : in.problems) fmt::print(stderr, "{}\n", *r.error);
  if (!in.files.empty()) return true;
  std::string paths;
  for (const std::string& p : c.paths) paths += (paths.empty() ? "" : ", ") + p;
  const std::string what = redscope::accepted_files();  // ".litmus or .test"
  if (in.all > 0) {
    if (!c.quiet)
      fmt::print(stderr,
                 "redscope: shard {}/{} holds none of the {} test files (more shards than "
                 "tests): nothing to check\n",
                 c.shard, c.shards, in.all);
    return true;
  }
  fmt::print(stderr, "redscope: no {} file found in {}: nothing checked\n", what, paths);
  return false;
}

redscope::EngineOptions options_of(const Cli& c) {
  redscope::EngineOptions opts;
  opts.expand.unroll = c.unroll;
  opts.observe_all = c.observe_all;
  opts.semantics_options = c.semantics_options;
  opts.model = c.model;
  opts.max_outcomes = c.max_outcomes;
  opts.engine = c.engine;
  opts.verdict_only = c.verdict;
  // Pictures are drawn from the solver's structured witnesses.
  if (c.dot_dir && c.engine == redscope::EngineKind::Auto && redscope::z3_available())
    opts.engine = redscope::EngineKind::Z3;
  opts.max_file_bytes = c.max_file_bytes;
  opts.limits = c.limits;
  if (c.cat) {
    opts.model_file = *c.cat;
    opts.user_model = c.user_model;
  }
  return opts;
}

// How `run` keeps outcomes to print (docs/cli.md "Listing many outcomes"):
// witnesses only for JSON (text prints none), and 1/32 of --max-memory
// (256 MiB by default and without a cap) per test before a sorted run of
// them goes to a file in $TMPDIR.
redscope::ListingOptions listing_options(const Cli& c) {
  redscope::ListingOptions l;
  l.witnesses = c.format != "text";
  const std::size_t mb =
      c.limits.memory_mb ? std::clamp<std::size_t>(c.limits.memory_mb / 32, 16, 1024) : 256;
  l.memory = mb << 20;
  return l;
}

// --dot DIR: a picture of each outcome's witness of each z3 result, drawn
// as the results stream by (the k-th result added is the k-th of
// `addresses`, which name the pictures). The first picture that cannot be
// written stops the drawing; error() says why, for after the run.
class RunPictures {
 public:
  RunPictures(const Cli& c, const std::vector<std::string>& addresses)
      : dir_(c.dot_dir),
        stems_(dir_ ? redscope::unique_stems(addresses) : std::vector<std::string>{}) {}
  void add(const redscope::TestResult& r) {
    const std::size_t t = next_++;
    if (!dir_ || error_) return;
    try {
      draw(r, stems_.at(t));
    } catch (const std::exception& e) {
      error_ = e.what();
    }
  }
  const std::optional<std::string>& error() const { return error_; }

 private:
  void draw(const redscope::TestResult& r, const std::string& stem) const {
    if (r.error || r.outcomes.empty() || r.engine != "z3" || !r.expansion) return;
    const redscope::Expansion& ex = *r.expansion;
    for (std::size_t k = 0; k < r.outcomes.size(); ++k) {
      const redscope::Witness& w = r.outcomes[k].witness;
      if (w.skeleton >= ex.skeletons.size()) continue;
      std::string values;
      for (std::size_t i = 0; i < r.observables.size(); ++i)
        values +=
            fmt::format("{}{}={}", i ? "; " : "", r.observables[i].label, r.render_value(k, i));
      redscope::write_picture(*dir_, fmt::format("{}-{}", stem, k + 1),
                              redscope::witness_dot(ex.skeletons[w.skeleton], w,
                                                    fmt::format("{}: {}", r.test, values)));
    }
  }

  std::optional<std::string> dir_;
  std::vector<std::string> stems_;  // a/MP, b/MP apart
  std::size_t next_ = 0;
  std::optional<std::string> error_;
};

// A JSON array on stdout, printed element by element as results stream by
// ("[", elements joined by ",\n", "\n]\n"; "[]\n" when empty): what
// render_json, render_xval_json and render_atomicity_json print at once.
class JsonArrayOut {
 public:
  JsonArrayOut(Progress& p, bool on) : p_(p), on_(on) {}
  void begin() {
    if (on_) p_.print(stdout, "[");
  }
  void item(const std::string& text) {
    if (on_) p_.print(stdout, (n_++ ? ",\n" : "\n") + text);
  }
  // An element printed in pieces by `write` (a listing's outcomes).
  void item(const std::function<void(const redscope::TextSink&)>& write) {
    if (!on_) return;
    p_.print(stdout, n_++ ? ",\n" : "\n");
    write([this](std::string_view s) { p_.print(stdout, s); });
  }
  void end() {
    if (on_) p_.print(stdout, n_ ? "\n]\n" : "]\n");
  }

 private:
  Progress& p_;
  bool on_;
  std::size_t n_ = 0;
};

// One test's output as it finishes: its diagnostic on stderr, its block (text),
// array element (json) or line (jsonl) on stdout; -v adds a timing line.
class RunPrinter {
 public:
  RunPrinter(const Cli& c, Progress& p) : c_(c), p_(p), json_(p, c.format == "json") {}
  void begin() { json_.begin(); }
  // `diagnosed`: the error is already on stderr (a path problem).
  void result(const redscope::TestResult& r, bool diagnosed = false) {
    if (r.error && !diagnosed) p_.print(stderr, *r.error + "\n");
    if (c_.verbose)
      p_.print(stderr,
               fmt::format("checked {} with {}{}: {}, {} skeleton(s), {:.2f} s\n", r.file,
                           r.engine.empty() ? redscope::to_string(c_.engine) : r.engine,
                           r.engine_reason.empty() ? "" : " (" + r.engine_reason + ")",
                           r.verdict_only ? fmt::format("verdict by {}",
                                                        redscope::verdict_by_word(r.verdict_by))
                                          : fmt::format("{} outcome(s)", r.outcome_count()),
                           r.skeletons, r.seconds));
    // Printed in pieces: a listing's outcomes are replayed, never held.
    const redscope::TextSink out = [this](std::string_view s) { p_.print(stdout, s); };
    if (c_.format == "json")
      json_.item([&](const redscope::TextSink& o) { redscope::write_json_item(r, o); });
    else if (c_.format == "jsonl")
      write_line(r, out);
    else if (!c_.quiet) {
      if (c_.show_ptx) show_ptx(r, out);
      redscope::write_text(r, out);
    }
  }
  void end() { json_.end(); }

  // --show-ptx: each thread of a CUDA test as nvcc compiled it (JSON carries
  // it always: "compiled").
  static void show_ptx(const redscope::TestResult& r, const redscope::TextSink& out) {
    if (!r.source) return;
    for (const redscope::ThreadCode& tc : r.source->threads)
      if (!tc.compiled.empty()) out(fmt::format("PTX of {} (nvcc):\n{}\n", tc.name, tc.compiled));
  }

 private:
  // A JSON Lines line is written whole, however the run is cut (LineSignals).
  static void write_line(const redscope::TestResult& r, const redscope::TextSink& out) {
    LineSignals::begin();
    redscope::write_json_line(r, out);
    LineSignals::end(stdout);
  }

  const Cli& c_;
  Progress& p_;
  JsonArrayOut json_;
};

// Workers split between tests and, with fewer tests than workers, within one
// test (the op machine's search).
std::pair<unsigned, unsigned> split_jobs(const Cli& c, std::size_t tests) {
  const unsigned across =
      static_cast<unsigned>(std::min<std::size_t>(c.jobs, std::max<std::size_t>(1, tests)));
  return {across, std::max(1u, c.jobs / across)};
}

// What the progress line counts as failed: a test that could not be checked,
// and for xval one whose two formulations disagree (a defect).
bool failed(const redscope::TestResult& r) { return r.error.has_value(); }
bool failed(const redscope::AtomicityResult& r) { return r.error.has_value(); }
bool failed(const redscope::XvalResult& r) { return r.error.has_value() || r.defect(); }

// Checks every file with `check` on `jobs` threads, keeping the progress line
// up to date, and hands each result to `emit` in input order (run_ordered;
// `size_of` and `budget` as there).
template <class R, class Check, class Emit>
void stream_files(const std::vector<std::string>& files, unsigned jobs, Progress& progress,
                  Check check, Emit emit, const std::function<std::size_t(const R&)>& size_of = {},
                  std::size_t budget = 0) {
  redscope::run_ordered<R>(
      files.size(), jobs,
      [&](std::size_t i) {
        progress.started(i, redscope::address_stem(files[i]));
        R r = check(files[i]);
        progress.finished(i, failed(r));
        return r;
      },
      [&](std::size_t, R&& r) { emit(std::move(r)); }, 0, size_of, budget);
}

// About the bytes an xval result holds (its outcomes' values and traces).
std::size_t xval_bytes(const redscope::XvalResult& r) {
  std::size_t n = sizeof r;
  for (const redscope::XvalOutcome& o : r.outcomes) {
    n += sizeof o + o.trace.size() + o.z3_choices.size();
    for (const std::string& v : o.values) n += sizeof v + v.size();
  }
  return n;
}

int run(const Cli& c) {
  if (c.outcome || c.condition)
    usage_error("--outcome and --condition belong to `redscope explain`");
  if (c.verdict && c.dot_dir)
    usage_error("--dot draws every outcome's witness; --verdict lists no outcomes");
  std::vector<redscope::Expectation> expectations;
  if (c.expect) {
    try {
      expectations = redscope::read_expectations(*c.expect, c.max_file_bytes);
    } catch (const redscope::InputError& e) {
      fmt::print(stderr, "{}\n", e.diagnostic().render());
      return kExitUsage;
    }
  }
  const Inputs in = inputs_of(c);
  if (!report_inputs(c, in)) return kExitInputError;
  redscope::EngineOptions opts = options_of(c);
  const auto [across, within] = split_jobs(c, in.files.size());
  opts.workers = within;
  if (!c.verdict) opts.listing = listing_options(c);
  // Each result is printed, counted and drawn as it streams by, then dropped.
  redscope::ExpectTally tally(std::move(expectations));
  std::vector<std::string> addresses;
  if (c.dot_dir) {
    for (const redscope::TestResult& r : in.problems) addresses.push_back(r.file);
    addresses.insert(addresses.end(), in.files.begin(), in.files.end());
  }
  RunPictures pictures(c, addresses);
  bool any_error = !in.problems.empty();
  std::optional<LineSignals> line_signals;  // before any worker starts
  if (c.format == "jsonl") line_signals.emplace();
  {
    Progress progress(in.files.size(), c.quiet);
    RunPrinter out(c, progress);
    auto consume = [&](const redscope::TestResult& r, bool diagnosed) {
      out.result(r, diagnosed);
      any_error = any_error || r.error.has_value();
      tally.add(r);
      pictures.add(r);
    };
    out.begin();
    for (const redscope::TestResult& r : in.problems) consume(r, true);
    stream_files<redscope::TestResult>(
        in.files, across, progress,
        [&](const std::string& f) { return redscope::check_file(f, opts); },
        [&](redscope::TestResult&& r) { consume(r, false); });
    out.end();
  }
  if (pictures.error()) {
    fmt::print(stderr, "redscope: --dot: {}\n", *pictures.error());
    any_error = true;
  }
  redscope::ExpectReport rep;
  if (c.expect) rep = tally.compared();
  const bool claims = tally.add_claims(rep);
  if (c.expect || claims) {
    auto& out = c.format == "text" ? stdout : stderr;
    for (const auto& l : rep.lines) fmt::print(out, "{}\n", l);
    if (rep.not_run)
      fmt::print(out, "{} expectation(s) name files that were not run\n", rep.not_run);
    fmt::print(out, "{} passed, {} failed, {} errors\n", rep.passed, rep.failed, rep.errors);
    if (rep.passed + rep.failed + rep.errors == 0) {
      fmt::print(stderr, "redscope: no row of {} names a file of this run: nothing was compared\n",
                 *c.expect);
      return kExitMismatch;
    }
    if (rep.failed > 0) return kExitMismatch;
  }
  return any_error ? kExitInputError : kExitOk;
}

// Exit 4 when some outcome is reached by the machine but forbidden by the
// model, or a PTO program's explorer and Z3 twin disagree (XvalResult::defect).
int run_xval(const Cli& c) {
  const Inputs in = inputs_of(c);
  if (!report_inputs(c, in)) return kExitInputError;
  redscope::EngineOptions opts = options_of(c);
  const auto [across, within] = split_jobs(c, in.files.size());
  opts.workers = within;
  // Each result is printed and counted as it streams by, then dropped.
  redscope::XvalSummary summary;
  bool any_error = !in.problems.empty(), defect = false;
  {
    Progress progress(in.files.size(), c.quiet);
    JsonArrayOut json(progress, c.format != "text");
    json.begin();
    stream_files<redscope::XvalResult>(
        in.files, across, progress,
        [&](const std::string& f) { return redscope::xval_file(f, opts); },
        [&](redscope::XvalResult&& r) {
          if (r.error) {
            any_error = true;
            progress.print(stderr, *r.error + "\n");
          }
          const bool bad = r.defect();
          defect = defect || bad;
          if (c.format == "text" && (!c.quiet || bad))
            progress.print(stdout, redscope::render_xval_text(r));
          if (c.format != "text") json.item(redscope::render_xval_json_item(r));
          summary.add(r);
        },
        // Results are small: behind one slow test (a spin lock on the
        // machine) the other workers go on while those waiting hold < 64 MiB.
        xval_bytes, std::size_t{64} << 20);
    json.end();
  }
  fmt::print(c.format == "text" ? stdout : stderr, "{}", summary.render());
  if (defect) return kExitDefect;
  return any_error ? kExitInputError : kExitOk;
}

int run_explain(const Cli& c) {
  try {
    const redscope::LitmusTest t = redscope::parse_litmus_file(c.paths[0], c.max_file_bytes);
    const redscope::Explanation e =
        redscope::with_budget(options_of(c), [&](const redscope::EngineOptions& o) {
          return redscope::explain(t, o, redscope::ExplainRequest{c.outcome});
        });
    fmt::print("{}", c.format == "json" ? redscope::render_json(e) : redscope::render_text(e));
    if (c.dot_dir) {
      const std::string stem = redscope::file_stem(e.test);
      if (e.allowed) {
        redscope::write_picture(
            *c.dot_dir, stem + "-witness",
            redscope::witness_dot(e.expansion->skeletons[e.witness.skeleton], e.witness,
                                  e.test + ": " + e.outcome + " (allowed)"));
      }
      for (const redscope::Breach& b : e.breaches)
        redscope::write_picture(
            *c.dot_dir, fmt::format("{}-{}", stem, redscope::file_stem(b.axiom)),
            redscope::witness_dot(e.expansion->skeletons[b.execution.skeleton], b.execution,
                                  fmt::format("{}: {} breaks {}", e.test, e.outcome, b.axiom),
                                  b.edges));
    }
    return kExitOk;
  } catch (const redscope::InputError& e) {
    fmt::print(stderr, "{}\n", e.diagnostic().render());
    return kExitInputError;
  } catch (const redscope::BudgetExceeded& e) {
    fmt::print(stderr, "{}: error: {}\n", c.paths[0], e.what());
    return kExitInputError;
  } catch (const std::invalid_argument& e) {
    usage_error(e.what());
  } catch (const std::exception& e) {
    fmt::print(stderr, "redscope: {}\n", e.what());
    return kExitInputError;
  }
}

// `redscope compile-check PTX.litmus SASS.litmus`: exit 1 when the SASS
// reaches an outcome the PTX model forbids, or a test cannot be checked.
int run_compile_check(const Cli& c) {
  try {
    const redscope::LitmusTest ptx = redscope::parse_litmus_file(c.paths[0], c.max_file_bytes);
    const redscope::LitmusTest compiled = redscope::parse_litmus_file(c.paths[1], c.max_file_bytes);
    if (ptx.arch != "PTX")
      usage_error(fmt::format("compile-check: {} is not a PTX test (first the PTX, then the SASS)",
                              c.paths[0]));
    if (compiled.arch != "SASS")
      usage_error(fmt::format("compile-check: {} is not a SASS test (first the PTX, then the SASS)",
                              c.paths[1]));
    const redscope::CompileCheck r =
        redscope::with_budget(options_of(c), [&](const redscope::EngineOptions& o) {
          return redscope::compile_check(ptx, compiled, o, redscope::run_engine);
        });
    fmt::print("{}", c.format == "json" ? redscope::render_json(r) : redscope::render_text(r));
    return r.miscompilations.empty() ? kExitOk : kExitInputError;
  } catch (const redscope::InputError& e) {
    fmt::print(stderr, "{}\n", e.diagnostic().render());
    return kExitInputError;
  } catch (const redscope::BudgetExceeded& e) {
    fmt::print(stderr, "{}: error: {}\n", c.paths[1], e.what());
    return kExitInputError;
  } catch (const std::exception& e) {
    fmt::print(stderr, "redscope: {}\n", e.what());
    return kExitInputError;
  }
}

// `redscope cuda-check FILE|DIR... [--ptx MODULE.ptx] [--arch sm_XX]`.
int run_mapping_check(int argc, char** argv) {
  std::vector<char*> rest;
  const redscope::cli::MappingCheckOptions own =
      redscope::cli::take_mapping_check_options(argc, argv, rest);
  Cli c = parse_run(static_cast<int>(rest.size()), rest.data());
  if (own.arch) {  // the compiler again, now for --arch's target
    c.arch = own.arch;
    install_compiler(c);
  }
  if (c.format == "jsonl") usage_error("cuda-check prints text or json");
  if (c.expect || c.outcome || c.condition || c.dot_dir || c.html_dir || c.observe_all ||
      c.verdict || c.engine == redscope::EngineKind::Op || c.cat || c.model || c.source ||
      c.shards != 1)
    usage_error(
        "cuda-check takes --ptx, --arch, --format text|json, --engine z3|enum, --unroll, "
        "--nvcc, --no-cache and the budget options only");
  const Inputs in = inputs_of_prepared(c, !own.ptx);
  if (!report_inputs(c, in)) return kExitUsage;
  if (own.ptx && in.files.size() != 1)
    usage_error("--ptx MODULE.ptx is the compiled form of one test: name one CUDA test");
  return redscope::cli::run_mapping_check(
      redscope::cli::MappingCheckInput{
          .files = in.files, .ptx = own.ptx, .format = c.format, .quiet = c.quiet},
      options_of(c));
}

// Exit status: 1 if a test could not be checked, 3 if a verdict differs from
// an expected.csv beside the tests, 4 if the machine reached a forbidden outcome.
int run_report(const Cli& c) {
  const Inputs in = inputs_of(c);
  if (!report_inputs(c, in)) return kExitInputError;
  const std::vector<std::string>* found = &in.files;
  redscope::ReportOptions ro;
  ro.dir = *c.html_dir;
  ro.jobs = c.jobs;
  ro.xval = !c.no_xval;
  ro.pictures = !c.no_pictures;
  redscope::ReportSummary s;
  try {
    Progress progress(found->size(), c.quiet);
    s = redscope::write_html_report(
        *found, options_of(c), ro,
        [&](std::size_t i) { progress.started(i, redscope::address_stem((*found)[i])); },
        [&](std::size_t i, bool error) { progress.finished(i, error); });
  } catch (const std::exception& e) {
    fmt::print(stderr, "redscope: report: {}\n", e.what());
    return kExitInputError;
  }
  fmt::print(
      "{}/index.html: {} tests, {} errors, {} verdicts differ from expected.csv or a .test claim, "
      "{} "
      "reached-but-forbidden\n",
      ro.dir, s.tests, s.errors, s.mismatches, s.defects);
  if (s.defects) return kExitDefect;
  if (s.mismatches) return kExitMismatch;
  return s.errors || !in.problems.empty() ? kExitInputError : kExitOk;
}

// `report --matrix ROWS COLS` / `report --from SPEC` (report_matrix_command.cpp).
int run_report_matrix(const redscope::cli::MatrixOptions& m, const Cli& c) {
  if (c.expect || c.outcome || c.condition || c.dot_dir || c.shards > 1 || c.observe_all ||
      c.verdict)
    usage_error(
        "report --matrix takes --from, --verdict, --format, --html, --no-xval, --no-pictures, "
        "-j, --model, --engine, --unroll and the budget options only");
  redscope::cli::MatrixCommon mc;
  mc.engine = options_of(c);
  mc.jobs = c.jobs;
  mc.quiet = c.quiet;
  mc.paths = c.paths;
  mc.html_dir = c.html_dir;
  mc.xval = !c.no_xval;
  mc.pictures = !c.no_pictures;
  mc.max_file_bytes = c.max_file_bytes;
  if (mc.paths.empty() && !m.from)
    usage_error("report --matrix needs INPUT: a folder, test files or result files (or --from)");
  return redscope::cli::run_report_matrix(m, mc);
}

int run_atomicity(const Cli& c) {
  const Inputs in = inputs_of(c);
  if (!report_inputs(c, in)) return kExitInputError;
  const redscope::EngineOptions opts = options_of(c);
  bool any_error = !in.problems.empty();
  {
    Progress progress(in.files.size(), c.quiet);
    JsonArrayOut json(progress, c.format != "text");  // streamed, as run's
    json.begin();
    stream_files<redscope::AtomicityResult>(
        in.files, c.jobs, progress,
        [&](const std::string& f) { return redscope::check_atomicity_file(f, opts); },
        [&](redscope::AtomicityResult&& r) {
          if (r.error) {
            any_error = true;
            progress.print(stderr, *r.error + "\n");
          }
          if (c.format == "text" && !c.quiet)
            progress.print(stdout, redscope::render_atomicity_text(r));
          if (c.format != "text") json.item(redscope::render_atomicity_json_item(r));
        });
    json.end();
  }
  return any_error ? kExitInputError : kExitOk;
}

}  // namespace

// `redscope merge A.json B.json ...`: one run's JSON from its shards.
// `redscope merge [--max-file-size MB] SHARD.json... | -`: each input is read
// by read_input (a regular file, or standard input for "-", at most
// --max-file-size). An input merge cannot use (unreadable, not valid JSON,
// not the results of `run`, a test in two inputs) is exit 2 and nothing is
// printed, so that exit 1 always means a valid merge in which some test could
// not be checked (scripts/slurm/finish-suite.sbatch re-runs on 2, keeps on 1).
int run_merge(int argc, char** argv) {
  std::vector<std::string> names;
  std::size_t max_bytes = redscope::kDefaultMaxInputBytes;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      fmt::print("{}", kUsage);
      return kExitOk;
    }
    if (a == "--max-file-size") {
      if (i + 1 >= argc) usage_error("--max-file-size needs a value");
      max_bytes = static_cast<std::size_t>(parse_int(a, argv[++i], redscope::cli::kMaxFileSizeMinMb,
                                                     redscope::cli::kMaxFileSizeMaxMb))
                  << 20;
    } else if (!a.empty() && a[0] == '-' && a != "-") {
      usage_error(fmt::format("merge takes JSON files only, not '{}'", redscope::printable(a)));
    } else {
      names.push_back(a);
    }
  }
  std::vector<std::pair<std::string, std::string>> texts;
  try {
    for (const std::string& a : names)
      texts.emplace_back(
          a == "-" ? "<stdin>" : a,
          a == "-" ? redscope::read_input_stream(std::cin, "<stdin>", max_bytes, "standard input")
                   : redscope::read_input(a, max_bytes, "JSON file"));
  } catch (const redscope::InputError& e) {
    fmt::print(stderr, "{}\n", e.diagnostic().render());
    return kExitUsage;
  }
  if (texts.empty()) usage_error("merge needs the JSON files of the shards");
  try {
    const redscope::MergedRun m = redscope::merge_run_json(texts);
    fmt::print("{}", m.json);
    fmt::print(stderr, "merged {} tests from {} files; {} could not be checked\n", m.tests,
               texts.size(), m.errors);
    return m.errors ? kExitInputError : kExitOk;
  } catch (const redscope::InputError& e) {
    fmt::print(stderr, "{}\n", e.diagnostic().render());
    return kExitUsage;
  }
}

int main(int argc, char** argv) {
  redscope::tune_allocator();  // before any thread starts
  if (argc < 2) {
    fmt::print(stderr, "{}", kUsage);
    return kExitUsage;
  }
  const std::string cmd = argv[1];
  if (cmd == "-h" || cmd == "--help" || cmd == "help") {
    fmt::print("{}", kUsage);
    return kExitOk;
  }
  if (cmd == "--version") {
    fmt::print("redscope {}\n", kVersion);
    return kExitOk;
  }
  if (cmd == "run") return run(parse_run(argc, argv));
  if (cmd == "xval") {
    const Cli c = parse_run(argc, argv);
    if (c.expect || c.verdict)
      usage_error("xval takes --format, -j, --model, --unroll, --observe-all, --pto-order only");
    return run_xval(c);
  }
  if (cmd == "merge") return run_merge(argc, argv);
  if (cmd == "gen") return redscope::cli::run_gen(argc, argv);
  if (const redscope::Dialect* d = redscope::dialect_with_command(cmd))
    return d->run_command(argc, argv, redscope::parse_litmus_file);
  if (cmd == "ptxas-check") return redscope::cli::run_ptxas_check(argc, argv);
  if (cmd == "models") return redscope::cli::run_models(argc, argv);
  if (cmd == "report") {
    std::vector<char*> rest;
    const redscope::cli::MatrixOptions m = redscope::cli::take_matrix_options(argc, argv, rest);
    if (m.any)
      return run_report_matrix(
          m, parse_run(static_cast<int>(rest.size()), rest.data(), m.from.has_value()));
    const Cli c = parse_run(argc, argv);
    if (!c.html_dir) usage_error("report needs --html DIR");
    if (c.expect || c.outcome || c.condition || c.dot_dir || c.verdict)
      usage_error("report takes --html, -j, --model, --unroll, --no-xval and --no-pictures only");
    return run_report(c);
  }
  if (cmd == "explain") {
    const Cli c = parse_run(argc, argv);
    if (c.paths.size() != 1) usage_error("explain takes one litmus file");
    if (c.outcome.has_value() == c.condition)
      usage_error("explain needs exactly one of --outcome \"P0:r0=1; x=2\" and --condition");
    if (c.expect || c.observe_all || c.verdict ||
        (c.engine != redscope::EngineKind::Auto && c.engine != redscope::EngineKind::Z3))
      usage_error(
          "explain takes --outcome/--condition, --format, --model, --unroll and --dot only");
    return run_explain(c);
  }
  if (cmd == "compile-check") {
    const Cli c = parse_run(argc, argv);
    if (c.paths.size() != 2)
      usage_error("compile-check takes two litmus files: the PTX test, then its SASS");
    if (c.expect || c.outcome || c.condition || c.dot_dir || c.html_dir || c.observe_all ||
        c.verdict || c.engine == redscope::EngineKind::Op || c.cat)
      usage_error(
          "compile-check takes --format, --engine z3|enum, --unroll and the budget "
          "options only");
    return run_compile_check(c);
  }
  if (cmd == "cuda-check") return run_mapping_check(argc, argv);
  if (cmd == "atomicity") {
    const Cli c = parse_run(argc, argv);
    if (c.expect || c.observe_all || c.engine == redscope::EngineKind::Op)
      usage_error(
          "atomicity takes --format, -j, --model, --unroll, --verdict and --engine z3|enum "
          "only");
    return run_atomicity(c);
  }
  usage_error(fmt::format("unknown command '{}'", cmd));
}
