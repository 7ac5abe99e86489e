// The Z3 engine's query interface for analyses (engine/z3/query.hpp):
// facts asserted, checks named by the model, witnesses and minimal cores,
// without the encoding.
#include <catch2/catch.hpp>

#include "redscope/engine/z3/query.hpp"
#include "redscope/frontend/frontend.hpp"
#include "redscope/model/primitives.hpp"

// This file's own names (the unit tests compile in batches).
namespace unit_query {

using namespace redscope;

namespace {

LitmusTest two_threads(const std::string& rows, const std::string& places) {
  return parse_litmus("PTX t\n{ global u32 x = 0; global u32 y = 0; }\n " + places + " ;\n" + rows +
                          "exists (x == 0)\n",
                      "t.litmus");
}

}  // namespace

TEST_CASE(
    "query: CoWW's final value 1 is forbidden; its minimal core and the execution "
    "without it",
    "[query]") {
  const LitmusTest t =
      two_threads(" st.relaxed.gpu x, 1 ;\n st.relaxed.gpu x, 2 ;\n", "P0@cta 0,gpu 0");
  EngineOptions opts;
  // In this process, and in a solver process (engine/z3/solver_process.hpp).
  opts.solver_process = GENERATE(false, true);
  const Expansion ex = expand(t, opts.expand);
  REQUIRE(ex.skeletons.size() == 1);
  const QueryModel model(t, opts);
  const std::vector<std::string> all = model.enabled_checks();
  CHECK(all == std::vector<std::string>{"Coherence", "Fence-SC", "Atomicity", "No-Thin-Air",
                                        "SC-per-Location", "Causality"});
  QuerySession session(nullptr);
  Query q(session, ex.skeletons[0], model, nullptr);
  const std::vector<Observable> obs = observables_of(t, ex, true);
  const auto x =
      std::find_if(obs.begin(), obs.end(), [](const Observable& o) { return o.label == "x"; });
  REQUIRE(x != obs.end());
  q.require_values({*x}, {1});
  q.require_normal_end();
  CHECK_FALSE(q.possible_under(all));
  CHECK_FALSE(q.possible(Barriers::MustPass));
  CHECK(q.possible_under({}));  // the values alone are reachable
  CHECK(q.minimal_core(all) == std::vector<std::string>{"Coherence", "SC-per-Location"});
  // Without SC-per-Location: the second store coherence-before the first.
  REQUIRE(q.possible_under({"Coherence", "Fence-SC", "Atomicity", "No-Thin-Air", "Causality"}));
  const Witness w = q.witness(0);
  REQUIRE(w.co.size() == 1);
  CHECK(w.co[0] == "P0#1 st.relaxed.gpu x, 2 -> P0#0 st.relaxed.gpu x, 1");
  const Skeleton& sk = ex.skeletons[0];
  std::vector<EventId> stores;
  for (EventId e = 0; e < sk.size(); ++e)
    if (!sk.ev(e).is_init && sk.ev(e).is_write()) stores.push_back(e);
  REQUIRE(stores.size() == 2);
  const ChosenExecution c = q.execution();
  CHECK(c.co.has(stores[1], stores[0]));
  CHECK(q.static_primitives().rel("po").has(stores[0], stores[1]));
}

TEST_CASE("query: facts scoped to one check; final values of its execution", "[query]") {
  // Two red.gpu in different CTAs of one GPU are morally strong: Atomicity
  // forbids both reading the initial write; at .cta scope it does not.
  for (const std::string scope : {"gpu", "cta"}) {
    const LitmusTest t =
        two_threads(" red.relaxed." + scope + ".global.add.u32 [x], 1 | red.relaxed." + scope +
                        ".global.add.u32 [x], 1 ;\n",
                    "P0@cta 0,gpu 0 | P1@cta 1,gpu 0");
    EngineOptions opts;
    opts.solver_process = GENERATE(false, true);
    const Expansion ex = expand(t, opts.expand);
    const Skeleton& sk = ex.skeletons[0];
    const QueryModel model(t, opts);
    QuerySession session(nullptr);
    Query q(session, sk, model, nullptr);
    q.encode_final_values();
    std::vector<EventId> reads;
    EventId init = 0;
    for (EventId e = 0; e < sk.size(); ++e) {
      if (sk.ev(e).is_init && sk.ev(e).loc == "x") init = e;
      if (sk.ev(e).in_rmw && sk.ev(e).is_read()) reads.push_back(e);
    }
    REQUIRE(reads.size() == 2);
    using F = ExecutionFact;
    const bool lost = q.possible_with({F::rf(init, reads[0]), F::rf(init, reads[1])});
    CHECK(lost == (scope == "cta"));
    if (lost)
      CHECK(q.final_values() ==
            std::vector<std::pair<std::string, std::uint64_t>>{{"x", 1}, {"y", 0}});
    CHECK(q.possible(Barriers::MustPass));  // the facts no longer hold
    if (scope == "gpu")
      CHECK(q.final_values() ==
            std::vector<std::pair<std::string, std::uint64_t>>{{"x", 2}, {"y", 0}});
    CHECK(witness_label(sk, init) == "init x");
  }
}

}  // namespace unit_query
