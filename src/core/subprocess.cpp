// run_process (core/subprocess.hpp): fork, a new process group, the limits,
// exec; the parent polls for the end or the deadline and kills the group.
#include "redscope/core/subprocess.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

extern char** environ;

namespace redscope {

namespace {

// In the child, between fork and exec: only async-signal-safe calls. When
// exec fails, its errno goes to `failed` (closed on a successful exec), so
// the parent says the program did not start, as posix_spawn would.
[[noreturn]] void exec_child(char* const* args, const char* out, std::size_t memory_mb,
                             int failed) {
  setpgid(0, 0);
  const int in = open("/dev/null", O_RDONLY);
  const int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (in < 0 || fd < 0) _exit(127);
  dup2(in, 0);
  dup2(fd, 1);
  dup2(fd, 2);
  if (memory_mb > 0) {
    const rlim_t bytes = static_cast<rlim_t>(memory_mb) << 20;
    const rlimit lim{bytes, bytes};
    setrlimit(RLIMIT_AS, &lim);
  }
  execve(args[0], args, environ);
  const int e = errno;
  (void)!write(failed, &e, sizeof e);
  _exit(127);
}

std::string read_bounded(const std::string& path, std::size_t max, bool& truncated) {
  std::ifstream in(path, std::ios::binary);
  std::string s(max + 1, '\0');
  in.read(s.data(), static_cast<std::streamsize>(s.size()));
  s.resize(static_cast<std::size_t>(in.gcount()));
  truncated = s.size() > max;
  if (truncated) s.resize(max);
  return s;
}

}  // namespace

ProcessRun run_process(const std::vector<std::string>& argv, const std::string& scratch_dir,
                       const ProcessLimits& limits) {
  ProcessRun r;
  if (argv.empty()) return r;
  std::string out = scratch_dir + "/out-XXXXXX";
  const int made = mkstemp(out.data());  // a name no concurrent call has
  if (made < 0) return r;
  close(made);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int failed[2];
  if (pipe2(failed, O_CLOEXEC) != 0) return r;
  const pid_t pid = fork();
  if (pid < 0) {
    close(failed[0]);
    close(failed[1]);
    return r;
  }
  if (pid == 0) exec_child(args.data(), out.c_str(), limits.memory_mb, failed[1]);
  setpgid(pid, pid);  // also here: the group exists before we might kill it
  close(failed[1]);
  int e = 0;
  const bool exec_failed = read(failed[0], &e, sizeof e) == sizeof e;  // EOF once exec'd
  close(failed[0]);
  if (exec_failed) {
    waitpid(pid, nullptr, 0);
    std::remove(out.c_str());
    return r;
  }
  r.started = true;
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    siginfo_t info{};
    // WNOWAIT: the ended child stays a zombie, so its group id is still ours.
    if (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) < 0) break;
    if (info.si_pid == pid) break;
    const double waited =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if ((limits.seconds > 0 && waited > limits.seconds) ||
        (limits.stop && limits.stop(limits.stop_ctx))) {
      r.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(waited < 0.2 ? 2 : 10));
  }
  kill(-pid, SIGKILL);  // the group: the child if it still runs, and whatever it started
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFSIGNALED(status) && !r.timed_out) r.signal = WTERMSIG(status);
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  r.output = read_bounded(out, limits.max_output, r.truncated);
  std::remove(out.c_str());
  return r;
}

ScratchDir::ScratchDir(std::string_view prefix) {
  const char* tmp = std::getenv("TMPDIR");
  std::string templ =
      std::string(tmp && *tmp ? tmp : "/tmp") + "/" + std::string(prefix) + "-XXXXXX";
  if (mkdtemp(templ.data())) dir_ = templ;
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
}

std::string ScratchDir::file(std::string_view ext) {
  return dir_ + "/m" + std::to_string(counter_.fetch_add(1)) + "." + std::string(ext);
}

std::vector<std::string> on_path(const std::string& name) {
  std::vector<std::string> out;
  const char* path = std::getenv("PATH");
  if (!path) return out;
  const std::string p = path;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= p.size(); ++i)
    if (i == p.size() || p[i] == ':') {
      const std::string dir = p.substr(start, i - start);
      if (!dir.empty()) out.push_back(dir + "/" + name);
      start = i + 1;
    }
  return out;
}

}  // namespace redscope
