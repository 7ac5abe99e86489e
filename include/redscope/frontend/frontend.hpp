// Frontend: herd/Dat3M-style PTX litmus text → LitmusTest.
// The accepted format is documented in docs/litmus-format.md.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "redscope/core/input.hpp"
#include "redscope/core/litmus.hpp"

namespace redscope {

// Parses one litmus test. Throws InputError (file:line:col) on bad input.
LitmusTest parse_litmus(std::string_view text, const std::string& file);

// Input files are bounded (--max-file-size); this is the default.
constexpr std::size_t kDefaultMaxFileBytes = kDefaultMaxInputBytes;

// The text of a litmus file, read by read_input (redscope/core/input.hpp).
// InputError at 0:0 when it cannot be read, is not a regular file (a FIFO,
// device, folder), is over `max_bytes`, starts with a byte-order mark (UTF-8
// or UTF-16) or holds a NUL byte (binary).
std::string read_litmus_source(const std::string& path,
                               std::size_t max_bytes = kDefaultMaxFileBytes);

// Reads one test file (or FILE#N) with whichever dialect claims it: the
// registry's parse_litmus_file, handed to a dialect's command, which sits
// below the registry and cannot call it.
using TestFileReader = LitmusTest (*)(const std::string& path, std::size_t max_bytes);

// "FILE#N" -> (FILE, N) when FILE is not itself a file and N a number of
// at most six digits (a test address, redscope/registry/registry.hpp).
std::optional<std::pair<std::string, std::size_t>> split_address(const std::string& address);

// The file of a test address (FILE#N -> FILE), and its short name for
// pictures and pages: the file's stem, with #N when there is one.
std::string address_file(const std::string& address);
std::string address_stem(const std::string& address);

}  // namespace redscope
