// The runs behind `redscope report --matrix` (docs/cli.md "Matrix reports"):
// test files, or the cells of a matrix spec generated in memory, checked on
// -j threads and each turned into a MatrixRecord (redscope/report/matrix.hpp)
// as it finishes, in input order; no result is kept beyond its record.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "redscope/driver/html_report.hpp"
#include "redscope/engine/engine.hpp"
#include "redscope/generate/matrix.hpp"
#include "redscope/report/matrix.hpp"

namespace redscope {

struct MatrixRunOptions {
  EngineOptions engine;
  unsigned jobs = 1;
  VerdictKind verdict = VerdictKind::Condition;
  // With a report folder, each test also gets its page (write_test_page);
  // the record links to it.
  std::optional<ReportOptions> html;
};

// One test's judgement: its record, or why it has no place in the table (it
// could not be read, or carries no Cell= line).
struct MatrixJudged {
  std::optional<MatrixRecord> record;
  std::string problem;
  bool defect = false;  // --html: the machine reached an outcome the model forbids
};

struct MatrixRunHooks {
  std::function<void(std::size_t, const std::string&)> started;  // index, test's name
  std::function<void(std::size_t, bool)> finished;               // index, error
  std::function<void(MatrixJudged&&)> judged;                    // in input order
  std::function<bool()> stop;                // true: check no further test (a fatal error)
  std::function<void(std::size_t)> skipped;  // cells the ISA skipped so far (specs only)
};

// Checks each file (condition: check_file; atomicity: check_atomicity_file).
void run_matrix_files(const std::vector<std::string>& files, const MatrixRunOptions& o,
                      const MatrixRunHooks& hooks);

// Generates the spec's cells (for_each_cell) and checks each cell's text as
// parsed in memory (no file is written), placed by the cell's coordinates.
generate::MatrixCount run_matrix_spec(const generate::MatrixSpec& spec, const MatrixRunOptions& o,
                                      const MatrixRunHooks& hooks);

// The spec's axes and name as a table's, and its verdict kind.
MatrixTable matrix_table_of(const generate::MatrixSpec& spec, VerdictKind kind);
VerdictKind verdict_kind_of(const generate::MatrixSpec& spec);

}  // namespace redscope
