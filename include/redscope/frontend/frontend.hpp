// Frontend: herd/Dat3M-style PTX litmus text → LitmusTest.
// The accepted format is documented in docs/litmus-format.md.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "redscope/core/litmus.hpp"

namespace redscope {

// Parses one litmus test. Throws InputError (file:line:col) on bad input.
LitmusTest parse_litmus(std::string_view text, const std::string& file);

// Input files are bounded (--max-file-size); this is the default.
constexpr std::size_t kDefaultMaxFileBytes = std::size_t{16} << 20;

// The text of a litmus file. InputError at 0:0 when it cannot be read, is not
// a regular file (a FIFO, device, folder), is over `max_bytes`, starts with a
// byte-order mark (UTF-8 or UTF-16) or holds a NUL byte (binary).
std::string read_litmus_source(const std::string& path,
                               std::size_t max_bytes = kDefaultMaxFileBytes);

// Reads (read_litmus_source) and parses a file.
LitmusTest parse_litmus_file(const std::string& path, std::size_t max_bytes = kDefaultMaxFileBytes);

}  // namespace redscope
