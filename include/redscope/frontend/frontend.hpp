// Frontend: herd/Dat3M-style PTX litmus text → LitmusTest.
// The accepted format is documented in docs/litmus-format.md.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

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

// Every test of a file (a .test template holds one per table row).
std::vector<LitmusTest> parse_litmus_tests(const std::string& path,
                                           std::size_t max_bytes = kDefaultMaxFileBytes);

// One test: `path` is a file holding one test, or FILE#N for the N-th test
// (from 1) of a file holding several. A file holding several, named without
// #N, is an input error that lists the addresses to use.
LitmusTest parse_litmus_file(const std::string& path, std::size_t max_bytes = kDefaultMaxFileBytes);

// The addresses of a file's tests: the file itself when it holds one test (or
// cannot be parsed: the error is reported when it is checked), else FILE#1,
// FILE#2, ... Only files of dialects that may hold several tests are parsed.
std::vector<std::string> test_addresses(const std::string& file,
                                        std::size_t max_bytes = kDefaultMaxFileBytes);

// The file of a test address (FILE#N -> FILE), and its short name for
// pictures and pages: the file's stem, with #N when there is one.
std::string address_file(const std::string& address);
std::string address_stem(const std::string& address);

}  // namespace redscope
