// The operational machine's mechanisms, one at a time: split RMWs that wait
// only for operations they meet in the scope tree, the sm_6x store rule,
// barriers that wait for their quorum, and interleaving order.
#include <catch2/catch.hpp>

#include "redscope/engine.hpp"
#include "redscope/frontend.hpp"

using namespace redscope;

namespace {

bool reaches(const std::string& head, const std::string& places, const std::string& rows, const std::string& cond) {
  const LitmusTest t = parse_litmus("PTX t\n" + head + "{ global u32 x = 0; global u32 y = 0; }\n " + places + " ;\n" + rows + "exists (" + cond + ")\n", "t.litmus");
  return run_op(t, EngineOptions{}).holds;
}

const std::string k2Cta = "P0@cta 0,gpu 0 | P1@cta 1,gpu 0";

}  // namespace

TEST_CASE("op: RMWs wait only for RMWs they meet in the scope tree", "[op]") {
  CHECK(reaches("", k2Cta, " red.cta.global.add.u32 [x], 1 | red.cta.global.add.u32 [x], 1 ;\n", "x == 1"));
  CHECK_FALSE(reaches("", k2Cta, " red.gpu.global.add.u32 [x], 1 | red.gpu.global.add.u32 [x], 1 ;\n", "x == 1"));
  CHECK(reaches("", "P0@cta 0,gpu 0 | P1@cta 0,gpu 1", " red.gpu.global.add.u32 [x], 1 | red.gpu.global.add.u32 [x], 1 ;\n", "x == 1"));
  CHECK_FALSE(reaches("", "P0@cta 0,gpu 0 | P1@cta 0,gpu 1", " red.sys.global.add.u32 [x], 1 | red.sys.global.add.u32 [x], 1 ;\n", "x == 1"));
  CHECK(reaches("", k2Cta, " red.cta.global.add.u32 [x], 1 | red.gpu.global.add.u32 [x], 1 ;\n", "x == 1"));
}

TEST_CASE("op: on sm_6x plain stores do not wait for a shared RMW", "[op]") {
  const std::string places = "P0@cta 0,gpu 0 | P1@cta 0,gpu 0";
  const std::string rows = " red.shared.add.u32 [z], 1 | st.volatile.shared.u32 [z], 5 ;\n";
  auto lost = [&](const std::string& target) {
    const LitmusTest t = parse_litmus("PTX t\nTarget=" + target + "\n{ shared u32 z = 0; }\n " + places + " ;\n" + rows + "exists (z == 1)\n", "t.litmus");
    return run_op(t, EngineOptions{}).holds;
  };
  CHECK(lost("sm_60"));
  CHECK_FALSE(lost("sm_70"));
}

TEST_CASE("op: a barrier waits for every member; steps interleave in program order", "[op]") {
  // SB with a CTA barrier between the store and the load: both stores happen
  // before either load, so both loads cannot read 0.
  CHECK_FALSE(reaches("", "P0@cta 0,gpu 0 | P1@cta 0,gpu 0",
                      " st.weak x, 1 | st.weak y, 1 ;\n bar.cta.sync 0 | bar.cta.sync 0 ;\n ld.weak r0, y | ld.weak r1, x ;\n",
                      "P0:r0 == 0 /\\ P1:r1 == 0"));
  // Without it the machine still runs each thread in order (it is stronger
  // than the model, which allows this outcome).
  CHECK_FALSE(reaches("", "P0@cta 0,gpu 0 | P1@cta 0,gpu 0", " st.weak x, 1 | st.weak y, 1 ;\n ld.weak r0, y | ld.weak r1, x ;\n",
                      "P0:r0 == 0 /\\ P1:r1 == 0"));
  CHECK(reaches("", "P0@cta 0,gpu 0 | P1@cta 0,gpu 0", " st.weak x, 1 | st.weak y, 1 ;\n ld.weak r0, y | ld.weak r1, x ;\n",
                "P0:r0 == 1 /\\ P1:r1 == 1"));
}

TEST_CASE("op: splitting one test's skeletons across workers changes nothing", "[op]") {
  const LitmusTest t = parse_litmus(R"(PTX branches
{ global u32 x = 0; global u32 y = 0; }
 P0@cta 0,gpu 0 | P1@cta 1,gpu 0 | P2@cta 2,gpu 0 ;
 ld.relaxed.gpu.global.u32 r0, [x] | st.relaxed.gpu.global.u32 [x], 1 | red.cta.global.add.u32 [y], 1 ;
 beq r0, 0, SKIP | st.relaxed.gpu.global.u32 [x], 2 | red.cta.global.add.u32 [y], 1 ;
 red.cta.global.add.u32 [y], 1 | | ;
 SKIP: | | ;
exists (y == 1)
)", "b.litmus");
  std::map<std::vector<std::uint64_t>, std::string> one, four;
  EngineOptions o;
  o.observe_all = true;
  const TestResult a = run_op(t, o, &one);
  o.workers = 4;
  const TestResult b = run_op(t, o, &four);
  REQUIRE(a.skeletons > 1);
  CHECK(one == four);  // same outcomes, same first trace of each
  CHECK(a.outcomes.size() == b.outcomes.size());
  CHECK(a.holds == b.holds);
}
