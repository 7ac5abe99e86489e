// redscope_differential: random tests through the z3, enum and op engines,
// every disagreement reported (tests/differential.hpp; docs/testing.md "The
// differential tester"). Exit 0 when no test failed, 1 when some did, 2 on
// bad usage.
#include <charconv>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "differential.hpp"
#include "redscope/core/allocator.hpp"

using namespace redscope::differential;

namespace {

constexpr std::string_view kUsage = R"(usage: redscope_differential [options]
  --seed S          the tests' seed (default 31)
  --first I         index of the first test (default 0)
  --count N         number of tests (default 500)
  --seconds T       stop starting tests after T seconds (default: no limit)
  --jobs J          tests run on J threads (default 1)
  --features LIST   what the tests use (default generic): names and sets,
                    comma-separated, '-' to remove: access rmw fence barrier
                    placement shared sm60 deps vector proxy surface bulk;
                    generic, proxies (= proxy,surface,bulk), all
  --findings DIR    write each failing test as DIR/NAME.litmus
  --minimize        also a minimized failing test, NAME.min (printed, and
                    written to DIR/NAME.min.litmus)
  --max-total N     instructions per test (default 7)
  --tolerate LIST   print disagreements of these classes but do not fail:
                    z3-enum, op-forbidden, op-missed, op-missed-documented
                    (implies --triage), engine-error
  --fail-on-refusal a test the operational machine refuses fails
  --triage          sort each outcome the machine misses by the documented
                    shape that explains it (class op-missed-documented);
                    op-missed is then for the unexplained ones
  --keep-thin-air   do not also compare z3 and enum with No-Thin-Air left out
                    (done by default on tests with value dependencies or RMWs)
  --timeout T       seconds per engine and test (default 30)
  --enum-limit N    enum choices / op states per test (default 2000000)
  --observe LIST    observables: all (default) or condition
  --verbose         a line per test
  --print I         print test I of the seed (with --features) and exit
  --rejects         with --print: the diagnostics of the drafts thrown away
)";

bool number(std::string_view s, std::uint64_t& out) {
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

bool real(const std::string& s, double& out) {
  char* end = nullptr;
  out = std::strtod(s.c_str(), &end);
  return !s.empty() && end == s.c_str() + s.size() && out >= 0;
}

}  // namespace

int main(int argc, char** argv) {
  redscope::tune_allocator();  // before any thread starts
  RunOptions o;
  std::optional<std::uint64_t> print;
  bool rejects = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << a << " needs a value\n" << kUsage;
        std::exit(2);
      }
      return argv[++i];
    };
    auto bad = [&](const std::string& v) {
      std::cerr << "bad value for " << a << ": '" << v << "'\n" << kUsage;
      std::exit(2);
    };
    std::uint64_t n = 0;
    if (a == "--seed") {
      const std::string v = value();
      if (!number(v, o.seed)) bad(v);
    } else if (a == "--first") {
      const std::string v = value();
      if (!number(v, o.first)) bad(v);
    } else if (a == "--count") {
      const std::string v = value();
      if (!number(v, o.count)) bad(v);
    } else if (a == "--seconds") {
      const std::string v = value();
      if (!real(v, o.max_seconds)) bad(v);
    } else if (a == "--jobs") {
      const std::string v = value();
      if (!number(v, n) || n == 0 || n > 256) bad(v);
      o.jobs = static_cast<unsigned>(n);
    } else if (a == "--features") {
      const std::string v = value();
      const auto f = parse_features(v);
      if (!f) bad(v);
      o.gen.features = *f;
    } else if (a == "--findings") {
      o.findings_dir = value();
    } else if (a == "--timeout") {
      const std::string v = value();
      if (!real(v, o.driver.engine_seconds)) bad(v);
    } else if (a == "--enum-limit") {
      const std::string v = value();
      if (!number(v, n) || n == 0) bad(v);
      o.driver.enum_limit = n;
    } else if (a == "--observe") {
      const std::string v = value();
      if (v != "all" && v != "condition") bad(v);
      o.driver.observe_all = v == "all";
    } else if (a == "--tolerate") {
      const std::string v = value();
      const auto c = parse_classes(v);
      if (!c) bad(v);
      o.tolerate = *c;
    } else if (a == "--triage") {
      o.driver.triage = true;
    } else if (a == "--keep-thin-air") {
      o.driver.without_thin_air = false;
    } else if (a == "--fail-on-refusal") {
      o.fail_on_refusal = true;
    } else if (a == "--minimize") {
      o.minimize = true;
    } else if (a == "--max-total") {
      const std::string v = value();
      if (!number(v, n) || n == 0 || n > 64) bad(v);
      o.gen.max_total = static_cast<int>(n);
    } else if (a == "--verbose") {
      o.verbose = true;
    } else if (a == "--print") {
      const std::string v = value();
      if (!number(v, n)) bad(v);
      print = n;
    } else if (a == "--rejects") {
      rejects = true;
    } else if (a == "--help" || a == "-h") {
      std::cout << kUsage;
      return 0;
    } else {
      std::cerr << "unknown option " << a << "\n" << kUsage;
      return 2;
    }
  }
  // Only triage tells the documented misses from the others.
  if (o.tolerate & kOpMissedDocumented) o.driver.triage = true;
  if (print) {
    const Generated g = generate(o.seed, *print, o.gen);
    std::cout << g.text;
    std::cerr << fmt::format("{}: features {}, {} draft(s)\n", g.name, render_features(g.used),
                             g.attempts);
    if (rejects)
      for (const std::string& r : g.rejected) std::cerr << "  rejected: " << r << "\n";
    return 0;
  }
  std::cout << fmt::format("differential: seed {}, tests {}..{}, features {}, {} job(s)\n", o.seed,
                           o.first, o.first + o.count - 1, render_features(o.gen.features), o.jobs)
            << std::flush;
  const RunSummary s = run(o, std::cout);
  std::cout << render_summary(o, s);
  return s.ok() ? 0 : 1;
}
