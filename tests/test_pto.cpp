// PTO vector reductions (seed ../shared/seeds/pto-vector-reductions.txt):
// the concrete rules against their Z3 twin, hand-computed results, the
// cycle tables, and the dialect's errors. litmus/pto holds the programs
// (expected.csv), which test_engines.cpp also runs on both engines.
#include <catch2/catch.hpp>

#include <random>

#include <fmt/format.h>

#include "dialects/pto/pto_z3_values.hpp"
#include "redscope/analysis/xval.hpp"
#include "redscope/dialects/pto/pto.hpp"
#include "redscope/dialects/pto/pto_cycles.hpp"
#include "redscope/dialects/pto/pto_dialect.hpp"
#include "redscope/dialects/pto/pto_semantics.hpp"
#include "redscope/driver/engines.hpp"
#include "redscope/engine/engine.hpp"
#include "redscope/report/report.hpp"

// This file's own names (the unit tests compile in batches).
namespace unit_pto {

using namespace redscope;
namespace p = redscope::pto;

namespace {

p::Mask all() { return p::Mask().set(); }

LitmusTest parse_litmus(const std::string& text, const std::string& file) {
  return redscope::detail::parse_pto_litmus(text, file).front();
}

p::Lanes values(p::Elem e, std::mt19937_64& rng) {
  // Few distinct values, so ties, signed zeros, NaN and infinities meet.
  static const std::uint64_t f32[] = {0x0,        0x80000000, 0x3f800000, 0xbf800000, 0x4b800000,
                                      0x7f800000, 0xff800000, 0x7fc00000, 0x00000001, 0x3eaaaaab};
  static const std::uint64_t f16[] = {0x0,    0x8000, 0x3c00, 0xbc00, 0x6800,
                                      0x7c00, 0xfc00, 0x7e00, 0x0001, 0x3555};
  p::Lanes v(p::lanes_of(e));
  for (auto& x : v) {
    const std::size_t k = rng() % 10;
    if (e == p::Elem::F32)
      x = f32[k];
    else if (e == p::Elem::F16)
      x = f16[k];
    else
      x = (rng() % 7) - 3 + (k == 0 ? (1ull << (p::bits_of(e) - 1)) : 0);
    if (p::bits_of(e) < 64) x &= (1ull << p::bits_of(e)) - 1;
  }
  return v;
}

p::Mask random_mask(p::Elem e, std::mt19937_64& rng) {
  std::vector<bool> lanes(p::lanes_of(e));
  const unsigned density = rng() % 4;  // none, sparse, half, all
  for (std::size_t i = 0; i < lanes.size(); ++i)
    lanes[i] = density == 3 || (density > 0 && rng() % (4 - density) == 0);
  return p::mask_of(lanes, p::bits_of(e) / 8);
}

p::Lanes concrete(const ZLanes& z) {
  p::Lanes out;
  for (const z3::expr& e : z) {
    const z3::expr s = e.simplify();
    REQUIRE(s.is_numeral());
    out.push_back(s.get_numeral_uint64());
  }
  return out;
}

}  // namespace

TEST_CASE("pto: reduce and its Z3 twin agree on every op, type, mask and order", "[pto]") {
  std::mt19937_64 rng(17);
  z3::context c;
  const p::Reduce ops[] = {p::Reduce::Add,      p::Reduce::Max,      p::Reduce::Min,
                           p::Reduce::GroupAdd, p::Reduce::GroupMax, p::Reduce::GroupMin,
                           p::Reduce::PrefixAdd};
  const p::Elem elems[] = {p::Elem::I16, p::Elem::I32, p::Elem::I64, p::Elem::F16, p::Elem::F32};
  std::size_t checked = 0;
  for (p::Reduce r : ops)
    for (p::Elem e : elems) {
      if (!p::takes(r, e)) continue;
      for (int round = 0; round < 12; ++round) {
        const p::Lanes in = values(e, rng);
        const p::Mask m = random_mask(e, rng);
        for (p::Order o : {p::Order::Tree, p::Order::Sequential}) {
          INFO(p::op_name(r) << " " << p::to_string(e) << " round " << round);
          CHECK(p::reduce(r, e, in, m, o) ==
                concrete(z3_reduce(c, r, e, z3_lanes(c, e, in), m, o)));
          ++checked;
        }
      }
    }
  CHECK(checked > 500);
}

TEST_CASE("pto: hand-computed reductions", "[pto]") {
  // vcadd f32 over 1..64: 2080 in lane 0, the rest zero.
  p::Lanes v(64);
  for (std::size_t i = 0; i < 64; ++i) v[i] = *literal_bits(std::to_string(i + 1), DataType::F32);
  const p::Lanes s = p::reduce(p::Reduce::Add, p::Elem::F32, v, all(), p::Order::Sequential);
  CHECK(s[0] == *literal_bits("2080", DataType::F32));
  CHECK(std::all_of(s.begin() + 1, s.end(), [](std::uint64_t x) { return x == 0; }));
  // vcgadd f32: VLane g sums 8g+1 .. 8g+8 = 64g + 36, at lane 8g.
  const p::Lanes g = p::reduce(p::Reduce::GroupAdd, p::Elem::F32, v, all(), p::Order::Tree);
  for (unsigned k = 0; k < 8; ++k)
    CHECK(g[8 * k] == *literal_bits(std::to_string(64 * k + 36), DataType::F32));
  // vcmax: value in lane 0, index in lane 1; first index wins.
  p::Lanes t(64, 0);
  t[3] = t[9] = *literal_bits("7", DataType::F32);
  const p::Lanes mx = p::reduce(p::Reduce::Max, p::Elem::F32, t, all(), p::Order::Tree);
  CHECK(mx[0] == *literal_bits("7", DataType::F32));
  CHECK(mx[1] == 3);
  // f16 2048 + 1 + 1 + 1: sequential 2048 (ties to even), tree 2050.
  p::Lanes h(128, 0);
  h[0] = 0x6800;  // 2048
  h[1] = h[2] = h[3] = 0x3c00;
  CHECK(p::reduce(p::Reduce::Add, p::Elem::F16, h, all(), p::Order::Sequential)[0] == 0x6800);
  CHECK(p::reduce(p::Reduce::Add, p::Elem::F16, h, all(), p::Order::Tree)[0] == 0x6801);
  CHECK(p::ulp_distance(FloatFormat::F16, 0x6800, 0x6801) == 1u);
  CHECK(p::ulp_distance(FloatFormat::F32, 0x0, 0x80000000) == 1u);
  CHECK(!p::ulp_distance(FloatFormat::F32, 0x7fc00000, 0x0));
  // Inactive lanes do not participate: every active lane at the start value
  // (INT_MIN for vcmax, INT_MAX for vcmin) names the first active lane, not
  // the inactive lane 0 (issue 27, item 8).
  p::Mask high;  // lanes 32-63 of an i32 vector (PAT_H)
  for (unsigned i = 32; i < 64; ++i) high.set(i * 4);
  p::Lanes lo(64, 0);
  for (unsigned i = 32; i < 64; ++i) lo[i] = 0x80000000;  // INT_MIN
  const p::Lanes m0 = p::reduce(p::Reduce::Max, p::Elem::I32, lo, high, p::Order::Tree);
  CHECK(m0[0] == 0x80000000);
  CHECK(m0[1] == 32);
  for (unsigned i = 32; i < 64; ++i) lo[i] = 0x7fffffff;  // INT_MAX
  CHECK(p::reduce(p::Reduce::Min, p::Elem::I32, lo, high, p::Order::Tree)[1] == 32);
  // No active lane: zero (vcadd, vcmax), an empty VLane 0 (vcgmax).
  CHECK(p::reduce(p::Reduce::Max, p::Elem::F32, t, p::Mask(), p::Order::Tree) == p::Lanes(64, 0));
  // i64: INT64_MAX + 1 wraps to INT64_MIN, and the wrap is noted like i16's.
  p::Lanes w(32, 0);
  w[0] = 0x7fffffffffffffffULL;
  w[1] = 1;
  p::ReduceNotes notes;
  CHECK(p::reduce(p::Reduce::Add, p::Elem::I64, w, all(), p::Order::Tree, &notes)[0] ==
        0x8000000000000000ULL);
  CHECK(notes.int_wrapped);
}

TEST_CASE("pto cycles: the seed's A2/A3 formula and A5 table", "[pto][cycles]") {
  const LitmusTest t = parse_litmus(R"(PTO cycles
{
  P0:%f : !pto.vreg<64xf32> = splat(1.0);
  P0:%h : !pto.vreg<128xf16> = splat(1.0);
  P0:%s : !pto.vreg<128xi16> = splat(1);
  P0:%n : index = 3;
}
pto.vecscope {
  %a32 = pto.pset_b32 "PAT_ALL" : !pto.mask<b32>
  %a16 = pto.pset_b16 "PAT_ALL" : !pto.mask<b16>
  %x = pto.vcadd %f, %a32 : !pto.vreg<64xf32>, !pto.mask<b32> -> !pto.vreg<64xf32>
  %y = pto.vcgadd %h, %a16 : !pto.vreg<128xf16>, !pto.mask<b16> -> !pto.vreg<128xf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %z = pto.vcgmax %s, %a16 : !pto.vreg<128xi16>, !pto.mask<b16> -> !pto.vreg<128xi16>
  }
}
exists (P0:%x[0] == 64.0)
)",
                                    "cycles.litmus");
  REQUIRE(p::program_of(t));
  const PtoCycles a = pto_cycles(*p::program_of(t), PtoArch::A2A3);
  REQUIRE(a.rows.size() == 3);
  // vcadd f32, one repeat: 13 + 19 + 1×2 + 0×18 = 34.
  CHECK(a.rows[0].cycles == 34u);
  // vcgadd f16, one repeat: 13 + 21 + 1×2 + 0×18 = 36.
  CHECK(a.rows[1].cycles == 36u);
  // vcgmax i16 three times: 13 + 17 + 3×1 + 2×18 = 69.
  CHECK(a.rows[2].repeats == 3);
  CHECK(a.rows[2].cycles == 69u);
  CHECK(a.total == 34u + 36u + 69u);
  const PtoCycles b = pto_cycles(*p::program_of(t), PtoArch::A5);
  CHECK(b.rows[0].cycles == 19u);      // vcadd f32
  CHECK(b.rows[1].cycles == 21u);      // vcgadd f16
  CHECK(b.rows[2].cycles == 3u * 17);  // vcgmax i16, three times
}

