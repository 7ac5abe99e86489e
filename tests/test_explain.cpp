// Explanations: the minimal axiom set and the edges named for each breach,
// and the Graphviz picture of an execution.
#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>

#include "redscope/analysis/explain.hpp"
#include "redscope/analysis/outcome_executions.hpp"
#include "redscope/driver/engines.hpp"
#include "redscope/frontend/frontend.hpp"
#include "redscope/model/cat.hpp"
#include "redscope/model/primitives.hpp"
#include "redscope/report/dot.hpp"

// This file's own names (the unit tests compile in batches).
namespace unit_explain {

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

TEST_CASE("explain: ms in words is the model's own relation, proxies included", "[explain]") {
  // Two sureds in different CTAs of one GPU at red's default .gpu scope are
  // morally strong through one proxy (the surface's): the note says so
  // (issue 27, item 10; PTX §8.6 "Morally strong operations").
  const LitmusTest t = parse_litmus(
      "PTX t\n{ surface u32 sA[1] = {0}; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n"
      " sured.b.add.1d.u32.trap [sA, {0}], 1 | sured.b.add.1d.u32.trap [sA, {0}], 1 ;\n"
      "exists (sA[0] == 1)\n",
      "t.litmus");
  const Explanation e = explain(t, EngineOptions{}, ExplainRequest{});
  REQUIRE_FALSE(e.allowed);
  REQUIRE(std::count(e.axioms.begin(), e.axioms.end(), "Atomicity") == 1);
  for (const Breach& b : e.breaches) {
    INFO(b.why);
    CHECK(b.why.find("both through the surface proxy") != std::string::npos);
  }
}

TEST_CASE("ms_words names the clause of ms that decides a pair", "[explain]") {
  // A sured and a generic red.gpu on an alias of its memory, in scope of
  // each other: the proxy decides (not the scopes); a red.cta from another
  // CTA: the scope decides.
  const LitmusTest t = parse_litmus(
      "PTX t\n{ surface u32 sA[1] = {0}; g @ generic aliases sA; global u32 x = 0; }\n"
      " P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n"
      " sured.b.add.1d.u32.trap [sA, {0}], 1 | red.relaxed.gpu.global.add.u32 [g], 1 ;\n"
      " red.relaxed.cta.global.add.u32 [x], 1 | red.relaxed.gpu.global.add.u32 [x], 1 ;\n"
      "exists (sA[0] == 1)\n",
      "t.litmus");
  const Expansion ex = expand(t, ExpandOptions{});
  const Skeleton& sk = ex.skeletons.front();
  auto find = [&](int thread, const std::string& loc) {
    for (EventId e = 0; e < sk.size(); ++e)
      if (sk.ev(e).thread == thread && sk.ev(e).is_write() && sk.ev(e).loc == loc) return e;
    FAIL("no write of " << loc << " by P" << thread);
    return EventId{0};
  };
  const EventId s = find(0, "sA[0]"), g = find(1, "sA[0]");
  CHECK(cat::ms_clause(sk, s, g) == cat::MsClause::Proxy);
  CHECK_FALSE(cat::morally_strong(sk, s, g));
  CHECK(cat::ms_words(sk, s, g).find("the surface proxy and P1's through the generic proxy") !=
        std::string::npos);
  const EventId a = find(0, "x"), b = find(1, "x");
  CHECK(cat::ms_clause(sk, a, b) == cat::MsClause::Scope);
  CHECK(cat::ms_words(sk, a, b).find("P0's .cta scope does not contain P1") != std::string::npos);
  CHECK(cat::ms_clause(sk, a, find(0, "sA[0]")) == cat::MsClause::Proxy);
}

TEST_CASE("xval's forbidding axioms are explain's, filter included", "[explain]") {
  // MP with release/acquire and a filter keeping r0 == 1: r1 == 0 is then
  // forbidden (Causality). Without the filter some execution (r0 == 0)
  // gives r1 == 0, so a check that drops the filter names no axiom: one
  // service answers both (issue 27, item 11).
  const LitmusTest t = parse_litmus(
      "PTX t\n{ global u32 x = 0; global u32 y = 0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n"
      " st.relaxed.gpu.u32 [x], 1 | ld.acquire.gpu.u32 r0, [y] ;\n"
      " st.release.gpu.u32 [y], 1 | ld.relaxed.gpu.u32 r1, [x] ;\n"
      "filter (P1:r0 == 1)\nexists (P1:r1 == 0)\n",
      "t.litmus");
  const Explanation e = explain(t, EngineOptions{}, ExplainRequest{std::string("P1:r1=0")});
  REQUIRE_FALSE(e.allowed);
  REQUIRE_FALSE(e.axioms.empty());
  const Expansion ex = expand(t, ExpandOptions{});
  const TestResult r = run_engine(t, EngineOptions{});
  std::vector<Observable> obs;
  for (const Observable& o : r.observables)
    if (o.label == "P1:r1") obs.push_back(o);
  REQUIRE(obs.size() == 1);
  CHECK(forbidding_axioms(t, EngineOptions{}, obs, {0}) == e.axioms);
}

TEST_CASE("explain: a model that defines ms gets its morally-strong notes from the definition",
          "[explain]") {
  // models/ptx.cat with `let ms = ms & loc` before its first use: the note
  // on the rf step walks the definition (both operands of the intersection)
  // where the built-in model names the primitive's words alone.
  const std::string_view text = cat::builtin_ptx_model();
  // After ptx.cat's own ms, which it reads; later uses see it.
  const std::size_t title = text.find('\n', text.find("\nlet ms = ") + 1);
  EngineOptions o;
  o.user_model = std::make_shared<const cat::Model>(
      cat::parse_cat(std::string(text.substr(0, title)) + "\nlet ms = ms & loc\n" +
                         std::string(text.substr(title)),
                     "m.cat", cat::ptx_primitives()));
  o.model_file = "m.cat";
  const LitmusTest t = parse_litmus(
      "PTX t\n{ global u32 x = 0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.relaxed.gpu x, 1 | "
      "ld.relaxed.gpu r0, x ;\n | ld.relaxed.gpu r1, x ;\nexists (P1:r0 == 1 /\\ P1:r1 == 0)\n",
      "t.litmus");
  const std::string because =
      "P0's st.relaxed.gpu x, 1 and P1's ld.relaxed.gpu r0, x are morally strong because P0 "
      "(.gpu) and P1 (.gpu) are in different CTAs of one GPU, so each one's scope contains the "
      "other's thread";
  const Explanation builtin = explain(t, EngineOptions{}, ExplainRequest{});
  REQUIRE(builtin.breaches.size() == 1);
  CHECK(builtin.breaches[0].why.find(because + " (3 steps") != std::string::npos);
  const Explanation own = explain(t, o, ExplainRequest{});
  REQUIRE(own.breaches.size() == 1);
  CHECK(own.breaches[0].why.find(because +
                                 "; P0's st.relaxed.gpu x, 1 and P1's ld.relaxed.gpu r0, x "
                                 "access one location (x) (3 steps") != std::string::npos);
}

// Every execution of one outcome (analysis/outcome_executions.hpp), argued
// from the tests: two writes to x that nothing observes may be in coherence
// order either way, so the outcome {} has both executions; MP's r0=1, r1=1
// has one (both reads' sources are fixed, x's coherence order is init then
// P0's write); an outcome that no execution gives has none.
TEST_CASE("outcome executions: every execution of one outcome", "[explain]") {
  const LitmusTest ww = parse_litmus(
      "PTX WW\n{ global u32 x = 0; global u32 y = 0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n"
      " st.relaxed.gpu.global.u32 [x], 1 | st.relaxed.gpu.global.u32 [x], 2 ;\n"
      "exists (y == 0)\n",
      "ww.litmus");
  const OutcomeExecutions both = outcome_executions(ww, EngineOptions{}, {{"y", "0"}}, 100);
  CHECK(both.complete);
  REQUIRE(both.executions.size() == 2);
  CHECK(both.executions[0].witness.co.texts() != both.executions[1].witness.co.texts());
  const OutcomeExecutions one = outcome_executions(ww, EngineOptions{}, {{"y", "0"}}, 1);
  CHECK_FALSE(one.complete);
  CHECK(one.executions.size() == 1);
  const LitmusTest mp = parse_litmus(
      "PTX MP\n{ global u32 x = 0; global u32 y = 0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n"
      " st.relaxed.gpu.global.u32 [x], 1 | ld.relaxed.gpu.global.u32 r0, [y] ;\n"
      " st.relaxed.gpu.global.u32 [y], 1 | ld.relaxed.gpu.global.u32 r1, [x] ;\n"
      "exists (P1:r0 == 1 /\\ P1:r1 == 0)\n",
      "mp.litmus");
  CHECK(outcome_executions(mp, EngineOptions{}, {{"P1:r0", "1"}, {"P1:r1", "1"}}, 100)
            .executions.size() == 1);
  CHECK(outcome_executions(mp, EngineOptions{}, {{"P1:r0", "2"}}, 100).executions.empty());
  CHECK_THROWS_WITH(outcome_executions(mp, EngineOptions{}, {{"P9:r0", "1"}}, 100),
                    Catch::Contains("P9:r0, which the test does not observe"));
}

}  // namespace unit_explain
