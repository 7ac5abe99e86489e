// `redscope report --matrix ROWS COLS [--format ...] INPUT...` and
// `redscope report --from SPEC` (docs/cli.md "Matrix reports").
#include "cli/report_matrix_command.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "cli/progress.hpp"
#include "redscope/core/input.hpp"
#include "redscope/core/output.hpp"
#include "redscope/driver/matrix_runs.hpp"
#include "redscope/driver/suite.hpp"
#include "redscope/generate/matrix.hpp"
#include "redscope/registry/registry.hpp"

namespace redscope::cli {

namespace {

constexpr int kExitOk = 0, kExitInput = 1, kExitUsage = 2, kExitDefect = 4;

// A bad command line, found before any test runs (or, for ROWS and COLS
// without a spec, once the first test names the axes).
int usage_status(const std::string& msg) {
  fmt::print(stderr, "redscope: {}\nTry 'redscope --help'.\n", msg);
  return kExitUsage;
}

[[noreturn]] void usage_error(const std::string& msg) { std::exit(usage_status(msg)); }

bool is_result_file(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  return ext == ".json" || ext == ".jsonl";
}

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ",") + n;
  return s;
}

// The table as records arrive (in input order, on one thread at a time):
// checks the layout once the axes are known, prints each problem, counts.
class MatrixCollector {
 public:
  MatrixCollector(MatrixTable table, const MatrixOptions& m, Progress& progress)
      : table_(std::move(table)),
        m_(m),
        progress_(progress) {}

  // ROWS and COLS: --matrix, else the spec's, else every axis but the last
  // down and the last across.
  void set_default_layout(std::string rows, std::string cols) {
    rows_ = std::move(rows);
    cols_ = std::move(cols);
  }
  // A bad --matrix is a usage error, found as soon as the axes are known.
  bool check_layout() {
    if (layout_ || table_.axes().empty()) return true;
    if (m_.rows) {
      rows_ = *m_.rows;
      cols_ = *m_.cols;
    } else if (rows_.empty() && cols_.empty()) {
      for (std::size_t a = 0; a + 1 < table_.axes().size(); ++a)
        rows_ += (rows_.empty() ? "" : ",") + table_.axes()[a].name;
      cols_ = table_.axes().back().name;
    }
    try {
      layout_ = matrix_layout(table_, rows_, cols_);
    } catch (const MatrixError& e) {
      usage_ = e.what();
      return false;
    }
    return true;
  }
  void add(MatrixJudged&& j) {
    defects_ += j.defect;
    if (!j.record) return problem(j.problem);
    try {
      table_.add(std::move(*j.record));
    } catch (const MatrixError& e) {
      return problem(e.what());
    }
    if (!check_layout()) stop_ = true;
  }
  void problem(const std::string& text) {
    ++problems_;
    progress_.print(stderr, "redscope: report --matrix: " + text + "\n");
  }
  bool stopped() const { return stop_; }
  MatrixTable& table() { return table_; }
  const std::optional<MatrixLayout>& layout() const { return layout_; }
  const std::string& usage() const { return usage_; }
  void set_usage(std::string msg) {
    usage_ = std::move(msg);
    stop_ = true;
  }
  std::size_t problems() const { return problems_; }
  std::size_t defects() const { return defects_; }

 private:
  MatrixTable table_;
  const MatrixOptions& m_;
  Progress& progress_;
  std::string rows_, cols_, usage_;
  std::optional<MatrixLayout> layout_;
  std::atomic<bool> stop_{false};
  std::size_t problems_ = 0, defects_ = 0;
};

MatrixRunHooks hooks_of(MatrixCollector& col, Progress& progress) {
  MatrixRunHooks h;
  h.started = [&progress](std::size_t i, const std::string& name) { progress.started(i, name); };
  h.finished = [&progress](std::size_t i, bool error) { progress.finished(i, error); };
  h.judged = [&col](MatrixJudged&& j) { col.add(std::move(j)); };
  h.stop = [&col] { return col.stopped(); };
  return h;
}

