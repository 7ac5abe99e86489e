// Reading input files: size, kind and encoding checked before parsing.
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

#include "redscope/core/diagnostic.hpp"
#include "redscope/frontend/dialect.hpp"
#include "redscope/frontend/frontend.hpp"

namespace redscope {

std::string read_litmus_source(const std::string& path, std::size_t max_bytes) {
  auto fail = [&](std::string msg) -> std::string {
    throw InputError(Diagnostic{path, {0, 0}, std::move(msg)});
  };
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return fail(fmt::format("cannot read: {}", std::strerror(errno)));
  if (S_ISDIR(st.st_mode)) return fail("is a folder, not a litmus file");
  if (!S_ISREG(st.st_mode))
    return fail("not a regular file (a FIFO, device or socket): redscope reads litmus files only");
  if (static_cast<std::size_t>(st.st_size) > max_bytes)
    return fail(fmt::format("file of {} bytes is over the {}-byte limit (--max-file-size)",
                            st.st_size, max_bytes));
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(fmt::format("cannot open: {}", std::strerror(errno)));
  std::string text(max_bytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > max_bytes)
    return fail(fmt::format("file is over the {}-byte limit (--max-file-size)", max_bytes));
  if (text.rfind("\xef\xbb\xbf", 0) == 0)
    return fail("starts with a UTF-8 byte-order mark: save the file without one");
  if (text.rfind("\xff\xfe", 0) == 0 || text.rfind("\xfe\xff", 0) == 0)
    return fail("is UTF-16 text (it starts with a UTF-16 byte-order mark): save it as UTF-8");
  if (const auto nul = text.find('\0'); nul != std::string::npos)
    return fail(fmt::format("is not text (a NUL byte at offset {}): is it a litmus file?", nul));
  return text;
}

// The dialect that claims the file reads it; a file named explicitly that no
// dialect claims is read by the first one (PTX litmus), whatever its name.
LitmusTest parse_litmus_file(const std::string& path, std::size_t max_bytes) {
  const std::string text = read_litmus_source(path, max_bytes);
  const Dialect* d = dialect_for(path, std::string_view(text).substr(0, kDialectHeadBytes));
  if (!d) d = &dialects().front();
  std::vector<LitmusTest> tests = d->parse(text, path);
  if (tests.size() != 1)
    throw InputError(
        Diagnostic{path,
                   {0, 0},
                   fmt::format("holds {} tests ({} dialect): redscope checks one test per file",
                               tests.size(), d->name)});
  return std::move(tests.front());
}

}  // namespace redscope
