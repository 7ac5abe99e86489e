// What a matrix spec holds beyond its axes' names and labels: the template cut
// at its holes, what each label fills in, and where each piece came from in the
// spec, so that an error in a generated cell is reported in the spec.
// Private to src/generate (matrix_spec.cpp reads it, matrix.cpp renders it).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "redscope/core/diagnostic.hpp"

namespace redscope::generate {

// Maps a byte offset of the template's value to its line:col in the spec.
// Exact when the spec writes the value without escapes (a literal string
// '''...''' or a basic string without backslashes); otherwise every offset
// maps to the string's opening quote.
struct TemplateOrigin {
  bool exact = false;
  SourceLoc quote;                    // the opening delimiter
  SourceLoc start;                    // the value's first byte (exact only)
  std::vector<std::size_t> newlines;  // offsets of '\n' in the value
  SourceLoc at(std::size_t offset) const;
};

// A piece of the template body: literal text, or a hole (index into holes).
struct TemplatePiece {
  std::string text;        // literal text (empty for a hole)
  int hole = -1;           // >= 0 for a hole
  std::size_t offset = 0;  // where the piece starts in the template's value
};

// What one label puts in the holes of its axis, with where the spec says so.
struct LabelFill {
  std::vector<std::string> values;  // one per hole of the axis (AxisData::holes' order)
  std::vector<SourceLoc> at;        // where each value is written
};

struct AxisData {
  std::vector<int> holes;  // indices into MatrixSpecData::holes, by the holes' names
  std::vector<LabelFill> labels;
  std::vector<SourceLoc> label_at;  // where each label is written
};

struct MatrixSpecData {
  std::vector<std::string> holes;   // hole names
  std::vector<TemplatePiece> body;  // the template after its `PTX` line
  SourceLoc ptx_line;               // the template's `PTX` (or `CUDA`) line in the spec
  std::string arch = "PTX";         // its first word: PTX, or CUDA for CUDA C++ cells
  TemplateOrigin origin;
  std::vector<AxisData> axes;  // parallel to MatrixSpec::axes
};

}  // namespace redscope::generate
