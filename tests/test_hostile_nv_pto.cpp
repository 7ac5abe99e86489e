// Issue 28 (hostile input) for NVIDIA's .test dialect and PTO programs:
// numbers past 64 bits, templates and loops that multiply a small file,
// names, token counts, deep searches and truncated files each end in a
// located error or a bounded answer, never an abort, a crash or a hang.
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "cpu_clock.hpp"
#include "dialects/pto/pto_exec.hpp"
#include "redscope/core/budget.hpp"
#include "redscope/dialects/pto/pto_dialect.hpp"
#include "redscope/driver/engines.hpp"
#include "redscope/engine/engine.hpp"
#include "redscope/frontend/lexer.hpp"
#include "redscope/frontend/nvtest/nv_test.hpp"

// This file's own names (the unit tests compile in batches).
namespace unit_hostile_nv_pto {

using namespace redscope;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

// The message of the InputError `parse` throws ("no error" when none).
template <class F>
std::string error_of(F parse) {
  try {
    parse();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

std::string nv_error(const std::string& text) {
  return error_of([&] { detail::parse_nv_test(text, "t.test"); });
}

std::string pto_error(const std::string& text) {
  return error_of([&] { detail::parse_pto_litmus(text, "p.litmus"); });
}

// A PTO test of one core whose region is `body`.
std::string pto_text(const std::string& body) {
  return "PTO h\n{\n  ub f32 buf[64];\n}\npto.vecscope {\n" + body + "}\nexists (buf[0] == 0.0)\n";
}

// `cores` cores, each running `op` n times in a loop.
std::string pto_loop(int cores, int n, const std::string& op) {
  std::string s = "PTO many\n{\n  ub f32 buf[64];\n}\n";
  for (int c = 0; c < cores; ++c)
    s += fmt::format("P{}: pto.vecscope {{\n  scf.for %i = 0 to {} step 1 {{\n    {}\n  }}\n}}\n",
                     c, n, op);
  return s + "exists (buf[0] == 0.0)\n";
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("integer reader: one checked routine for every dialect", "[frontend][hostile]") {
  using detail::integer_at;
  using detail::unsigned_integer;
  CHECK(unsigned_integer("18446744073709551615") == 18446744073709551615ull);
  CHECK(unsigned_integer("0xffffffffffffffff") == 18446744073709551615ull);
  CHECK_FALSE(unsigned_integer("18446744073709551616"));
  CHECK_FALSE(unsigned_integer("12abc"));
  CHECK_FALSE(unsigned_integer(""));
  CHECK_FALSE(unsigned_integer("0x"));
  CHECK(integer_at("9223372036854775808", true, "f", {1, 1}) == INT64_MIN);
  CHECK_THAT(error_of([] {
               integer_at("9223372036854775809", true, "f", {2, 3});
             }),
             Contains("f:2:3: error: number '-9223372036854775809' does not fit in 64 bits"));
  CHECK_THAT(error_of([] {
               integer_at("99999999999999999999999", false, "f", {1, 4});
             }),
             Contains("f:1:4: error: number '99999999999999999999999' does not fit in 64 bits"));
  CHECK_THAT(error_of([] {
               integer_at("1x", false, "f", {1, 1});
             }),
             Contains("expected an integer, found '1x'"));
}

TEST_CASE(".test: numbers past 64 bits are located errors", "[frontend][hostile]") {
  // Each aborted in std::stoul / std::stoll before.
  CHECK_THAT(nv_error(".global x;\nd0.b0.t0 {\n  st.relaxed.gpu [x], $99999999999999999999999;\n}\n"
                      "permit(x == 1) as p;\n$$\n1\n"),
             Contains("t.test:3:23: error: number '99999999999999999999999' does not fit"));
  CHECK_THAT(nv_error(".global x;\nd0.b0.t0 {\n  st.relaxed.gpu [x], 99999999999999999999999;\n"
                      "  ld.relaxed.gpu r0, [x];\n}\npermit(r0 == 1) as p;\n"),
             Contains("t.test:3:23: error: number '99999999999999999999999' does not fit"));
  CHECK_THAT(nv_error(".global x;\nd0.b0.t0 {\n  st.relaxed.gpu [x], -99999999999999999999999;\n"
                      "  ld.relaxed.gpu r0, [x];\n}\npermit(r0 == 1) as p;\n"),
             Contains("t.test:3:23: error: number '-99999999999999999999999' does not fit"));
  CHECK_THAT(
      nv_error(".global x;\nd0.b0.t0 {\n  ld.relaxed.gpu r0, [x] == 99999999999999999999;\n}\n"
               "permit(r0 == 1) as p;\n"),
      Contains("t.test:3:29: error: number '99999999999999999999' does not fit"));
  CHECK_THAT(nv_error(".global x;\nd0.b0.t0 {\n  ld.relaxed.gpu r0, [x];\n}\n"
                      "permit(r0 == 99999999999999999999) as p;\n"),
             Contains("t.test:5:14: error: number '99999999999999999999' does not fit"));
  // Through a filled hole: located at the row's cell.
  CHECK_THAT(
      nv_error(".global x;\nd0.b0.t0 {\n  st.relaxed.gpu [x], $0;\n  ld.relaxed.gpu r0, [x];\n"
               "}\npermit(r0 == 1) as p;\n$$\n  99999999999999999999999\n"),
      Contains("t.test:8:3: error: number '99999999999999999999999' does not fit"));
  CHECK_THAT(nv_error(".global x;\nd99999999999999999999999.b0.t0 {\n  ld.relaxed.gpu r0, [x];\n}\n"
                      "permit(r0 == 1) as p;\n"),
             Contains("t.test:2:1: error: number '99999999999999999999999' does not fit"));
  CHECK_THAT(nv_error(".global x;\nd0.b100000.t0 {\n  ld.relaxed.gpu r0, [x];\n}\n"
                      "permit(r0 == 1) as p;\n"),
             Contains("t.test:2:4: error: 'b100000' in a thread id: bN takes N from 0 to 99999"));
  // A value that fits is read as before.
  const auto ok = detail::parse_nv_test(
      ".global x;\nd0.b0.t0 {\n  st.relaxed.gpu [x], -5;\n  ld.relaxed.gpu r0, [x];\n}\n"
      "permit(r0 == -5) as p;\n",
      "t.test");
  REQUIRE(ok.size() == 1);
  CHECK(ok[0].threads[0].code[0].srcs[0].value == -5);
}

TEST_CASE(".test: templates and thread lists are bounded", "[frontend][hostile]") {
  // 20,000 rows of a 20,000-instruction template: 400 M instructions (22 GB
  // before, collecting the file's addresses); a located error now.
  std::string body = ".global x;\nd0.b0.t0 {\n";
  for (int i = 0; i < 20000; ++i) body += "  st.relaxed.gpu [x], $0;\n";
  body += "  ld.relaxed.gpu r0, [x];\n}\npermit(r0 == 1) as p;\n$$\n";
  for (int i = 0; i < 20000; ++i) body += "1\n";
  CHECK_THAT(nv_error(body), Contains("t.test:20011:1: error: the template's rows up to this one "
                                      "expand to") &&
                                 Contains("at most 1000000"));
  // A hole used many times, filled by a long cell, counts the cell's tokens.
  std::string tmpl = ".global x;\nd0.b0.t0 {\n";
  for (int i = 0; i < 1000; ++i) tmpl += "  $0\n";
  tmpl += "  ld.relaxed.gpu r0, [x];\n}\npermit(r0 == 1) as p;\n$$\n";
  for (int i = 0; i < 2000; ++i) tmpl += "st.relaxed.gpu [x], 1; ";
  CHECK_THAT(nv_error(tmpl + "\n"), Contains("at most 1000000"));
  // 100,000 threads: the duplicate-name check was quadratic (41 s); now a
  // set. The file parses in well under a second.
  std::string many = ".global x;\n";
  for (int i = 0; i < 100000; ++i)
    many += fmt::format("d0.b{}.t{} {{ st.relaxed.gpu [x], 1; }}\n", i / 1000, i % 1000);
  many += "d1.b0.t0 { ld.relaxed.gpu r0, [x]; }\npermit(r0 == 1) as p;\n";
  const double t0 = testing::process_cpu_seconds();
  const auto tests = detail::parse_nv_test(many, "t.test");
  CHECK(testing::process_cpu_seconds() - t0 < 20.0);  // CPU s; 41 s quadratic, Release
  REQUIRE(tests.size() == 1);
  CHECK(tests[0].threads.size() == 100001);
  CHECK_THAT(nv_error(".global x;\nd0.b0.t0 { ld.relaxed.gpu r0, [x]; }\n"
                      "d0.b0.t0 { ld.relaxed.gpu r1, [x]; }\npermit(r0 == 1) as p;\n"),
             Contains("t.test:3:1: error: thread d0.b0.t0 is declared twice"));
  // A long name, which each row of a template would copy.
  CHECK_THAT(nv_error(".global " + std::string(10000000, 'x') + ";\n"),
             Contains("t.test:1:9: error: a name of 10000000 bytes: names are at most 256"));
  // More tokens than the lexer keeps: a located error, not a gigabyte.
  CHECK_THAT(nv_error(".global x;\n" + std::string(2100000, ';')),
             Contains("more than 2000000 tokens"));
}

TEST_CASE("pto: numbers past 64 bits are located errors", "[frontend][hostile]") {
  CHECK_THAT(pto_error(pto_text("  %c = arith.constant 99999999999999999999999 : index\n")),
             Contains("p.litmus:6:23: error: number '99999999999999999999999' does not fit"));
  CHECK_THAT(pto_error(pto_text("  %c = arith.constant 4611686018427387905 : index\n")),
             Contains("p.litmus:6:23: error: integer 4611686018427387905 is out of range"));
  CHECK_THAT(pto_error(pto_text("  %m = pto.pset_b32 \"PAT_VL99999999999999999999999\" : "
                                "!pto.mask<b32>\n")),
             Contains("p.litmus:6:21: error: number '99999999999999999999999' does not fit"));
  CHECK_THAT(pto_error(pto_text("  %x = pto.vlds %buf[0] : !pto.ptr<f32, ub> -> "
                                "!pto.vreg<99999999999999999999999xf32>\n")),
             Contains("p.litmus:6:48: error: number '99999999999999999999999' does not fit"));
  CHECK_THAT(pto_error(pto_text("  %x = pto.vlds %buf[0] : !pto.ptr<f32, ub> -> "
                                "!pto.vreg<18446744073709551615xf32>\n")),
             Contains("holds too many bytes"));
  CHECK_THAT(pto_error("PTO h\n{\n  ub f32 buf[64];\n}\nP99999999999999999999999: pto.vecscope {\n"
                       "}\nexists (buf[0] == 0.0)\n"),
             Contains("p.litmus:5:1: error: bad core name"));
}

TEST_CASE("pto: elaboration is bounded whatever the loops hold", "[frontend][hostile]") {
  // 20,000 iterations of 2,000 constants (or of 2,000 zero-trip loops) emit
  // no operation and passed every cap: 17 s before, unbudgeted.
  std::string consts = "  scf.for %i = 0 to 20000 step 1 {\n";
  for (int j = 0; j < 2000; ++j)
    consts += fmt::format("    %k{} = arith.constant {} : index\n", j, j);
  const double t0 = testing::process_cpu_seconds();
  CHECK_THAT(pto_error(pto_text(consts + "  }\n")),
             Contains("error: the program runs more than 1000000 statements and loop iterations"));
  std::string zero = "  scf.for %i = 0 to 20000 step 1 {\n";
  for (int j = 0; j < 2000; ++j)
    zero += fmt::format("    scf.for %j{} = 0 to 0 step 1 {{\n    }}\n", j);
  CHECK_THAT(pto_error(pto_text(zero + "  }\n")), Contains("more than 1000000 statements"));
  CHECK(testing::process_cpu_seconds() - t0 < 20.0);
  // 2^62 trips, 100,000 nested loops, 100,000 cores, long names, buffers.
  CHECK_THAT(pto_error(pto_text("  scf.for %i = 0 to 4611686018427387904 step 1 {\n  }\n")),
             Contains("p.litmus:6:3: error: scf.for runs 4611686018427387904 iterations"));
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += "scf.for %i = 0 to 1 step 1 {\n";
  CHECK_THAT(pto_error(pto_text(deep)), Contains("scf.for nested deeper than 64 levels"));
  std::string cores = "PTO c\n{\n  ub f32 buf[64];\n}\n";
  for (int i = 0; i < 100000; ++i) cores += fmt::format("P{}: pto.vecscope {{\n}}\n", i);
  CHECK_THAT(pto_error(cores + "exists (buf[0] == 0.0)\n"),
             Contains("p.litmus:133:1: error: bad core name 'P64'"));
  CHECK_THAT(
      pto_error(pto_text("  %" + std::string(10000000, 'x') + " = arith.constant 1 : index\n")),
      Contains("p.litmus:6:3: error: a name of 10000001 bytes: names are at most 256"));
  std::string bufs = "PTO b\n{\n";
  for (int i = 0; i < 1100; ++i) bufs += fmt::format("  ub f32 b{}[1];\n", i);
  CHECK_THAT(pto_error(bufs + "}\npto.vecscope {\n}\nexists (b0[0] == 0.0)\n"),
             Contains("p.litmus:1027:10: error: more than 1024 buffers"));
  std::string big = "PTO b\n{\n";
  for (int i = 0; i < 17; ++i) big += fmt::format("  ub f32 b{}[65536];\n", i);
  CHECK_THAT(pto_error(big + "}\npto.vecscope {\n}\nexists (b0[0] == 0.0)\n"),
             Contains("p.litmus:19:10: error: the buffers hold more than 1048576 elements"));
  CHECK_THAT(pto_error(pto_text(std::string(2100000, ';'))), Contains("more than 2000000 tokens"));
}

TEST_CASE("pto: the explorer's search is not a recursion", "[pto][engines][hostile]") {
  // Eight cores of 20,000 barriers: a path of 160,000 steps overflowed the
  // stack (SIGSEGV) when each step was a call, and the race check compared
  // 1.1e10 pairs of operations that touch no memory.
  const LitmusTest t =
      detail::parse_pto_litmus(pto_loop(8, 20000, "pto.barrier #pto.pipe"), "b.litmus").front();
  EngineOptions o;
  o.engine = EngineKind::Enum;
  const TestResult r = run_engine(t, o);
  CHECK(r.outcomes.size() == 1);
  CHECK(r.holds);
}

TEST_CASE("pto: the solver encoding heeds the budget", "[pto][engines][hostile]") {
  // Two cores of 4,000 vlds under a 1 s budget. A `distinct` over the 8,000
  // access times made Z3 preprocess past 100 s, deaf to its interrupt.
  const LitmusTest t =
      detail::parse_pto_litmus(
          pto_loop(2, 4000, "%x = pto.vlds %buf[0] : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>"),
          "z.litmus")
          .front();
  EngineOptions o;
  o.engine = EngineKind::Z3;
  o.limits = BudgetLimits{1, 0};
  const auto t0 = std::chrono::steady_clock::now();
  CHECK_THROWS_AS(with_budget(o, [&](const EngineOptions& b) { return run_engine(t, b); }),
                  BudgetExceeded);
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(7));  // 2T + 5 s
}

TEST_CASE("pto: the race notes check the budget", "[pto][engines][hostile]") {
  // Two cores of 100 vlds: 10,000 pairs, the budget checked every 4,096.
  const LitmusTest t =
      detail::parse_pto_litmus(
          pto_loop(2, 100, "%x = pto.vlds %buf[0] : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>"),
          "r.litmus")
          .front();
  CHECK(pto_exec::static_notes(t).empty());  // loads only: no race
  Budget spent(BudgetLimits{0.001, 0});
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  CHECK_THROWS_AS(pto_exec::static_notes(t, &spent), BudgetExceeded);
}

TEST_CASE("truncated .test and PTO files are located errors", "[frontend][hostile]") {
  // Every prefix (in steps, about 60 per file) of the shipped PTO tests and
  // of NVIDIA's .test files: a test or an InputError, nothing else.
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(fs::path(REDSCOPE_SOURCE_DIR) / "litmus/pto"))
    if (e.path().extension() == ".litmus") files.push_back(e.path());
  const fs::path nv = fs::path(REDSCOPE_SHARED_DIR) / "conformance/nvlitmus";
  if (fs::is_directory(nv))
    for (const auto& e : fs::directory_iterator(nv))
      if (e.path().extension() == ".test") files.push_back(e.path());
  REQUIRE(files.size() >= 40);
  std::size_t errors = 0, parsed = 0;
  for (const fs::path& f : files) {
    const std::string text = read(f);
    const bool is_pto = f.extension() == ".litmus";
    for (std::size_t n = 0; n <= text.size(); n += 1 + text.size() / 60) {
      const std::string cut = text.substr(0, n);
      try {
        if (is_pto)
          detail::parse_pto_litmus(cut, f.string());
        else
          detail::parse_nv_test(cut, f.string());
        ++parsed;
      } catch (const InputError&) {
        ++errors;
      }
    }
  }
  CHECK(errors > 0);
  CHECK(parsed > 0);
}

}  // namespace unit_hostile_nv_pto
