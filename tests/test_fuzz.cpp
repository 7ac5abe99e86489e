// Truncated and mutated copies of every conformance and litmus/ file must give
// a diagnostic (InputError) or a result: never a crash, a hang or another
// exception. ctest also runs this file under ASan+UBSan (sanitizer_fuzz.sh).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "redscope/engine.hpp"
#include "redscope/frontend.hpp"
#include "redscope/suite.hpp"

using namespace redscope;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> corpus() {
  std::vector<std::string> paths;
  for (const std::string dir : {std::string(REDSCOPE_SHARED_DIR) + "/conformance/dat3m-ptx",
                                std::string(REDSCOPE_SOURCE_DIR) + "/litmus"})
    if (fs::is_directory(dir))
      for (const std::string& f : collect_litmus_files({dir})) paths.push_back(f);
  return paths;
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
  static const std::string alphabet = ";|,{}[]()\n0123456789.:=~/\\ -@rPxLCabz\"";
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
      s.insert(start, s.substr(start, end == std::string::npos ? std::string::npos : end - start + 1));
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
  for (const std::string& f : files) {
    const std::string text = slurp(f);
    for (int k = 0; k < 10; ++k) {
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

TEST_CASE("every conformance file parses, except proxy tests, which say so", "[fuzz][frontend]") {
  for (const std::string& f : corpus()) {
    INFO(f);
    try {
      (void)parse_litmus_file(f);
      CHECK(f.find("/proxy/") == std::string::npos);
    } catch (const InputError& e) {
      CHECK(f.find("/proxy/") != std::string::npos);
      CHECK_THAT(e.diagnostic().message, Catch::Contains("proxies not supported yet"));
    }
  }
}
