// Each axiom on a tiny test in which it alone forbids an outcome: the outcome
// is absent under the full model and present once that axiom is left out.
// Every check runs on the z3 engine and on the enumerator (models/ptx.cat);
// both must honour EngineOptions::disabled_checks.
#include <catch2/catch.hpp>

#include "redscope/engine/engine.hpp"
#include "redscope/engine/enumerate/enumerate.hpp"
#include "redscope/engine/z3/z3.hpp"
#include "redscope/frontend/frontend.hpp"

// This file's own names (the unit tests compile in batches).
namespace unit_axioms {

using namespace redscope;

namespace {

// Whether some allowed execution satisfies the `exists` condition of `text`,
// on both engines (which must agree).
// `z3_only`: the enumerator computes values from rf and drops candidates whose
// values depend on themselves, so it cannot produce out-of-thin-air values
// even with No-Thin-Air left out (its model check does leave the axiom out).
bool reachable(const std::string& text, std::vector<std::string> disabled = {},
               bool z3_only = false) {
  const LitmusTest t = parse_litmus(text, "axiom.litmus");
  EngineOptions o;
  o.disabled_checks = std::move(disabled);
  const bool z3 = run_z3(t, o).holds;
  if (z3_only) return z3;
  o.engine = EngineKind::Enum;
  const bool en = run_enum(t, o).holds;
  INFO("z3: " << z3 << ", enum: " << en);
  CHECK(z3 == en);
  return z3;
}

void only_forbidden_by(const std::string& a, const std::string& text,
                       bool z3_only_when_disabled = false) {
  INFO(a);
  CHECK_FALSE(reachable(text));
  CHECK(reachable(text, {a}, z3_only_when_disabled));
}

}  // namespace

TEST_CASE("Coherence: writes ordered by causality are ordered by co", "[axioms]") {
  // P0's weak write x=1 precedes P1's x=2 in causality (release/acquire on y),
  // so x=1 cannot be co-last. Nothing reads x, so only Coherence speaks.
  only_forbidden_by("Coherence", R"(PTX coh
{ x=0; y=0; }
 P0@cta 0,gpu 0      | P1@cta 1,gpu 0       ;
 st.weak x, 1        | ld.acquire.gpu r0, y ;
 st.release.gpu y, 1 | st.weak x, 2         ;
exists (P1:r0 == 1 /\ x == 1))");
}

TEST_CASE("Atomicity: two morally strong RMWs cannot both read the initial value", "[axioms]") {
  only_forbidden_by("Atomicity", R"(PTX atom
{ x=0; }
 P0@cta 0,gpu 0                | P1@cta 1,gpu 0                ;
 atom.relaxed.gpu.add r0, x, 1 | atom.relaxed.gpu.add r0, x, 1 ;
exists (x == 1))");
}

TEST_CASE("No-Thin-Air: rf ∪ dependencies is acyclic", "[axioms]") {
  only_forbidden_by("No-Thin-Air", R"(PTX nta
{ x=0; y=0; }
 P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;
 ld.weak r0, x  | ld.weak r1, y  ;
 st.weak y, r0  | st.weak x, r1  ;
filter (P0:r0 == 42)
exists (P0:r0 == 42 /\ P1:r1 == 42))",
                    true);
  // Control dependencies only (constant values): both engines leave it out.
  only_forbidden_by("No-Thin-Air", R"(PTX lbctrl
{ x=0; y=0; }
 P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;
 ld.weak r0, x  | ld.weak r1, y  ;
 bne r0, 1, L0  | bne r1, 1, L1  ;
 st.weak y, 1   | st.weak x, 1   ;
 L0:            | L1:            ;
exists (P0:r0 == 1 /\ P1:r1 == 1))");
}

TEST_CASE("SC-per-Location: a thread does not read past its own write", "[axioms]") {
  // po-loc(W, R) and fr(R, W) (same thread, hence morally strong) form a cycle;
  // no synchronisation is involved, so Causality has nothing to say.
  only_forbidden_by("SC-per-Location", R"(PTX spl
{ x=0; }
 P0@cta 0,gpu 0 ;
 st.weak x, 1   ;
 ld.weak r0, x  ;
exists (P0:r0 == 0))");
}

