// One test's failure stays with that test. Every command that checks files
// one by one (run, xval, atomicity, report) runs each through capture_failure,
// so that a parse error, a spent budget, a solver failure or any internal
// error becomes that test's error line, with a kind for JSON and summaries,
// and the run goes on with the next file.
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace redscope {

struct TestFailure {
  std::string message;  // "file:line:col: error: ..." or "file: error: ..."
  std::string kind;     // "input", "timeout", "memory" or "internal"
};

// A failed test in text output: "Test FILE Error", with the kind when a
// budget ran out ("Error (timeout)"), then the message.
std::string render_failure_text(const std::string& file, const std::string& message,
                                const std::string& kind);

// Runs body(); returns what it threw, as the failure of the test in `path`.
std::optional<TestFailure> capture_failure(const std::string& path,
                                           const std::function<void()>& body);

}  // namespace redscope
