// Verdict-only runs (EngineOptions::verdict_only, herd7's -speedcheck) of
// the z3 engine and the enumerator on tiny tests: a witness for exists, a
// proof of none, a forall violated and proved, ~exists both ways, and a
// filter.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "redscope/analysis/atomicity.hpp"
#include "redscope/engine/engine.hpp"
#include "redscope/engine/enumerate/enumerate.hpp"
#include "redscope/engine/z3/z3.hpp"
#include "redscope/frontend/frontend.hpp"

// This file's own names (the unit tests compile in batches).
namespace unit_verdict {

using namespace redscope;

namespace {

// Message passing; `fenced`: release/acquire at .gpu, which forbids the
// stale read of x after seeing the flag.
std::string mp(bool fenced, const std::string& condition) {
  const char* st = fenced ? "st.release.gpu" : "st.relaxed.gpu";
  const char* ld = fenced ? "ld.acquire.gpu" : "ld.relaxed.gpu";
  return "PTX MP\n{ x=0; y=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n"
         " st.relaxed.gpu x, 1 | " +
         std::string(ld) + " r0, y ;\n " + st + " y, 1 | ld.relaxed.gpu r1, x ;\n" + condition +
         "\n";
}

TestResult verdict(const std::string& text, EngineKind engine) {
  const LitmusTest t = parse_litmus(text, "mp.litmus");
  EngineOptions o;
  o.verdict_only = true;
  o.engine = engine;
  return engine == EngineKind::Z3 ? run_z3(t, o) : run_enum(t, o);
}

}  // namespace

TEST_CASE("verdict only: exists with a witness", "[verdict]") {
  for (EngineKind e : {EngineKind::Z3, EngineKind::Enum}) {
    const TestResult r = verdict(mp(false, "exists (P1:r0 == 1 /\\ P1:r1 == 0)"), e);
    CHECK(r.verdict_only);
    CHECK(r.outcomes.empty());
    CHECK(r.holds);
    CHECK(r.observation == Observation::Sometimes);
    CHECK(r.verdict_by == VerdictBy::Witness);
    REQUIRE(r.verdict_witness);
    CHECK(r.verdict_witness->satisfies);
    CHECK(r.verdict_witness->values == std::vector<std::uint64_t>{1, 0});
    CHECK_FALSE(r.verdict_witness->witness.rf.empty());
  }
}

TEST_CASE("verdict only: exists proved impossible", "[verdict]") {
  const std::string t = mp(true, "exists (P1:r0 == 1 /\\ P1:r1 == 0)");
  const TestResult z = verdict(t, EngineKind::Z3), e = verdict(t, EngineKind::Enum);
  for (const TestResult* r : {&z, &e}) {
    CHECK(r->verdict_only);
    CHECK_FALSE(r->holds);
    CHECK(r->observation == Observation::Never);
    CHECK_FALSE(r->verdict_witness);
  }
  CHECK(z.verdict_by == VerdictBy::SolverProof);
  CHECK(e.verdict_by == VerdictBy::Exhausted);
}

TEST_CASE("verdict only: forall violated, and proved", "[verdict]") {
  for (EngineKind e : {EngineKind::Z3, EngineKind::Enum}) {
    // Unfenced, the stale read is one outcome that violates the forall.
    const TestResult v = verdict(mp(false, "forall (P1:r0 == 0 \\/ P1:r1 == 1)"), e);
    CHECK_FALSE(v.holds);
    CHECK(v.observation == Observation::Sometimes);
    REQUIRE(v.verdict_witness);
    CHECK_FALSE(v.verdict_witness->satisfies);
    CHECK(v.verdict_witness->values == std::vector<std::uint64_t>{1, 0});
    // Fenced, nothing violates it: proved, and Always (herd7 -speedcheck).
    const TestResult p = verdict(mp(true, "forall (P1:r0 == 0 \\/ P1:r1 == 1)"), e);
    CHECK(p.holds);
    CHECK(p.observation == Observation::Always);
    CHECK_FALSE(p.verdict_witness);
  }
}

TEST_CASE("verdict only: ~exists both ways", "[verdict]") {
  for (EngineKind e : {EngineKind::Z3, EngineKind::Enum}) {
    const TestResult seen = verdict(mp(false, "~exists (P1:r0 == 1 /\\ P1:r1 == 0)"), e);
    CHECK_FALSE(seen.holds);
    CHECK(seen.observation == Observation::Sometimes);
    REQUIRE(seen.verdict_witness);
    CHECK(seen.verdict_witness->satisfies);
    const TestResult none = verdict(mp(true, "~exists (P1:r0 == 1 /\\ P1:r1 == 0)"), e);
    CHECK(none.holds);
    CHECK(none.observation == Observation::Never);
    CHECK_FALSE(none.verdict_witness);
  }
}

TEST_CASE("verdict only: the filter and the condition's other values", "[verdict]") {
  // A filter leaves only executions that saw the flag; the condition asks for
  // a stale x among them: forbidden when fenced.
  const std::string t = mp(true, "filter (P1:r0 == 1)\nexists (P1:r1 == 0)");
  for (EngineKind e : {EngineKind::Z3, EngineKind::Enum}) {
    const TestResult r = verdict(t, e);
    CHECK_FALSE(r.holds);
    CHECK(r.observation == Observation::Never);
  }
}

TEST_CASE("verdict only: atomicity's lost-update question", "[verdict]") {
  // Two atom.add of one scope: .gpu is mutually in scope (no lost update,
  // proved); .cta across two CTAs is not (a lost update, with its pair).
  auto text = [](const char* scope) {
    return fmt::format(
        "PTX atoms\n{{ global u32 x = 0; }}\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n"
        " atom.relaxed.{0}.global.add.u32 r0, [x], 1 | atom.relaxed.{0}.global.add.u32 r0, [x], 1 "
        ";\n"
        "exists (x == 1)\n",
        scope);
  };
  EngineOptions o;
  o.verdict_only = true;
  const AtomicityResult safe = check_atomicity(parse_litmus(text("gpu"), "a.litmus"), o);
  CHECK(safe.verdict_only);
  CHECK(safe.pairs.empty());
  CHECK(safe.verdict_by == VerdictBy::SolverProof);
  const AtomicityResult lost = check_atomicity(parse_litmus(text("cta"), "a.litmus"), o);
  CHECK(lost.verdict_by == VerdictBy::Witness);
  REQUIRE(lost.pairs.size() == 1);
  CHECK(lost.pairs[0].lost_update);
  CHECK_FALSE(lost.pairs[0].mutually_in_scope);
  CHECK_FALSE(lost.pairs[0].witness.rf.empty());
}

}  // namespace unit_verdict
