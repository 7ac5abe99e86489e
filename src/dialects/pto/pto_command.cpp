// `redscope pto cycles`: the seed's A2/A3 and A5 cycle tables applied to a
// PTO program's reductions (pto_cycles.hpp).
#include "redscope/dialects/pto/pto_command.hpp"

#include <fmt/format.h>

#include <string>

#include "redscope/core/budget.hpp"
#include "redscope/core/cli_args.hpp"
#include "redscope/core/diagnostic.hpp"
#include "redscope/dialects/pto/pto.hpp"
#include "redscope/dialects/pto/pto_cycles.hpp"
#include "redscope/frontend/frontend.hpp"

namespace redscope::cli {

namespace {

constexpr const char* kPtoUsage = R"(Usage:
  redscope pto cycles FILE [--arch a2a3|a5] [--format text|json]
                      [--timeout SECONDS] [--max-memory MB] [--max-file-size MB]
      the cycles of each reduction of the PTO program in FILE (a .litmus file
      whose first word is PTO) and their total, from the seed's tables:
        a2a3 (default)  startup + completion + repeats × per_repeat
                        + (repeats - 1) × interval
        a5              repeats × latency
      repeats: how many times the instruction runs once loops are unrolled.
      Each line shows the formula with its numbers; figures the seed lacks
      are marked "assumed" (docs/cli.md). vlds, vsts and barrier have no
      figures and are listed as not counted (pset and arith.constant are
      folded before run time). With several cores the total is their sum,
      and a line gives each core's (they run in parallel).
      --timeout (default 300; 0: none), --max-memory (default 8192; 0: none)
      and --max-file-size (default 16) as for `redscope run`: reading,
      parsing (loops unrolled) and counting run under the budget.
Exit status: 0 done, 1 the file could not be read or parsed (FILE:LINE:COL)
or the budget ran out (FILE: error: timeout: ... / memory: ...), 2 bad
command line.
)";

// What with_budget needs (redscope/core/budget.hpp): the limits of `run`
// and the Budget they make.
struct CycleOptions {
  BudgetLimits limits{300, 8192};
  std::size_t max_file_bytes = kDefaultMaxFileBytes;
  const Budget* budget = nullptr;
};

// Reads, parses and counts FILE under the budget of `o`.
PtoCycles cycles_of(const std::string& file, PtoArch arch, const CycleOptions& o,
                    TestFileReader read) {
  return with_budget(o, [&](const CycleOptions& b) {
    const LitmusTest t = read(file, b.max_file_bytes);
    check(b.budget);
    const pto::Program* program = pto::program_of(t);
    if (!program)
      throw InputError(Diagnostic{
          file, {1, 1}, fmt::format("not a PTO program (its first word is {}, not PTO)", t.arch)});
    PtoCycles c = pto_cycles(*program, arch);
    check(b.budget);
    return c;
  });
}

int usage(const std::string& msg) {
  fmt::print(stderr, "redscope: {}\n{}", msg, kPtoUsage);
  return 2;
}

}  // namespace

int run_pto(int argc, char** argv, TestFileReader read) {
  if (argc >= 3 && (std::string(argv[2]) == "-h" || std::string(argv[2]) == "--help")) {
    fmt::print("{}", kPtoUsage);
    return 0;
  }
  if (argc < 3 || std::string(argv[2]) != "cycles")
    return usage(argc < 3 ? "pto needs a command: cycles"
                          : fmt::format("unknown pto command '{}' (cycles)", argv[2]));
  std::string file, format = "text";
  PtoArch arch = PtoArch::A2A3;
  CycleOptions opts;
  for (int i = 3; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--timeout" || a == "--max-memory" || a == "--max-file-size") {
      // The ranges of `run` (src/cli/main.cpp).
      const bool file_size = a == "--max-file-size";
      const long long lo = file_size ? kMaxFileSizeMinMb : 0;
      const long long hi = a == "--timeout" ? 86400 : file_size ? kMaxFileSizeMaxMb : 1 << 24;
      const std::optional<long long> v =
          i + 1 < argc ? parse_whole(argv[++i], lo, hi) : std::nullopt;
      if (!v) return usage(fmt::format("{} takes a whole number from {} to {}", a, lo, hi));
      if (a == "--timeout")
        opts.limits.seconds = static_cast<double>(*v);
      else if (a == "--max-memory")
        opts.limits.memory_mb = static_cast<std::size_t>(*v);
      else
        opts.max_file_bytes = static_cast<std::size_t>(*v) << 20;
    } else if (a == "--arch" || a == "--format") {
      if (i + 1 >= argc) return usage(a + " needs a value");
      const std::string v = argv[++i];
      if (a == "--arch") {
        if (v != "a2a3" && v != "a5") return usage(fmt::format("unknown arch '{}' (a2a3, a5)", v));
        arch = v == "a5" ? PtoArch::A5 : PtoArch::A2A3;
      } else {
        if (v != "text" && v != "json") return usage(fmt::format("unknown format '{}'", v));
        format = v;
      }
    } else if (!a.empty() && a[0] == '-') {
      return usage(fmt::format("unknown option '{}'", a));
    } else if (file.empty()) {
      file = a;
    } else {
      return usage("pto cycles takes one FILE");
    }
  }
  if (file.empty()) return usage("pto cycles needs a FILE");
  try {
    const PtoCycles c = cycles_of(file, arch, opts, read);
    if (format == "json")
      fmt::print("{}\n", render_cycles_json(c, file).dump(Json::Layout::Nested));
    else
      fmt::print("{}", render_cycles_text(c, file));
    return 0;
  } catch (const InputError& e) {
    fmt::print(stderr, "{}\n", e.what());
    return 1;
  } catch (const BudgetExceeded& e) {
    fmt::print(stderr, "{}: error: {}\n", printable(file), e.what());
    return 1;
  }
}

}  // namespace redscope::cli
