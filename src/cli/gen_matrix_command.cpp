// `redscope gen matrix SPEC --out DIR` (docs/cli.md "redscope gen matrix",
// docs/matrix-spec.md): one litmus file per cell the PTX ISA allows.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "cli/gen_command.hpp"
#include "cli/progress.hpp"
#include "redscope/core/budget.hpp"
#include "redscope/core/cli_args.hpp"
#include "redscope/core/diagnostic.hpp"
#include "redscope/core/input.hpp"
#include "redscope/core/output.hpp"
#include "redscope/generate/matrix.hpp"

namespace redscope::cli {
namespace {

namespace fs = std::filesystem;
using generate::MatrixCell;
using generate::MatrixCount;
using generate::MatrixSpec;

constexpr std::string_view kMatrixUsage = R"(Usage: redscope gen matrix SPEC --out DIR [options]

Writes DIR/NAME.litmus for every cell of the parameter matrix SPEC (a TOML
file: docs/matrix-spec.md) that the PTX ISA allows; NAME is SPEC-NAME+LABEL+...
(one label per axis, in the spec's order). Each cell is read and expanded as
`run` would; cells rejected by a rule of the ISA (a target's minimum sm_NN, a
qualifier, type or state-space table, shared memory another CTA cannot reach)
are skipped and counted by rule; any other error in a cell is an error in the
spec, reported at SPEC:LINE:COL. The count goes to standard output,
the most frequent reason first:
  1152 cells: 1024 written to DIR, 128 skipped:
    96   ld/st's .cluster scope needs sm_90 or later (PTX ISA ...)
    32   ...

DIR is created if needed. It may hold only this spec's cells (files whose
Matrix= line names the spec): they are replaced, and those of an earlier run
that this run does not write are removed. Nothing in DIR changes when the spec
has an error.

Options:
  --out DIR            the folder to write (required)
  -q, --quiet          no progress line
  --max-file-size MB   reject a SPEC larger than MB mebibytes (1 to 4096,
                       default 16)
  --max-tests N        refuse a SPEC of more than N cells before writing any
                       (default 10000; 0: no bound)
  --timeout SECONDS    stop after SECONDS, writing nothing (default 60; 0: none)
  -h, --help           this text

Exit status: 0 when some cell was written, 1 when the ISA forbids every cell
or --timeout stopped the run (nothing written), 2 for a bad spec (two cells
of one name included), more cells than --max-tests, a bad option or a folder
that cannot be written.
)";

[[noreturn]] void usage_error(const std::string& msg) {
  fmt::print(stderr, "redscope gen matrix: {}\n{}", msg, kMatrixUsage);
  std::exit(2);
}

struct Options {
  std::string spec, out;
  bool quiet = false;
  std::size_t max_file_bytes = kDefaultMaxInputBytes;
  GenBudget budget;  // max_tests: cells of the product
};

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 3; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage_error(fmt::format("{} needs a value", a));
      return argv[++i];
    };
    if (is_gen_budget_option(a)) {
      if (auto bad = set_gen_budget(a, value(), o.budget)) usage_error(*bad);
    } else if (a == "-h" || a == "--help") {
      fmt::print("{}", kMatrixUsage);
      std::exit(0);
    } else if (a == "--out" || a == "-o") {
      o.out = value();
    } else if (a == "-q" || a == "--quiet") {
      o.quiet = true;
    } else if (a == "--max-file-size") {
      const std::string v = value();
      const std::optional<long long> mb = parse_whole(v, kMaxFileSizeMinMb, kMaxFileSizeMaxMb);
      if (!mb)
        usage_error(fmt::format("--max-file-size takes a whole number from {} to {}, not '{}'",
                                kMaxFileSizeMinMb, kMaxFileSizeMaxMb, printable(v)));
      o.max_file_bytes = static_cast<std::size_t>(*mb) << 20;
    } else if (!a.empty() && a[0] == '-') {
      usage_error(fmt::format("unknown option '{}'", a));
    } else if (o.spec.empty()) {
      o.spec = a;
    } else {
      usage_error(fmt::format("one SPEC only ('{}' and '{}')", o.spec, a));
    }
  }
  if (o.spec.empty()) usage_error("needs a SPEC file");
  if (o.out.empty()) usage_error("needs --out DIR");
  return o;
}

// The Matrix= metadata line of a litmus file (before its '{'), if any.
std::optional<std::string> matrix_of(const fs::path& file, std::size_t max_bytes) {
  const std::string text = read_input(file.string(), max_bytes, "litmus file");
  const std::string_view head = std::string_view(text).substr(0, text.find('{'));
  std::size_t i = 0;
  while (i < head.size()) {
    std::size_t eol = head.find('\n', i);
    if (eol == std::string_view::npos) eol = head.size();
    std::string_view line = head.substr(i, eol - i);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    if (line.starts_with("Matrix=")) return std::string(line.substr(7));
    i = eol + 1;
  }
  return std::nullopt;
}

