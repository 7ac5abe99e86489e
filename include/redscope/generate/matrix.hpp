// Parameter matrices (docs/matrix-spec.md): a spec file gives a template test
// and axes; each cell of their cartesian product is one litmus test. Cells the
// PTX ISA forbids are skipped and counted with the reason.
//
// The contract with `report --matrix` (docs/cli.md): every generated test
// carries two metadata lines,
//   Matrix=SPEC-NAME
//   Cell=AXIS=LABEL,AXIS=LABEL,...      (every axis, in the spec's order)
// axis names match [A-Za-z0-9_-]+, labels [A-Za-z0-9_.+-]+, so the line parses
// back without quoting; the test's name is SPEC-NAME+LABEL+LABEL+...
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace redscope::generate {

// What a cell of the matrix is judged by: the test's condition (allowed or
// forbidden), the `atomicity` analysis (lost update possible or impossible)
// or, for CUDA cells, the compiler's mapping (`cuda-check`: ok, miscompiled,
// racy).
enum class MatrixVerdict { Condition, Atomicity, Mapping };

struct MatrixAxis {
  std::string name;
  std::vector<std::string> labels;  // in the spec's order
};

struct MatrixSpecData;  // the template and what each label fills in (matrix.cpp)

struct MatrixSpec {
  std::string name;  // `name = ...`, else the file's stem
  std::string file;
  MatrixVerdict verdict = MatrixVerdict::Condition;
  std::vector<MatrixAxis> axes;
  // The layout `report --matrix` uses when given none (may be empty).
  std::vector<std::string> rows, cols;
  std::shared_ptr<const MatrixSpecData> data;
};

// Reads and checks a spec file; a bad one throws InputError located at
// FILE:LINE:COL.
MatrixSpec read_matrix_spec(const std::string& path, std::size_t max_file_bytes);

struct MatrixCell {
  std::string name;                                         // also the file's stem
  std::vector<std::pair<std::string, std::string>> coords;  // axis, label
  std::string text;                                         // the litmus test
};

struct MatrixCount {
  std::size_t cells = 0;                       // the product's size
  std::size_t written = 0;                     // cells handed to emit
  std::map<std::string, std::size_t> skipped;  // reason -> cells skipped for it
};

// Hands every cell the ISA allows to `emit`, in a fixed order (the axes as an
// odometer, the last axis fastest), one at a time: memory does not grow with
// the number of cells (except in a spec with a label holding '+', which keeps
// the names made so far to refuse two cells of one name: InputError at the
// later cell's label).
MatrixCount for_each_cell(const MatrixSpec& spec,
                          const std::function<void(const MatrixCell&)>& emit);

// The same, calling `visited(n)` after each cell, written or skipped, with n
// the number of cells visited so far (for a progress line).
MatrixCount for_each_cell(const MatrixSpec& spec,
                          const std::function<void(const MatrixCell&)>& emit,
                          const std::function<void(std::size_t)>& visited);

// The number of cells (the product of the axes' sizes); InputError at the
// spec when it does not fit a size_t.
std::size_t matrix_cell_count(const MatrixSpec& spec);

}  // namespace redscope::generate
