// The one bounded reader of input files and streams (include/redscope/core/input.hpp).
#include "redscope/core/input.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "redscope/core/diagnostic.hpp"

namespace redscope {

namespace {

[[noreturn]] void fail(const std::string& path, std::string msg) {
  throw InputError(Diagnostic{path, {0, 0}, std::move(msg)});
}

std::string over_limit(std::size_t max_bytes) {
  return fmt::format("is over the {}-byte input limit (--max-file-size)", max_bytes);
}

// Closes the descriptor on every path out of read_input.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::string read_input(const std::string& path, std::size_t max_bytes, std::string_view what) {
  if (path.empty()) fail(path, fmt::format("an empty path does not name a {}", what));
  // O_NONBLOCK: opening a FIFO must not wait for a writer; the kind is then
  // checked on the open descriptor (fstat), so it cannot change in between.
  const Fd f{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  if (f.fd < 0) fail(path, fmt::format("cannot read {}: {}", what, std::strerror(errno)));
  struct stat st {};
  if (::fstat(f.fd, &st) != 0)
    fail(path, fmt::format("cannot read {}: {}", what, std::strerror(errno)));
  if (S_ISDIR(st.st_mode)) fail(path, fmt::format("is a folder, not a {}", what));
  if (!S_ISREG(st.st_mode))
    fail(path, fmt::format("not a regular file (a FIFO, device or socket): expected a {}", what));
  const auto size = static_cast<std::size_t>(st.st_size);
  if (size > max_bytes) fail(path, fmt::format("file of {} bytes {}", size, over_limit(max_bytes)));
  std::string text(std::min(size, max_bytes) + 1, '\0');
  std::size_t got = 0;
  for (;;) {
    if (got == text.size()) {
      if (got > max_bytes) fail(path, fmt::format("file {}", over_limit(max_bytes)));
      text.resize(std::min(text.size() * 2, max_bytes + 1));
    }
    const ssize_t n = ::read(f.fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(path, fmt::format("cannot read {}: {}", what, std::strerror(errno)));
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  if (got > max_bytes) fail(path, fmt::format("file {}", over_limit(max_bytes)));
  text.resize(got);
  return text;
}

std::string read_input_stream(std::istream& in, const std::string& name, std::size_t max_bytes,
                              std::string_view what) {
  std::string text;
  char buf[1 << 16];
  while (in) {
    in.read(buf, sizeof buf);
    const auto n = static_cast<std::size_t>(in.gcount());
    if (n > max_bytes - std::min(max_bytes, text.size()))
      fail(name, fmt::format("{} {}", what, over_limit(max_bytes)));
    text.append(buf, n);
  }
  if (in.bad()) fail(name, fmt::format("cannot read {}", what));
  return text;
}

void check_input_text(const std::string& path, std::string_view text, std::string_view what) {
  if (text.starts_with("\xef\xbb\xbf"))
    fail(path, "starts with a UTF-8 byte-order mark: save the file without one");
  if (text.starts_with("\xff\xfe") || text.starts_with("\xfe\xff"))
    fail(path, "is UTF-16 text (it starts with a UTF-16 byte-order mark): save it as UTF-8");
  if (const auto nul = text.find('\0'); nul != std::string_view::npos)
    fail(path, fmt::format("is not text (a NUL byte at offset {}): is it a {}?", nul, what));
}

}  // namespace redscope