// The output folder: DIR holds this spec's cells and nothing else; cells are
// written to a staging folder inside it and moved in once all are written.
class OutputFolder {
 public:
  OutputFolder(fs::path dir, std::string spec_name, std::size_t max_bytes)
      : dir_(std::move(dir)),
        name_(std::move(spec_name)),
        max_bytes_(max_bytes) {
    fs::create_directories(dir_);
    check_only_ours();
    staging_ = dir_ / fmt::format(".gen-matrix-{}.tmp", name_);
    fs::remove_all(staging_);
    fs::create_directory(staging_);
  }
  ~OutputFolder() {
    std::error_code ec;
    fs::remove_all(staging_, ec);  // after an error: DIR is as it was
  }

  void write(const MatrixCell& cell) {
    // `.part`: no reader claims a file a killed run leaves behind (`redscope
    // run DIR` walks hidden folders too); the next run removes them. Cell
    // names are unique (for_each_cell refuses two cells of one name).
    const fs::path file = staging_ / (cell.name + ".litmus.part");
    if (!write_new_file(file.string(), cell.text))
      throw std::runtime_error(fmt::format("{}: written twice (a bug)", file.string()));
  }

  // Replaces the spec's earlier cells by the staged ones.
  void commit() {
    for (const fs::directory_entry& e : fs::directory_iterator(dir_))
      if (is_litmus(e)) fs::remove(e.path());
    for (const fs::directory_entry& e : fs::directory_iterator(staging_))
      fs::rename(e.path(), dir_ / e.path().stem());  // NAME.litmus.part -> NAME.litmus
  }

 private:
  static bool is_litmus(const fs::directory_entry& e) {
    return e.is_regular_file() && e.path().extension() == ".litmus";
  }
  void check_only_ours() const {
    for (const fs::directory_entry& e : fs::directory_iterator(dir_)) {
      if (!is_litmus(e)) continue;
      if (matrix_of(e.path(), max_bytes_) != name_)
        throw std::runtime_error(fmt::format(
            "{} holds {}, which is not a cell of matrix '{}': give an empty folder or one that "
            "gen matrix wrote for this spec",
            dir_.string(), e.path().filename().string(), name_));
    }
  }

  fs::path dir_;
  std::string name_;
  std::size_t max_bytes_;
  fs::path staging_;
};

std::string summary(const MatrixCount& c, const std::string& dir) {
  std::size_t skipped = 0;
  for (const auto& [why, n] : c.skipped) skipped += n;
  std::string s = fmt::format("{} cells: {} written to {}", c.cells, c.written, dir);
  if (skipped == 0) return s + "\n";
  s += fmt::format(", {} skipped:\n", skipped);
  // The most frequent reason first; equal counts by their wording.
  std::vector<std::pair<std::size_t, std::string>> reasons;
  for (const auto& [why, n] : c.skipped) reasons.emplace_back(n, why);
  std::stable_sort(reasons.begin(), reasons.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (const auto& [n, why] : reasons) s += fmt::format("  {:<4} {}\n", n, why);
  return s;
}

}  // namespace

int run_gen_matrix(int argc, char** argv) {
  const Options o = parse_options(argc, argv);
  try {
    const MatrixSpec spec = generate::read_matrix_spec(o.spec, o.max_file_bytes);
    const std::size_t total = generate::matrix_cell_count(spec);
    if (o.budget.max_tests && total > o.budget.max_tests) {
      fmt::print(stderr,
                 "redscope gen matrix: {} has {} cells, over --max-tests {}: nothing written "
                 "(raise --max-tests, 0 for no bound, or give fewer labels)\n",
                 o.spec, total, o.budget.max_tests);
      return 2;
    }
    OutputFolder folder(o.out, spec.name, o.max_file_bytes);
    MatrixCount count;
    const Budget budget(BudgetLimits{o.budget.timeout, 0});
    try {
      Progress progress(total, o.quiet, "cells");
      count = generate::for_each_cell(
          spec,
          [&](const MatrixCell& cell) {
            progress.started(0, cell.name);
            folder.write(cell);
          },
          [&](std::size_t) {
            progress.finished(0, false);
            budget.check();
          });
    } catch (const BudgetExceeded&) {
      fmt::print(stderr,
                 "redscope gen matrix: stopped: over {} s (--timeout); nothing written to {}\n",
                 o.budget.timeout, o.out);
      return 1;
    }
    if (count.written == 0) {
      fmt::print("{}", summary(count, o.out));
      fmt::print(stderr,
                 "redscope gen matrix: the PTX ISA forbids every cell of {}: nothing "
                 "written\n",
                 o.spec);
      return 1;
    }
    folder.commit();
    fmt::print("{}", summary(count, o.out));
    return 0;
  } catch (const InputError& e) {
    fmt::print(stderr, "{}\n", e.what());
  } catch (const std::exception& e) {
    fmt::print(stderr, "redscope gen matrix: {}\n", e.what());
  }
  return 2;
}

}  // namespace redscope::cli
