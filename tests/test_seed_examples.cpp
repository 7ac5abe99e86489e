// Every instruction of the red seed's "Examples" section either expands into
// the events its syntax table implies, or is rejected with the reason (the
// examples that contradict the table). The expectations are written from the
// seed's syntax table, example by example; the test also reads the seed
// (../shared/seeds/ptx-red.txt) and checks that this list is its Examples
// section, so a changed seed cannot go unnoticed.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "redscope/events/events.hpp"
#include "redscope/frontend/frontend.hpp"

// This file's own names (the unit tests compile in batches).
namespace unit_seed_examples {

using namespace redscope;

namespace {

struct Example {
  std::string text;  // as in the seed
  bool accepted;
  std::size_t rmw_pairs;  // read+write pairs: one per scalar element or packed lane
  DataType lane;          // type of each event
  Space space;            // of the events (generic accesses resolve to global)
  Scope scope;
  std::string first_cell;  // cell of the first RMW
  std::string error;       // substring of the diagnostic when rejected
};

const std::vector<Example> kExamples = {
    // Defaults: no .sem ⇒ .relaxed, no .scope ⇒ .gpu.
    {"red.global.add.s32  [a],1;", true, 1, DataType::S32, Space::Global, Scope::Gpu, "a", ""},
    // [x+4] on .u32 is the second element of x; .shared::cluster needs sm_90 (the default target).
    {"red.shared::cluster.max.u32  [x+4],0;", true, 1, DataType::U32, Space::SharedCluster,
     Scope::Gpu, "x[1]", ""},
    // A predicated red: one guarded RMW; `p` the predicate register and `[p]` a location are
    // different names.
    {"@p  red.global.and.b32  [p],my_val;", true, 1, DataType::B32, Space::Global, Scope::Gpu, "p",
     ""},
    {"red.global.sys.add.u32 [a], 1;", true, 1, DataType::U32, Space::Global, Scope::Sys, "a", ""},
    // The table's .sem is {.relaxed, .release}: this example contradicts it.
    {"red.global.acquire.sys.add.u32 [gbl], 1;", false, 0, DataType::U32, Space::Global, Scope::Sys,
     "", "red does not take .acquire"},
    // Packed f16x2: two lanes, each its own RMW.
    {"red.add.noftz.f16x2 [a], b;", true, 2, DataType::F16, Space::Global, Scope::Gpu, "a[0]", ""},
    {"red.add.noftz.bf16   [a], hb;", true, 1, DataType::BF16, Space::Global, Scope::Gpu, "a", ""},
    {"red.add.noftz.bf16x2 [b], bb;", true, 2, DataType::BF16, Space::Global, Scope::Gpu, "b[0]",
     ""},
    {"red.global.cluster.relaxed.add.u32 [a], 1;", true, 1, DataType::U32, Space::Global,
     Scope::Cluster, "a", ""},
    {"red.shared::cta.min.u32  [x+4],0;", true, 1, DataType::U32, Space::SharedCta, Scope::Gpu,
     "x[1]", ""},
    // createpolicy is accepted as a hint producing an opaque policy register.
    {"createpolicy.fractional.L2::evict_last.b64 cache-policy, 0.25;", true, 0, DataType::B64,
     Space::Global, Scope::Gpu, "", ""},
    {"red.global.and.L2::cache_hint.b32 [a], 1, cache-policy;", true, 1, DataType::B32,
     Space::Global, Scope::Gpu, "a", ""},
    // Vector forms: one RMW per element (per lane for packed elements).
    {"red.global.v8.f16.add.noftz  [gbl], {%h0, %h1, %h2, %h3, %h4, %h5, %h6, %h7};", true, 8,
     DataType::F16, Space::Global, Scope::Gpu, "gbl[0]", ""},
    {"red.global.v8.bf16.min.noftz [gbl], {%h0, %h1, %h2, %h3, %h4, %h5, %h6, %h7};", true, 8,
     DataType::BF16, Space::Global, Scope::Gpu, "gbl[0]", ""},
    {"red.global.v2.f16.add.noftz [gbl], {%h0, %h1};", true, 2, DataType::F16, Space::Global,
     Scope::Gpu, "gbl[0]", ""},
    {"red.global.v2.bf16.add.noftz [gbl], {%h0, %h1};", true, 2, DataType::BF16, Space::Global,
     Scope::Gpu, "gbl[0]", ""},
    {"red.global.v4.f16x2.max.noftz [gbl], {%h0, %h1, %h2, %h3};", true, 8, DataType::F16,
     Space::Global, Scope::Gpu, "gbl[0]", ""},
    {"red.global.v4.f32.add  [gbl], {%f0, %f1, %f2, %f3};", true, 4, DataType::F32, Space::Global,
     Scope::Gpu, "gbl[0]", ""},
    // red has no destination operand in the syntax table: these examples contradict it.
    {"red.global.v2.f16x2.max.noftz {%bd0, %bd1}, [g], {%b0, %b1};", false, 0, DataType::F16,
     Space::Global, Scope::Gpu, "", "red has no destination operand"},
    {"red.global.v2.bf16x2.add.noftz {%bd0, %bd1}, [g], {%b0, %b1};", false, 0, DataType::BF16,
     Space::Global, Scope::Gpu, "", "red has no destination operand"},
    {"red.global.v2.f32.add  {%f0, %f1}, [g], {%f0, %f1};", false, 0, DataType::F32, Space::Global,
     Scope::Gpu, "", "red has no destination operand"},
};

// One litmus test around an example: registers it reads are initialised.
// The seed writes the cache policy as `cache-policy`, a placeholder (PTX
// identifiers cannot contain '-'); it becomes the register %cp.
std::string wrap(std::string instr) {
  if (instr.back() == ';') instr.pop_back();
  for (std::size_t at; (at = instr.find("cache-policy")) != std::string::npos;)
    instr.replace(at, 12, "%cp");
  std::string regs =
      "P0:p=1; P0:my_val=3; P0:b=0x3c003c00; P0:hb=0x3f80; P0:bb=0x3f803f80; P0:%cp=0;";
  for (int i = 0; i < 8; ++i) regs += " P0:%h" + std::to_string(i) + "=0x3c00;";
  for (int i = 0; i < 4; ++i) regs += " P0:%f" + std::to_string(i) + "=1.0;";
  for (int i = 0; i < 2; ++i)
    regs += " P0:%b" + std::to_string(i) + "=0; P0:%bd" + std::to_string(i) + "=0;";
  return "PTX example\n{ " + regs + " }\n P0@cta 0,cluster 0,gpu 0 ;\n " + instr +
         " ;\nexists (true)\n";
}

std::vector<std::string> seed_examples() {
  std::ifstream in(std::string(REDSCOPE_SHARED_DIR) + "/seeds/ptx-red.txt");
  if (!in) return {};
  std::ostringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  const std::size_t sec = text.find("### Examples");
  std::vector<std::string> out;
  std::istringstream lines(text.substr(sec == std::string::npos ? text.size() : sec));
  for (std::string l; std::getline(lines, l);) {
    const std::size_t a = l.find_first_not_of(" \t");
    if (a == std::string::npos || l[a] == '#' || l[a] == '`') continue;
    out.push_back(l.substr(a));
  }
  return out;
}

}  // namespace

TEST_CASE("the list below is the seed's Examples section", "[seed]") {
  const std::vector<std::string> seed = seed_examples();
  if (seed.empty()) {
    WARN("SKIP: " REDSCOPE_SHARED_DIR "/seeds/ptx-red.txt not found");
    return;
  }
  std::vector<std::string> ours;
  for (const Example& e : kExamples) ours.push_back(e.text);
  CHECK(seed == ours);
}

TEST_CASE("each seed example expands per its syntax table or is rejected with the reason",
          "[seed]") {
  for (const Example& e : kExamples) {
    INFO(e.text);
    const std::string src = wrap(e.text);
    if (!e.accepted) {
      try {
        const LitmusTest t = parse_litmus(src, "example.litmus");
        (void)expand(t, ExpandOptions{});
        FAIL("accepted, but the syntax table rejects it");
      } catch (const InputError& err) {
        CHECK_THAT(err.diagnostic().message, Catch::Contains(e.error));
        CHECK(err.diagnostic().loc.line == 4);
      }
      continue;
    }
    const Expansion ex = expand(parse_litmus(src, "example.litmus"), ExpandOptions{});
    REQUIRE(ex.skeletons.size() == 1);
    const Skeleton& s = ex.skeletons[0];
    std::size_t reads = 0, writes = 0;
    std::string first;
    for (EventId v = 0; v < s.size(); ++v) {
      const Event& ev = s.ev(v);
      if (ev.is_init || !ev.in_rmw) continue;
      (ev.is_read() ? reads : writes) += 1;
      if (first.empty()) first = ev.loc;
      CHECK(ev.type == e.lane);
      CHECK(ev.space == e.space);
      CHECK(ev.scope == e.scope);
      CHECK((ev.sem == Sem::Relaxed));
    }
    CHECK(reads == e.rmw_pairs);
    CHECK(writes == e.rmw_pairs);
    CHECK(first == e.first_cell);
  }
}

TEST_CASE("a predicated red carries its guard; vector elements are unordered", "[seed]") {
  const Expansion ex =
      expand(parse_litmus(wrap("red.global.v4.f32.add [gbl], {%f0, %f1, %f2, %f3};"), "e.litmus"),
             ExpandOptions{});
  const Skeleton& s = ex.skeletons[0];
  const BoolMatrix po = po_closure(s);
  std::vector<EventId> reads, writes;
  for (EventId v = 0; v < s.size(); ++v)
    if (s.ev(v).in_rmw) (s.ev(v).is_read() ? reads : writes).push_back(v);
  REQUIRE(reads.size() == 4);
  for (std::size_t i = 0; i < 4; ++i) {
    CHECK(po[reads[i]][writes[i]]);  // an element's read precedes its own write
    for (std::size_t j = 0; j < 4; ++j)
      if (i != j) {
        CHECK_FALSE(po[reads[i]][reads[j]]);
        CHECK_FALSE(po[writes[i]][writes[j]]);
        CHECK_FALSE(po[reads[i]][writes[j]]);
      }
  }
  const Expansion g =
      expand(parse_litmus(wrap("@p red.global.and.b32 [p], my_val;"), "g.litmus"), ExpandOptions{});
  for (EventId v = 0; v < g.skeletons[0].size(); ++v)
    if (g.skeletons[0].ev(v).in_rmw) CHECK(g.skeletons[0].ev(v).guard != nullptr);
}

}  // namespace unit_seed_examples