// Reads each result file into the table; their kind of result must agree
// with --verdict. False when a file could not be read.
bool read_result_files(const std::vector<std::string>& files, const MatrixCommon& c,
                       MatrixCollector& col, std::optional<VerdictKind>& kind) {
  bool ok = true;
  for (const std::string& f : files) {
    try {
      const std::string text = read_input(f, c.max_file_bytes, "result file");
      const auto k = read_matrix_results(text, f, [&](MatrixRecord&& r) {
        if (!col.stopped()) col.add(MatrixJudged{std::move(r), "", false});
      });
      if (k && kind && *k != *kind) {
        col.set_usage(fmt::format("{} holds results judged by the {}, not the {}", f, to_string(*k),
                                  to_string(*kind)));
        return false;
      }
      if (k) kind = k;
    } catch (const InputError& e) {
      col.problem(e.diagnostic().render());
      ok = false;
    } catch (const MatrixError& e) {
      col.problem(e.what());
      ok = false;
    }
  }
  return ok;
}

// The report: stdout for text, csv, json and svg; DIR/index.html for html.
int render(MatrixCollector& col, const std::string& format, const MatrixCommon& c, bool input_ok) {
  if (!col.layout()) {
    fmt::print(stderr, "redscope: report --matrix: no test with a Cell= line: no table\n");
    return kExitInput;
  }
  const MatrixTable& t = col.table();
  const MatrixLayout& l = *col.layout();
  const std::size_t errors =
      t.counts().count(CellVerdict::Error) ? t.counts().at(CellVerdict::Error) : 0;
  if (format == "text") {
    MatrixTextStyle style;
    style.colour = isatty(1) != 0 && std::getenv("NO_COLOR") == nullptr;
    fmt::print("{}", render_matrix_text(t, l, style));
  } else if (format == "csv") {
    fmt::print("{}", render_matrix_csv(t));
  } else if (format == "json") {
    fmt::print("{}", render_matrix_json(t, l));
  } else if (format == "svg") {
    fmt::print("{}", render_matrix_svg(t, l));
  } else {
    const std::string summary = fmt::format(
        "{} tests, {} could not be checked, {} had no place in the matrix, {} "
        "outcomes reached by the machine but forbidden",
        t.size(), errors, col.problems(), col.defects());
    // The folder may not exist yet: with result files only, no test page
    // was written before the index.
    const auto index = std::filesystem::path(*c.html_dir) / "index.html";
    std::error_code ec;
    std::filesystem::create_directories(*c.html_dir, ec);
    try {
      if (ec) throw std::runtime_error(fmt::format("{}: {}", *c.html_dir, ec.message()));
      write_file_replacing(index.string(), render_matrix_html(t, l, summary));
    } catch (const std::runtime_error& e) {
      fmt::print(stderr, "redscope: report --matrix: cannot write {}: {}\n", index.string(),
                 e.what());
      return kExitInput;
    }
    fmt::print("{}: {}\n", index.string(), summary);
  }
  if (col.defects()) return kExitDefect;
  return errors || col.problems() || !input_ok ? kExitInput : kExitOk;
}

std::string checked_format(const MatrixOptions& m, const MatrixCommon& c) {
  const std::string f = m.format.value_or(c.html_dir ? "html" : "text");
  if (f != "text" && f != "csv" && f != "json" && f != "svg" && f != "html")
    usage_error(fmt::format("report --matrix: --format is text, csv, json, svg or html, not '{}'",
                            printable(f)));
  if (f == "html" && !c.html_dir)
    usage_error("report --matrix --format html needs --html DIR (the folder of the pages)");
  if (f != "html" && c.html_dir)
    usage_error(fmt::format("report --matrix: --html DIR writes HTML, not {}", f));
  return f;
}

MatrixRunOptions run_options(const MatrixCommon& c, VerdictKind kind) {
  MatrixRunOptions o;
  o.engine = c.engine;
  o.engine.workers = 1;  // threads go across tests
  o.jobs = c.jobs;
  o.verdict = kind;
  if (c.html_dir) {
    ReportOptions ro;
    ro.dir = *c.html_dir;
    ro.jobs = c.jobs;
    ro.xval = c.xval;
    ro.pictures = c.pictures;
    o.html = ro;
    std::filesystem::create_directories(*c.html_dir);
  }
  return o;
}

