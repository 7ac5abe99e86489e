// The static value analysis (value_sets.hpp) that bounds what each read and
// write can carry. Its soundness on whole tests is checked by the engine
// comparison (test_engines.cpp): the Z3 engine asserts these sets, the
// reference enumerator does not, and their outcome sets must agree.
#include <algorithm>

#include <catch2/catch.hpp>

#include "redscope/events/events.hpp"
#include "redscope/events/value_sets.hpp"
#include "redscope/frontend/frontend.hpp"

// This file's own names (the unit tests compile in batches).
namespace unit_value_sets {

using namespace redscope;

namespace {

Skeleton only_skeleton(const std::string& text) {
  const LitmusTest t = parse_litmus(text, "t.litmus");
  Expansion ex = expand(t, ExpandOptions{});
  REQUIRE(ex.skeletons.size() == 1);
  return std::move(ex.skeletons[0]);
}

bool contains(const std::optional<std::vector<std::uint64_t>>& s, std::uint64_t v) {
  return s && std::find(s->begin(), s->end(), v) != s->end();
}

}  // namespace

TEST_CASE("constant stores: a read takes the initial value or a stored one, nothing else",
          "[value_sets]") {
  const Skeleton sk = only_skeleton(
      "PTX t\n{ x=0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n st.relaxed.gpu x, 1 | ld.relaxed.gpu "
      "r0, x ;\n"
      " st.relaxed.gpu x, 7 | ;\nexists (P1:r0 == 1)\n");
  const ValueSets v = value_sets(sk);
  const EventId load = sk.thread_base[1];
  REQUIRE(v[load]);
  CHECK(*v[load] == std::vector<std::uint64_t>{0, 1, 7});
  CHECK(*v[sk.thread_base[0]] == std::vector<std::uint64_t>{1});
}

TEST_CASE("reductions: every value of a chain of increments, and a finite set", "[value_sets]") {
  // Three red.add 1: along rf the reads see 0, 1, 2 and the writes 1, 2, 3
  // (PTX: each red is read-modify-write). The set may be larger (the
  // analysis ignores coherence), but it is known and contains all of them.
  const Skeleton sk = only_skeleton(
      "PTX t\n{ global u32 x = 0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 | P2@cta 2,gpu 0 ;\n"
      " red.relaxed.gpu.global.add.u32 [x], 1 | red.relaxed.cta.global.add.u32 [x], 1 | "
      "red.relaxed.gpu.global.add.u32 [x], 1 ;\n"
      "exists (x == 3)\n");
  const ValueSets v = value_sets(sk);
  for (int t = 0; t < 3; ++t) {
    const EventId r = sk.thread_base[static_cast<std::size_t>(t)], w = r + 1;
    REQUIRE(sk.ev(r).is_read());
    for (std::uint64_t x : {0, 1, 2}) CHECK(contains(v[r], x));
    for (std::uint64_t x : {1, 2, 3}) CHECK(contains(v[w], x));
    CHECK_FALSE(contains(v[w], 0));  // an add of 1 to a value in 0..n never gives 0
  }
}

TEST_CASE("a cyclic max reaches a fixpoint instead of growing", "[value_sets]") {
  // max(r, 5) over reads of {0, 5}: the fixpoint is {0, 5} for reads, {5} for writes.
  const Skeleton sk = only_skeleton(
      "PTX t\n{ global u32 x = 0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n"
      " atom.relaxed.gpu.global.max.u32 r0, [x], 5 | atom.relaxed.gpu.global.max.u32 r0, [x], 5 ;\n"
      "exists (P0:r0 == 5)\n");
  const ValueSets v = value_sets(sk);
  CHECK(*v[sk.thread_base[0]] == std::vector<std::uint64_t>{0, 5});
  CHECK(*v[sk.thread_base[0] + 1] == std::vector<std::uint64_t>{5});
}

TEST_CASE("beyond the cap a set is unknown, and so is everything computed from it",
          "[value_sets]") {
  // Seven threads add distinct powers of two: each read sees 64 subset sums,
  // over a cap of 32.
  std::string place, code;
  for (int t = 0; t < 7; ++t) {
    place += (t ? " | " : " ") + std::string("P") + std::to_string(t) + "@cta " +
             std::to_string(t) + ",gpu 0";
    code += (t ? " | " : " ") + std::string("red.relaxed.gpu.global.add.u32 [x], ") +
            std::to_string(1 << t);
  }
  const Skeleton sk = only_skeleton("PTX t\n{ global u32 x = 0; }\n" + place + " ;\n" + code +
                                    " ;\nexists (x == 127)\n");
  const ValueSets v = value_sets(sk, ValueSetLimits{32, 4096, 8192});
  CHECK_FALSE(v[sk.thread_base[0]]);
  CHECK_FALSE(v[sk.thread_base[6] + 1]);
  CHECK(*v[sk.init_write.at("x")] == std::vector<std::uint64_t>{0});
  // Under the default cap (256) the set is known: exactly the subset sums
  // that include the writer's own 64 (a chain uses each reduction once).
  const ValueSets wide = value_sets(sk);
  REQUIRE(wide[sk.thread_base[6] + 1]);
  std::vector<std::uint64_t> sums;
  for (std::uint64_t sum = 64; sum < 128; ++sum) sums.push_back(sum);
  CHECK(*wide[sk.thread_base[6] + 1] == sums);
}

TEST_CASE("provenance: a chain of reductions uses each one once", "[value_sets]") {
  // Two atom.add 1 on x = 0: the reads see 0 or 1, the writes write 1 or 2;
  // without provenance the rounds would let a red add on top of its own
  // result (3, 4, ...) up to the number of events.
  const Skeleton sk = only_skeleton(
      "PTX t\n{ global u32 x = 0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n"
      " atom.relaxed.gpu.global.add.u32 r0, [x], 1 | atom.relaxed.gpu.global.add.u32 r0, [x], 1 ;\n"
      "exists (x == 2)\n");
  const ValueSets v = value_sets(sk);
  for (int t = 0; t < 2; ++t) {
    CHECK(*v[sk.thread_base[static_cast<std::size_t>(t)]] == std::vector<std::uint64_t>{0, 1});
    CHECK(*v[sk.thread_base[static_cast<std::size_t>(t)] + 1] == std::vector<std::uint64_t>{1, 2});
  }
  // A state cap too small for the pairs falls back to the plain rounds, whose
  // sets are larger but still known.
  const ValueSets coarse = value_sets(sk, ValueSetLimits{256, 4096, 1});
  REQUIRE(coarse[sk.thread_base[0]]);
  CHECK(coarse[sk.thread_base[0]]->size() > 2);
  // So does a work budget too small for the whole analysis.
  const ValueSets budget = value_sets(sk, ValueSetLimits{256, 4096, 8192, 3});
  REQUIRE(budget[sk.thread_base[0]]);
  CHECK(*budget[sk.thread_base[0]] == *coarse[sk.thread_base[0]]);
}

TEST_CASE("fences and barriers carry no value set", "[value_sets]") {
  const Skeleton sk = only_skeleton(
      "PTX t\n{ x=0; }\n P0@cta 0,gpu 0 ;\n fence.sc.gpu ;\n st.relaxed.gpu x, 1 ;\nexists (x == "
      "1)\n");
  const ValueSets v = value_sets(sk);
  CHECK_FALSE(v[sk.thread_base[0]]);
  CHECK(v[sk.thread_base[0] + 1]);
}

}  // namespace unit_value_sets
