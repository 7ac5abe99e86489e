// Running a tool redscope depends on (nvcc): in a process group of its own,
// under a deadline and an address-space limit, its output read within a
// bound. The whole group is killed at the deadline or when the tool ends,
// so nothing it started outlives the call.
#pragma once

#include <atomic>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace redscope {

struct ProcessLimits {
  double seconds = 0;                // 0: no deadline
  std::size_t memory_mb = 0;         // RLIMIT_AS of the child; 0: none
  std::size_t max_output = 1 << 20;  // bytes of output kept (the rest is dropped)
  // Called every 10 ms while waiting; true stops the child (a budget spent).
  bool (*stop)(const void* ctx) = nullptr;
  const void* stop_ctx = nullptr;
};

struct ProcessRun {
  bool started = false;
  bool timed_out = false;  // the deadline passed, or `stop` said so
  bool truncated = false;  // more output than max_output
  int signal = 0;          // ended by this signal (not ours)
  int exit_code = 0;
  std::string output;  // stdout and stderr together
  bool ok() const { return started && !timed_out && signal == 0 && exit_code == 0; }
};

// A scratch folder ($TMPDIR/PREFIX-XXXXXX) for a tool's input and output,
// removed with everything in it at the end; ok() is false when none could be
// made.
class ScratchDir {
 public:
  explicit ScratchDir(std::string_view prefix);
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  bool ok() const { return !dir_.empty(); }
  const std::string& dir() const { return dir_; }
  // A new name in it, "mN.EXT" (distinct for concurrent callers).
  std::string file(std::string_view ext);

 private:
  std::string dir_;
  std::atomic<unsigned> counter_{0};
};

// `name` in each folder of PATH, in order, as a shell looks for a program
// (whether each exists is the caller's probe).
std::vector<std::string> on_path(const std::string& name);

// Runs argv[0] (a path) with argv; not started (started false) when it
// cannot be executed, stdin from /dev/null, stdout and stderr
// into one file in `scratch_dir`, which is read back (within max_output).
ProcessRun run_process(const std::vector<std::string>& argv, const std::string& scratch_dir,
                       const ProcessLimits& limits);

}  // namespace redscope
