// The reference enumerator and the Z3 engine must allow exactly the same
// outcomes (every register and location observed) on every test of litmus/
// and of ../shared/conformance (proxy tests are rejected by both). A
// difference is a defect in one of the two; the message names the test and
// the first differing outcome.
#include <catch2/catch.hpp>

#include <filesystem>

#include "redscope/engine.hpp"
#include "redscope/frontend.hpp"
#include "redscope/suite.hpp"

using namespace redscope;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> suites() {
  std::vector<std::string> paths;
  for (const std::string dir : {std::string(REDSCOPE_SOURCE_DIR) + "/litmus",
                                std::string(REDSCOPE_SHARED_DIR) + "/conformance/dat3m-ptx"})
    if (fs::is_directory(dir))
      for (const std::string& f : collect_litmus_files({dir})) paths.push_back(f);
  return paths;
}

std::string render(const TestResult& r) {
  std::string s;
  for (std::size_t i = 0; i < r.outcomes.size(); ++i) {
    for (std::size_t k = 0; k < r.observables.size(); ++k) s += r.observables[k].label + "=" + r.render_value(i, k) + " ";
    s += "\n";
  }
  return s;
}

}  // namespace

TEST_CASE("z3 and enum engines allow the same outcomes on every suite test", "[engines]") {
  const std::vector<std::string> files = suites();
  REQUIRE(files.size() > 68);  // litmus/classic alone has 68
  std::size_t compared = 0;
  for (const std::string& f : files) {
    INFO(f);
    LitmusTest t;
    try {
      t = parse_litmus_file(f);
    } catch (const InputError& e) {
      CHECK_THAT(e.diagnostic().message, Catch::Contains("proxies not supported yet"));
      continue;
    }
    EngineOptions o;
    o.observe_all = true;
    const TestResult z = run_z3(t, o);
    o.engine = EngineKind::Enum;
    const TestResult e = run_enum(t, o);
    CHECK(render(z) == render(e));
    CHECK(z.incomplete.bound_cut == e.incomplete.bound_cut);
    CHECK(z.incomplete.barrier_deadlock == e.incomplete.barrier_deadlock);
    ++compared;
  }
  WARN(compared << " tests compared");
}
