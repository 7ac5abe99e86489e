// Explanations: the minimal axiom set and the edges named for each breach,
// and the Graphviz picture of an execution.
#include <catch2/catch.hpp>

#include <algorithm>

#include "redscope/analysis/explain.hpp"
#include "redscope/frontend/frontend.hpp"
#include "redscope/report/dot.hpp"

using namespace redscope;

namespace {

Explanation explain_text(const std::string& rows, const std::string& places,
                         const std::string& outcome) {
  const LitmusTest t = parse_litmus("PTX t\n{ global u32 x = 0; global u32 y = 0; }\n " + places +
                                        " ;\n" + rows + "exists (x == 0)\n",
                                    "t.litmus");
  return explain(t, EngineOptions{}, ExplainRequest{outcome});
}

bool has_edge(const Breach& b, const std::string& kind) {
  return std::any_of(b.edges.begin(), b.edges.end(),
                     [&](const ExecEdge& e) { return e.kind == kind; });
}

}  // namespace

TEST_CASE("explain: CoWW needs Coherence and SC-per-Location, each with its edges", "[explain]") {
  // x ends 1 if the second store is coherence-before the first (po-loc and
  // co, morally strong in one thread, form a cycle: SC-per-Location), or if
  // the two stay unordered so that both are co-maximal (the partial co allows
  // that only without Coherence, which orders morally strong writes). So the
  // minimal set has both; Causality has no rf/fr to use.
  const Explanation e =
      explain_text(" st.relaxed.gpu x, 1 ;\n st.relaxed.gpu x, 2 ;\n", "P0@cta 0,gpu 0", "x=1");
  REQUIRE_FALSE(e.allowed);
  REQUIRE(e.axioms == std::vector<std::string>{"Coherence", "SC-per-Location"});
  REQUIRE(e.breaches.size() == 2);
  // The pair in coherence_bad: morally strong writes, in neither co direction.
  CHECK(has_edge(e.breaches[0], "ms"));
  CHECK(e.breaches[0].why.find("are not in co | co^-1") != std::string::npos);
  CHECK(has_edge(e.breaches[1], "po-loc"));
  CHECK(has_edge(e.breaches[1], "co"));
  CHECK(e.breaches[1].why.rfind("SC-per-Location: a cycle", 0) == 0);
}

TEST_CASE("explain: CoRR at .gpu: one axiom suffices, and it is named with its chain",
          "[explain]") {
  // P1 reads the new value, then the old one. Causality (observation ;
  // po-loc, then fr back) and SC-per-Location each forbid it alone; the
  // minimal set keeps one of them.
  const Explanation e =
      explain_text(" st.relaxed.gpu x, 1 | ld.relaxed.gpu r0, x ;\n | ld.relaxed.gpu r1, x ;\n",
                   "P0@cta 0,gpu 0 | P1@cta 1,gpu 0", "P1:r0=1; P1:r1=0");
  REQUIRE_FALSE(e.allowed);
  REQUIRE(e.axioms.size() == 1);
  REQUIRE(e.breaches.size() == 1);
  CHECK(has_edge(e.breaches[0], "fr"));
}

TEST_CASE("explain: the same CoRR across GPUs at .gpu scope is allowed, with a witness",
          "[explain]") {
  const Explanation e =
      explain_text(" st.relaxed.gpu x, 1 | ld.relaxed.gpu r0, x ;\n | ld.relaxed.gpu r1, x ;\n",
                   "P0@cta 0,gpu 0 | P1@cta 0,gpu 1", "P1:r0=1; P1:r1=0");
  REQUIRE(e.allowed);
  CHECK(e.witness.rf.size() == 2);
}

TEST_CASE("explain: two red.gpu losing an update need Atomicity broken", "[explain]") {
  const Explanation e = explain_text(
      " red.relaxed.gpu.global.add.u32 [x], 1 | red.relaxed.gpu.global.add.u32 [x], 1 ;\n",
      "P0@cta 0,gpu 0 | P1@cta 1,gpu 0", "x=1");
  REQUIRE_FALSE(e.allowed);
  CHECK(std::count(e.axioms.begin(), e.axioms.end(), "Atomicity") == 1);
  const auto b = std::find_if(e.breaches.begin(), e.breaches.end(),
                              [](const Breach& x) { return x.axiom == "Atomicity"; });
  REQUIRE(b != e.breaches.end());
  CHECK(has_edge(*b, "fr"));
  CHECK(has_edge(*b, "co"));
  CHECK(has_edge(*b, "rmw"));
  CHECK(b->why.find("morally strong because") != std::string::npos);
}

TEST_CASE("explain: an unknown register is rejected", "[explain]") {
  CHECK_THROWS_AS(explain_text(" st.relaxed.gpu x, 1 ;\n", "P0@cta 0,gpu 0", "P3:r0=1"),
                  std::invalid_argument);
  CHECK_THROWS_AS(explain_text(" st.relaxed.gpu x, 1 ;\n", "P0@cta 0,gpu 0", "x"),
                  std::invalid_argument);
}

TEST_CASE("dot: a witness groups events per CTA and thread and styles the relations",
          "[explain][dot]") {
  const Explanation e = explain_text(" st.relaxed.gpu x, 1 | ld.relaxed.gpu r0, x ;\n",
                                     "P0@cta 0,gpu 0 | P1@cta 1,gpu 0", "P1:r0=1");
  REQUIRE(e.allowed);
  const std::string dot = witness_dot(e.expansion->skeletons[e.witness.skeleton], e.witness, "t");
  CHECK(dot.rfind("digraph G {", 0) == 0);
  CHECK(dot.find("subgraph cluster_gpu0_cta1") != std::string::npos);
  CHECK(dot.find("subgraph cluster_P1") != std::string::npos);
  CHECK(dot.find("label=rf") != std::string::npos);
  CHECK(dot.find("reads x=1") != std::string::npos);
  CHECK(file_stem("MP+a/b c") == "MP+a_b_c");
}
