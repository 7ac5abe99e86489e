// The random differential tester (issue 31, item 6; docs/testing.md "The
// differential tester"): small random PTX litmus tests over a selectable
// feature set, each run by the z3, enum and op engines over the same
// observables, and every outcome one engine allows (or reaches) and another
// does not reported with the test's text. tests/differential_main.cpp is the
// command (the `differential.short` ctest and the long runs);
// tests/test_differential.cpp checks the generator.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "redscope/engine/engine.hpp"

namespace redscope::differential {

// What a generated test may use, one bit each.
enum Feature : std::uint32_t {
  kAccess = 1u << 0,     // ld/st at every .sem and .scope (typed, and Dat3M's untyped forms)
  kRmw = 1u << 1,        // red/atom: every op and type of the syntax table, every .sem/.scope
  kFence = 1u << 2,      // fence.sc/.acq_rel at every scope, membar
  kBarrier = 1u << 3,    // bar.cta.sync/arrive (Dat3M's convention)
  kPlacement = 1u << 4,  // several GPUs and clusters (without it: two CTAs of one GPU)
  kShared = 1u << 5,     // shared memory on sm_90: .shared::cta, .shared::cluster windows
  kSm60 = 1u << 6,       // a third of the tests at Target=sm_60 (legacy forms, shared memory)
  kDeps = 1u << 7,       // stores of loaded values, guards, forward branches
  kVector = 1u << 8,     // v2 f32 ld/st/red/atom
  kProxy = 1u << 9,      // aliases, suld/sust/tld/ld.const, fence.proxy.{alias,...}
  kSurface = 1u << 10,   // surfaces and sured
  kBulk = 1u << 11,      // multimem.cp.reduce.async.bulk, commit/wait_group, fence.proxy.async
};
// What the operational machine checks today.
inline constexpr std::uint32_t kGeneric =
    kAccess | kRmw | kFence | kBarrier | kPlacement | kShared | kSm60 | kDeps | kVector;
// What it refuses until it models proxies (docs/model.md "Proxies").
inline constexpr std::uint32_t kProxyFeatures = kProxy | kSurface | kBulk;
inline constexpr std::uint32_t kAllFeatures = kGeneric | kProxyFeatures;

// "access", "rmw", ..., one per bit, in bit order.
std::vector<std::string_view> feature_names();
// A comma-separated list of names and sets ("generic", "proxies", "all"),
// each optionally prefixed by '-' to remove it: "all,-bulk",
// "generic,proxy". nullopt for an unknown name.
std::optional<std::uint32_t> parse_features(std::string_view list);
std::string render_features(std::uint32_t features);

struct GenOptions {
  std::uint32_t features = kGeneric;
  int min_threads = 2, max_threads = 4;
  int max_locations = 3;
  int max_instructions = 3;  // per thread
  int max_total = 7;         // in the test (each thread has one at least)
};

struct Generated {
  std::string name;  // "diff-s<seed>-<index>", also the test's name in its header
  std::string text;
  std::uint32_t used = 0;             // the features the test actually uses
  int attempts = 1;                   // drafts made until one parsed and expanded
  std::vector<std::string> rejected;  // the diagnostics of the drafts thrown away
};

// Test `index` of `seed`: a function of (seed, index, options) alone. Drafts
// that do not parse or expand are thrown away and the next one drawn (their
// diagnostics kept); throws std::runtime_error after 100 of them.
Generated generate(std::uint64_t seed, std::uint64_t index, const GenOptions& opts);
std::string test_name(std::uint64_t seed, std::uint64_t index);

// One engine's answer on a test.
struct Answer {
  enum class Status : std::uint8_t { Ok, Refused, GaveUp, Error };
  Status status = Status::Ok;
  std::string message;              // the diagnostic unless Ok
  std::vector<std::string> labels;  // the observables
  // One line per outcome: "label=value ..." (trap/undefined as the status).
  std::set<std::string> outcomes;
  IncompletePaths incomplete;
  double seconds = 0;
};
std::string_view to_string(Answer::Status s);

struct DriverOptions {
  bool observe_all = true;             // every register and location observed
  double engine_seconds = 30;          // per engine and test (--timeout)
  std::size_t enum_limit = 2'000'000;  // enum: choices; op: states
  // Sort each outcome the machine misses by the documented shape that
  // explains it (docs/model.md "Where it is stronger than the model"): the
  // z3 engine under models/ptx.cat plus an axiom that rules the shape out
  // forbids it. Today one shape, one axiom: coherence total per location
  // ("Total-co"; the machine keeps one newest message per cell).
  bool triage = false;
  // Also run z3 and enum with the model's No-Thin-Air check left out (a
  // model that allows out-of-thin-air values, issue 43) on tests with value
  // dependencies or RMWs, and compare the two (kZ3Enum); at most
  // `thin_air_outcomes` outcomes each (a cycle whose every value is a
  // solution is unbounded: both give up).
  bool without_thin_air = true;
  std::size_t thin_air_outcomes = 64;
};

// What kind of disagreement a test shows, one bit each.
enum Class : std::uint32_t {
  kZ3Enum = 1u << 0,       // z3 and enum allow different outcomes (or count paths differently)
  kOpForbidden = 1u << 1,  // the machine reaches an outcome z3 or enum forbids (unsound)
  kOpMissed = 1u << 2,     // z3 and enum allow an outcome the machine never reaches
  kEngineError = 1u << 3,  // an engine failed (not a refusal, not a limit)
  // With DriverOptions::triage: an outcome the machine never reaches that a
  // documented shape explains (docs/model.md "Where it is stronger than the
  // model"; see `triage` below). kOpMissed is then only for the others.
  kOpMissedDocumented = 1u << 4,
};
std::string render_classes(std::uint32_t classes);                  // "op-forbidden,op-missed"
std::optional<std::uint32_t> parse_classes(std::string_view list);  // the same names

struct Verdict {
  Generated test;
  Answer z3, en, op;
  // DriverOptions::without_thin_air: z3's and enum's answers under the
  // model without No-Thin-Air (when the test was run so).
  std::optional<Answer> z3_nta, en_nta;
  // One line per disagreement: "z3 allows, enum allows, op does not reach:
  // P0:r0=1 ...".
  std::vector<std::string> disagreements;
  std::vector<std::string> errors;  // an engine's error (not a refusal or a give-up)
  std::uint32_t classes = 0;
  bool failed() const { return !disagreements.empty() || !errors.empty(); }
};

// Runs the three engines on `test` and compares their outcome sets (and
// z3's and enum's incomplete-path counts). An op engine that refuses the
// test ("the operational machine (--engine op) ...") is Refused, not an
// error; a test past the enumerator's or the machine's limit or the time
// budget is GaveUp for that engine, and it is then left out of the
// comparisons.
Verdict check(const Generated& test, const DriverOptions& opts);
// The verdict as a report: name, features, each disagreement and error,
// the engines' answers, and the test's text.
std::string render_verdict(const Verdict& v);
// The test with the report as a comment after its first line, parseable.
std::string finding_file(const Verdict& v);

// A smaller test with a disagreement of the same class (the first of
// op-forbidden, z3-enum, engine-error, op-missed, op-missed-documented that
// the test shows): threads, instructions and declarations taken away one at
// a time, greedily, while the test stays valid and keeps that class (at most
// `max_checks` runs of the three engines). The name gets ".min".
Verdict minimize(const Verdict& v, const DriverOptions& opts, int max_checks = 400);

struct RunOptions {
  std::uint64_t seed = 31;
  std::uint64_t first = 0;  // index of the first test
  std::uint64_t count = 500;
  double max_seconds = 0;  // stop after this long (0: no limit)
  unsigned jobs = 1;
  GenOptions gen;
  DriverOptions driver;
  std::string findings_dir;  // where NAME.litmus of each failure goes ("" none)
  // Also NAME.min.litmus (minimize) for each failure with another class
  // than op-missed-documented.
  bool minimize = false;
  // Disagreements of these classes are printed and written but do not fail
  // the run (0: every disagreement fails, the default).
  std::uint32_t tolerate = 0;
  bool fail_on_refusal = false;  // a test the machine refuses fails the run
  bool verbose = false;          // a line per test
};

struct RunSummary {
  std::uint64_t tests = 0, failed = 0, disagreements = 0, errors = 0;
  std::map<std::uint32_t, std::uint64_t> by_class;  // failed tests per set of classes
  std::uint64_t tolerated = 0;                      // failed tests whose classes are all tolerated
  std::uint64_t op_refused = 0;                     // tests the machine refused
  std::uint64_t gave_up = 0;                        // tests some engine gave up on
  std::uint64_t attempts = 0;                       // drafts generated, thrown away ones included
  std::uint64_t outcomes = 0;                       // z3's outcomes, summed
  double seconds = 0, z3_seconds = 0, enum_seconds = 0, op_seconds = 0;
  double thin_air_seconds = 0;  // z3 and enum without No-Thin-Air (DriverOptions)
  std::vector<std::string> failed_names;
  bool ok() const { return failed == tolerated; }
};

// Tests first..first+count-1 of `seed` on `jobs` threads; every failure is
// printed to `out` when found (render_verdict) and written to findings_dir,
// progress every 1000 tests, then the summary.
RunSummary run(const RunOptions& opts, std::ostream& out);
std::string render_summary(const RunOptions& opts, const RunSummary& s);

}  // namespace redscope::differential
