// Running many tests: file discovery, a worker pool, and expectation files.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "redscope/engine.hpp"

namespace redscope {

// Files named on the command line, and every *.litmus below named folders,
// sorted. Throws InputError for a path that does not exist.
std::vector<std::string> collect_litmus_files(const std::vector<std::string>& paths);

// Parses and checks one file; input errors become TestResult::error.
TestResult check_file(const std::string& path, const EngineOptions& opts);

// Runs body(0..n-1) on `jobs` threads (the caller's included); each index once.
void parallel_for(std::size_t n, unsigned jobs, const std::function<void(std::size_t)>& body);

// Checks every file on `jobs` worker threads. Results are in `files` order
// whatever `jobs` is. `progress(done, failed_so_far)` is called after each test
// from the worker that finished it (serialised).
std::vector<TestResult> run_suite(const std::vector<std::string>& files, const EngineOptions& opts, unsigned jobs,
                                  const std::function<void(std::size_t, std::size_t)>& progress = {});

// One row of a Dat3M expectation CSV: `path,1` (condition holds) or `path,0`.
struct Expectation {
  std::string path;  // as written, relative to the CSV's folder
  std::string resolved;
  bool holds = false;
  int line = 0;
};

std::vector<Expectation> read_expectations(const std::string& csv_path);

struct ExpectReport {
  std::vector<std::string> lines;  // one per mismatch or error
  std::size_t passed = 0, failed = 0, not_run = 0;
};

ExpectReport compare_expectations(const std::vector<Expectation>& exp, const std::vector<TestResult>& results);

}  // namespace redscope
