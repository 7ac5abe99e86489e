// Streaming a suite (include/redscope/driver/suite.hpp): run_ordered emits in
// index order and never starts a test more than `ahead` past the next to
// emit; ExpectTally, fed one result at a time, says what the whole-vector
// comparison said.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "redscope/driver/suite.hpp"

// This file's own names (the unit tests compile in batches).
namespace unit_stream {

using namespace redscope;

TEST_CASE("run_ordered: index order, at most `ahead` results waiting", "[stream]") {
  constexpr std::size_t n = 400, ahead = 8;
  std::atomic<std::size_t> emitted{0};
  std::atomic<bool> too_far{false};
  std::vector<std::size_t> order;
  run_ordered<std::size_t>(
      n, 4,
      [&](std::size_t i) {
        if (i >= emitted.load() + ahead) too_far = true;
        // Every 50th test is slow: the others catch up with the window.
        if (i % 50 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
        return i * i;
      },
      [&](std::size_t i, std::size_t&& r) {
        CHECK(r == i * i);
        order.push_back(i);
        ++emitted;
      },
      ahead);
  CHECK_FALSE(too_far);
  REQUIRE(order.size() == n);
  for (std::size_t i = 0; i < n; ++i) CHECK(order[i] == i);
}

// One slow first test: with a byte budget the other workers go on past
// `ahead` while the results waiting are small; without one they stop there.
TEST_CASE("run_ordered: a byte budget lets small results pass a slow test", "[stream]") {
  for (const bool budget : {true, false}) {
    constexpr std::size_t n = 200, ahead = 4;
    std::atomic<std::size_t> done{0};
    std::size_t seen_by_slow = 0;
    std::vector<std::size_t> order;
    run_ordered<std::size_t>(
        n, 2,
        [&](std::size_t i) {
          if (i == 0) {  // waits (at most 0.5 s) for 50 others to finish
            for (int k = 0; k < 50 && done.load() < 50; ++k)
              std::this_thread::sleep_for(std::chrono::milliseconds(10));
            seen_by_slow = done.load();
          }
          ++done;
          return i;
        },
        [&](std::size_t i, std::size_t&&) { order.push_back(i); }, ahead,
        [](const std::size_t&) { return std::size_t{8}; }, budget ? 1 << 20 : 0);
    INFO("budget " << budget);
    if (budget)
      CHECK(seen_by_slow >= 50);
    else
      CHECK(seen_by_slow <= ahead);
    REQUIRE(order.size() == n);
    for (std::size_t i = 0; i < n; ++i) CHECK(order[i] == i);
  }
}

namespace {

TestResult result(const std::string& file, bool holds, std::optional<std::string> error = {}) {
  TestResult r;
  r.file = file;
  r.holds = holds;
  r.error = std::move(error);
  return r;
}

Expectation row(const std::string& path, bool holds, int line) {
  Expectation e;
  e.path = path;
  e.resolved = path_key("/tmp/redscope-tally/" + path);
  e.holds = holds;
  e.line = line;
  return e;
}

}  // namespace

TEST_CASE("ExpectTally: one result at a time, rows reported in file order", "[stream]") {
  const std::vector<Expectation> exp = {row("a.litmus", true, 1), row("b.litmus", true, 2),
                                        row("c.litmus", false, 3), row("gone.litmus", true, 4),
                                        row("a.litmus", false, 5)};
  const std::vector<TestResult> results = {
      result("/tmp/redscope-tally/c.litmus", false, std::string("c.litmus:1:1: error: bad")),
      result("/tmp/redscope-tally/b.litmus", false),
      result("/tmp/redscope-tally/a.litmus", true),
  };
  ExpectTally tally(exp);
  for (const TestResult& r : results) tally.add(r);
  const ExpectReport rep = tally.compared();
  CHECK(rep.passed == 1);  // row 1
  CHECK(rep.failed == 2);  // rows 2 and 5
  CHECK(rep.errors == 1);  // row 3
  CHECK(rep.not_run == 1);
  REQUIRE(rep.lines.size() == 3);
  CHECK(rep.lines[0].rfind("MISMATCH b.litmus: expected 1", 0) == 0);
  CHECK(rep.lines[1] == "ERROR c.litmus: c.litmus:1:1: error: bad");
  CHECK(rep.lines[2].rfind("MISMATCH a.litmus: expected 0", 0) == 0);
  CHECK(rep.lines == compare_expectations(exp, results).lines);
  ExpectReport claims = rep;
  CHECK_FALSE(tally.add_claims(claims));  // no test carries a claim
}

TEST_CASE("ExpectTally: claims, then the run's errors when no row names a file", "[stream]") {
  std::vector<TestResult> results = {
      result("/tmp/redscope-tally/x.test#1", true), result("/tmp/redscope-tally/x.test#2", false),
      result("/tmp/redscope-tally/bad.litmus", false, std::string("bad.litmus:2:1: error: bad")),
      result("/tmp/redscope-tally/plain.litmus", false)};
  results[0].quantifier = results[1].quantifier = Quantifier::Permit;
  ExpectTally tally({});
  for (const TestResult& r : results) tally.add(r);
  ExpectReport rep;
  REQUIRE(tally.add_claims(rep));
  CHECK(rep.passed == 1);
  CHECK(rep.failed == 1);
  CHECK(rep.errors == 1);
  REQUIRE(rep.lines.size() == 2);
  CHECK(rep.lines[0].rfind("CLAIM NOT MET /tmp/redscope-tally/x.test#2: permit", 0) == 0);
  CHECK(rep.lines[1] == "ERROR /tmp/redscope-tally/bad.litmus: bad.litmus:2:1: error: bad");
  ExpectReport whole;
  REQUIRE(add_claims(whole, {}, results));
  CHECK(whole.lines == rep.lines);
}

}  // namespace unit_stream
