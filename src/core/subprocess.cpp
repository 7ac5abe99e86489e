// run_process (core/subprocess.hpp): fork, a new process group, the limits,
// exec; the parent polls for the end or the deadline and kills the group.
#include "redscope/core/subprocess.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <thread>

extern char** environ;

namespace redscope {

namespace {

// In the child, between fork and exec: only async-signal-safe calls.
[[noreturn]] void exec_child(char* const* args, const char* out, std::size_t memory_mb) {
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
  const pid_t pid = fork();
  if (pid < 0) return r;
  if (pid == 0) exec_child(args.data(), out.c_str(), limits.memory_mb);
  setpgid(pid, pid);  // also here: the group exists before we might kill it
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

}  // namespace redscope
