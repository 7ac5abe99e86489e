// The one writer of files redscope creates next to a user's files (generated
// tests, report pages): a file appears whole or not at all, and a name that
// is a symbolic link is replaced, never written through (issue 43: `gen
// cycle --out D` overwrote the file that D/MP.litmus pointed to).
#pragma once

#include <string>
#include <string_view>

namespace redscope {

// Writes `text` to a new file beside `path` (created exclusively, never
// following a link) and renames it to `path`, replacing whatever entry has
// that name: a regular file or a symbolic link (the link itself, not its
// target). Throws std::runtime_error("PATH: cannot write: REASON") and leaves
// `path` as it was when any step fails. `path`'s folder must exist.
void write_file_replacing(const std::string& path, std::string_view text);

// Writes `text` to `path`, which must not exist (O_EXCL, never following a
// link). Returns false, writing nothing, when an entry of that name exists;
// throws std::runtime_error on any other failure (a partial file is removed).
bool write_new_file(const std::string& path, std::string_view text);

}  // namespace redscope
