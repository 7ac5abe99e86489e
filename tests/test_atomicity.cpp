// `redscope atomicity` asks the model: whether a pair is morally strong is
// the model's `ms` (a primitive or the model's own definition), and why a
// morally strong pair may lose an update is read off the model's atomicity
// check, so another model gives other answers in its own terms.
#include <catch2/catch.hpp>

#include <filesystem>
#include <memory>

#include "analysis/execution_search.hpp"
#include "redscope/analysis/atomicity.hpp"
#include "redscope/frontend/frontend.hpp"
#include "redscope/model/cat.hpp"
#include "redscope/registry/registry.hpp"

// This file's own names (the unit tests compile in batches).
namespace unit_atomicity {

using namespace redscope;

namespace {

// Two red.SCOPE.global.add [x], 1, in CTAs 0 and `cta` of one GPU.
LitmusTest reds(const std::string& scope, int cta = 1) {
  return parse_litmus("PTX t\n{ global u32 x = 0; }\n P0@cta 0,gpu 0 | P1@cta " +
                          std::to_string(cta) + ",gpu 0 ;\n red." + scope +
                          ".global.add.u32 [x], 1 | red." + scope +
                          ".global.add.u32 [x], 1 ;\nexists (x == 1)\n",
                      "t.litmus");
}

// models/ptx.cat with `ms` redefined before its first use.
EngineOptions with_ms(const std::string& definition) {
  // After ptx.cat's own ms, which the definition may read; later uses see it.
  const std::string_view text = cat::builtin_ptx_model();
  const std::size_t at = text.find('\n', text.find("\nlet ms = ") + 1);
  const std::string model = std::string(text.substr(0, at)) + "\nlet ms = " + definition + "\n" +
                            std::string(text.substr(at));
  EngineOptions o;
  o.user_model =
      std::make_shared<const cat::Model>(cat::parse_cat(model, "m.cat", cat::ptx_primitives()));
  o.model_file = "m.cat";
  return o;
}

}  // namespace

TEST_CASE("atomicity: the built-in model's ms decides, in its own words", "[atomicity]") {
  const AtomicityResult r = check_atomicity(reds("gpu"), EngineOptions{});
  REQUIRE(r.pairs.size() == 1);
  CHECK(r.pairs[0].mutually_in_scope);
  CHECK(r.pairs[0].scope_reason ==
        "P0 (.gpu) and P1 (.gpu) are in different CTAs of one GPU, so each one's scope contains "
        "the other's thread");
  CHECK_FALSE(r.pairs[0].lost_update);
}

TEST_CASE(
    "atomicity: a model that defines ms otherwise gets other answers, derived from its "
    "definition",
    "[atomicity]") {
  // Only one thread's operations are morally strong here: the two red.gpu
  // may lose an update, and the reason walks `ms \ ext` down to the
  // primitives.
  const AtomicityResult r = check_atomicity(reds("gpu"), with_ms("ms \\ ext"));
  REQUIRE(r.pairs.size() == 1);
  const AtomicityPair& p = r.pairs[0];
  CHECK_FALSE(p.mutually_in_scope);
  CHECK(p.scope_reason ==
        "P0 (.gpu) and P1 (.gpu) are in different CTAs of one GPU, so each one's scope contains "
        "the other's thread; P0's red.gpu.global.add.u32 [x], 1 (its read) and P1's "
        "red.gpu.global.add.u32 [x], 1 (its read) are in different threads");
  CHECK(p.lost_update);
  CHECK(p.how == "both RMWs read init x");
  CHECK(p.lost_update_reason == "not morally strong: " + p.scope_reason);
  // A definition that holds: the branch of the union that does.
  const AtomicityResult all = check_atomicity(reds("cta"), with_ms("ms | ext"));
  REQUIRE(all.pairs.size() == 1);
  CHECK(all.pairs[0].mutually_in_scope);
  CHECK(all.pairs[0].scope_reason ==
        "P0's red.cta.global.add.u32 [x], 1 (its read) and P1's red.cta.global.add.u32 [x], 1 "
        "(its read) are in different threads");
  CHECK_FALSE(all.pairs[0].lost_update);
}

TEST_CASE(
    "atomicity: ms defined without the primitive: the definition's words, down to the "
    "primitives",
    "[atomicity]") {
  // A cruder ms (two events of one thread, or strong in one CTA, at one
  // address; an event with itself is not ms, or Coherence would want it
  // co-before itself): the
  // red.gpu of two CTAs are not in it, and lose an update; in one CTA they
  // are, and do not.
  const EngineOptions o = with_ms("((int | ((STRONG * STRONG) & scta)) & vloc) \\ id");
  const AtomicityResult apart = check_atomicity(reds("gpu"), o);
  REQUIRE(apart.pairs.size() == 1);
  const std::string a = "P0's red.gpu.global.add.u32 [x], 1 (its read)";
  const std::string b = "P1's red.gpu.global.add.u32 [x], 1 (its read)";
  CHECK_FALSE(apart.pairs[0].mutually_in_scope);
  CHECK(apart.pairs[0].scope_reason ==
        a + " and " + b + " are not in one thread; " + a + " and " + b + " are not in one CTA");
  CHECK(apart.pairs[0].lost_update);
  const AtomicityResult together = check_atomicity(reds("gpu", 0), o);
  REQUIRE(together.pairs.size() == 1);
  CHECK(together.pairs[0].mutually_in_scope);
  CHECK(together.pairs[0].scope_reason ==
        a + " is in STRONG and " + b + " in STRONG; " + a + " and " + b + " are in one CTA; " + a +
            " and " + b + " use one virtual address (x); " + a + " and " + b + " are not in id");
  CHECK_FALSE(together.pairs[0].lost_update);
}

TEST_CASE("atomicity: the sm6x variant's exemption, read off the model's Atomicity",
          "[atomicity]") {
  const LitmusTest t = parse_litmus(
      "PTX t\nTarget=sm_60\n{ shared u32 x = 0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n "
      "red.shared.add.u32 [x], 1 | st.volatile.shared.u32 [x], 5 ;\nexists (x == 1)\n",
      "t.litmus");
  const AtomicityResult r = check_atomicity(t, EngineOptions{});
  REQUIRE(r.pairs.size() == 1);
  CHECK(r.pairs[0].mutually_in_scope);
  REQUIRE(r.pairs[0].lost_update);
  CHECK(r.pairs[0].lost_update_reason ==
        "variant \"sm6x\" of the model: Atomicity's between is (msfr ; [RMW] ; msco) | (msfr ; "
        "msco ; [_ \\ SHARED]), which leaves this pair out: P1's st.volatile.shared.u32 [x], 5 "
        "is not in RMW; P0's red.shared.add.u32 [x], 1 (its write) is in SHARED");
  // On sm_70 the variant is off and Atomicity forbids the lost store.
  EngineOptions sm70;
  sm70.model = builtin_model_named("ptx");
  CHECK_FALSE(check_atomicity(t, sm70).pairs[0].lost_update);
}

// The enumerator's ExecutionSearch answers a skeleton's first question by a
// search that stops at the first execution meeting it, and the later ones
// from the executions one search of the test kept, in the same order: each
// answer and chosen execution must be what a fresh search gives. Ticketlock
// has 16 paths (skeletons), so the cache's paths must match the caller's.
TEST_CASE("execution search: kept executions answer as a fresh search", "[atomicity]") {
  const std::string file = std::string(REDSCOPE_SHARED_DIR) +
                           "/conformance/dat3m-ptx/Manual/Ticketlock-acq2rlx-2.litmus";
  if (!std::filesystem::exists(file)) return;  // ../shared is absent
  const LitmusTest t = parse_litmus_file(file);
  EngineOptions opts;
  opts.engine = EngineKind::Enum;
  const QueryModel model(t, opts);
  const Expansion ex = expand(t, opts.expand);
  REQUIRE(ex.skeletons.size() == 16);
  const auto kept = make_execution_searches(t, model, opts);
  std::size_t asked = 0, yes = 0;
  for (std::size_t k = 0; k < ex.skeletons.size();
       k += 5) {  // 4 of the 16: each fresh search is the whole test's
    const Skeleton& sk = ex.skeletons[k];
    const auto search = kept->of(sk);
    // Eight rf pairs of the skeleton as questions, then four of two at a time.
    std::vector<std::vector<ExecutionFact>> questions;
    for (EventId w = 0; w < sk.size(); ++w)
      for (EventId r = 0; r < sk.size(); ++r)
        if (sk.ev(w).is_write() && sk.ev(r).is_read() && sk.ev(w).loc == sk.ev(r).loc)
          questions.push_back({ExecutionFact::rf(w, r)});
    if (questions.size() > 8) questions.resize(8);
    for (std::size_t i = 0; i + 1 < 8 && i + 1 < questions.size(); i += 2)
      questions.push_back({questions[i][0], questions[i + 1][0]});
    for (const auto& q : questions) {
      const auto searches = make_execution_searches(t, model, opts);  // outlives its search
      const auto fresh = searches->of(sk);
      const bool a = search->possible_with(q), b = fresh->possible_with(q);
      CHECK(a == b);
      if (a && b) {
        CHECK(search->execution().rf == fresh->execution().rf);
        CHECK(search->execution().co == fresh->execution().co);
      }
      ++asked;
      yes += a ? 1 : 0;
    }
  }
  CHECK(yes > 0);
  CHECK(yes < asked);
}

}  // namespace unit_atomicity
