// Truncated and mutated copies of every conformance and litmus/ file must give
// a diagnostic (InputError) or a result: never a crash, a hang or another
// exception. ctest also runs this file under ASan+UBSan (sanitizer_fuzz.sh).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "cpu_clock.hpp"
#include "fuzz.hpp"
#include "redscope/driver/engines.hpp"
#include "redscope/driver/suite.hpp"
#include "redscope/engine/engine.hpp"
#include "redscope/engine/z3/z3.hpp"
#include "redscope/frontend/frontend.hpp"
#include "redscope/registry/registry.hpp"

// This file's own names (the unit tests compile in batches).
namespace unit_fuzz {

using namespace redscope;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> corpus() {
  std::vector<std::string> paths;
  for (const std::string& dir : {std::string(REDSCOPE_SHARED_DIR) + "/conformance/dat3m-ptx",
                                 std::string(REDSCOPE_SOURCE_DIR) + "/litmus"})
    if (fs::is_directory(dir))
      for (const std::string& f : collect_litmus_files({dir})) paths.push_back(f);
  return paths;
}

// Mutants per corpus file: 10, or REDSCOPE_FUZZ_MUTANTS (sanitizer_fuzz.sh
// asks for fewer: under ASan+UBSan each check costs ~6x, and the fuzz
// harness that runs after the unit tests mutates the same corpus anyway).
int mutants_per_file() {
  const char* v = std::getenv("REDSCOPE_FUZZ_MUTANTS");
  const int n = v ? std::atoi(v) : 10;
  return n > 0 ? n : 10;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// "ok", "diagnostic", or a description of what went wrong.
std::string check(const std::string& text) {
  try {
    const LitmusTest t = parse_litmus(text, "mutant.litmus");
    EngineOptions o;
    o.expand.unroll = 1;
    o.expand.max_paths = 64;
    (void)run_z3(t, o);
    return "ok";
  } catch (const InputError& e) {
    const std::string d = e.diagnostic().render();
    if (d.rfind("mutant.litmus:", 0) != 0) return "diagnostic without file:line:col: " + d;
    return "diagnostic";
  } catch (const std::exception& e) {
    return std::string("unexpected exception: ") + e.what();
  }
}

std::string mutate(std::string s, std::mt19937& rng) {
  static const std::string alphabet = ";|,{}[]()\n0123456789.:=~/\\ -@rPxLCabz\"$";
  if (s.empty()) return s;
  auto pos = [&] { return std::uniform_int_distribution<std::size_t>(0, s.size() - 1)(rng); };
  switch (rng() % 5) {
    case 0: s.erase(pos(), 1); break;
    case 1: s.insert(pos(), 1, alphabet[rng() % alphabet.size()]); break;
    case 2: s[pos()] = alphabet[rng() % alphabet.size()]; break;
    case 3: {  // duplicate a line
      const std::size_t a = s.rfind('\n', pos());
      const std::size_t start = a == std::string::npos ? 0 : a + 1;
      const std::size_t end = s.find('\n', start);
      s.insert(start,
               s.substr(start, end == std::string::npos ? std::string::npos : end - start + 1));
      break;
    }
    default: {  // delete a line
      const std::size_t a = s.rfind('\n', pos());
      const std::size_t start = a == std::string::npos ? 0 : a + 1;
      const std::size_t end = s.find('\n', start);
      s.erase(start, end == std::string::npos ? std::string::npos : end - start + 1);
    }
  }
  return s;
}

}  // namespace

TEST_CASE("truncated conformance files give a diagnostic or a result", "[fuzz]") {
  const auto files = corpus();
  if (files.empty()) WARN("no corpus found (../shared absent and litmus/ empty)");
  std::size_t diagnostics = 0, results = 0;
  for (const std::string& f : files) {
    const std::string text = slurp(f);
    for (int k = 1; k <= 8; ++k) {
      const std::string cut = text.substr(0, text.size() * static_cast<std::size_t>(k) / 9);
      const std::string r = check(cut);
      INFO(f << " truncated to " << cut.size() << " bytes");
      REQUIRE((r == "ok" || r == "diagnostic"));
      (r == "ok" ? results : diagnostics)++;
    }
  }
  CHECK(diagnostics > 0);
}

TEST_CASE("mutated conformance files give a diagnostic or a result", "[fuzz]") {
  const auto files = corpus();
  std::mt19937 rng(20261122);
  std::size_t diagnostics = 0, results = 0;
  const int mutants = mutants_per_file();
  for (const std::string& f : files) {
    const std::string text = slurp(f);
    for (int k = 0; k < mutants; ++k) {
      std::string m = text;
      const int edits = 1 + static_cast<int>(rng() % 3);
      for (int e = 0; e < edits; ++e) m = mutate(m, rng);
      const std::string r = check(m);
      INFO(f << " mutant " << k << ":\n" << m);
      REQUIRE((r == "ok" || r == "diagnostic"));
      (r == "ok" ? results : diagnostics)++;
    }
  }
  if (!files.empty()) {
    CHECK(diagnostics > 0);
    CHECK(results > 0);
  }
}

TEST_CASE("every conformance file parses, proxy tests included", "[fuzz][frontend]") {
  for (const std::string& f : corpus()) {
    INFO(f);
    CHECK_NOTHROW(parse_litmus_file(f));
  }
}

namespace {

// One thread: a read of x, `n` dependent `op` lines, the result stored back.
std::string chain_test(int n, const std::string& op = "add r0, r0, 1") {
  std::string s = "PTX chain\n{\nx=0;\n}\n P0@cta 0,gpu 0 ;\n ld.weak r0, x ;\n";
  for (int i = 0; i < n; ++i) s += " " + op + " ;\n";
  s += " st.weak x, r0 ;\nexists (x == " + std::to_string(n) + ")\n";
  return s;
}

}  // namespace

TEST_CASE("a chain of dependent operations deeper than the bound is a located error",
          "[fuzz][depth]") {
  const double t0 = testing::process_cpu_seconds();
  const LitmusTest t = parse_litmus(chain_test(10000), "deep.litmus");
  EngineOptions o;
  try {
    (void)run_z3(t, o);
    FAIL("no error for a 10,000-deep chain");
  } catch (const InputError& e) {
    // The 1000th add (line 6 + 1000) is the first value deeper than 1000.
    CHECK(e.diagnostic().render().rfind("deep.litmus:1006:", 0) == 0);
    CHECK_THAT(e.diagnostic().message, Catch::Contains("more than 1000 dependent operations"));
  }
  CHECK(testing::process_cpu_seconds() - t0 < 20.0);
}

TEST_CASE("a 500-deep chain of dependent operations is checked by every engine", "[fuzz][depth]") {
  const LitmusTest t = parse_litmus(chain_test(500), "chain.litmus");
  EngineOptions o;
  for (EngineKind k : {EngineKind::Z3, EngineKind::Enum, EngineKind::Op}) {
    o.engine = k;
    const TestResult r = run_engine(t, o);
    INFO(to_string(k));
    CHECK(r.holds);
    REQUIRE(r.outcomes.size() == 1);
    CHECK(r.outcomes[0].values == std::vector<std::uint64_t>{500});
  }
}

TEST_CASE("shared subterms are walked once: add r0, r0, r0 doubles the unfolded tree",
          "[fuzz][depth]") {
  // 200 doublings unfold to 2^200 nodes; the DAG has 200.
  const LitmusTest t = parse_litmus(chain_test(200, "add r0, r0, r0"), "dag.litmus");
  const Expansion ex = expand(t, ExpandOptions{});
  REQUIRE(ex.skeletons.size() == 1);
  const ExprPtr& v = ex.skeletons[0].final_regs.at(RegName{0, "r0"});
  CHECK(v->depth == 201);
  CHECK(v->size == kSizeCap);
  CHECK_FALSE(v->has_float);
  CHECK(reads_of(v).size() == 1);
  CHECK(evaluate(v, [](ReadRef) { return std::uint64_t{3}; }) == 0);  // 3 * 2^200 mod 2^32
  EngineOptions o;
  o.engine = EngineKind::Enum;
  const TestResult r = run_engine(t, o);
  REQUIRE(r.outcomes.size() == 1);
  CHECK(r.outcomes[0].values == std::vector<std::uint64_t>{0});
}

// NVIDIA's .test files through their own dialect: truncated and mutated
// (holes, bars and the `$$` line included), every one parses to tests that
// run, or gives a located diagnostic; never a crash or another exception.
TEST_CASE("mutated .test files give a diagnostic or a result", "[fuzz]") {
  const std::string dir = std::string(REDSCOPE_SHARED_DIR) + "/conformance/nvlitmus";
  if (!fs::is_directory(dir)) return;
  std::mt19937 rng(20261124);
  std::size_t diagnostics = 0, results = 0;
  auto check_nv = [&](const std::string& text) -> std::string {
    try {
      const std::vector<LitmusTest> ts = dialects()[1].parse(text, "mutant.test");
      EngineOptions o;
      o.expand.unroll = 1;
      for (std::size_t i = 0; i < ts.size() && i < 2; ++i) (void)run_z3(ts[i], o);
      return "ok";
    } catch (const InputError& e) {
      const std::string d = e.diagnostic().render();
      return d.rfind("mutant.test:", 0) == 0 ? "diagnostic" : "unlocated: " + d;
    } catch (const std::exception& e) {
      return std::string("unexpected exception: ") + e.what();
    }
  };
  // One entry per file (a template's rows share their file's text).
  std::set<std::string> files;
  for (const std::string& f : collect_litmus_files({dir})) files.insert(f.substr(0, f.rfind('#')));
  const int mutants = 2 + 4 * mutants_per_file();  // the first two: half a file, a bad bar
  for (const std::string& f : files) {
    const std::string text = slurp(f);
    for (int k = 0; k < mutants; ++k) {
      std::string m = text;
      if (k == 0) m = text.substr(0, text.size() / 2);
      if (k == 1) m += "\n|$9|\n";
      for (int e = 0; k > 1 && e < 1 + static_cast<int>(rng() % 3); ++e) m = mutate(m, rng);
      const std::string r = check_nv(m);
      INFO(f << " mutant " << k << ":\n" << m);
      REQUIRE((r == "ok" || r == "diagnostic"));
      (r == "ok" ? results : diagnostics)++;
    }
  }
  CHECK(diagnostics > 0);
  CHECK(results > 0);
}

// Every target of the fuzz harness (tests/fuzz.hpp: PTX, .test, SASS litmus,
// sass encode and decode listings, PTO, cat models, merge JSON): its fast
// check on the first inputs of a run (the corpus files, then mutants with
// the hostile classes of issue 28) gives a result or a located diagnostic.
TEST_CASE("every fuzz target's mutants give a diagnostic or a result", "[fuzz]") {
  const fuzz::Corpora c = fuzz::load_corpora({std::string(REDSCOPE_SOURCE_DIR) + "/litmus",
                                              std::string(REDSCOPE_SHARED_DIR) + "/conformance",
                                              std::string(REDSCOPE_SOURCE_DIR) + "/models",
                                              std::string(REDSCOPE_SOURCE_DIR) + "/docs/matrices"},
                                             "");
  std::vector<fuzz::Target> targets;
  for (fuzz::Target t : fuzz::kTargets)
    if (!c[static_cast<std::size_t>(t)].texts.empty()) targets.push_back(t);
  CHECK(targets.size() >= 6);  // ptx, sass, sass-asm, sass-words, pto, cat (merge needs a corpus)
  const fuzz::FastContext ctx = fuzz::fast_context(c);
  const std::uint64_t n = targets.size() * 25 * static_cast<std::uint64_t>(mutants_per_file());
  std::map<fuzz::Target, std::size_t> diagnostics;
  for (std::uint64_t i = 0; i < n; ++i) {
    const fuzz::Input in = fuzz::make_input(c, targets, 28, i);
    const fuzz::Verdict v = fuzz::check_fast(in, ctx);
    INFO(fuzz::name(in.target) << " input " << i << " (" << in.how << "):\n"
                               << in.text.substr(0, 2000));
    INFO(v.stage << ": " << v.detail);
    REQUIRE(v.kind != fuzz::Verdict::Finding);
    if (v.kind == fuzz::Verdict::Diagnostic) diagnostics[in.target]++;
  }
  for (fuzz::Target t : targets) {
    INFO(fuzz::name(t));
    CHECK(diagnostics[t] > 0);
  }
}

// Found by the fuzz harness (sass-words, seed 2028): a byte 0xf5-0xff was
// read as the lead of a 3-byte sequence, so "\xff\xbb\xbf" reached a
// diagnostic raw and the message was not UTF-8. Every such byte is U+FFFD.
TEST_CASE("diagnostics replace the bytes 0xf5 to 0xff as no UTF-8 sequence starts with them",
          "[fuzz]") {
  for (int lead = 0xf5; lead <= 0xff; ++lead) {
    const std::string bad = std::string("0x547e") + static_cast<char>(lead) + "\xbb\xbf" + "28";
    const std::string d = Diagnostic{"m.words", {1, 1}, "found '" + bad + "'"}.render();
    INFO(lead);
    CHECK(d ==
          "m.words:1:1: error: found '0x547e\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
          "28'");
    CHECK(valid_utf8(bad) ==
          "0x547e\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
          "28");
  }
}

}  // namespace unit_fuzz
