// Typed declarations, arrays, offsets and per-element expansion of vector and
// packed accesses (docs/litmus-format.md "Init block", "Consistency checks").
#include <catch2/catch.hpp>

#include "redscope/engine/engine.hpp"
#include "redscope/engine/z3/z3.hpp"
#include "redscope/frontend/frontend.hpp"

// This file's own names (the unit tests compile in batches).
namespace unit_layout {

using namespace redscope;

namespace {

LitmusTest test(const std::string& init, const std::string& row, const std::string& cond,
                const std::string& head = "") {
  return parse_litmus("PTX t\n" + head + "{ " + init + " }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n " +
                          row + " ;\n" + cond + "\n",
                      "t.litmus");
}

std::string expand_error(const LitmusTest& t) {
  try {
    (void)expand(t, ExpandOptions{});
  } catch (const InputError& e) {
    return e.diagnostic().render();
  }
  return "";
}

std::size_t count(const Skeleton& s, bool reads, const std::string& cell) {
  std::size_t n = 0;
  for (EventId v = 0; v < s.size(); ++v)
    n += !s.ev(v).is_init && s.ev(v).is_read() == reads && s.ev(v).is_memory() &&
         s.ev(v).loc == cell;
  return n;
}

}  // namespace

TEST_CASE("declared arrays give one cell per element, with typed initial values", "[layout]") {
  const LitmusTest t = test("global f32 v[3] = {1.5, -0.0, 1e8};",
                            "ld.weak.global.f32 %a, [v+4] | ", "exists (v[1] == -0.0)");
  const Expansion ex = expand(t, ExpandOptions{});
  const Skeleton& s = ex.skeletons[0];
  REQUIRE(s.loc_types.size() == 3);
  CHECK(const_value(s.ev(s.init_write.at("v[0]")).value) == 0x3fc00000u);  // 1.5f
  CHECK(const_value(s.ev(s.init_write.at("v[1]")).value) == 0x80000000u);  // -0.0f
  CHECK(const_value(s.ev(s.init_write.at("v[2]")).value) == 0x4cbebc20u);  // 1e8f
  CHECK(count(s, true, "v[1]") == 1);  // [v+4] is the second f32
}

TEST_CASE("undeclared locations are sized by their accesses", "[layout]") {
  const LitmusTest t = test("", "red.global.max.u32 [x+4], 3 | ld.relaxed.gpu.global.u32 r0, [x]",
                            "exists (x[1] == 3)");
  const Skeleton s = expand(t, ExpandOptions{}).skeletons[0];
  CHECK(s.loc_types.size() == 2);
  CHECK(count(s, true, "x[1]") == 1);
  CHECK(count(s, false, "x[1]") == 1);
  CHECK(count(s, true, "x[0]") == 1);
}

TEST_CASE("a packed location holds its lanes; 16-bit loads read one lane each", "[layout]") {
  const LitmusTest t =
      test("global f16x2 h = 0x40003c00; P0:%r1 = 0x3c003c00;",
           "red.global.add.noftz.f16x2 [h], %r1 | ld.relaxed.gpu.global.b16 r0, [h+2]",
           "exists (h[0] == 2.0 /\\ h[1] == 3.0)");
  const Skeleton s = expand(t, ExpandOptions{}).skeletons[0];
  CHECK(const_value(s.ev(s.init_write.at("h[0]")).value) == 0x3c00u);  // 1.0 in the low lane
  CHECK(const_value(s.ev(s.init_write.at("h[1]")).value) == 0x4000u);  // 2.0 in the high lane
  CHECK(count(s, true, "h[0]") == 1);                                  // the red's read
  CHECK(count(s, true, "h[1]") == 2);  // the red's read and the ld's
  const TestResult r = run_z3(t, EngineOptions{});
  CHECK(r.holds);  // 1+1 = 2 and 2+1 = 3, lane by lane
}

// PTX memory is untyped: a declaration gives bits, a size and a printed form;
// each access is one access of its own size (issue: whole-word accesses).
TEST_CASE("a whole-word access to a word declared as lanes is one event", "[layout]") {
  const LitmusTest t =
      test("global f16x2 h = 0x3c003c00;", "atom.global.cas.b32 r0, [h], 0x3c000000, 0x11111111 | ",
           "forall (h == 0x3c003c00 /\\ P0:r0 == 0x3c003c00)");
  const Skeleton s = expand(t, ExpandOptions{}).skeletons[0];
  REQUIRE(s.loc_types.size() == 1);
  CHECK(s.loc_types.at("h") == DataType::F16x2);  // printed as the declared packed pair
  CHECK(count(s, true, "h") == 1);                // one 32-bit read, not two lanes
  CHECK(run_z3(t, EngineOptions{}).holds);  // 0x3c003c00 != 0x3c000000: the cas fails as a whole
}

TEST_CASE("the instruction's type picks the operation, not the declaration", "[layout]") {
  auto holds = [](const std::string& init, const std::string& row, const std::string& cond) {
    return run_z3(test(init, row + " | ", cond), EngineOptions{}).holds;
  };
  CHECK(holds("global u32 x = 5;", "red.global.min.s32 [x], -1", "forall (x == 0xffffffff)"));
  CHECK(holds("global u32 x = 0x3f800000;", "red.global.add.f32 [x], 1.0",
              "forall (x == 0x40000000)"));
  CHECK(
      holds("global u32 x = 1;", "red.global.add.f32 [x], 0.0", "forall (x == 0)"));  // global FTZ
  CHECK(holds("global f32 x = 1.0;", "red.global.add.u32 [x], 1", "forall (x == 0x3f800001)"));
  CHECK(holds("global f16 h = 0x3c00; P0:%h1 = 0x3f80;", "red.global.add.noftz.bf16 [h], %h1",
              "forall (h == 0x3f81)"));
  CHECK(holds("global f16x2 h = 0x0000ffff;", "red.global.add.u32 [h], 1",
              "forall (h == 0x00010000)"));  // carries
}

TEST_CASE("layout errors name the rule", "[layout]") {
  CHECK_THAT(expand_error(test("", "st.relaxed.gpu.u64 [x], 1 | ld.relaxed.gpu.u32 r0, [x]",
                               "exists (P1:r0 == 0)")),
             Catch::Contains("mixed-size access to 'x'"));
  CHECK_THAT(
      expand_error(test("global f16x2 h = 0; P0:%r1 = 0x3c003c00;",
                        "red.global.add.noftz.f16x2 [h], %r1 | ld.relaxed.gpu.global.b32 r0, [h]",
                        "exists (P1:r0 == 0)")),
      Catch::Contains("4:40: error: mixed-size access to 'h': this .b32 access works on "
                      "32-bit units, the .f16x2 access at line 4"));
  CHECK_THAT(expand_error(test("", "st.relaxed.gpu.u64 [x+8], 1 | ld.relaxed.gpu.u32 r0, [x]",
                               "exists (P1:r0 == 0)")),
             Catch::Contains("'x' is accessed in units of two sizes"));
  CHECK_THAT(expand_error(test("global u32 v[2] = {0, 0};", "st.relaxed.gpu.u32 [v+8], 1 | ",
                               "exists (v[0] == 0)")),
             Catch::Contains("access past the end of 'v'"));
  CHECK_THAT(expand_error(test("", "st.relaxed.gpu.u32 [x+2], 1 | ", "exists (x[0] == 0)")),
             Catch::Contains("misaligned access"));
  CHECK_THAT(expand_error(test("global u32 v[2] = {0, 0};", "st.relaxed.gpu.u32 [v], 1 | ",
                               "exists (v == 0)")),
             Catch::Contains("name one, as in v[0]"));
  CHECK_THAT(expand_error(test("global u32 v[2] = {0, 0};", "st.relaxed.gpu.u32 [v], 1 | ",
                               "exists (v[2] == 0)")),
             Catch::Contains("out of bounds"));
  CHECK_THAT(
      expand_error(test("global u32 x = 1.5;", "st.relaxed.gpu.u32 [x], 1 | ", "exists (x == 0)")),
      Catch::Contains("'1.5' is not a value of type .u32"));
  CHECK_THAT(expand_error(test("shared u32 x = 0;", "st.relaxed.gpu.global.u32 [x], 1 | ",
                               "exists (x == 0)")),
             Catch::Contains("is accessed as .global here but is .shared::cta"));
}

TEST_CASE("predicates: setp and @p / @!p guards", "[layout]") {
  const LitmusTest g = parse_litmus(R"(PTX g
{ global s32 x = -3; global u32 y = 0; }
 P0@cta 0,gpu 0 ;
 ld.relaxed.gpu.global.s32 r0, [x] ;
 setp.lt.s32 p, r0, 0 ;
 @p red.global.add.u32 [y], 1 ;
 @!p red.global.add.u32 [y], 10 ;
exists (y == 1)
)",
                                    "g.litmus");
  const TestResult r = run_z3(g, EngineOptions{});
  REQUIRE(r.outcomes.size() == 1);  // -3 < 0 signed: only the @p red runs
  CHECK(r.holds);
  const LitmusTest u = parse_litmus(R"(PTX u
{ global u32 x = 0xfffffffd; global u32 y = 0; }
 P0@cta 0,gpu 0 ;
 ld.relaxed.gpu.global.u32 r0, [x] ;
 setp.lo.u32 p, r0, 0 ;
 @p red.global.add.u32 [y], 1 ;
 @!p red.global.add.u32 [y], 10 ;
exists (y == 10)
)",
                                    "u.litmus");
  CHECK(run_z3(u, EngineOptions{}).holds);  // unsigned: 0xfffffffd is not below 0
}

}  // namespace unit_layout
