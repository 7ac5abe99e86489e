// One test's failure stays with that test. Every command that checks files
// one by one (run, xval, atomicity, report) runs each through capture_failure,
// so that a parse error, a spent budget, a solver failure or any internal
// error becomes that test's error line, with a kind for JSON and summaries,
// and the run goes on with the next file.
#pragma once

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "redscope/core/diagnostic.hpp"

namespace redscope {

// A solver's own failure (it gave up, ran out of resources or rejected a
// term): an internal error of that test. The engine that owns the solver
// translates the solver's exceptions into it (engine/z3/z3_guard.hpp), so
// this stage needs no solver headers.
class SolverError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What an allocator's refusal (std::bad_alloc) is said as: a test's failure
// of kind "memory", and the module's answer to any call.
inline constexpr std::string_view kOutOfMemory =
    "out of memory: this test needed more memory than this process may use (--max-memory, "
    "or the platform's cap: 2 GiB in the playground's module)";

struct TestFailure {
  std::string message;  // "file:line:col: error: ..." or "file: error: ..."
  std::string kind;     // "input", "timeout", "memory" or "internal"
  // The same as its parts (line 0: the whole file), for callers that place
  // it (the WebAssembly module marks the line and column).
  Diagnostic diagnostic;
};

// A failed test in text output: "Test FILE Error", with the kind when a
// budget ran out ("Error (timeout)"), then the message.
std::string render_failure_text(const std::string& file, const std::string& message,
                                const std::string& kind);

// Runs body(); returns what it threw, as the failure of the test in `path`.
std::optional<TestFailure> capture_failure(const std::string& path,
                                           const std::function<void()>& body);

}  // namespace redscope
