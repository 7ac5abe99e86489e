// `redscope report --matrix ROWS COLS` (docs/cli.md "Matrix reports"): the
// verdict of each test of a parameter matrix, placed by its `Cell=` metadata
// (docs/matrix-spec.md), as a table — the model here, its renderers (text,
// CSV, JSON, SVG, the HTML index) in matrix_render.cpp, and the reading of
// result files in matrix_input.cpp. Runs that produce the records are the
// driver's (redscope/driver/matrix_runs.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "redscope/results/results.hpp"

namespace redscope {

// What a cell says (contract 3 of issue 33; docs/cli.md):
//  condition: allowed  — some allowed execution satisfies the condition's
//                        proposition; forbidden — none does;
//  atomicity: lost     — some allowed execution loses an update at some
//                        location; safe — none can; unknown — the model names
//                        no morally strong relation (and none was found lost);
//  mapping:   ok, miscompiled, racy — `redscope cuda-check`'s answer for a
//                        CUDA test (analysis/mapping_check.hpp);
//  any:       error    — the test could not be checked (with its kind).
enum class CellVerdict : std::uint8_t {
  Allowed,
  Forbidden,
  Lost,
  Safe,
  Unknown,
  Ok,
  Miscompiled,
  Racy,
  Error
};
std::string_view to_string(CellVerdict v);

// How cells are judged: the test's condition, the atomicity analysis, or the
// compiler's mapping (cuda-check).
enum class VerdictKind : std::uint8_t { Condition, Atomicity, Mapping };
std::string_view to_string(VerdictKind k);
std::optional<VerdictKind> verdict_kind_named(std::string_view word);

// The words of a kind, in legend order (error last).
std::vector<CellVerdict> verdicts_of(VerdictKind k);

// The rule of contract 3 for the atomicity analysis.
CellVerdict atomicity_verdict(bool any_lost, bool any_scope_unknown);

// A cuda-check verdict ("ok", "miscompiled", "racy": MappingCheck::verdict)
// as a cell's; Error for any other word.
CellVerdict mapping_verdict(std::string_view word);

using CellCoords = std::vector<std::pair<std::string, std::string>>;  // axis, label

// One test's place and verdict: all the matrix report keeps of a test.
struct MatrixRecord {
  std::string matrix;  // Matrix= (empty when the test has none)
  CellCoords coords;   // from Cell=, in its order
  std::string test, file;
  CellVerdict verdict = CellVerdict::Error;
  std::string error_kind, error;  // verdict error: the kind and message
  std::string page;               // HTML: the test's page, relative to the index (or empty)
};

// A bad matrix input (no Cell=, two tests in one cell, axes that differ, an
// unknown axis): the message names the tests or axes involved.
class MatrixError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parses a Cell= value, `AXIS=LABEL,AXIS=LABEL,...` (axis names
// [A-Za-z0-9_-]+, labels [A-Za-z0-9_.+-]+, each axis once). MatrixError
// naming `where` otherwise.
CellCoords parse_cell_coords(std::string_view value, const std::string& where);

// A record from a test's metadata (Matrix=, Cell=): MatrixError when it has
// no Cell= line (`where` names the test in the message).
MatrixRecord record_from_metadata(const std::map<std::string, std::string>& metadata,
                                  const std::string& where);

// A condition cell from a run's result (its source's metadata places it).
MatrixRecord condition_record(const TestResult& r);

struct MatrixAxisInfo {
  std::string name;
  std::vector<std::string> labels;  // the spec's order, else first appearance
};

// The table's contents: the axes and one record per occupied cell. Axes are
// given (a spec) or learnt from the first record; each later record must
// name the same axes in the same order.
class MatrixTable {
 public:
  MatrixTable(VerdictKind kind, std::string name = {}, std::vector<MatrixAxisInfo> axes = {});

  // MatrixError when the record's axes differ, it names a label the spec's
  // axes do not have, or its cell already holds a test (naming both).
  void add(MatrixRecord r);

  VerdictKind kind() const { return kind_; }
  void set_kind(VerdictKind k) { kind_ = k; }
  const std::string& name() const { return name_; }
  const std::vector<MatrixAxisInfo>& axes() const { return axes_; }
  std::size_t size() const { return cells_.size(); }
  // The record at `labels` (one label index per axis), or null.
  const MatrixRecord* at(const std::vector<std::size_t>& labels) const;
  // Every record by its label indices, in the axes' order (the first axis
  // slowest).
  const std::map<std::vector<std::size_t>, MatrixRecord>& cells() const { return cells_; }
  std::map<CellVerdict, std::size_t> counts() const;

  // Cells the generator skipped (reason -> count), for the legend.
  std::map<std::string, std::size_t> skipped;

 private:
  std::size_t label_index(std::size_t axis, const std::string& label, bool learn);

  VerdictKind kind_;
  std::string name_;
  std::vector<MatrixAxisInfo> axes_;
  bool fixed_axes_;    // given by a spec: labels are not learnt
  std::string first_;  // the test the axes were learnt from
  std::map<std::vector<std::size_t>, MatrixRecord> cells_;
};

// Which axes run down the rows, across the columns, and which split the
// table into sections (the rest, in axis order). Indices into axes().
struct MatrixLayout {
  std::vector<std::size_t> rows, cols, sections;
};

// ROWS and COLS as comma-separated axis names ("" for none). MatrixError
// for an unknown name (listing the axes), a name given twice, or an axis in
// both.
MatrixLayout matrix_layout(const MatrixTable& t, std::string_view rows, std::string_view cols);

// The renderers (deterministic: no time, no path of the machine).
struct MatrixTextStyle {
  bool colour = false;  // ANSI colours (a terminal)
};
std::string render_matrix_text(const MatrixTable& t, const MatrixLayout& l,
                               const MatrixTextStyle& style = {});
// One row per test: the axes, verdict, test (header first).
std::string render_matrix_csv(const MatrixTable& t);
std::string render_matrix_json(const MatrixTable& t, const MatrixLayout& l);
std::string render_matrix_svg(const MatrixTable& t, const MatrixLayout& l);
// DIR/index.html of `report --matrix --html DIR`: the coloured tables, each
// cell a link to its record's page. `summary` is a line above the tables.
std::string render_matrix_html(const MatrixTable& t, const MatrixLayout& l,
                               const std::string& summary);

// Reads one result file's text (`run --format json|jsonl`, `atomicity
// --format json`) and hands a record per test to `emit`, as read. The kind
// of result decides the verdict kind; InputError (FILE:LINE:COL) for JSON
// that is not one of these, MatrixError for a test without Cell=.
// Empty when the file holds no test.
std::optional<VerdictKind> read_matrix_results(std::string_view text, const std::string& file,
                                               const std::function<void(MatrixRecord&&)>& emit);

}  // namespace redscope
