// The enumerator's pruning search and its symmetry reduction must not lose
// or invent an outcome: generated families (the benchmark's shapes, at sizes
// the solver answers quickly) with every register and location observed,
// z3 == enum == auto; and the thread classes the symmetry uses, on tests
// where identical code is not enough (placement, registers, constants).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <fmt/format.h>

#include "engine/enumerate/symmetry.hpp"
#include "redscope/driver/engines.hpp"
#include "redscope/engine/engine.hpp"
#include "redscope/frontend/frontend.hpp"
#include "suite_files.hpp"

// This file's own names (the unit tests compile in batches).
namespace unit_pruning {

using namespace redscope;

namespace {

// Threads `place` (one "P0@cta 0,gpu 0" per thread), code by rows.
std::string litmus(const std::string& name, const std::string& init,
                   const std::vector<std::string>& place,
                   const std::vector<std::vector<std::string>>& code, const std::string& cond) {
  std::string s = fmt::format("PTX {}\n{{ {} }}\n", name, init);
  for (std::size_t t = 0; t < place.size(); ++t)
    s += (t ? " | " : " ") + fmt::format("P{}@{}", t, place[t]);
  s += " ;\n";
  std::size_t depth = 0;
  for (const auto& c : code) depth = std::max(depth, c.size());
  for (std::size_t i = 0; i < depth; ++i) {
    for (std::size_t t = 0; t < code.size(); ++t)
      s += (t ? " | " : " ") + (i < code[t].size() ? code[t][i] : std::string());
    s += " ;\n";
  }
  return s + "exists (" + cond + ")\n";
}

std::vector<std::string> own_ctas(int n) {
  std::vector<std::string> p;
  for (int t = 0; t < n; ++t) p.push_back(fmt::format("cta {},gpu 0", t));
  return p;
}

void same_everywhere(const std::string& text) {
  const LitmusTest t = parse_litmus(text, "generated.litmus");
  INFO(text);
  EngineOptions o;
  o.observe_all = true;
  o.max_outcomes = 100000;
  o.engine = EngineKind::Z3;
  const TestResult z = run_engine(t, o);
  o.engine = EngineKind::Enum;
  const TestResult e = run_engine(t, o);
  o.engine = EngineKind::Auto;
  const TestResult a = run_engine(t, o);
  CHECK(testing::render_outcomes(z) == testing::render_outcomes(e));
  CHECK(testing::render_outcomes(z) == testing::render_outcomes(a));
  // Every outcome keeps a witness: an rf edge per executed read.
  for (const Outcome& out : e.outcomes) CHECK(!out.witness.rf.empty());
}

std::string iriw(int n, const std::string& mid) {
  std::vector<std::vector<std::string>> c = {{"st.relaxed.gpu x, 1"}, {"st.relaxed.gpu y, 1"}};
  for (int r = 0; r < n; ++r) {
    const char* a = r % 2 ? "y" : "x";
    const char* b = r % 2 ? "x" : "y";
    std::vector<std::string> rows = {fmt::format("ld.relaxed.gpu r0, {}", a)};
    if (!mid.empty()) rows.push_back(mid);
    rows.push_back(fmt::format("ld.relaxed.gpu r1, {}", b));
    c.push_back(rows);
  }
  return litmus(fmt::format("iriw-{}", n), "x=0; y=0;", own_ctas(n + 2), c,
                "P2:r0 == 1 /\\ P2:r1 == 0");
}

}  // namespace

TEST_CASE("pruning and symmetry: generated families, z3 == enum == auto", "[engines][pruning]") {
  for (int n = 2; n <= 4; ++n) {
    same_everywhere(iriw(n, ""));
    same_everywhere(iriw(n, "fence.sc.gpu"));
    same_everywhere(iriw(n, "fence.sc.cta"));  // not morally strong across CTAs
    same_everywhere(iriw(n, "fence.acq_rel.gpu"));
  }
  for (int n = 2; n <= 5; ++n) {
    std::vector<std::vector<std::string>> c(n, {"atom.relaxed.gpu.global.add.u32 r0, [x], 1"});
    same_everywhere(litmus("atoms", "global u32 x = 0;", own_ctas(n), c, "x == 1"));
  }
  // Half the threads share CTA 0, half CTA 1, with .cta atomics: threads are
  // interchangeable only inside their CTA (a .cta RMW is not morally strong
  // across CTAs, so updates may be lost between the halves).
  for (int n = 1; n <= 2; ++n) {
    std::vector<std::string> place;
    for (int t = 0; t < 2 * n; ++t) place.push_back(fmt::format("cta {},gpu 0", t < n ? 0 : 1));
    std::vector<std::vector<std::string>> c(2 * n, {"atom.relaxed.cta.global.add.u32 r0, [x], 1"});
    same_everywhere(litmus("atoms-cta", "global u32 x = 0;", place, c, "x == 1"));
  }
  // Message passing into several identical readers, with release/acquire.
  for (int n = 1; n <= 3; ++n) {
    std::vector<std::vector<std::string>> c = {{"st.relaxed.gpu x, 1", "st.release.gpu y, 1"}};
    for (int r = 0; r < n; ++r) c.push_back({"ld.acquire.gpu r0, y", "ld.relaxed.gpu r1, x"});
    same_everywhere(litmus("mp", "x=0; y=0;", own_ctas(n + 1), c, "P1:r0 == 1 /\\ P1:r1 == 0"));
  }
  // Every thread stores and loads both locations (no two interchangeable).
  for (int n = 2; n <= 3; ++n) {
    std::vector<std::vector<std::string>> c;
    for (int t = 0; t < n; ++t)
      c.push_back({fmt::format("st.relaxed.gpu x, {}", t + 1),
                   fmt::format("st.relaxed.gpu y, {}", t + 1), "ld.relaxed.gpu r0, x",
                   "ld.relaxed.gpu r1, y"});
    same_everywhere(litmus("stld", "x=0; y=0;", own_ctas(n), c, "P0:r1 == 0"));
  }
}

TEST_CASE("symmetry: which threads are interchangeable", "[engines][pruning]") {
  auto classes = [](const std::string& text) {
    const LitmusTest t = parse_litmus(text, "c.litmus");
    const Expansion ex = expand(t, ExpandOptions{});
    REQUIRE(ex.skeletons.size() == 1);
    return enumerate::thread_classes(ex.skeletons[0], observables_of(t, ex, true)).groups;
  };
  using G = std::vector<std::vector<ThreadId>>;
  const std::vector<std::vector<std::string>> three_reads(3, {"ld.relaxed.gpu r0, x"});
  // Identical code, each thread in its own CTA: one class.
  CHECK(classes(litmus("a", "x=0;", own_ctas(3), three_reads, "x == 0")) == G{{0, 1, 2}});
  // P0 and P1 share a CTA, P2 does not: swapping P0 and P2 would change
  // which pairs share a CTA, so only P0 and P1 are interchangeable.
  CHECK(classes(litmus("b", "x=0;", {"cta 0,gpu 0", "cta 0,gpu 0", "cta 1,gpu 0"}, three_reads,
                       "x == 0")) == G{{0, 1}});
  // Different constants, different registers, a register's initial value:
  // not interchangeable.
  CHECK(classes(litmus("c", "x=0;", own_ctas(2), {{"st.relaxed.gpu x, 1"}, {"st.relaxed.gpu x, 2"}},
                       "x == 0"))
            .empty());
  CHECK(classes(litmus("d", "x=0;", own_ctas(2),
                       {{"ld.relaxed.gpu r0, x"}, {"ld.relaxed.gpu r1, x"}}, "x == 0"))
            .empty());
  CHECK(classes(litmus("e", "x=0; P1:r0=5;", own_ctas(2),
                       {{"ld.relaxed.gpu r1, x"}, {"ld.relaxed.gpu r1, x"}}, "x == 0"))
            .empty());
  // Different scopes of the same instruction: not interchangeable.
  CHECK(classes(litmus("f", "x=0;", own_ctas(2),
                       {{"ld.relaxed.gpu r0, x"}, {"ld.relaxed.cta r0, x"}}, "x == 0"))
            .empty());
}

}  // namespace unit_pruning
