// Running many tests: file discovery, a worker pool, and expectation files.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "redscope/core/input.hpp"
#include "redscope/core/parallel.hpp"
#include "redscope/engine/engine.hpp"

namespace redscope {

// Files named on the command line, and every file below named folders that a
// registered dialect claims (include/redscope/frontend/dialect.hpp; today *.litmus),
// sorted per folder. A path that does not exist, a folder that cannot be read
// or a dangling link is a problem: appended to `problems` (and the rest still
// collected), or thrown as InputError when `problems` is null. A file holding
// several tests (read with `max_bytes`) gives one address per test; a file
// that cannot be read or parsed gives its own path, whose check reports why.
std::vector<std::string> collect_litmus_files(const std::vector<std::string>& paths,
                                              std::vector<Diagnostic>* problems = nullptr,
                                              std::size_t max_bytes = kDefaultMaxInputBytes);

// Parses and checks one file; input errors become TestResult::error.
TestResult check_file(const std::string& path, const EngineOptions& opts);
// The same for a test held in memory (a generated matrix cell), read as the
// file `name` would be (by its first word: PTX, CUDA, ...); `name` stands for
// its file in the result and in diagnostics.
TestResult check_text(const std::string& text, const std::string& name, const EngineOptions& opts);

// Runs work(i) for i in [0, n) on `jobs` threads and hands each result to
// emit(i, result) in index order, as soon as every earlier one has been
// handed over (serialised: emit never runs on two threads at once). So output
// streams in input order whatever `jobs` is, and a cut run has printed every
// result up to the first unfinished one.
//
// Memory does not grow with n: a worker starts index i only when i is fewer
// than `ahead` (default: max(16, 4 x jobs)) past the next index to emit, so at
// most `ahead` results wait for a slow earlier one, and each is released once
// emitted. With `size_of`, a worker also starts further ahead while the
// results waiting hold fewer than `budget` bytes (by size_of; at most 65,536
// results): small results then keep every worker busy behind one slow test
// (xval's spin locks on the machine), and memory stays bounded by bytes.
// (parallel_for hands indices out in increasing order, so the index to emit
// has always been started and never waits: no deadlock.)
template <class T>
void run_ordered(std::size_t n, unsigned jobs, const std::function<T(std::size_t)>& work,
                 const std::function<void(std::size_t, T&&)>& emit, std::size_t ahead = 0,
                 const std::function<std::size_t(const T&)>& size_of = {}, std::size_t budget = 0) {
  if (ahead == 0) ahead = std::max<std::size_t>(16, 4 * std::size_t{std::max(1u, jobs)});
  constexpr std::size_t kMostWaiting = std::size_t{1} << 16;
  std::map<std::size_t, std::pair<T, std::size_t>> waiting;  // finished, with its size_of
  std::size_t next = 0, waiting_bytes = 0;
  std::mutex mu;
  std::condition_variable advanced;
  const auto may_start = [&](std::size_t i) {
    if (i < next + ahead) return true;
    return size_of && waiting_bytes < budget && i < next + kMostWaiting;
  };
  parallel_for(n, jobs, [&](std::size_t i) {
    {
      std::unique_lock<std::mutex> lock(mu);
      advanced.wait(lock, [&] { return may_start(i); });
    }
    T r = work(i);
    const std::size_t bytes = size_of ? size_of(r) : 0;
    std::lock_guard<std::mutex> lock(mu);
    waiting_bytes += bytes;
    waiting.emplace(i, std::pair<T, std::size_t>{std::move(r), bytes});
    const std::size_t before = next;
    for (auto it = waiting.begin(); it != waiting.end() && it->first == next;
         it = waiting.erase(it), ++next) {
      waiting_bytes -= it->second.second;
      emit(next, std::move(it->second.first));
    }
    if (next != before) advanced.notify_all();
  });
}

// Test n (from 0) of `text`, read through the registry as the file `file`
// would be (any dialect), checked as check_file checks a file.
TestResult check_source(const std::string& text, const std::string& file, std::size_t n,
                        const EngineOptions& opts);

// Checks every file on `jobs` worker threads; results in `files` order
// (the CLI streams them with run_ordered instead).
std::vector<TestResult> run_suite(const std::vector<std::string>& files, const EngineOptions& opts,
                                  unsigned jobs);

// One row of a Dat3M expectation CSV: `path,1` (condition holds) or `path,0`.
struct Expectation {
  std::string path;  // as written, relative to the CSV's folder
  std::string resolved;
  bool holds = false;
  int line = 0;
};

// Reads the CSV with read_input (regular file, at most `max_bytes`): InputError
// (CSV or CSV:LINE:1) when it cannot be read or a row is malformed.
std::vector<Expectation> read_expectations(const std::string& csv_path,
                                           std::size_t max_bytes = kDefaultMaxInputBytes);

// The key under which test paths and expectation rows are matched: the
// path's weakly canonical form, or, when the file system refuses one (a name
// over NAME_MAX, a loop of links), its lexically normal absolute form. Never
// throws a filesystem_error.
std::string path_key(const std::string& path);

struct ExpectReport {
  std::vector<std::string> lines;  // one per mismatch or error
  std::size_t passed = 0, failed = 0, errors = 0, not_run = 0;
};

// Compares results with the rows of an expectation file and counts the
// tests that carry their own claim (a .test file's permit, assert or check),
// one result at a time, so that a run can stream its results and keep none.
// What it keeps: one verdict per row of `exp`, and the lines of the claims
// not met and of the errors.
class ExpectTally {
 public:
  explicit ExpectTally(std::vector<Expectation> exp);
  void add(const TestResult& r);
  // Each row of `exp` in order: passed, failed (MISMATCH line), an error
  // (ERROR line) or not run, judged by the last result added for its path.
  ExpectReport compared() const;
  // Adds to `rep` the tests with a claim that no row of `exp` names: a
  // claim that does not hold fails, with a line saying why. With claims and
  // no rows, every error of the run counts too. False when there was no claim.
  bool add_claims(ExpectReport& rep) const;

 private:
  struct Row {
    enum class Verdict : std::uint8_t { NotRun, Passed, Failed, Error } verdict = Verdict::NotRun;
    std::string line;  // MISMATCH or ERROR
  };
  std::vector<Expectation> exp_;
  std::map<std::string, std::vector<std::size_t>, std::less<>> rows_of_;  // path_key -> rows
  std::vector<Row> rows_;
  bool any_claim_ = false;
  std::size_t claims_passed_ = 0, claims_failed_ = 0;
  std::vector<std::string> claim_lines_, error_lines_;
};

// The tally over a whole vector of results (ExpectTally::compared, add_claims).
ExpectReport compare_expectations(const std::vector<Expectation>& exp,
                                  const std::vector<TestResult>& results);
bool add_claims(ExpectReport& rep, const std::vector<Expectation>& exp,
                const std::vector<TestResult>& results);

}  // namespace redscope
