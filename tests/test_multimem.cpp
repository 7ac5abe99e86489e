// multimem.cp.reduce.async.bulk (seed
// ../shared/seeds/ptx-multimem-cp-reduce-async-bulk.txt): the seed's
// examples, every op/type combination against its table, the operand rules,
// and the events one bulk reduction makes.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "redscope/events/events.hpp"
#include "redscope/frontend/frontend.hpp"

// This file's own names (the unit tests compile in batches).
namespace unit_multimem {

using namespace redscope;

namespace {

// dstMem: a range on GPUs 0 and 1; srcMem: a shared buffer; size: 16. The
// element type of both follows the instruction's type.
LitmusTest bulk_test(const std::string& instr, const std::string& type, int target = 90) {
  return parse_litmus(fmt::format("PTX t\nTarget=sm_{}\n{{\nmultimem(0, 1) {} dstMem[8];\n"
                                  "shared {} srcMem[8];\n}}\n P0@cta 0,gpu 0 ;\n {} ;\n"
                                  "exists (dstMem_gpu0[0] == 0)\n",
                                  target, type, type, instr),
                      "t.litmus");
}

std::string error_of(const std::string& instr, const std::string& type, int target = 90) {
  try {
    (void)expand(bulk_test(instr, type, target), ExpandOptions{});
  } catch (const InputError& e) {
    return e.diagnostic().message;
  }
  return "";
}

std::string type_of(const std::string& instr) { return instr.substr(instr.rfind('.') + 1); }

std::vector<std::string> seed_examples() {
  std::ifstream in(std::string(REDSCOPE_SHARED_DIR) +
                   "/seeds/ptx-multimem-cp-reduce-async-bulk.txt");
  std::ostringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  std::vector<std::string> out;
  const std::size_t sec = text.find("\nExamples");
  if (sec == std::string::npos) return out;
  std::istringstream lines(text.substr(sec));
  for (std::string l; std::getline(lines, l);)
    if (l.rfind("multimem.", 0) == 0) out.push_back(l.substr(0, l.find(' ')));
  return out;
}

}  // namespace

TEST_CASE("multimem: every seed example expands to loads and per-replica reductions",
          "[seed][multimem]") {
  const std::vector<std::string> seed = seed_examples();
  if (seed.empty()) {
    WARN("SKIP: the multimem seed is not there");
    return;
  }
  REQUIRE(seed.size() == 8);
  for (const std::string& ex : seed) {
    INFO(ex);
    const std::string ty = type_of(ex);
    const Expansion e = expand(bulk_test(ex + " [dstMem], [srcMem], 16", ty), ExpandOptions{});
    const Skeleton& s = e.skeletons.front();
    const unsigned w = width_of(*parse_data_type(ty)) / 8;
    const std::size_t n = 16 / w;
    std::size_t loads = 0, rmw_writes = 0;
    for (EventId v = 0; v < s.size(); ++v) {
      const Event& x = s.ev(v);
      if (x.is_init) continue;
      if (x.is_read() && !x.in_rmw) {
        ++loads;
        CHECK(x.proxy == Proxy::Async);
        CHECK(x.sem == Sem::Weak);  // the seed: the loads are weak
      }
      if (x.is_write()) {
        ++rmw_writes;
        CHECK(x.sem == Sem::Relaxed);  // each reduction .relaxed.sys
        CHECK(x.scope == Scope::Sys);
        CHECK(x.async_until.has_value());
        // The PTX ISA: cp{.reduce}.async.bulk operations are performed in
        // the async proxy, destination accesses included (issue 27, item 3).
        CHECK(x.proxy == Proxy::Async);
      }
    }
    CHECK(loads == n);
    CHECK(rmw_writes == 2 * n);  // one per element and replica
  }
}

TEST_CASE("multimem: the op/type table, .noftz, and sm_90", "[seed][multimem]") {
  const std::vector<std::string> ops = {"add", "min", "max", "inc", "dec", "and", "or", "xor"};
  const std::vector<std::string> types = {"f16", "bf16", "b32", "u32", "s32",
                                          "b64", "u64",  "s64", "f32", "f64"};
  auto allowed = [](const std::string& op, const std::string& t) {
    auto in = [&](std::initializer_list<const char*> l) {
      for (const char* x : l)
        if (t == x) return true;
      return false;
    };
    if (op == "add") return in({"u32", "s32", "u64", "f32", "f64", "f16", "bf16"});
    if (op == "min" || op == "max") return in({"u32", "s32", "u64", "s64", "f16", "bf16"});
    if (op == "inc" || op == "dec") return in({"u32"});
    return in({"b32", "b64"});
  };
  for (const std::string& op : ops)
    for (const std::string& t : types) {
      const bool half_add = op == "add" && (t == "f16" || t == "bf16");
      const std::string in = fmt::format(
          "multimem.cp.reduce.async.bulk.global.shared::cta.bulk_group.{}{}.{} [dstMem], "
          "[srcMem], 16",
          op, half_add ? ".noftz" : "", t);
      INFO(in);
      CHECK(error_of(in, t).empty() == allowed(op, t));
    }
  const std::string head = "multimem.cp.reduce.async.bulk.global.shared::cta.bulk_group.";
  CHECK_THAT(error_of(head + "add.f16 [dstMem], [srcMem], 16", "f16"),
             Catch::Contains("requires .noftz"));
  CHECK_THAT(error_of(head + "add.noftz.f32 [dstMem], [srcMem], 16", "f32"),
             Catch::Contains(".noftz goes with .add on .f16 or .bf16 only"));
  CHECK_THAT(error_of(head + "add.u32 [dstMem], [srcMem], 16", "u32", 80),
             Catch::Contains("requires sm_90"));
}

TEST_CASE("multimem: operands are checked, statically", "[multimem]") {
  const std::string add = "multimem.cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 ";
  CHECK_THAT(error_of(add + "[dstMem], [srcMem], 24", "u32"),
             Catch::Contains("not a multiple of 16"));
  // Size 0 is a multiple of 16 (the seed's only rule): no elements, no events.
  CHECK(error_of(add + "[dstMem], [srcMem], 0", "u32").empty());
  CHECK_THAT(error_of(add + "[dstMem+8], [srcMem], 16", "u32"),
             Catch::Contains("not 16-byte aligned"));
  CHECK_THAT(error_of(add + "[dstMem+16], [srcMem], 32", "u32"), Catch::Contains("overflows"));
  CHECK_THAT(error_of(add + "[srcMem], [srcMem], 16", "u32"),
             Catch::Contains("is not a multimem range"));
  CHECK_THAT(error_of(add + "[dstMem], [dstMem], 16", "u32"),
             Catch::Contains("declared .shared::cta buffer"));
  CHECK_THAT(error_of(add + "[dstMem], [srcMem], 16", "u64"), Catch::Contains("mixed-size"));
  CHECK_THAT(error_of("cp.async.bulk.wait_group.read r0", "u32"), Catch::Contains("a constant"));
  // No range declared at all: the same error, not a crash (found by redscope_fuzz).
  const LitmusTest none = parse_litmus("PTX t\n{\nshared u32 s[4];\n}\n P0@cta 0,gpu 0 ;\n " + add +
                                           "[m], [s], 16 ;\n"
                                           "exists (0 == 0)\n",
                                       "t.litmus");
  CHECK_THROWS_WITH(expand(none, ExpandOptions{}), Catch::Contains("'m' is not a multimem range"));
  const LitmusTest far = parse_litmus(
      "PTX t\n{\nmultimem(0, 1) u32 m[4];\n}\n P0@cta 0,gpu 2 ;\n st.weak [m], 1 ;\n"
      "exists (m_gpu0[0] == 0)\n",
      "t.litmus");
  CHECK_THROWS_WITH(expand(far, ExpandOptions{}),
                    Catch::Contains("P0 is on GPU 2, which holds no replica of 'm'"));
}

}  // namespace unit_multimem
