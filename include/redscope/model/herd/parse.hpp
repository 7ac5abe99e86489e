// Reading herd7's cat language (herd/ast.hpp): one file's text into a
// Program, and a model with everything it includes.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "redscope/model/herd/ast.hpp"
#include "redscope/model/herd/files.hpp"

namespace redscope::cat::herd {

// Parses one file as herd7 7.58's grammar does (herdtools7
// lib/modelParser.mly, lib/modelLexer.mll); includes are left unread.
// Errors are located InputErrors (`file:line:col: error: ...`). The
// limits of model/cat.hpp hold: nesting (kMaxNesting), nodes (kMaxNodes).
Program parse_program(std::string_view text, const std::string& file);

// Parses `text` and, through `include`, every file it includes, depth
// first: each Include node gets its Program (`included`), a file already
// included is marked `repeat` (herd7 reads it again; redscope does not:
// docs/model.md), an include cycle or a missing file is a located error at
// the `include`. At most kMaxIncludes files, kMaxNesting deep.
std::shared_ptr<const Program> load_program(std::string_view text, const std::string& file,
                                            const IncludeReader& include,
                                            const std::string& top_key = {});

}  // namespace redscope::cat::herd
