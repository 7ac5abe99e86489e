// Litmus dialects as plug-ins (docs/architecture.md): a dialect says which
// files it reads and turns a file's text into tests. File discovery and the
// file reader consult the registry instead of a hard-coded extension.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "redscope/core/litmus.hpp"

namespace redscope {

struct Dialect {
  std::string_view name;     // "ptx-litmus"
  std::string_view accepts;  // what it reads, for messages: ".litmus"
  // Whether the dialect reads the file at `path`; `head` holds its first
  // kDialectHeadBytes bytes, or fewer (empty when unread or unreadable).
  bool (*claims)(const std::filesystem::path& path, std::string_view head);
  // The tests in a file's text (a template file may yield many); throws
  // InputError at the offending position.
  std::vector<LitmusTest> (*parse)(std::string_view text, const std::string& file);
  // Test n (from 1) alone, without building the others (a template's row),
  // or none when there are fewer; null when `parse` is as cheap.
  std::optional<LitmusTest> (*parse_nth)(std::string_view text, const std::string& file,
                                         std::size_t n) = nullptr;
};

inline constexpr std::size_t kDialectHeadBytes = 256;

// Every registered dialect, in the order they are consulted; the first one
// also reads files named explicitly that no dialect claims.
std::span<const Dialect> dialects();

// The first dialect that claims the file, or null.
const Dialect* dialect_for(const std::filesystem::path& path, std::string_view head);

// What the registered dialects accept, for messages: ".litmus" today.
std::string accepted_files();

}  // namespace redscope
