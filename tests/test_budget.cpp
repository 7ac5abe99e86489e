// Budgets on hostile input (issue 28): the budget starts before parsing,
// every loop that grows with the test checks it, memory is charged before
// input-sized allocations, and the memory layout bounds its cells. Each case
// here hung, ran minutes past --timeout or allocated gigabytes before.
#include <unistd.h>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "engine/enumerate/symmetry.hpp"
#include "engine/z3/relation.hpp"
#include "redscope/core/bitrel.hpp"
#include "redscope/core/budget.hpp"
#include "redscope/driver/suite.hpp"
#include "redscope/engine/engine.hpp"
#include "redscope/events/events.hpp"
#include "redscope/events/value_sets.hpp"
#include "redscope/frontend/frontend.hpp"
#include "redscope/model/primitives.hpp"

// This file's own names (the unit tests compile in batches).
namespace unit_budget {

using namespace redscope;

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// A file of this test case's own (ctest runs the cases in parallel).
std::string write_file(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() /
                    fmt::format("redscope-budget-{}-{}.litmus", name, getpid());
  std::ofstream(path) << text;
  return path.string();
}

// One thread storing `n` times to x (each store a write event), one reading.
std::string stores(std::size_t n) {
  std::string s = "PTX stores\n{\nglobal u32 x = 0;\n}\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n";
  s += " st.relaxed.gpu.global.u32 [x], 1 | ld.relaxed.gpu.global.u32 r0, [x] ;\n";
  for (std::size_t i = 1; i < n; ++i)
    s += fmt::format(" st.relaxed.gpu.global.u32 [x], {} | ;\n", i + 1);
  return s + "exists (P1:r0 == 1)\n";
}

std::string inits(std::size_t n) {
  std::string s = "PTX inits\n{\n";
  for (std::size_t i = 0; i < n; ++i) s += fmt::format("global u32 x{} = 0;\n", i);
  return s + "}\n P0@cta 0,gpu 0 ;\n st.relaxed.gpu.global.u32 [x0], 1 ;\nexists (x0 == 1)\n";
}

// `n` threads, P0 storing, the others empty; `per_cta` threads share a CTA
// (1: each its own, the default placement).
std::string threads(std::size_t n, std::size_t per_cta) {
  std::string s = "PTX threads\n{\nglobal u32 x = 0;\n}\n";
  for (std::size_t i = 0; i < n; ++i)
    s += per_cta == 1 ? fmt::format("{}P{}", i ? " | " : " ", i)
                      : fmt::format("{}P{}@cta {},gpu 0", i ? " | " : " ", i, i / per_cta);
  s += " ;\n st.relaxed.gpu.global.u32 [x], 1 ";
  for (std::size_t i = 1; i < n; ++i) s += "| ";
  return s + ";\nexists (x == 1)\n";
}

Skeleton skeleton_of(const std::string& text) {
  return expand(parse_litmus(text, "t.litmus"), ExpandOptions{}).skeletons.at(0);
}

BudgetKind kind_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const BudgetExceeded& e) {
    return e.kind();
  }
  FAIL("no BudgetExceeded");
  return BudgetKind::Timeout;
}

}  // namespace

