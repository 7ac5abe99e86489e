// sured (seed ../shared/seeds/ptx-sured.txt): the seed's examples, every
// combination of addressing, operation and type against the syntax table,
// and the addressing, bounds and format rules, each on the events it makes.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "redscope/events/events.hpp"
#include "redscope/frontend/frontend.hpp"

// This file's own names (the unit tests compile in batches).
namespace unit_sured {

using namespace redscope;

namespace {

// Surfaces for the seed's operand names: surf_A 2x2 u32, surf_B 4 u32,
// surf_C 4 u64, surf_D 4 s64; x = 8, y = 1, r1 = 1.
const std::string kInit =
    "{\nsurface u32 surf_A[2][2]; surface u32 surf_B[4]; surface u64 surf_C[4];\n"
    "surface s64 surf_D[4]; P0:x = 8; P0:y = 1; P0:r1 = 1;\n}\n P0@cta 0,gpu 0 ;\n ";

LitmusTest sured_test(const std::string& instr, int target = 90) {
  return parse_litmus("PTX t\nTarget=sm_" + std::to_string(target) + "\n" + kInit + instr +
                          " ;\nexists (P0:r1 == 1)\n",
                      "t.litmus");
}

std::string error_of(const std::string& instr, int target = 90) {
  try {
    const LitmusTest t = sured_test(instr, target);
    (void)expand(t, ExpandOptions{});
  } catch (const InputError& e) {
    return e.diagnostic().message;
  }
  return "";
}

// The written events of the thread (the RMW's write half).
std::vector<Event> writes_of(const std::string& instr) {
  const Expansion ex = expand(sured_test(instr), ExpandOptions{});
  std::vector<Event> out;
  const Skeleton& s = ex.skeletons.front();
  for (EventId e = 0; e < s.size(); ++e)
    if (s.ev(e).is_write() && !s.ev(e).is_init) out.push_back(s.ev(e));
  return out;
}

std::vector<std::string> seed_examples() {
  std::ifstream in(std::string(REDSCOPE_SHARED_DIR) + "/seeds/ptx-sured.txt");
  std::ostringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  std::vector<std::string> out;
  const std::size_t sec = text.find("Examples");
  if (sec == std::string::npos) return out;
  std::istringstream lines(text.substr(sec));
  for (std::string l; std::getline(lines, l);)
    if (l.rfind("sured.", 0) == 0) out.push_back(l.substr(0, l.find(';')));
  return out;
}

}  // namespace

TEST_CASE("sured: the seed's examples, from its syntax table", "[seed][sured]") {
  const std::vector<std::string> seed = seed_examples();
  if (seed.empty()) {
    WARN("SKIP: the sured seed is not there");
    return;
  }
  REQUIRE(seed.size() == 4);
  // 2d, byte addressing: x = 8 bytes is column 2 of a 2-wide surface: out of
  // bounds, so .trap: no write, the execution traps.
  CHECK(seed[0] == "sured.b.add.2d.u32.trap  [surf_A, {x,y}], r1");
  CHECK(writes_of(seed[0]).empty());
  CHECK(error_of(seed[0]).empty());
  // `.p` takes .b32/.b64 only: the example contradicts the table.
  CHECK(seed[1] == "sured.p.min.1d.u32.trap  [surf_B, {x}], r1");
  CHECK_THAT(error_of(seed[1]), Catch::Contains("contradicts its own table"));
  // .b.max.u64: byte 8 of a u64 surface is sample 1.
  const std::vector<Event> c = writes_of(seed[2]);
  REQUIRE(c.size() == 1);
  CHECK(c[0].loc == "surf_C[1]");
  CHECK(c[0].type == DataType::U64);
  CHECK(c[0].proxy == Proxy::Surface);
  // .p.min.b64 on a SINT surface is an s64 min; {x} = 8 samples: past 4,
  // .trap.
  CHECK(writes_of(seed[3]).empty());
  const std::vector<Event> d = writes_of("sured.p.min.1d.b64.trap [surf_D, {1}], r1");
  REQUIRE(d.size() == 1);
  CHECK(d[0].loc == "surf_D[1]");
  CHECK(d[0].type == DataType::S64);
}

TEST_CASE("sured: every addressing, operation and type against the syntax table", "[seed][sured]") {
  // The table of the seed: .b add on u32/u64/s32, min/max on u32/s32/u64/s64,
  // and/or on b32; .p b32 for all, b64 for min/max only.
  const std::vector<std::string> ops = {"add", "min", "max", "and", "or"};
  const std::vector<std::string> types = {"u32", "s32", "b32", "u64", "s64", "b64"};
  auto allowed = [](bool b, const std::string& op, const std::string& ty) {
    if (!b) return ty == "b32" || (ty == "b64" && (op == "min" || op == "max"));
    if (op == "add") return ty == "u32" || ty == "u64" || ty == "s32";
    if (op == "min" || op == "max") return ty == "u32" || ty == "s32" || ty == "u64" || ty == "s64";
    return ty == "b32";
  };
  for (const bool b : {true, false})
    for (const std::string& op : ops)
      for (const std::string& ty : types) {
        const bool wide = ty[1] == '6';
        const std::string surf = wide ? (ty == "s64" || !b ? "surf_D" : "surf_C") : "surf_B";
        const std::string in =
            fmt::format("sured.{}.{}.1d.{}.trap [{}, {{0}}], 1", b ? "b" : "p", op, ty, surf);
        INFO(in);
        const std::string err = error_of(in);
        CHECK(err.empty() == allowed(b, op, ty));
      }
}

TEST_CASE("sured: target rules, operands and shapes are located errors", "[sured]") {
  CHECK_THAT(error_of("sured.b.add.1d.u32.trap [surf_B, {0}], 1", 13),
             Catch::Contains("requires sm_20"));
  CHECK_THAT(error_of("sured.b.min.1d.u64.trap [surf_C, {0}], 1", 35),
             Catch::Contains("requires sm_50"));
  CHECK(error_of("sured.b.min.1d.u64.trap [surf_C, {0}], 1", 50).empty());
  // Target ISA notes: sm_50 is for ".u64/.s64/.b64 types with .min/.max
  // operations"; a 64-bit .add is sured's own sm_20 (issue 27, item 1).
  CHECK(error_of("sured.b.add.1d.u64.trap [surf_C, {0}], 1", 20).empty());
  CHECK(error_of("sured.b.add.1d.u64.trap [surf_C, {0}], 1", 35).empty());
  CHECK_THAT(error_of("sured.b.max.1d.s64.trap [surf_D, {0}], 1", 20),
             Catch::Contains("requires sm_50"));
  CHECK_THAT(error_of("sured.p.min.1d.b64.trap [surf_D, {0}], 1", 35),
             Catch::Contains("requires sm_50"));
  CHECK_THAT(error_of("sured.b.add.1d.u64.trap [surf_C, {0}], 1", 13),
             Catch::Contains("requires sm_20"));
  CHECK_THAT(error_of("sured.b.add.1d.u32.wrap [surf_B, {0}], 1"),
             Catch::Contains(".trap, .clamp or .zero"));
  CHECK_THAT(error_of("sured.b.add.2d.u32.trap [surf_B, {0, 0}], 1"),
             Catch::Contains("a .2d sured on 'surf_B', a 1d surface"));
  CHECK_THAT(error_of("sured.b.add.3d.u32.trap [surf_A, {0, 0, 0}], 1"),
             Catch::Contains("a vector of 3 elements: PTX vectors have 1, 2 or 4"));
  CHECK_THAT(error_of("sured.b.add.1d.u32.trap [nowhere, {0}], 1"),
             Catch::Contains("neither a surface nor a register"));
  CHECK_THAT(error_of("sured.b.add.1d.u32.trap [surf_C, {0}], 1"), Catch::Contains("mixed-size"));
  CHECK_THAT(error_of("sured.add.1d.u32.trap [surf_B, {0}], 1"),
             Catch::Contains("sured takes exactly"));
}

// The coordinates as ptxas 13.0 reads them: a vector of 1, 2 or 4 elements,
// at least the geometry's, the extra ones ignored (as .3d's fourth); a
// scalar x for .1d only as a register.
TEST_CASE("sured: coordinate vectors longer than the geometry needs are accepted", "[sured]") {
  for (const char* in : {"sured.b.add.1d.u32.trap [surf_B, {4, 0}], 1",
                         "sured.b.add.1d.u32.trap [surf_B, {4, 99, 7, 7}], 1",
                         "sured.b.add.1d.u32.trap [surf_B, {4}], 1"}) {
    INFO(in);
    const std::vector<Event> w = writes_of(in);
    REQUIRE(w.size() == 1);
    CHECK(w[0].loc == "surf_B[1]");  // byte 4: sample 1, whatever follows x
  }
  // .2d with four elements: x = byte 4 (sample 1), y = 1 -> surf_A[1 + 2*1].
  const std::vector<Event> w2 = writes_of("sured.b.add.2d.u32.trap [surf_A, {4, 1, -5, 99}], 1");
  REQUIRE(w2.size() == 1);
  CHECK(w2[0].loc == "surf_A[3]");
  // x alone, as a register (P0:x = 8: byte 8, sample 2).
  const std::vector<Event> w3 = writes_of("sured.b.add.1d.u32.trap [surf_B, x], 1");
  REQUIRE(w3.size() == 1);
  CHECK(w3[0].loc == "surf_B[2]");
  CHECK_THAT(error_of("sured.b.add.1d.u32.trap [surf_B, 0], 1"),
             Catch::Contains("a .1d sured's coordinate outside braces is a register; write a "
                             "constant as {0}"));
  CHECK_THAT(error_of("sured.b.add.2d.u32.trap [surf_A, {0}], 1"),
             Catch::Contains("a .2d sured takes 2 coordinates, 1 given"));
  CHECK_THAT(error_of("sured.b.add.3d.u32.trap [surf_A, {0, 0}], 1"),
             Catch::Contains("a .3d sured takes 4 coordinates (x, y, z and an ignored fourth)"));
  CHECK_THAT(error_of("sured.b.add.1d.u32.trap [surf_B, {0, 0, 0, 0, 0}], 1"),
             Catch::Contains("a vector of 5 elements"));
}

TEST_CASE("sured: bounds, clamping and alignment decide the sample or the outcome", "[sured]") {
  // .clamp: byte 40 of a 4-sample u32 surface is sample 10: the nearest is 3.
  const std::vector<Event> w = writes_of("sured.b.add.1d.u32.clamp [surf_B, {40}], 1");
  REQUIRE(w.size() == 1);
  CHECK(w[0].loc == "surf_B[3]");
  // .zero drops it; .trap and a misaligned byte offset end the execution.
  CHECK(writes_of("sured.b.add.1d.u32.zero [surf_B, {40}], 1").empty());
  const Expansion mis =
      expand(sured_test("sured.b.add.1d.u32.zero [surf_B, {2}], 1"), ExpandOptions{});
  REQUIRE(mis.undefined_reasons.size() == 1);
  CHECK_THAT(mis.undefined_reasons[0], Catch::Contains("byte offset 2"));
  CHECK(mis.skeletons.front().final_regs.count(RegName{kStatusThread, kStatusRegister}) == 1);
}

}  // namespace unit_sured