int report_from_spec(const MatrixOptions& m, const MatrixCommon& c, const std::string& format) {
  if (!c.paths.empty())
    usage_error("report --from SPEC takes no INPUT: the spec's cells are the tests");
  generate::MatrixSpec spec;
  std::size_t cells = 0;
  try {
    spec = generate::read_matrix_spec(*m.from, c.max_file_bytes);
    cells = generate::matrix_cell_count(spec);
  } catch (const InputError& e) {  // a bad spec: exit 2, as for `gen matrix`
    fmt::print(stderr, "{}\n", e.diagnostic().render());
    return kExitUsage;
  }
  const VerdictKind kind = m.verdict.value_or(verdict_kind_of(spec));
  Progress progress(cells, c.quiet);
  MatrixCollector col(matrix_table_of(spec, kind), m, progress);
  col.set_default_layout(joined(spec.rows), joined(spec.cols));
  if (!col.check_layout()) return usage_status(col.usage());
  try {
    // The line counts tests: each cell the ISA skips leaves the total.
    MatrixRunHooks hooks = hooks_of(col, progress);
    hooks.skipped = [&progress, cells](std::size_t n) { progress.set_total(cells - n); };
    const generate::MatrixCount n = run_matrix_spec(spec, run_options(c, kind), hooks);
    col.table().skipped = n.skipped;
  } catch (const InputError& e) {  // a cell that is an error in the spec
    progress.print(stderr, e.diagnostic().render() + "\n");
    return kExitUsage;
  }
  return render(col, format, c, true);
}

int report_from_inputs(const MatrixOptions& m, const MatrixCommon& c, const std::string& format) {
  std::vector<std::string> results, others;
  for (const std::string& p : c.paths) (is_result_file(p) ? results : others).push_back(p);
  std::vector<Diagnostic> probs;
  const std::vector<std::string> files =
      others.empty() ? std::vector<std::string>{}
                     : collect_litmus_files(others, &probs, c.max_file_bytes);
  std::optional<VerdictKind> kind = m.verdict;
  Progress progress(files.size(), c.quiet);
  MatrixCollector col(MatrixTable(VerdictKind::Condition), m, progress);
  bool input_ok = probs.empty();
  for (const Diagnostic& d : probs) col.problem(d.render());
  if (!others.empty() && files.empty()) {
    col.problem(fmt::format("no {} file found in {}", accepted_files(), joined(others)));
    input_ok = false;
  }
  // A result file says how its tests were judged; test files are judged alike.
  input_ok = read_result_files(results, c, col, kind) && input_ok;
  const VerdictKind k = kind.value_or(VerdictKind::Condition);
  col.table().set_kind(k);
  if (!col.usage().empty()) return usage_status(col.usage());
  if (!files.empty()) run_matrix_files(files, run_options(c, k), hooks_of(col, progress));
  if (!col.usage().empty()) return usage_status(col.usage());
  return render(col, format, c, input_ok);
}

}  // namespace

MatrixOptions take_matrix_options(int argc, char** argv, std::vector<char*>& rest) {
  MatrixOptions m;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage_error(fmt::format("{} needs a value", a));
      return argv[++i];
    };
    if (i < 2) {
      rest.push_back(argv[i]);
    } else if (a == "--matrix") {
      m.any = true;
      m.rows = value();
      m.cols = value();
    } else if (a == "--from") {
      m.any = true;
      m.from = value();
    } else if (a == "--verdict") {
      const std::string v = value();
      m.verdict = verdict_kind_named(v);
      if (!m.verdict)
        usage_error(
            fmt::format("--verdict is condition or atomicity (or mapping for CUDA "
                        "tests), not '{}'",
                        printable(v)));
    } else if (a == "--format") {
      m.format = value();
    } else {
      rest.push_back(argv[i]);
    }
  }
  return m;
}

int run_report_matrix(const MatrixOptions& m, const MatrixCommon& c) {
  const std::string format = checked_format(m, c);
  try {
    return m.from ? report_from_spec(m, c, format) : report_from_inputs(m, c, format);
  } catch (const std::filesystem::filesystem_error& e) {
    fmt::print(stderr, "redscope: report --matrix: {}\n", e.what());
    return kExitInput;
  }
}

}  // namespace redscope::cli
