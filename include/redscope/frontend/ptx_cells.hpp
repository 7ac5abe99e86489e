// The cells of a PTX litmus test's instruction table, each with redscope's
// own verdict on it, for tools that hand the instructions to another reader
// (`redscope ptxas-check`, docs/cli.md): every cell is read, also after one
// is rejected, so each gets its verdict.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "redscope/core/diagnostic.hpp"
#include "redscope/core/litmus.hpp"

namespace redscope {

// A word of a cell as the litmus lexer read it.
struct CellWord {
  enum class Kind : std::uint8_t { Word, Number, Punct };
  Kind kind = Kind::Punct;
  std::string text;  // "red.global.add.f32", "0x1", "[", "-"
  SourceLoc loc;
};

struct PtxCell {
  std::size_t thread = 0;  // index into the test's threads
  SourceLoc loc;           // the cell's first character
  std::string text;        // the cell as written, without a trailing ';'
  std::vector<CellWord> words;
  bool label = false;                      // `NAME:`
  std::optional<Diagnostic> error;         // why redscope's instruction parser rejects it
  std::optional<Instruction> instruction;  // what it reads, when it accepts it
};

struct PtxCells {
  // The test as far as the container read it: header, target, init block,
  // aliases and thread row (the threads' code is not kept).
  LitmusTest test;
  std::vector<PtxCell> cells;  // in row order, thread by thread within a row
  // An error the container (not an instruction) raised: outside the
  // instruction table, or a check of the whole test (labels, registers).
  std::optional<Diagnostic> container_error;
};

// Reads `text` (a PTX litmus file) cell by cell. Throws nothing for bad
// input: errors are in the result.
PtxCells ptx_cells(std::string_view text, const std::string& file);

}  // namespace redscope
