// Target rules (src/frontend/ptx/ptx_rules.cpp, from the "Target ISA notes" of the PTX ISA
// sections of red, atom, ld, st, fence/membar and the bulk async-group
// instructions): each rule's form is
// accepted at the rule's minimum target and rejected one below, with
// file:line:col at the qualifier the rule is about, the rule's name, the
// citation and the test's target. Every row of the table has a case here.
#include <catch2/catch.hpp>

#include <set>

#include "frontend/ptx/ptx_rules.hpp"
#include "redscope/frontend/frontend.hpp"
#include "redscope/registry/registry.hpp"

// This file's own names (the unit tests compile in batches).
namespace unit_targets {

using namespace redscope;

namespace {

struct Case {
  std::string feature;  // the table row
  int min_sm;
  std::string instr;   // the instruction the rule is about (the last line of the thread)
  std::string at;      // the qualifier the error points at ("" = the mnemonic)
  std::string before;  // an instruction before it (the cache policy), or ""
};

const std::vector<Case> kCases = {
    // red (§9.7.13.6 Target ISA notes)
    {"red.global", 11, "red.global.add.u32 [x], 1", "global", ""},
    {"red.shared", 12, "red.shared.add.u32 [x], 1", "shared", ""},
    {"red.global.add.u64", 12, "red.global.add.u64 [x], 1", "u64", ""},
    {"red.shared.add.u64", 20, "red.shared.add.u64 [x], 1", "u64", ""},
    {"64-bit red.{and,or,xor,min,max}", 32, "red.global.and.b64 [x], 1", "b64", ""},
    {"64-bit red.{and,or,xor,min,max}", 32, "red.global.max.s64 [x], 1", "s64", ""},
    {"red.add.f32", 20, "red.global.add.f32 [x], 1.0", "f32", ""},
    {"red.add.f64", 60, "red.global.add.f64 [x], 1.0", "f64", ""},
    {"red's .scope qualifier", 60, "red.global.cta.add.u32 [x], 1", "cta", ""},
    {"red's .sem qualifier", 70, "red.global.relaxed.gpu.add.u32 [x], 1", "relaxed", ""},
    {"red's .sem qualifier", 70, "red.release.gpu.global.add.u32 [x], 1", "release", ""},
    {"red with generic addressing", 20, "red.add.u32 [x], 1", "", ""},
    {"red.add.noftz.f16x2", 60, "red.global.add.noftz.f16x2 [x], %hh", "f16x2", ""},
    {"red.add.noftz.f16", 70, "red.global.add.noftz.f16 [x], %h", "f16", ""},
    {"red's .L2::cache_hint qualifier", 80, "red.global.and.L2::cache_hint.b32 [x], 1, %cp",
     "L2::cache_hint", "createpolicy.fractional.L2::evict_last.b64 %cp, 0.25"},
    {"red.add.noftz.bf16/.bf16x2", 90, "red.global.add.noftz.bf16 [x], %h", "bf16", ""},
    {"red.add.noftz.bf16/.bf16x2", 90, "red.global.add.noftz.bf16x2 [x], %hh", "bf16x2", ""},
    {"red's .cluster scope", 90, "red.global.cluster.add.u32 [x], 1", "cluster", ""},
    {"red.shared::cta", 30, "red.shared::cta.add.u32 [x], 1", "shared::cta", ""},
    {"red.shared::cluster", 90, "red.shared::cluster.add.u32 [x], 1", "shared::cluster", ""},
    {"vector red (.v2/.v4/.v8)", 90, "red.global.v2.f32.add [x], {1.0, 2.0}", "v2", ""},
    {"vector red (.v2/.v4/.v8)", 90,
     "red.global.v8.f16.add.noftz [x], {%h, %h, %h, %h, %h, %h, %h, %h}", "v8", ""},
    // atom (§9.7.13.5 Target ISA notes)
    {"atom.global", 11, "atom.global.add.u32 r0, [x], 1", "global", ""},
    {"atom.shared", 12, "atom.shared.exch.b32 r0, [x], 1", "shared", ""},
    {"64-bit atom.global.{add,cas,exch}", 12, "atom.global.cas.b64 r0, [x], 0, 1", "b64", ""},
    {"64-bit atom.shared.{add,cas,exch}", 20, "atom.shared.add.u64 r0, [x], 1", "u64", ""},
    {"64-bit atom.{and,or,xor,min,max}", 32, "atom.global.xor.b64 r0, [x], 1", "b64", ""},
    {"atom.add.f32", 20, "atom.global.add.f32 r0, [x], 1.0", "f32", ""},
    {"atom.add.f64", 60, "atom.global.add.f64 r0, [x], 1.0", "f64", ""},
    {"atom's .scope qualifier", 60, "atom.global.sys.add.u32 r0, [x], 1", "sys", ""},
    {"atom's .sem qualifier", 70, "atom.global.acquire.gpu.add.u32 r0, [x], 1", "acquire", ""},
    {"atom with generic addressing", 20, "atom.exch.b32 r0, [x], 1", "", ""},
    {"atom.add.noftz.f16x2", 60, "atom.global.add.noftz.f16x2 r0, [x], %hh", "f16x2", ""},
    {"atom.add.noftz.f16", 70, "atom.global.add.noftz.f16 r0, [x], %h", "f16", ""},
    {"atom's .L2::cache_hint qualifier", 80, "atom.global.add.L2::cache_hint.s32 r0, [x], 1, %cp",
     "L2::cache_hint", "createpolicy.fractional.L2::evict_last.b64 %cp, 0.25"},
    {"atom.add.noftz.bf16/.bf16x2", 90, "atom.global.add.noftz.bf16x2 r0, [x], %hh", "bf16x2", ""},
    {"atom's .cluster scope", 90, "atom.global.cluster.add.u32 r0, [x], 1", "cluster", ""},
    {"atom.shared::cta", 30, "atom.shared::cta.max.u32 r0, [x], 1", "shared::cta", ""},
    {"atom.shared::cluster", 90, "atom.shared::cluster.add.u32 r0, [x], 1", "shared::cluster", ""},
    {"vector atom (.v2/.v4/.v8)", 90,
     "atom.global.v4.f32.add {r0, r1, r2, r3}, [x], {1.0, 1.0, 1.0, 1.0}", "v4", ""},
    // ld (§9.7.9.8), st (§9.7.9.9)
    {"ld's .sem qualifier and scope", 70, "ld.relaxed.gpu.global.u32 r0, [x]", "relaxed", ""},
    {"ld/st's .weak qualifier", 70, "ld.weak.global.u32 r0, [x]", "weak", ""},
    {"ld/st's .weak qualifier", 70, "st.weak.global.u32 [x], 1", "weak", ""},
    {"ld's .L2::cache_hint qualifier", 80, "ld.global.L2::cache_hint.u32 r0, [x], %cp",
     "L2::cache_hint", "createpolicy.fractional.L2::evict_last.b64 %cp, 0.25"},
    {"st's .sem qualifier and scope", 70, "st.release.gpu.global.u32 [x], 1", "release", ""},
    {"st's .L2::cache_hint qualifier", 80, "st.global.L2::cache_hint.u32 [x], 1, %cp",
     "L2::cache_hint", "createpolicy.fractional.L2::evict_last.b64 %cp, 0.25"},
    {"ld/st's .cluster scope", 90, "ld.acquire.cluster.global.u32 r0, [x]", "cluster", ""},
    {"ld/st .shared::cta", 30, "ld.shared::cta.u32 r0, [x]", "shared::cta", ""},
    {"ld/st .shared::cluster", 90, "st.shared::cluster.u32 [x], 1", "shared::cluster", ""},
    // fence, membar (§9.7.13.4)
    {"fence", 70, "fence.sc.gpu", "", ""},
    {"fence.cluster", 90, "fence.acq_rel.cluster", "cluster", ""},
    {"membar.sys", 20, "membar.sys", "sys", ""},
    {"fence.proxy.async", 90, "fence.proxy.async", "async", ""},
    {"fence.proxy.async", 90, "fence.proxy.async.global", "async", ""},
    {"fence.proxy.async", 90, "fence.proxy.async.shared::cta", "async", ""},
    {"fence.proxy.async", 90, "fence.proxy.async.shared::cluster", "async", ""},
    // cp.async.bulk.commit_group (§9.7.9.25.6.1), wait_group (§9.7.9.25.6.2)
    {"cp.async.bulk.commit_group", 90, "cp.async.bulk.commit_group", "", ""},
    {"cp.async.bulk.wait_group", 90, "cp.async.bulk.wait_group 0", "", ""},
    {"cp.async.bulk.wait_group", 90, "cp.async.bulk.wait_group.read 1", "", ""},
};

const std::string kClusterRule = "a cluster shared by CTAs (placement `cluster N`)";

std::string litmus(const Case& c, int sm) {
  std::string body =
      "PTX t\nTarget=sm_" + std::to_string(sm) +
      "\n{ P0:%cp=0; P0:%h=0x3c00; P0:%hh=0x3c003c00; }\n P0@cta 0,cluster 0,gpu 0 ;\n";
  if (!c.before.empty()) body += " " + c.before + " ;\n";
  return body + " " + c.instr + " ;\nexists (true)\n";
}

std::optional<Diagnostic> error_of(const std::string& text) {
  try {
    parse_litmus(text, "t.litmus");
  } catch (const InputError& e) {
    return e.diagnostic();
  }
  return std::nullopt;
}

}  // namespace

TEST_CASE("every target rule: accepted at its minimum, rejected one below, at the qualifier",
          "[targets]") {
  for (const Case& c : kCases) {
    INFO(c.instr << " (" << c.feature << ", sm_" << c.min_sm << ")");
    if (const auto ok = error_of(litmus(c, c.min_sm)))
      FAIL_CHECK("rejected at its minimum: " << ok->render());
    const auto bad = error_of(litmus(c, c.min_sm - 1));
    REQUIRE(bad.has_value());
    const std::string below = "sm_" + std::to_string(c.min_sm - 1);
    CHECK_THAT(bad->message, Catch::StartsWith(c.feature + " needs sm_" + std::to_string(c.min_sm) +
                                               " or later (PTX ISA §"));
    CHECK_THAT(bad->message, Catch::Contains("Target ISA notes); this test's Target is " + below));
    CHECK(bad->loc.line == (c.before.empty() ? 5 : 6));
    // Column: the qualifier's name after its '.', or the mnemonic.
    const int col = c.at.empty() ? 2 : static_cast<int>(c.instr.find("." + c.at)) + 3;
    CHECK(bad->loc.col == col);
  }
}

TEST_CASE(
    "the target-rule table: each row has a test, cites the PTX ISA notes and needs more than sm_10",
    "[targets]") {
  std::set<std::string> tested;
  for (const Case& c : kCases) tested.insert(c.feature);
  for (const detail::TargetRule& r : detail::target_rules()) {
    INFO(r.feature);
    CHECK(tested.count(std::string(r.feature)) == 1);
    CHECK_THAT(std::string(r.source),
               Catch::StartsWith("PTX ISA §") && Catch::EndsWith("Target ISA notes"));
    CHECK(r.min_sm > 10);
  }
  for (const Case& c : kCases) {
    bool in_table = false;
    for (const detail::TargetRule& r : detail::target_rules())
      if (r.feature == c.feature && r.min_sm == c.min_sm) in_table = true;
    INFO(c.feature);
    CHECK(in_table);
  }
}

TEST_CASE("target rules: the example message, defaults need nothing, the highest minimum is named",
          "[targets]") {
  const auto f64 =
      error_of("PTX t\nTarget=sm_50\n{ }\n P0 ;\n red.global.add.f64 [x], 1.0 ;\nexists (true)\n");
  REQUIRE(f64.has_value());
  CHECK(f64->render() ==
        "t.litmus:5:17: error: red.add.f64 needs sm_60 or later (PTX ISA §9.7.13.6 red, Target ISA "
        "notes); "
        "this test's Target is sm_50");
  // No .sem, no .scope, plain .shared and .volatile: nothing beyond sm_20.
  CHECK_FALSE(
      error_of("PTX t\nTarget=sm_20\n{ }\n P0 ;\n red.shared.add.u32 [x], 1 ;\n "
               "st.volatile.shared.u32 [x], 5 ;\n"
               " membar.gl ;\nexists (true)\n"));
  // ld.weak/st.weak are plain accesses on every target (Dat3M's shorthand).
  CHECK_FALSE(error_of(
      "PTX t\nTarget=sm_60\n{ }\n P0 ;\n ld.weak r0, x ;\n st.weak y, 1 ;\nexists (true)\n"));
  // .sem (sm_70) and .cluster (sm_90) both broken on sm_60: the error names the higher one.
  const auto both = error_of(
      "PTX t\nTarget=sm_60\n{ }\n P0 ;\n red.relaxed.cluster.global.add.u32 [x], 1 ;\nexists "
      "(true)\n");
  REQUIRE(both.has_value());
  CHECK_THAT(both->message, Catch::StartsWith("red's .cluster scope needs sm_90 or later"));
  // The default target is sm_90: every form of the tables is accepted.
  CHECK_FALSE(error_of(
      "PTX t\n{ }\n P0 ;\n red.shared::cluster.release.cluster.add.u32 [x], 1 ;\nexists (true)\n"));
  // The old fence hint stays.
  const auto fence = error_of("PTX t\nTarget=sm_60\n{ }\n P0 ;\n fence.sc.gpu ;\nexists (true)\n");
  REQUIRE(fence.has_value());
  CHECK_THAT(fence->message, Catch::EndsWith("; use membar.cta/.gl/.sys"));
}

TEST_CASE("cluster placements need sm_90; implicit one-CTA clusters are valid everywhere",
          "[targets]") {
  // PTX ISA §2.2.2: "Cluster level is applicable only on target architecture
  // sm_90 or higher ... otherwise it will be treated as implicit cluster
  // launch with default dimension 1x1x1" (issue 30).
  auto test = [](int sm, const std::string& places) {
    return "PTX t\nTarget=sm_" + std::to_string(sm) + "\n{ x=0; }\n " + places +
           " ;\n st.global.u32 [x], 1 | ld.global.u32 r0, [x] ;\nexists (P1:r0 == 1)\n";
  };
  const std::string two = "P0@cta 0,cluster 0,gpu 0 | P1@cta 1,cluster 0,gpu 0";
  CHECK_FALSE(error_of(test(90, two)));
  const auto bad = error_of(test(89, two));
  REQUIRE(bad.has_value());
  CHECK(bad->loc.line == 4);
  CHECK(bad->loc.col == 38);  // P1's `cluster`: its CTA 1 is not cluster 0's own
  CHECK_THAT(bad->message, Catch::StartsWith(kClusterRule + " needs sm_90 or later (PTX ISA "
                                                            "§2.2.2 Cluster of Cooperative"));
  CHECK_THAT(bad->message, Catch::Contains("this test's Target is sm_89"));
  // A CTA numbered into another CTA's cluster, alone: still not its own.
  CHECK(error_of(test(70, "P0@cta 0,gpu 0 | P1@cta 1,cluster 5,gpu 0")).has_value());
  // One-CTA placements: no cluster, or the CTA's own number, on any target.
  CHECK_FALSE(error_of(test(60, "P0@cta 0,gpu 0 | P1@cta 1,gpu 0")));
  CHECK_FALSE(error_of(test(60, "P0@cta 0,cluster 0,gpu 0 | P1@cta 1,cluster 1,gpu 0")));
  CHECK_FALSE(error_of(test(60, "P0@cta 0,gpu 0 | P1@cta 0,gpu 0")));
  // SASS (sm_30 by default) reads the same placements.
  const std::string sass =
      "SASS s\n{ x = 0; P0:R2 = x; P1:R2 = x; P0:R3 = 1; }\n"
      " P0@cta 0,cluster 0,gpu 0 | P1@cta 1,cluster 0,gpu 0 ;\n ST.E [R2], R3 | LD.E R5, [R2] ;\n"
      "exists (P1:R5 == 1)\n";
  const Dialect* d = dialect_for("s.litmus", sass);
  REQUIRE(d);
  try {
    (void)d->parse(sass, "s.litmus");
    FAIL("a two-CTA cluster on sm_30 was accepted");
  } catch (const InputError& e) {
    CHECK_THAT(e.diagnostic().message, Catch::Contains("this test's Target is sm_30"));
  }
}

// DiagnosticKind::IsaRule (gen matrix's skips, docs/matrix-spec.md): set by
// every rule of the PTX ISA the reader enforces, with the rule worded without
// the test's Target; never on text that is not a test or on a form redscope
// does not support yet.
TEST_CASE("ISA rules carry DiagnosticKind::IsaRule and a rule without the test's details",
          "[targets][matrix]") {
  for (const Case& c : kCases) {
    INFO(c.instr);
    const auto bad = error_of(litmus(c, c.min_sm - 1));
    REQUIRE(bad.has_value());
    CHECK(bad->kind == DiagnosticKind::IsaRule);
    const std::string rule = c.feature + " needs sm_" + std::to_string(c.min_sm) + " or later (";
    CHECK_THAT(bad->rule, Catch::StartsWith(rule) && Catch::EndsWith("Target ISA notes)"));
    CHECK_THAT(bad->message, Catch::StartsWith(bad->rule + "; this test's Target is"));
  }
  auto kind_of = [](const std::string& instr, int sm = 90) {
    const auto d = error_of("PTX t\nTarget=sm_" + std::to_string(sm) +
                            "\n{ global u32 x = 0; }\n P0 ;\n " + instr + " ;\nexists (true)\n");
    REQUIRE(d.has_value());
    return std::make_pair(d->kind, d->rule);
  };
  using K = DiagnosticKind;
  // Qualifier, type and state-space tables of the ISA.
  CHECK(kind_of("ld.release.gpu.global.u32 r0, [x]").first == K::IsaRule);
  CHECK(kind_of("st.acquire.gpu.global.u32 [x], 1").first == K::IsaRule);
  CHECK(kind_of("atom.global.add.s64 r0, [x], 1").first == K::IsaRule);
  CHECK(kind_of("red.global.acquire.gpu.add.u32 [x], 1").first == K::IsaRule);
  CHECK(kind_of("fence.acquire.gpu").first == K::IsaRule);
  // Two lines breaking one rule give one wording (the instruction is not in it).
  const auto weak_cta = kind_of("ld.weak.cta.global.u32 r0, [x]");
  CHECK(weak_cta.first == K::IsaRule);
  CHECK(weak_cta.second == kind_of("st.weak.gpu.global.u32 [x], 1").second);
  CHECK(kind_of("ld.relaxed.global.u32 r0, [x]").second ==
        kind_of("ld.relaxed.shared.u32 r0, [x]").second);
  // The cluster placement rule of the container.
  const auto place = error_of(
      "PTX t\nTarget=sm_80\n{ x=0; }\n P0@cta 0,cluster 0,gpu 0 | P1@cta 1,cluster 0,gpu 0 ;\n"
      " st.global.u32 [x], 1 | ld.global.u32 r0, [x] ;\nexists (P1:r0 == 1)\n");
  REQUIRE(place.has_value());
  CHECK(place->kind == K::IsaRule);
  CHECK(place->rule == kClusterRule +
                           " needs sm_90 or later (PTX ISA §2.2.2 Cluster of Cooperative Thread "
                           "Arrays; %clusterid, Target ISA notes)");
  // Not tests, or forms redscope does not support: Input.
  CHECK(kind_of("ld.acquire.gpux.global.u32 r0, [x]").first == K::Input);
  CHECK(kind_of("ld.global.u8 r0, [x]").first == K::Input);
  CHECK(kind_of("atom.global.cas.b16 r0, [x], 0, 1").first == K::Input);
  CHECK(kind_of("ld.global.u32 r0 [x]").first == K::Input);
  CHECK(kind_of("frobnicate r0").first == K::Input);
}

}  // namespace unit_targets
