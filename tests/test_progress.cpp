// The progress line's arithmetic and text (src/cli/progress.hpp): rate, ETA,
// durations; what a terminal shows is checked by tests/cli_progress.sh.
#include <catch2/catch.hpp>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "cli/progress.hpp"
#include "redscope/engine/enumerate/enumerate.hpp"
#include "redscope/engine/machine/machine.hpp"
#include "redscope/engine/progress.hpp"
#include "redscope/registry/registry.hpp"

// This file's own names (the unit tests compile in batches).
namespace unit_progress {

using namespace redscope::cli;

TEST_CASE("progress: rate and ETA", "[progress]") {
  ProgressEstimate e = estimate_progress(0, 100, 5.0);  // nothing finished: no rate, no ETA
  CHECK(e.per_second == 0);
  CHECK_FALSE(e.eta_seconds);
  e = estimate_progress(50, 200, 10.0);  // 5 a second, 150 left
  CHECK(e.per_second == Approx(5.0));
  REQUIRE(e.eta_seconds);
  CHECK(*e.eta_seconds == Approx(30.0));
  e = estimate_progress(200, 200, 10.0);
  CHECK(*e.eta_seconds == 0);
  e = estimate_progress(7, 0, 2.0);  // unknown total: a rate, no ETA
  CHECK(e.per_second == Approx(3.5));
  CHECK_FALSE(e.eta_seconds);
  CHECK_FALSE(estimate_progress(3, 10, 0).eta_seconds);  // no time has passed
}

TEST_CASE("progress: durations and rates as text", "[progress]") {
  CHECK(format_duration(0) == "0s");
  CHECK(format_duration(6.2) == "7s");  // rounded up: "0s" only when done
  CHECK(format_duration(59.5) == "1m00s");
  CHECK(format_duration(185) == "3m05s");
  CHECK(format_duration(3600 * 2 + 7 * 60 + 30) == "2h07m");
  CHECK(format_duration(-3) == "0s");
  CHECK(format_rate(1234.4, "tests") == "1234 tests/s");
  CHECK(format_rate(3.46, "tests") == "3.5 tests/s");
  CHECK(format_rate(0.0412, "cells") == "0.04 cells/s");
}

TEST_CASE("progress: the line", "[progress]") {
  ProgressState s;
  s.total = 10000;
  s.elapsed = 2;
  CHECK(progress_line(s) == "[0/10000] 0 failed");
  s.done = 1000;
  s.failed = 2;
  s.elapsed = 4;
  CHECK(progress_line(s) == "[1000/10000] 250 tests/s, ETA 36s, 2 failed");
  s.oldest = "MP+rel-acq";
  s.oldest_seconds = 3.14;
  CHECK(progress_line(s) ==
        "[1000/10000] 250 tests/s, ETA 36s, 2 failed; checking MP+rel-acq (3.1 s)");
  s.total = 0;  // unknown
  s.label = "cells";
  s.oldest.clear();
  CHECK(progress_line(s) == "[1000 cells] 250 cells/s, 2 failed");
}

namespace {

// The reports `engine` makes on IRIW+relaxed-gpu, at most one per `interval`.
std::vector<redscope::ProgressReport> reports(redscope::EngineKind engine,
                                              std::chrono::milliseconds interval) {
  using namespace redscope;
  const LitmusTest t = parse_litmus_file(std::string(REDSCOPE_SOURCE_DIR) +
                                         "/litmus/classic/IRIW+relaxed-gpu.litmus");
  std::vector<ProgressReport> seen;
  EngineOptions o;
  o.engine = engine;
  o.progress = std::make_shared<const ProgressReporter>(
      [&](const ProgressReport& r) { seen.push_back(r); }, interval);
  (void)(engine == EngineKind::Op ? run_op(t, o) : run_enum(t, o));
  return seen;
}

}  // namespace

// EngineOptions::progress (engine/progress.hpp): the enumerator reports the
// candidates it has tried, total unknown (0), at most one per interval.
TEST_CASE("progress: the enumerator's reports, throttled", "[progress]") {
  const auto seen = reports(redscope::EngineKind::Enum, std::chrono::hours(1));
  REQUIRE(seen.size() == 1);  // the first at once, the rest within the hour: dropped
  CHECK(seen[0].total == 0);
  CHECK(seen[0].phase == "enumerate");
}

// The operational machine reports the states it has explored, every 256,
// over its explorers (a caller of the module's JSON API with engine "op"
// sees the call move).
TEST_CASE("progress: the machine's reports count its states", "[progress]") {
  const auto seen = reports(redscope::EngineKind::Op, std::chrono::milliseconds(0));
  REQUIRE(!seen.empty());
  CHECK(seen[0].done == 256);
  CHECK(seen[0].total == 0);
  CHECK(seen[0].phase == "explore");
  for (std::size_t i = 1; i < seen.size(); ++i) CHECK(seen[i].done > seen[i - 1].done);
}

}  // namespace unit_progress