TEST_CASE("pto cycles: several cores, and reductions that never run", "[pto][cycles]") {
  const LitmusTest t = parse_litmus(R"(PTO cores
{
  P0:%v : !pto.vreg<64xf32> = splat(1.0);
  P1:%v : !pto.vreg<64xf32> = splat(1.0);
}
P0: pto.vecscope {
  %all = pto.pset_b32 "PAT_ALL" : !pto.mask<b32>
  %s = pto.vcadd %v, %all : !pto.vreg<64xf32>, !pto.mask<b32> -> !pto.vreg<64xf32>
}
P1: pto.vecscope {
  %all = pto.pset_b32 "PAT_ALL" : !pto.mask<b32>
  %s = pto.vcmax %v, %all : !pto.vreg<64xf32>, !pto.mask<b32> -> !pto.vreg<64xf32>
  %t = pto.vcmin %v, %all : !pto.vreg<64xf32>, !pto.mask<b32> -> !pto.vreg<64xf32>
  scf.for %i = 0 to 0 step 1 {
    %u = pto.vcgadd %v, %all : !pto.vreg<64xf32>, !pto.mask<b32> -> !pto.vreg<64xf32>
  }
}
exists (P0:%s[0] == 64.0)
)",
                                    "cores.litmus");
  REQUIRE(p::program_of(t));
  const PtoCycles c = pto_cycles(*p::program_of(t), PtoArch::A2A3);
  // Each f32 full reduction once: 13 + 19 + 1×2 + 0×18 = 34.
  CHECK(c.total == 3u * 34);
  CHECK(c.per_core == std::map<std::string, std::uint64_t>{{"P0", 34}, {"P1", 68}});
  REQUIRE(c.never_run.size() == 1);
  CHECK_THAT(c.never_run[0], Catch::Contains("15:") && Catch::Contains("pto.vcgadd"));
}

