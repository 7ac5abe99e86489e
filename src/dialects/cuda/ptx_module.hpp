// A reader of nvcc's PTX modules (docs/cuda.md "How nvcc's PTX is read"):
// one `.entry`'s parameters and statements, each with its line in the
// module and the test's line:col from the `.loc` lines before it. Private to
// dialects/cuda.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "redscope/core/diagnostic.hpp"

namespace redscope::cuda::detail {

// One statement of an entry's body: an instruction (without its `;`) or a
// label (without its `:`).
struct PtxStatement {
  enum class Kind : std::uint8_t { Instruction, Label };
  Kind kind = Kind::Instruction;
  std::string text;  // as nvcc wrote it, runs of blanks as one space
  std::string code;  // the same, registers of nested blocks renamed (%tmp -> %tmp.b2)
  int line = 0;      // 1-based line in the module
  SourceLoc at;      // the test's line:col (`.loc` of the test's file)
};

struct PtxEntry {
  std::string name;
  std::vector<std::string> params;  // the .param names, in order
  std::vector<PtxStatement> body;
};

// Where diagnostics about the module go: the test's file and the thread's
// header (used until a `.loc` of the test's file is read).
struct ModuleSite {
  const std::string& file;
  SourceLoc header;
  std::string_view line_file;  // the `.file` whose `.loc` lines are the test's
};

// Reads `.entry name` of `module`. InputError at the header when the module
// has no such entry or its text is cut short or garbled around it.
PtxEntry read_entry(std::string_view module, std::string_view name, const ModuleSite& site);

// Statements past this are refused (a thread of a litmus test is short).
inline constexpr std::size_t kMaxEntryStatements = 20000;

}  // namespace redscope::cuda::detail
