// `redscope ptxas-check [options] FILE|DIR...`: every PTX litmus test
// assembled by NVIDIA's ptxas, each instruction's verdict compared with
// redscope's (redscope/analysis/ptxas_check.hpp, docs/cli.md).
#include "cli/ptxas_command.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "redscope/analysis/ptxas_check.hpp"
#include "redscope/driver/suite.hpp"

namespace redscope::cli {

namespace {

constexpr const char* kPtxasUsage = R"(Usage:
  redscope ptxas-check [options] FILE|DIR...
Wraps each thread of every PTX litmus test into a kernel of a PTX module
(registers declared from the instruction types, locations as .param
addresses or .shared variables, each instruction's text as written) and
assembles it with NVIDIA's ptxas for the test's target; then compares, for
each instruction ptxas can read, its verdict with redscope's. Each file is
reported as agree, DISAGREE or cannot judge (with the reason); instructions
ptxas cannot judge (Dat3M's shorthand, instructions newer than the ptxas,
an instruction that crashes it) are listed as not checked.
Options:
  --ptxas PATH        the ptxas to run (default: ptxas on PATH, else
                      $CUDA_HOME/bin/ptxas, else /usr/local/cuda/bin/ptxas)
  --timeout SECONDS   per ptxas call (default 60)
  -j N, --jobs N      ptxas calls at once (default: hardware threads)
  --format text|json  output (default text)
  --ptx-dir DIR       also write each file's module to DIR/NAME.ptx
  --max-file-size MB  reject input files over MB mebibytes (default 16)
  -q, --quiet         only the files that disagree, and the summary
Exit status: 0 no file disagrees; 1 a path could not be read or no test
was found; 2 bad command line, or no ptxas; 3 some file disagrees.
)";

[[noreturn]] void usage_error(const std::string& msg) {
  fmt::print(stderr, "redscope ptxas-check: {}\nTry 'redscope ptxas-check --help'.\n", msg);
  std::exit(2);
}

double parse_number(const std::string& opt, const std::string& v, double lo, double hi) {
  double x = 0;
  const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec != std::errc() || p != v.data() + v.size() || x < lo || x > hi)
    usage_error(fmt::format("{} takes a number from {:g} to {:g}, not '{}'", opt, lo, hi, v));
  return x;
}

// How the summary counts a file it cannot judge: the reason's first clause.
std::string reason_class(const std::string& reason) {
  static constexpr std::string_view kNone = "no instruction ptxas can judge: ";
  if (reason.rfind("not a PTX litmus test", 0) == 0) return reason;
  std::string_view r = reason;
  std::string head;
  if (r.rfind(kNone, 0) == 0) {
    head = std::string(kNone);
    r.remove_prefix(kNone.size());
  }
  const std::size_t cut = std::min({r.find(": "), r.find(" ("), r.find(" '")});
  return head + std::string(r.substr(0, cut));
}

}  // namespace

int run_ptxas_check(int argc, char** argv) {
  PtxasCheckOptions opts;
  opts.jobs = std::max(1u, std::thread::hardware_concurrency());
  std::optional<std::string> given;
  std::string format = "text";
  bool quiet = false;
  std::vector<std::string> paths;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage_error(fmt::format("{} needs a value", a));
      return argv[++i];
    };
    if (a == "-h" || a == "--help") {
      fmt::print("{}", kPtxasUsage);
      return 0;
    } else if (a == "--ptxas") {
      given = value();
    } else if (a == "--timeout") {
      opts.timeout_seconds = parse_number(a, value(), 0, 86400);
    } else if (a == "-j" || a == "--jobs") {
      opts.jobs = static_cast<unsigned>(parse_number(a, value(), 1, 256));
    } else if (a.rfind("-j", 0) == 0 && a.size() > 2) {
      opts.jobs = static_cast<unsigned>(parse_number("-j", a.substr(2), 1, 256));
    } else if (a == "--format") {
      format = value();
      if (format != "text" && format != "json")
        usage_error(fmt::format("--format is text or json, not '{}'", format));
    } else if (a == "--ptx-dir") {
      opts.ptx_dir = value();
    } else if (a == "--max-file-size") {
      opts.max_file_bytes = static_cast<std::size_t>(parse_number(a, value(), 1, 4096)) << 20;
    } else if (a == "-q" || a == "--quiet") {
      quiet = true;
    } else if (!a.empty() && a[0] == '-') {
      usage_error(fmt::format("unknown option '{}'", a));
    } else {
      paths.push_back(a);
    }
  }
  if (paths.empty()) usage_error("ptxas-check needs a litmus file or folder");
  std::string why;
  const std::optional<PtxasTool> tool = find_ptxas(given, why, opts.timeout_seconds);
  if (!tool) {
    fmt::print(stderr,
               "redscope ptxas-check: {}: nothing can be checked (give one with --ptxas "
               "PATH)\n",
               why);
    return 2;
  }
  opts.tool = *tool;
  std::vector<Diagnostic> problems;
  const std::vector<std::string> files = collect_litmus_files(paths, &problems);
  for (const Diagnostic& d : problems) fmt::print(stderr, "{}\n", d.render());
  if (files.empty()) {
    if (problems.empty()) fmt::print(stderr, "redscope ptxas-check: no litmus file found\n");
    return 1;
  }
  const std::vector<PtxasFileResult> results = ptxas_check(files, opts);
  std::size_t agree = 0, disagree = 0, unjudged = 0;
  std::map<std::string, std::size_t> reasons;
  for (const PtxasFileResult& r : results) {
    if (r.verdict == PtxasVerdict::Agree) ++agree;
    if (r.verdict == PtxasVerdict::Disagree) ++disagree;
    if (r.verdict == PtxasVerdict::CannotJudge) {
      ++unjudged;
      ++reasons[reason_class(r.reason)];
    }
  }
  const std::string ptx_isa = fmt::format("{}.{}", tool->max_ptx / 10, tool->max_ptx % 10);
  if (format == "json") {
    Json o = Json::object();
    o.set("ptxas", tool->path);
    o.set("release", tool->release);
    o.set("ptx_isa", ptx_isa);
    Json fs = Json::array();
    for (const PtxasFileResult& r : results) fs.push(ptxas_json(r));
    o.set("files", std::move(fs));
    Json s = Json::object();
    s.set("agree", agree);
    s.set("disagree", disagree);
    s.set("cannot_judge", unjudged);
    Json by = Json::object();
    for (const auto& [k, n] : reasons) by.set(k, n);
    s.set("cannot_judge_by_reason", std::move(by));
    o.set("summary", std::move(s));
    fmt::print("{}\n", o.dump(Json::Layout::Nested));
  } else {
    fmt::print("ptxas {} ({}, PTX ISA up to {})\n", tool->release, tool->path, ptx_isa);
    for (const PtxasFileResult& r : results)
      if (!quiet || r.verdict == PtxasVerdict::Disagree)
        fmt::print("{}", render_ptxas_text(r, quiet));
    fmt::print("{} file{}: {} agree, {} disagree, {} cannot judge\n", results.size(),
               results.size() == 1 ? "" : "s", agree, disagree, unjudged);
    for (const auto& [k, n] : reasons) fmt::print("  cannot judge, {}: {}\n", k, n);
  }
  if (disagree) return 3;
  return problems.empty() ? 0 : 1;
}

}  // namespace redscope::cli
