// Listing runs (EngineOptions::listing, issue 34 item 2): outcomes kept
// packed in an OutcomeStore, spilled in sorted runs past a memory budget and
// replayed by a merge, print exactly what a result's outcome list prints.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "iriw_text.hpp"
#include "redscope/driver/engines.hpp"
#include "redscope/driver/suite.hpp"
#include "redscope/engine/engine.hpp"
#include "redscope/engine/enumerate/enumerate.hpp"
#include "redscope/frontend/frontend.hpp"
#include "redscope/report/report.hpp"
#include "redscope/results/outcome_store.hpp"

// This file's own names (the unit tests compile in batches).
namespace unit_listing {

using namespace redscope;

namespace {

// The three renderings of a result, its time blanked.
std::string printed(TestResult r) {
  r.seconds = 0;
  std::string s = render_text(r) + render_json_item(r) + "\n" + render_json_line(r);
  std::string pieces;  // and the same through the writers' pieces
  write_text(r, [&](std::string_view p) { pieces += p; });
  write_json_item(r, [&](std::string_view p) { pieces += p; });
  pieces += "\n";
  write_json_line(r, [&](std::string_view p) { pieces += p; });
  CHECK(pieces == s);
  return s;
}

std::vector<std::string> suite_files() {
  std::vector<std::string> files;
  for (const char* d : {"classic", "scope", "red", "atom", "float", "proxy"}) {
    const std::string dir = std::string(REDSCOPE_SOURCE_DIR) + "/litmus/" + d;
    for (const std::string& f : collect_litmus_files({dir})) files.push_back(f);
  }
  return files;
}

Observable observable(const char* label, DataType t) {
  Observable o;
  o.label = label;
  o.loc = label;
  o.type = t;
  return o;
}

}  // namespace

TEST_CASE("listing: suite tests print the same listed, spilled or held", "[listing]") {
  const std::vector<std::string> files = suite_files();
  REQUIRE(files.size() > 40);
  std::size_t listed = 0;
  for (EngineKind e : {EngineKind::Enum, EngineKind::Auto})
    for (const std::string& f : files) {
      INFO(f << " " << to_string(e));
      EngineOptions o;
      o.engine = e;
      o.observe_all = true;
      o.limits.seconds = 0;
      const std::string held = printed(check_file(f, o));
      // On workers (one test on two cores), batches packed by the jobs.
      for (unsigned workers : {1u, 2u})
        for (std::size_t memory : {std::size_t{1}, std::size_t{256} << 20}) {
          INFO(workers << " workers, " << memory << " bytes");
          o.workers = workers;
          o.listing = ListingOptions{true, memory, ""};
          const TestResult r = check_file(f, o);
          if (r.listing) ++listed;
          CHECK(printed(r) == held);
        }
    }
  CHECK(listed > 40);
}

TEST_CASE("listing: IRIW listed through spilled runs equals the held list", "[listing]") {
  for (int n : {2, 4, 6}) {
    const LitmusTest t = parse_litmus(testing::iriw_text(n), "iriw.litmus");
    INFO(n << " readers");
    EngineOptions o;
    o.engine = EngineKind::Enum;
    o.observe_all = true;
    o.max_outcomes = 100000;
    const std::string held = printed(run_engine(t, o));
    EngineOptions plain;  // the held run's text, the same for every listing
    plain.engine = o.engine;
    plain.observe_all = true;
    TestResult h = run_engine(t, plain);
    for (unsigned workers : {1u, 2u, 4u})
      for (bool witnesses : {true, false}) {
        INFO(workers << " workers, witnesses " << witnesses);
        o.workers = workers;
        o.listing = ListingOptions{witnesses, 4096, ""};  // a run every few dozen outcomes
        const TestResult r = run_engine(t, o);
        REQUIRE(r.listing);
        CHECK(r.listing->runs_spilled() > (n > 2 ? 1u : 0u));
        CHECK(r.outcome_count() == (std::size_t{1} << (2 * n)));
        if (witnesses) CHECK(printed(r) == held);
        std::string text;
        write_text(r, [&](std::string_view p) { text += p; });
        h.seconds = r.seconds;
        CHECK(text == render_text(h));
      }
  }
}

// IRIW with 8 readers (65,536 outcomes): enough for a run sorted in slices
// on the workers; the jobs' batches absorbed in job order keep the
// one-thread run's witnesses.
TEST_CASE("listing: IRIW-8 on 2 workers prints what it prints on one", "[listing]") {
  const LitmusTest t = parse_litmus(testing::iriw_text(8), "iriw.litmus");
  EngineOptions o;
  o.engine = EngineKind::Enum;
  o.observe_all = true;
  o.max_outcomes = 100000;
  o.listing = ListingOptions{true, std::size_t{256} << 20, ""};
  const std::string one = printed(run_engine(t, o));
  o.workers = 2;
  const TestResult r = run_engine(t, o);
  REQUIRE(r.listing);
  CHECK(r.outcome_count() == 65536);
  CHECK(printed(r) == one);
}

TEST_CASE("listing: --max-outcomes stops a listing run as it stops a held one", "[listing]") {
  const LitmusTest t = parse_litmus(testing::iriw_text(6), "iriw.litmus");
  for (unsigned workers : {1u, 2u})
    for (std::size_t memory : {std::size_t{1} << 12, std::size_t{1} << 28}) {
      EngineOptions o;
      o.workers = workers;
      o.engine = EngineKind::Enum;
      o.observe_all = true;
      o.max_outcomes = 100;  // 4,096
      o.listing = ListingOptions{false, memory, ""};
      try {
        run_engine(t, o);
        FAIL("no error");
      } catch (const InputError& x) {
        CHECK(x.diagnostic().render() == "iriw.litmus:6:8: error: more than 100 outcomes");
      }
    }
}

TEST_CASE("outcome store: values in their types' order, each once, the first witness kept",
          "[listing]") {
  const std::vector<Observable> obs = {observable("a", DataType::S16),
                                       observable("b", DataType::S64),
                                       observable("c", DataType::U32)};
  const std::vector<std::uint64_t> as = {0,      1,      0x7f, 0x8000,
                                         0xffff, 0xfffe, 0x80};  // s16: 0 1 127 -32768 -1 -2 128
  const std::vector<std::uint64_t> bs = {0, 1, ~0ULL, 1ULL << 63, (1ULL << 63) - 1, 256, ~255ULL};
  const std::vector<std::uint64_t> cs = {0, 0xffffffff, 0x100, 7};
  std::vector<std::vector<std::uint64_t>> all;
  for (auto a : as)
    for (auto b : bs)
      for (auto c : cs) all.push_back({a, b, c});
  std::vector<std::vector<std::uint64_t>> added = all;
  added.insert(added.end(), all.begin(), all.end());  // each twice
  std::shuffle(added.begin(), added.end(), std::mt19937(7));
  auto expected = all;
  const auto signed_at = [](std::uint64_t v, unsigned w) {
    return w == 64 ? static_cast<std::int64_t>(v)
                   : static_cast<std::int64_t>(v << (64 - w)) >> (64 - w);
  };
  std::sort(expected.begin(), expected.end(), [&](const auto& x, const auto& y) {
    if (signed_at(x[0], 16) != signed_at(y[0], 16))
      return signed_at(x[0], 16) < signed_at(y[0], 16);
    if (signed_at(x[1], 64) != signed_at(y[1], 64))
      return signed_at(x[1], 64) < signed_at(y[1], 64);
    return x[2] < y[2];
  });
  for (std::size_t memory : {std::size_t{1}, std::size_t{2048}, std::size_t{1} << 24}) {
    INFO("memory " << memory);
    OutcomeStore s(obs, CondExpr{}, ListingOptions{true, memory, ""});
    s.begin_skeleton(0, {"e0", "e1", "e2"});
    std::map<std::vector<std::uint64_t>, std::uint32_t> first;  // each value's first witness
    std::uint32_t k = 0;
    for (const auto& v : added) {
      ++k;
      first.try_emplace(v, k);
      s.add(v, [&](std::vector<EdgeCode>& rf, std::vector<EdgeCode>&) { rf.push_back({k, 0}); });
    }
    s.finish();
    CHECK(s.size() == all.size());
    std::vector<std::vector<std::uint64_t>> got;
    s.for_each([&](const OutcomeStore::Entry& e) {
      got.push_back(e.values);
      REQUIRE(e.rf.size() == 1);
      CHECK(e.rf[0].from == first.at(e.values));
    });
    CHECK(got == expected);
    if (memory < 4096) CHECK(s.runs_spilled() > 1);
  }
}

TEST_CASE("listing: a folder that cannot take the spilled runs is the test's error", "[listing]") {
  const LitmusTest t = parse_litmus(testing::iriw_text(4), "iriw.litmus");
  EngineOptions o;
  o.engine = EngineKind::Enum;
  o.observe_all = true;
  o.listing = ListingOptions{false, 1, "/nonexistent/redscope-spill"};
  try {
    run_engine(t, o);
    FAIL("no error");
  } catch (const std::runtime_error& e) {
    CHECK_THAT(e.what(), Catch::StartsWith("cannot make a file for outcomes in "
                                           "/nonexistent/redscope-spill"));
  }
}

}  // namespace unit_listing
