// Writing generated files (include/redscope/core/output.hpp).
#include "redscope/core/output.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

namespace redscope {
namespace {

[[noreturn]] void fail(const std::string& path, int err) {
  throw std::runtime_error(fmt::format("{}: cannot write: {}", path, std::strerror(err)));
}

// Creates `path` exclusively and writes all of `text`; -1 with errno EEXIST
// when the name is taken. O_NOFOLLOW: a link planted at the name is an
// existing entry, never a way to write elsewhere.
int write_exclusive(const std::string& path, std::string_view text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return -1;
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : EIO;
      ::close(fd);
      ::unlink(path.c_str());
      errno = err;
      return -2;
    }
    done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(path.c_str());
    errno = err;
    return -2;
  }
  return 0;
}

}  // namespace

bool write_new_file(const std::string& path, std::string_view text) {
  if (write_exclusive(path, text) == 0) return true;
  if (errno == EEXIST) return false;
  fail(path, errno);
}

void write_file_replacing(const std::string& path, std::string_view text) {
  // A name of this process's own beside the target (same folder, so the
  // rename is atomic); a counter keeps two writers of one process apart.
  static std::atomic<unsigned long> counter{0};
  const auto slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  for (int attempt = 0;; ++attempt) {
    const std::string tmp =
        fmt::format("{}.redscope-{}-{}.tmp", dir, ::getpid(), counter.fetch_add(1));
    const int r = write_exclusive(tmp, text);
    if (r == -1 && errno == EEXIST && attempt < 100) continue;  // a stale name: take another
    if (r != 0) fail(path, errno);
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
      const int err = errno;
      ::unlink(tmp.c_str());
      fail(path, err);
    }
    return;
  }
}

}  // namespace redscope