TEST_CASE("Causality: release/acquire at a common scope orders message passing", "[axioms]") {
  only_forbidden_by("Causality", R"(PTX mp
{ x=0; y=0; }
 P0@cta 0,gpu 0      | P1@cta 1,gpu 0       ;
 st.weak x, 1        | ld.acquire.gpu r0, y ;
 st.release.gpu y, 1 | ld.weak r1, x        ;
exists (P1:r0 == 1 /\ P1:r1 == 0))");
}

TEST_CASE("Fence-SC order: morally strong fence.sc pairs synchronize one way or the other",
          "[axioms]") {
  // SB with fence.sc: whichever way the two fences are ordered, one store
  // precedes the other thread's load in causality. With fence.acq_rel there is
  // no Fence-SC order and SB is allowed; with .cta fences in two CTAs the
  // fences are not morally strong and SB is allowed too.
  const std::string sb = R"(PTX sb
{ x=0; y=0; }
 P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;
 st.weak x, 1   | st.weak y, 1   ;
 FENCE          | FENCE          ;
 ld.weak r0, y  | ld.weak r1, x  ;
exists (P0:r0 == 0 /\ P1:r1 == 0))";
  auto with = [&](const std::string& f) {
    std::string s = sb;
    for (std::size_t p; (p = s.find("FENCE")) != std::string::npos;) s.replace(p, 5, f);
    return s;
  };
  CHECK_FALSE(reachable(with("fence.sc.gpu")));
  CHECK(reachable(with("fence.acq_rel.gpu")));
  CHECK(reachable(with("fence.sc.cta")));
}

TEST_CASE("weak CoRR is a data race, relaxed CoRR is coherent", "[axioms]") {
  const std::string corr = R"(PTX corr
{ x=0; }
 P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;
 st.SEM x, 1    | ld.SEM r0, x   ;
                | ld.SEM r1, x   ;
exists (P1:r0 == 1 /\ P1:r1 == 0))";
  auto with = [&](const std::string& sem) {
    std::string s = corr;
    for (std::size_t p; (p = s.find("SEM")) != std::string::npos;) s.replace(p, 3, sem);
    return s;
  };
  CHECK(reachable(with("weak")));
  CHECK_FALSE(reachable(with("relaxed.gpu")));
}

// The engines fix co between a thread's own writes to program order while
// Coherence and SC-per-Location both hold (PtxEncoding::pin_po_loc_co); with
// either left out, co is a choice again and each axiom alone forbids CoWW.
TEST_CASE("CoWW: program order fixes co only under Coherence and SC-per-Location", "[axioms]") {
  const std::string coww = R"(PTX coww
{ x=0; }
 P0@cta 0,gpu 0 ;
 st.weak x, 1   ;
 st.weak x, 2   ;
exists (x == 1))";
  CHECK_FALSE(reachable(coww));
  // Without Coherence the two writes may stay unordered (both co-maximal).
  CHECK(reachable(coww, {"Coherence"}));
  // Without SC-per-Location co may run against program order.
  CHECK(reachable(coww, {"SC-per-Location"}));
  CHECK(reachable(coww, {"Coherence", "SC-per-Location"}));
}

// The enumerator once ignored disabled_axioms: with Atomicity left out, two
// atom.add may both read 0, so x ends 1 or 2 on both engines.
TEST_CASE("both engines count outcomes alike with Atomicity left out", "[axioms]") {
  const LitmusTest t = parse_litmus(R"(PTX atom2
{ x=0; }
 P0@cta 0,gpu 0                | P1@cta 1,gpu 0                ;
 atom.relaxed.gpu.add r0, x, 1 | atom.relaxed.gpu.add r1, x, 1 ;
exists (x == 1))",
                                    "atom2.litmus");
  EngineOptions o;
  o.disabled_checks = {"Atomicity"};
  const std::size_t z3 = run_z3(t, o).outcomes.size();
  o.engine = EngineKind::Enum;
  CHECK(run_enum(t, o).outcomes.size() == z3);
  CHECK(z3 == 2);
}

}  // namespace unit_axioms