TEST_CASE("pto dialect: malformed programs are located errors", "[pto][frontend]") {
  auto error_of = [](const std::string& body) {
    const std::string text =
        "PTO e\n{\n  P0:%v : !pto.vreg<64xf32> = splat(1.0);\n}\n"
        "pto.vecscope {\n" +
        body + "\n}\nexists (P0:%v[0] == 1.0)\n";
    try {
      parse_litmus(text, "e.litmus");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(error_of("  %m = pto.pset_b32 \"PAT_ALL\" : !pto.mask<b32>\n"
                      "  %s = pto.vcadd %v, %m : !pto.vreg<16xf32>, !pto.mask<b32> -> "
                      "!pto.vreg<16xf32>"),
             Catch::Contains("e.litmus:7:") && Catch::Contains("256 bytes"));
  CHECK_THAT(error_of("  %m = pto.pset_b8 \"PAT_ALL\" : !pto.mask<b8>\n"
                      "  %s = pto.vcmax %v, %m : !pto.vreg<64xf32>, !pto.mask<b8> -> "
                      "!pto.vreg<64xf32>"),
             Catch::Contains("takes a b32 mask"));
  CHECK_THAT(error_of("  %m = pto.pset_b32 \"PAT_VL9\" : !pto.mask<b32>"),
             Catch::Contains("e.litmus:6:21") && Catch::Contains("PAT_VLn"));
  // PTO's token list has VL1-4 and VL8, not SVE's VL5-7.
  CHECK_THAT(error_of("  %m = pto.pset_b32 \"PAT_VL5\" : !pto.mask<b32>"),
             Catch::Contains("PAT_VLn takes n in 1-4, 8"));
  CHECK_THAT(error_of("  %s = pto.vcadd %w, %v : !pto.vreg<64xf32>"),
             Catch::Contains("%w is not a vector register"));
  CHECK_THAT(error_of("  scf.for %i = 0 to 4 step 0 {\n  }"), Catch::Contains("not positive"));
  // Loops that emit nothing are bounded too (three nested 20,000-trip loops
  // of constants ran for hours), and bounds whose difference overflows 64
  // bits are counted in 128.
  CHECK_THAT(error_of("  scf.for %i = 0 to 20000 step 1 {\n"
                      "    scf.for %j = 0 to 20000 step 1 {\n"
                      "      %c = arith.constant 1 : index\n    }\n  }"),
             Catch::Contains("e.litmus:7:5") && Catch::Contains("iterations once unrolled"));
  CHECK_THAT(error_of("  %lb = arith.constant -4611686018427387904 : index\n"
                      "  %ub = arith.constant 4611686018427387904 : index\n"
                      "  scf.for %i = %lb to %ub step 1 {\n  }"),
             Catch::Contains("e.litmus:8:3") && Catch::Contains("9223372036854775808 iterations"));
}

TEST_CASE("pto: --pto-order selects the outcomes", "[pto][engines]") {
  const LitmusTest t = parse_litmus(R"(PTO order
{
  P0:%v : !pto.vreg<128xf16> = {2048.0, 1.0, 1.0, 1.0, ...};
}
pto.vecscope {
  %all = pto.pset_b16 "PAT_ALL" : !pto.mask<b16>
  %s = pto.vcadd %v, %all : !pto.vreg<128xf16>, !pto.mask<b16> -> !pto.vreg<128xf16>
}
exists (P0:%s[0] == 2050.0)
)",
                                    "order.litmus");
  for (EngineKind k : {EngineKind::Z3, EngineKind::Enum}) {
    EngineOptions o;
    o.engine = k;
    CHECK(run_engine(t, o).outcomes.size() == 2);  // both orders
    o.semantics_options["pto-order"] = "sequential";
    const TestResult seq = run_engine(t, o);
    REQUIRE(seq.outcomes.size() == 1);
    CHECK(!seq.holds);
    o.semantics_options["pto-order"] = "tree";
    CHECK(run_engine(t, o).holds);
  }
}

TEST_CASE("pto: one summation order per run, on both engines", "[pto][engines]") {
  // Eight vcadd of a vector whose two orders differ: every reduction of a
  // run is summed the same way, so two outcomes (not 2^8), and the engines
  // fix the order once instead of branching per reduction.
  std::string body;
  for (int i = 0; i < 8; ++i)
    body += fmt::format(
        "  %s{} = pto.vcadd %v, %all : !pto.vreg<128xf16>, !pto.mask<b16> -> "
        "!pto.vreg<128xf16>\n",
        i);
  const LitmusTest t = parse_litmus(
      "PTO order8\n{\n  P0:%v : !pto.vreg<128xf16> = {2048.0, 1.0, 1.0, 1.0, ...};\n}\n"
      "pto.vecscope {\n  %all = pto.pset_b16 \"PAT_ALL\" : !pto.mask<b16>\n" +
          body + "}\nexists (P0:%s0[0] != P0:%s7[0])\n",
      "order8.litmus");
  for (EngineKind k : {EngineKind::Z3, EngineKind::Enum}) {
    EngineOptions o;
    o.engine = k;
    const TestResult r = run_engine(t, o);
    CHECK(r.outcomes.size() == 2);
    CHECK(!r.holds);
  }
}

// A PTO program runs on an Ascend vector core: its JSON names no NVIDIA sm_NN
// (the container's default Target, sm_90, is meaningless there).
TEST_CASE("pto: JSON reports no NVIDIA target", "[pto]") {
  const std::string pto =
      json_test_head("t", "t.litmus", true, &p::kModel, 90).dump(Json::Layout::Line);
  CHECK(pto.find("\"target\": null") != std::string::npos);
  const std::string ptx =
      json_test_head("t", "t.litmus", true, kDefaultModel, 90).dump(Json::Layout::Line);
  CHECK(ptx.find("\"target\": \"sm_90\"") != std::string::npos);
}

// xval checks a PTO program by its two formulations: the Z3 twin allows, the
// explicit explorer reaches; both are exact, so any difference is a defect.
TEST_CASE("pto: xval pairs the explorer with the Z3 twin", "[pto][xval]") {
  const std::string dir = std::string(REDSCOPE_SOURCE_DIR) + "/litmus/pto/";
  EngineOptions o;
  o.observe_all = true;
  for (const char* name : {"hazard-no-barrier", "race-message-passing", "vcadd-f16-order-tree"}) {
    INFO(name);
    const XvalResult x = xval_file(dir + name + ".litmus", o);
    REQUIRE(!x.error);
    REQUIRE(x.pair);
    CHECK(x.pair->exact);
    CHECK(to_string(*x.pair) == "explorer vs z3 twin");
    CHECK(x.model == &p::kModel);
    CHECK(x.count(XvalStatus::AllowedReached) >= 2);  // a choice per outcome
    CHECK(x.count(XvalStatus::AllowedUnreached) == 0);
    CHECK(x.count(XvalStatus::ReachedForbidden) == 0);
    CHECK(!x.defect());
    for (const XvalOutcome& out : x.outcomes) {
      CHECK(!out.trace.empty());  // the explorer's choices
      CHECK(!out.z3_choices.empty());
    }
    CHECK_THAT(render_xval_text(x), Catch::Contains("(pto: explorer vs z3 twin): allowed-"));
    CHECK_THAT(render_xval_json({x}), Catch::Contains("\"pair\": \"explorer vs z3 twin\""));
  }
  // A disagreement either way is a defect (exit status 4).
  XvalResult d;
  d.pair = p::semantics().formulations();
  d.outcomes.push_back(XvalOutcome{{}, XvalStatus::AllowedUnreached, "", {}, ""});
  CHECK(d.defect());
  d.pair = XvalPair{.allowing = "z3", .reaching = "machine"};  // nor may the machine be stronger
  CHECK(d.defect());
  d.outcomes.back().status = XvalStatus::ReachedForbidden;
  CHECK(d.defect());
}

TEST_CASE("pto: the Z3 twin answers when the explorer has too many paths", "[pto][engines]") {
  // The two orders give two paths; with a limit of one the explorer
  // refuses, and the Z3 twin still gives both outcomes (its notes say what
  // is left out) instead of failing with the explorer.
  const LitmusTest t = parse_litmus(
      "PTO order1\n{\n  P0:%v : !pto.vreg<128xf16> = {2048.0, 1.0, 1.0, 1.0, ...};\n}\n"
      "pto.vecscope {\n  %all = pto.pset_b16 \"PAT_ALL\" : !pto.mask<b16>\n"
      "  %s = pto.vcadd %v, %all : !pto.vreg<128xf16>, !pto.mask<b16> -> !pto.vreg<128xf16>\n"
      "}\nexists (P0:%s[0] == 2048.0)\n",
      "order1.litmus");
  EngineOptions o;
  o.enum_limit = 1;
  o.engine = EngineKind::Enum;
  CHECK_THROWS_AS(run_engine(t, o), InputError);
  o.engine = EngineKind::Z3;
  const TestResult r = run_engine(t, o);
  CHECK(r.outcomes.size() == 2);
  bool said = false;
  for (const std::string& n : r.notes) said |= n.find("left out") != std::string::npos;
  CHECK(said);
}

}  // namespace unit_pto
