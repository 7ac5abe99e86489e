// What both readings of a model file share (cat.hpp's typed subset and
// herd7's full language, herd/parse.hpp): how an `include` is read, and the
// limits on a model (docs/model.md "Limits and hostile models").
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

namespace redscope::cat {

// An included file as the IncludeReader found it.
struct IncludedFile {
  std::string text;
  std::string key;   // its identity (a canonical path): a file is included once
  std::string name;  // how diagnostics name it (the path read)
};
// Reads an included file: `name` as written in `include "name"`, `from` the
// including file (as diagnostics name it); nullopt when it cannot be found.
// May throw InputError (a folder, a device, a file over the size limit).
using IncludeReader =
    std::function<std::optional<IncludedFile>(const std::string& name, const std::string& from)>;

// Limits on a model file (docs/model.md "The cat subset"), each a located error:
inline constexpr int kMaxNesting = 200;  // expression height, parentheses, include depth
inline constexpr std::size_t kMaxBindings = 10'000;  // let-bound names in a model
inline constexpr std::size_t kMaxIncludes = 1'000;   // distinct files a model includes
inline constexpr std::size_t kMaxNodes = 500'000;    // operators and operands in a model

}  // namespace redscope::cat