TEST_CASE("Budget::charge refuses an allocation past --max-memory before it is made", "[budget]") {
  const Budget capped(BudgetLimits{0, 100});
  CHECK_NOTHROW(capped.charge(1 << 10));
  CHECK(kind_of([&] { capped.charge(std::size_t{200} << 20); }) == BudgetKind::Memory);
  // The test is stopped: later checks fail too.
  CHECK(kind_of([&] { capped.check(); }) == BudgetKind::Memory);
  const Budget unlimited(BudgetLimits{0, 0});
  CHECK_NOTHROW(unlimited.charge(std::size_t{1} << 40));
  CHECK_NOTHROW(charge(nullptr, std::size_t{1} << 40));
  // A relation of 200,000 events (5 GB) is refused, not allocated.
  const Budget b(BudgetLimits{0, 100});
  CHECK(kind_of([&] { BitRel r(200'000, &b); }) == BudgetKind::Memory);
  z3::context c;
  const Budget z(BudgetLimits{0, 100});
  CHECK(kind_of([&] { Rel r(c, 200'000, &z); }) == BudgetKind::Memory);
}

TEST_CASE("Budget::InterruptGuard: hooks run at stop, at once when stopped, not once gone",
          "[budget]") {
  Budget b(BudgetLimits{0, 0});
  int first = 0, late = 0;
  {
    const Budget::InterruptGuard g(&b, [&first] { ++first; });
    CHECK(first == 0);
    b.stop(BudgetKind::Timeout);
    CHECK(first == 1);
    CHECK(b.poll());  // a stopped budget keeps interrupting
    CHECK(first == 2);
    const Budget::InterruptGuard h(&b, [&late] { ++late; });
    CHECK(late == 1);  // registered after the stop: interrupted at once
  }
  b.poll();  // both guards are gone: nothing is called
  CHECK(first == 2);
  CHECK(late == 1);
  const Budget::InterruptGuard none(nullptr, [] { FAIL("no budget: never called"); });
}

TEST_CASE("static relations: 20,000 stores are refused at the memory budget", "[budget]") {
  const Skeleton sk = skeleton_of(stores(20'000));
  const Budget b(BudgetLimits{0, 300});
  const auto t0 = Clock::now();
  CHECK(kind_of([&] { (void)cat::static_primitives(sk, &b); }) == BudgetKind::Memory);
  CHECK(since(t0) < 2);  // before: 18 relations of 50 MB each, made in full
}

TEST_CASE("static relations, estimate and engine stop at the deadline", "[budget]") {
  EngineOptions o;
  o.limits = BudgetLimits{1, 0};
  const std::string path = write_file("stores", stores(5'000));
  const auto t0 = Clock::now();
  const TestResult r = check_file(path, o);
  CHECK(since(t0) < 2 * 1 + 5);  // before: 7 to 40 s
  REQUIRE(r.error);
  CHECK(r.error_kind == "timeout");
  std::filesystem::remove(path);
}

TEST_CASE("the budget starts before parsing", "[budget]") {
  EngineOptions o;
  o.limits = BudgetLimits{0.05, 0};
  const std::string path = write_file("parse", inits(100'000));
  const auto t0 = Clock::now();
  const TestResult r = check_file(path, o);
  // Before: parsed to the end outside the budget (a quadratic duplicate
  // check: minutes), then an input error.
  CHECK(since(t0) < 5);
  REQUIRE(r.error);
  CHECK(r.error_kind == "timeout");
  std::filesystem::remove(path);
}

TEST_CASE("memory layout: cells are bounded, with a located error", "[budget][layout]") {
  const auto error_of = [](const std::string& text, const std::string& name) {
    const std::string path = write_file(name, text);
    const auto t0 = Clock::now();
    const TestResult r = check_file(path, EngineOptions{});
    CHECK(since(t0) < 5);
    std::filesystem::remove(path);
    REQUIRE(r.error);
    CHECK(r.error_kind == "input");
    return r.error->substr(r.error->find(".litmus:") + 7);
  };
  // A store at offset 1 MiB of an undeclared location: 262,144 cells, 7.4 GB.
  CHECK_THAT(error_of("PTX far\n{\n}\n P0@cta 0,gpu 0 ;\n st.relaxed.gpu.global.u32 "
                      "[x+1048576], 1 ;\nexists (x[0] == 0)\n",
                      "far"),
             Catch::StartsWith(":5:28: error: offset 1048576 of 'x' is its cell 262144") &&
                 Catch::Contains("at most 4096 cells"));
  // SASS: ST.E [R2+0x7ffffffc] (536 M cells).
  CHECK_THAT(error_of("SASS far\n{\nx = 0;\nP0:R2 = x; P0:R3 = 1;\n}\n P0@cta 0,gpu 0 ;\n"
                      " ST.E [R2+0x7ffffffc], R3 ;\nexists (x == 0)\n",
                      "sass-far"),
             Catch::StartsWith(":7:") && Catch::Contains("address offset 2147483644 out of range"));
  // 100,000 declared locations: 100,000 initial writes.
  CHECK_THAT(error_of(inits(100'000), "many-locations"),
             Catch::StartsWith(":65539:1: error: more than 65536 memory cells in one test"));
}

TEST_CASE("parse-time and expansion checks are n log n", "[budget]") {
  // Thread classes: 300,000 empty threads, each alone in its CTA, are one
  // class; in pairs per CTA, 10,000 classes of two. Both were quadratic.
  auto t0 = Clock::now();
  const Skeleton lone = skeleton_of(threads(300'000, 1));
  const auto one = enumerate::thread_classes(lone, {}).groups;
  REQUIRE(one.size() == 1);
  CHECK(one[0].size() == 299'999);
  const Skeleton pairs = skeleton_of(threads(20'000, 2));
  const auto two = enumerate::thread_classes(pairs, {}).groups;
  CHECK(two.size() == 9'999);  // P0 stores, so P1 has no partner
  CHECK(since(t0) < 20);
  // An alias chain of 20,000, accessed 2,000 times through its far end.
  std::string s = "PTX aliases\n{\nglobal u32 a0 = 0;\n";
  for (int i = 1; i < 20'000; ++i) s += fmt::format("a{} @ generic aliases a{};\n", i, i - 1);
  s += "}\n P0@cta 0,gpu 0 ;\n";
  for (int i = 0; i < 2'000; ++i) s += " st.relaxed.gpu.u32 [a19999], 1 ;\n";
  t0 = Clock::now();
  const Skeleton chain = skeleton_of(s + "exists (a0 == 1)\n");
  CHECK(since(t0) < 5);
  CHECK(chain.ev(chain.thread_base[0]).loc == "a0");
  CHECK(chain.ev(chain.thread_base[0]).vloc == "a19999");
}

TEST_CASE("value sets check the budget in their rounds", "[budget][value_sets]") {
  // A bulk reduction into a 64-replica range: every replica's element reads
  // and rewrites itself, so the plain rounds grow each set one value a round.
  std::string gpus, zeros, ones;
  for (int i = 0; i < 64; ++i) {
    gpus += fmt::format("{}{}", i ? ", " : "", i);
    zeros += i ? ", 0" : "0";
    ones += fmt::format("{}{}", i ? ", " : "", i + 1);
  }
  const Skeleton sk = skeleton_of(
      fmt::format("PTX bulk64\n{{\n  multimem({}) u32 m[64] = {{{}}};\n  shared u32 src[64] = "
                  "{{{}}};\n}}\n P0@cta 0,gpu 0 ;\n multimem.cp.reduce.async.bulk.global."
                  "shared::cta.bulk_group.add.u32 [m], [src], 256 ;\nforall (m_gpu0[0] == 1)\n",
                  gpus, zeros, ones));
  const Budget b(BudgetLimits{0.2, 0});
  ValueSetLimits lim;
  lim.budget = &b;
  const auto t0 = Clock::now();
  CHECK(kind_of([&] { (void)value_sets(sk, lim); }) == BudgetKind::Timeout);
  CHECK(since(t0) < 3);  // before: 20 s and more
}

}  // namespace unit_budget
