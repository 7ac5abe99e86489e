// NVIDIA's nvcc behind one small interface (docs/cuda.md "What nvcc is
// given"): CUDA tests in, each test's PTX out. All the tests a run names go
// into one translation unit and one `nvcc -ptx` call per target; each
// test's part of the module is cached by the hash of what determines it
// (its kernels' source, the flags, nvcc's version).
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "redscope/core/diagnostic.hpp"
#include "redscope/dialects/cuda/cuda.hpp"

namespace redscope::cuda {

struct CompilerOptions {
  std::optional<std::string> nvcc;  // --nvcc PATH; else $CUDA_HOME/bin/nvcc, else PATH
  bool use_cache = true;            // --no-cache: false (nothing read or written on disk)
  std::string cache_dir;            // "": $XDG_CACHE_HOME/redscope/cuda or ~/.cache/redscope/cuda
  double seconds = 300;             // each nvcc call's deadline per test (--timeout); 0: none
  std::size_t memory_mb = 0;        // nvcc's address space (--max-memory); 0: no cap
  // Without nvcc, read cache_dir's entries whatever nvcc made them: PTX
  // compiled ahead and shipped (the playground); else such entries are not
  // trusted. `precompiled_missing`: what to say of a test that has none.
  bool precompiled = false;
  std::string precompiled_missing;
  // --source: tests are read as their source says (source_test, the scoped
  // C++ model), and nothing is compiled.
  bool source_level = false;
  // cuda-check --arch sm_XX: every test compiled for this target.
  std::optional<int> target_sm;
};

// What nvcc made of one test: its part of the module, its kernels named as
// its threads (`.entry P1`), its shared variables as test 0's
// (shared_symbol(0, "s")), its `.loc` lines in the file kLineFile.
struct CompiledTest {
  std::string module;
  bool from_cache = false;
};
inline constexpr std::string_view kLineFile = "redscope_t0.litmus";

// The flags every call passes (never -G, whose PTX calls library functions;
// -rdc=true keeps every kernel's shared variables and names as written).
std::vector<std::string> nvcc_flags(int target_sm);

class Compiler {
 public:
  explicit Compiler(CompilerOptions options);

  // Compiles, together, every test of `tests` not compiled yet (from the
  // cache when it holds them). Failures stay with their test: compiled()
  // throws them. Safe to call from several threads.
  void prepare(const std::vector<const CudaSource*>& tests);

  // The test's PTX, compiling it alone when prepare() did not. InputError:
  // nvcc's own message at the test's file:line:col, or no nvcc.
  CompiledTest compiled(const CudaSource& test);

  // The nvcc in use, found at the first call ("" when none runs).
  std::string nvcc_path();
  // Whether tests are read as source (--source) instead of compiled.
  bool source_level() const { return options_.source_level; }
  // The target every test is compiled for (--arch), or none: its own.
  std::optional<int> target_override() const { return options_.target_sm; }
  // Why there is no nvcc to use ("" when there is one, or when tests are
  // read from a precompiled folder instead).
  std::string missing();

 private:
  struct Slot {
    std::optional<CompiledTest> ptx;
    std::optional<Diagnostic> error;  // at the test's file:line:col
  };
  struct Tool {
    std::string path, version;
    std::string missing;  // why there is none
  };
  const Tool& tool();
  std::string key_of(const CudaSource& test);
  void compile_batch(std::vector<std::pair<std::string, const CudaSource*>> batch, int target);
  std::optional<CompiledTest> from_disk(const std::string& key);
  void to_disk(const std::string& key, const std::string& module);

  CompilerOptions options_;
  std::mutex mu_;  // guards slots_ and tool_
  std::map<std::string, Slot> slots_;
  std::optional<Tool> tool_;
};

// The compiler CUDA tests are read with: the one the command line made
// (--nvcc, --no-cache, --timeout, --max-memory), else a default one.
Compiler& current_compiler();
// Installs the command line's compiler for the rest of the process; called
// once, before any test is read.
void use_compiler(std::shared_ptr<Compiler> compiler);

// A CUDA litmus test read and compiled: the registry's reader (read as its
// source instead under --source).
std::vector<LitmusTest> read_cuda_litmus(std::string_view text, const std::string& file);
// The test as its source says: each body lowered by frontend/c into events
// with the memory_order and thread_scope written, under models/scoped-cpp.cat
// (docs/cuda.md "The source side").
std::vector<LitmusTest> read_cuda_as_source(std::string_view text, const std::string& file);
// The test with its threads read from `module`, a PTX module whose
// `.entry P0`, `P1`, ... are the threads' kernels under the kernel
// convention (cuda.hpp), instead of compiling it.
std::vector<LitmusTest> read_cuda_with_module(std::string_view text, const std::string& file,
                                              const std::string& module);
// Compiles the CUDA tests among `files` in one batch (the registry's
// prepare step); files that cannot be read are left to their own check.
// Returns why none can be compiled (no nvcc), or nothing.
std::optional<std::string> prepare_cuda_files(const std::vector<std::string>& files,
                                              std::size_t max_bytes);

}  // namespace redscope::cuda
