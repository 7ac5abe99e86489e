// The one reader of every input redscope reads (tests, models, includes,
// expectation CSVs, merge inputs, SASS files, standard input): bounded, and
// only from regular files, so a folder, a FIFO or /dev/zero is a located error.
#pragma once

#include <cstddef>
#include <istream>
#include <string>
#include <string_view>

namespace redscope {

// Input files are bounded (--max-file-size, EngineOptions::max_file_bytes).
constexpr std::size_t kDefaultMaxInputBytes = std::size_t{16} << 20;

// The bytes of the file at `path`, at most `max_bytes`. Throws
// InputError("PATH: error: ...", no line) when it does not exist or cannot be
// opened, is a folder, is not a regular file (FIFO, device, socket), or holds
// more than `max_bytes` bytes (checked before reading and while reading, so a
// file that grows, or a /proc file of size 0, stays bounded). `what` names
// the kind of input for messages: "litmus file", "cat model", "CSV file".
std::string read_input(const std::string& path, std::size_t max_bytes, std::string_view what);

// The bytes of a stream (standard input), at most `max_bytes`: reading stops
// at the first byte past the bound and throws InputError at `name` (e.g.
// "<stdin>"), so an endless stream is rejected after max_bytes + 1 bytes.
std::string read_input_stream(std::istream& in, const std::string& name, std::size_t max_bytes,
                              std::string_view what);

// Text checks on what read_input returned: InputError at `path` when `text`
// starts with a byte-order mark (UTF-8 or UTF-16) or holds a NUL byte.
void check_input_text(const std::string& path, std::string_view text, std::string_view what);

}  // namespace redscope
