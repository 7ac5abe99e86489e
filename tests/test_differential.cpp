// The differential tester's generator and driver (tests/differential.hpp):
// tests are a function of (seed, index, features), every one parses and
// expands, every feature shows up, and the driver tells a refusal from a
// disagreement.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "differential.hpp"
#include "redscope/frontend/frontend.hpp"

// This file's own names (the unit tests compile in batches).
namespace unit_differential {

using namespace redscope;
using namespace redscope::differential;
using redscope::differential::generate;  // not redscope::generate (a namespace)

TEST_CASE("differential: feature lists", "[differential]") {
  CHECK(parse_features("generic") == kGeneric);
  CHECK(parse_features("all") == kAllFeatures);
  CHECK(parse_features("generic,proxy") == (kGeneric | kProxy));
  CHECK(parse_features("all,-bulk,-surface") == (kGeneric | kProxy));
  CHECK(parse_features("access,rmw") == (kAccess | kRmw));
  CHECK_FALSE(parse_features("generic,frob").has_value());
  CHECK(render_features(kAccess | kBulk) == "access,bulk");
  CHECK(parse_features(render_features(kAllFeatures)) == kAllFeatures);
  CHECK(feature_names().size() == 12);
}

TEST_CASE("differential: tests are a function of seed and index, and all valid", "[differential]") {
  GenOptions all;
  all.features = kAllFeatures;
  const Generated a = generate(7, 12, all), b = generate(7, 12, all);
  CHECK(a.text == b.text);
  CHECK(a.name == "diff-s7-12");
  CHECK(a.text.starts_with("PTX diff-s7-12\n"));
  CHECK(generate(7, 13, all).text != a.text);
  CHECK(generate(8, 12, all).text != a.text);

  // Every feature shows up, drafts are rarely thrown away, and every test
  // parses (generate expands it too).
  for (const std::uint32_t features : {kGeneric, kAllFeatures}) {
    GenOptions o;
    o.features = features;
    std::uint32_t seen = 0;
    int drafts = 0;
    const int n = 300;
    for (int i = 0; i < n; ++i) {
      const Generated g = generate(20261127, static_cast<std::uint64_t>(i), o);
      INFO(g.text);
      CHECK((g.used & ~features) == 0);
      seen |= g.used;
      drafts += g.attempts;
      CHECK_NOTHROW(parse_litmus(g.text, g.name + ".litmus"));
    }
    CHECK(render_features(seen) == render_features(features));
    CHECK(drafts < n * 3 / 2);
  }
}

TEST_CASE("differential: a refusal is counted, a disagreement reported", "[differential]") {
  DriverOptions d;
  Generated mp;
  mp.name = "mp";
  mp.text =
      "PTX mp\n{ global u32 x = 0; global u32 y = 0; }\n"
      " P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n"
      " st.weak.global.u32 [x], 1 | ld.acquire.gpu.global.u32 r0, [y] ;\n"
      " st.release.gpu.global.u32 [y], 1 | ld.weak.global.u32 r1, [x] ;\n"
      "exists (P1:r0 == 1 /\\ P1:r1 == 0)\n";
  const Verdict v = check(mp, d);
  INFO(render_verdict(v));
  CHECK_FALSE(v.failed());
  CHECK(v.z3.outcomes == v.op.outcomes);
  CHECK(v.z3.outcomes.size() == 3);

  Generated proxy;
  proxy.name = "alias";
  proxy.text =
      "PTX alias\n{ x = 0; y @ generic aliases x; }\n P0@cta 0,gpu 0 ;\n"
      " st.weak x, 1 ;\n fence.proxy.alias ;\n ld.weak r0, y ;\nforall (P0:r0 == 1)\n";
  const Verdict p = check(proxy, d);
  INFO(render_verdict(p));
  if (p.op.status == Answer::Status::Refused) CHECK_FALSE(p.failed());
  CHECK(p.z3.status == Answer::Status::Ok);

  // A finding file is the test with the report in a comment: it parses.
  Verdict f = v;
  f.disagreements.push_back("z3 allows, enum forbids, op reaches: P1:r0=1 (*) ");
  const std::string text = finding_file(f);
  CHECK(text.find("DISAGREE") != std::string::npos);
  CHECK_NOTHROW(parse_litmus(text, "finding.litmus"));
}

TEST_CASE("differential: triage names the documented shapes, minimize keeps a test valid",
          "[differential]") {
  // Two RMWs of two GPUs, not morally strong, each reading the other's
  // write: allowed by the model, and reached by the machine since it places
  // an RMW's write after the thread's view (docs/model.md "Where it is
  // stronger than the model"): no disagreement, with or without triage.
  Generated g;
  g.name = "rmw-cycle";
  g.text =
      "PTX rmw-cycle\n{ global u32 x = 0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 1 ;\n"
      " atom.global.exch.b32 r0, [x], 1 | atom.cta.global.exch.b32 r0, [x], 3 ;\n"
      "exists (P0:r0 == 3 /\\ P1:r0 == 1)\n";
  DriverOptions d;
  d.triage = true;
  const Verdict v = check(g, d);
  INFO(render_verdict(v));
  CHECK_FALSE(v.failed());
  CHECK(v.z3.outcomes.count("P0:r0=3 P1:r0=1 x=1") == 1);

  // The documented shape (Co-Total-3-threads-scope-same): P2 synchronizes
  // with both weak writers and reads x twice; the model lets it read 1 then
  // 2 and 2 then 1, the machine one order only. Triage says so.
  Generated co;
  co.name = "co-total";
  co.text =
      "PTX co-total\n{ x = 0; f = 0; g = 0; }\n"
      " P0@cta 0,gpu 0 | P1@cta 1,gpu 0 | P2@cta 2,gpu 0 ;\n"
      " st.weak x, 1 | st.weak x, 2 | ld.acquire.gpu r0, f ;\n"
      " st.release.gpu f, 1 | st.release.gpu g, 1 | ld.acquire.gpu r1, g ;\n"
      " | | ld.weak r2, x ;\n | | ld.weak r3, x ;\n"
      "exists (P2:r0 == 1 /\\ P2:r1 == 1 /\\ P2:r2 == 1 /\\ P2:r3 == 2)\n";
  const Verdict c = check(co, d);
  INFO(render_verdict(c));
  CHECK((c.classes & (kOpMissed | kOpForbidden | kZ3Enum)) == 0);
  if (c.failed()) {
    CHECK(c.classes == kOpMissedDocumented);
    CHECK(c.disagreements[0].find("[documented: a thread that has seen two unordered racing "
                                  "writes reads only the later]") != std::string::npos);
  }

  // Nothing smaller keeps a class the test does not have: the test comes
  // back whole (renamed), and it still parses.
  Verdict agree = v;
  agree.classes = kZ3Enum;
  const Verdict m = minimize(agree, DriverOptions{}, 50);
  CHECK(m.test.name == "rmw-cycle.min");
  CHECK(m.test.text.find("atom.cta.global.exch.b32 r0, [x], 3") != std::string::npos);
  CHECK_NOTHROW(parse_litmus(m.test.text, "m.litmus"));
}

}  // namespace unit_differential
