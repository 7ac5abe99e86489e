// The enumerator on several threads (EngineOptions::workers, `-j N` on fewer
// tests than N): the same outcomes, in the same order, with the same
// witnesses, verdicts and errors as on one, for every number of workers.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "iriw_text.hpp"
#include "redscope/driver/engines.hpp"
#include "redscope/driver/suite.hpp"
#include "redscope/engine/engine.hpp"
#include "redscope/engine/enumerate/enumerate.hpp"
#include "redscope/frontend/frontend.hpp"

// This file's own names (the unit tests compile in batches).
namespace unit_enum_workers {

using namespace redscope;

namespace {

// Everything a run says about a test: each outcome's values, verdict and
// witness (rf and co texts), then the verdict, observation and error.
std::string everything(const TestResult& r) {
  std::string s;
  for (const Outcome& o : r.outcomes) {
    for (std::uint64_t v : o.values) s += std::to_string(v) + ",";
    s += o.satisfies ? " sat rf:" : " unsat rf:";
    for (const std::string& e : o.witness.rf) s += e + ";";
    s += " co:";
    for (const std::string& e : o.witness.co) s += e + ";";
    s += "\n";
  }
  return s + fmt::format("holds={} observation={} incomplete={}/{} engine={} {} error={}\n",
                         r.holds, to_string(r.observation), r.incomplete.bound_cut,
                         r.incomplete.barrier_deadlock, r.engine, r.engine_reason,
                         r.error.value_or(""));
}

std::vector<std::string> folders_files() {
  std::vector<std::string> files;
  for (const char* d : {"classic", "scope", "red"}) {
    const std::string dir = std::string(REDSCOPE_SOURCE_DIR) + "/litmus/" + d;
    for (const std::string& f : collect_litmus_files({dir})) files.push_back(f);
  }
  return files;
}

}  // namespace

TEST_CASE("enum workers: suite tests give the same results on 1, 2 and 4 workers",
          "[enum][workers]") {
  const std::vector<std::string> files = folders_files();
  REQUIRE(files.size() > 20);
  for (EngineKind e : {EngineKind::Enum, EngineKind::Auto})
    for (const std::string& f : files) {
      INFO(f << " " << to_string(e));
      EngineOptions o;
      o.engine = e;
      o.observe_all = true;
      o.limits.seconds = 0;
      const std::string one = everything(check_file(f, o));
      for (unsigned w : {2u, 4u}) {
        o.workers = w;
        CHECK(everything(check_file(f, o)) == one);
      }
    }
}

TEST_CASE("enum workers: IRIW gives the same outcomes and witnesses on 1, 2 and 4 workers",
          "[enum][workers]") {
  for (int n : {2, 4, 6}) {
    const LitmusTest t = parse_litmus(testing::iriw_text(n), "iriw.litmus");
    INFO(n << " readers");
    for (EngineKind e : {EngineKind::Enum, EngineKind::Auto}) {
      EngineOptions o;
      o.engine = e;
      o.observe_all = true;
      o.max_outcomes = 100000;
      const TestResult a = run_engine(t, o);
      REQUIRE(a.outcomes.size() == (std::size_t{1} << (2 * n)));
      for (unsigned w : {2u, 4u}) {
        o.workers = w;
        CHECK(everything(run_engine(t, o)) == everything(a));
      }
    }
  }
}

// Each leaf's Fence-SC orders are searched by a job (fence_sc.hpp): the
// readers' fences make every pair of them morally strong (one GPU). The
// counts are those herd7 lists on bench/herd/ptx.cat (docs/performance.md
// "herd7 like for like").
TEST_CASE("enum workers: IRIW+fence.sc gives the same outcomes and witnesses on 1, 2 and 4 workers",
          "[enum][workers]") {
  const std::size_t herd7[] = {0, 0, 15, 57, 207, 765};
  for (int n : {2, 3, 5}) {
    const LitmusTest t = parse_litmus(testing::iriw_text(n, "fence.sc.gpu"), "iriw.litmus");
    INFO(n << " readers");
    for (EngineKind e : {EngineKind::Enum, EngineKind::Auto}) {
      EngineOptions o;
      o.engine = e;
      o.observe_all = true;
      const TestResult a = run_engine(t, o);
      REQUIRE(a.outcomes.size() == herd7[n]);
      for (unsigned w : {2u, 4u}) {
        o.workers = w;
        CHECK(everything(run_engine(t, o)) == everything(a));
      }
    }
    // The limit counts the search's own choices, not the jobs' orders: the
    // same error, or none, at every number of workers.
    for (std::size_t limit : {20, 200}) {
      EngineOptions o;
      o.engine = EngineKind::Enum;
      o.observe_all = true;
      o.enum_limit = limit;
      std::string one;
      for (unsigned w : {1u, 2u, 4u}) {
        o.workers = w;
        std::string got;
        try {
          got = everything(run_engine(t, o));
        } catch (const InputError& x) {
          got = x.what();
        }
        if (w == 1) one = got;
        CHECK(got == one);
      }
    }
  }
}

TEST_CASE("enum workers: the limits stop every number of workers alike", "[enum][workers]") {
  const LitmusTest t = parse_litmus(testing::iriw_text(6), "iriw.litmus");
  auto error = [&](EngineOptions o) -> std::string {
    try {
      run_enum(t, o);
      return "none";
    } catch (const InputError& x) {
      return x.diagnostic().render();
    } catch (const EnumGaveWay& g) {
      return fmt::format("gave way after {} choices and {} outcomes", g.choices, g.outcomes);
    }
  };
  for (unsigned w : {1u, 2u, 4u}) {
    INFO(w << " workers");
    EngineOptions o;
    o.workers = w;
    o.observe_all = true;
    o.max_outcomes = 100;  // IRIW with 6 readers has 4,096
    CHECK(error(o) == "iriw.litmus:6:8: error: more than 100 outcomes");
    o.max_outcomes = 100000;
    o.enum_limit = 40;  // its search makes about 250 choices
    CHECK_THAT(error(o), Catch::Contains("gave up after 40 candidate executions"));
    // Both over: the outcomes were more than 100 before the 200th choice.
    o.max_outcomes = 100;
    o.enum_limit = 200;
    CHECK(error(o) == "iriw.litmus:6:8: error: more than 100 outcomes");
    // auto's give-way: decided on the same count of choices and outcomes
    // (the condition's two registers observed: 1 outcome by then).
    o.observe_all = false;
    o.max_outcomes = 100000;
    o.enum_limit = 5'000'000;
    o.give_way_after = 1;
    o.give_way_ratio = 10;
    const std::string one = [&] {
      EngineOptions p = o;
      p.workers = 1;
      return error(p);
    }();
    CHECK_THAT(one, Catch::StartsWith("gave way after 256 choices and 1 outcomes"));
    CHECK(error(o) == one);
  }
}

TEST_CASE("enum workers: --timeout stops the workers' jobs too", "[enum][workers]") {
  const LitmusTest t =
      parse_litmus(testing::iriw_text(8), "iriw.litmus");  // 65,536 outcomes: 0.1 s
  for (unsigned w : {1u, 2u, 4u}) {
    INFO(w << " workers");
    const Budget budget(BudgetLimits{1e-4, 0});
    EngineOptions o;
    o.observe_all = true;
    o.max_outcomes = 100000;
    o.workers = w;
    o.budget = &budget;
    CHECK_THROWS_AS(run_enum(t, o), BudgetExceeded);
  }
}

}  // namespace unit_enum_workers
