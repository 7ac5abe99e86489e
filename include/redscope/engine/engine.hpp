// What every engine shares: which engine, the options of a check, the model
// a test is checked against, and the two steps that open and settle a
// result (engines fill in outcomes between them). Each engine's entry point
// is in its own header: engine/z3/z3.hpp, engine/enumerate/enumerate.hpp,
// engine/machine/machine.hpp; the dispatch among them in driver/engines.hpp.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "redscope/core/budget.hpp"
#include "redscope/core/litmus.hpp"
#include "redscope/core/model.hpp"
#include "redscope/engine/progress.hpp"
#include "redscope/events/events.hpp"
#include "redscope/results/outcome_store.hpp"
#include "redscope/results/results.hpp"

namespace redscope {

namespace cat {
struct Model;
}
struct EnumCandidate;  // engine/enumerate/enumerate.hpp

// z3: the PTX model encoded in Z3 (the default). enum: the reference
// enumerator, which builds every rf/co candidate and checks the model with
// bit-matrix relation algebra (src/engine/enumerate/enum_engine.cpp), sharing no encoding code.
// op: the operational executor (src/engine/machine/op_engine.cpp), a machine that runs the
// threads step by step over a scope-tree memory (views, messages, storage per
// CTA/cluster/GPU/system); it reaches only allowed outcomes but not load
// buffering; used by `redscope xval`.
// auto (the default): per test, the enumerator or the solver, whichever the
// estimates below say is cheaper (driver/engines.cpp: run_auto).
enum class EngineKind : std::uint8_t { Auto, Z3, Enum, Op };
std::string_view to_string(EngineKind e);

struct EngineOptions {
  EngineKind engine = EngineKind::Auto;
  ExpandOptions expand;
  bool observe_all = false;
  std::optional<ModelRef> model;  // default: chosen from the test (model_for_test)
  // The model these options check `test` against: `model`, else the test's own.
  ModelRef model_for(const LitmusTest& test) const { return model.value_or(model_for_test(test)); }
  // Checks of the model left out, by the names the model gives them
  // (`as Coherence`): for experiments, and for the unit tests that show each
  // axiom forbidding something on its own.
  std::vector<std::string> disabled_checks;
  // Whether the model's check named `check` forbids (is not left out).
  bool enables(std::string_view check) const {
    return std::find(disabled_checks.begin(), disabled_checks.end(), check) ==
           disabled_checks.end();
  }
  // Enumeration stops with an error beyond this many outcomes (a test whose
  // observed values are unbounded, e.g. with No-Thin-Air left out).
  std::size_t max_outcomes = 10000;
  // Input files larger than this are rejected (--max-file-size).
  std::size_t max_file_bytes = std::size_t{16} << 20;
  // Per-test time and memory (--timeout, --max-memory): check_file and the
  // analyses give each test its own Budget from these limits.
  BudgetLimits limits;
  // The running test's budget, checked by the engines (null: unlimited).
  const Budget* budget = nullptr;
  // z3 engine: float operations whose operands take few values are encoded
  // as lookup tables instead of in Z3's floating-point theory (same outcomes;
  // off only to compare the two encodings). Not used with No-Thin-Air off.
  bool float_tables = true;
  // z3 engine (and the PTO semantics' Z3 twin, the query API): run the
  // solver in its own process even for a small test, which otherwise runs in
  // this one (engine/z3/solver_process.hpp). For tests that compare the two.
  bool solver_process = false;
  // enum engine: choices tried before giving up, over the whole test: each rf
  // assignment, each cell's coherence order, each Fence-SC orientation and
  // each barrier arrival set counts one (the op engine: states explored).
  std::size_t enum_limit = 5'000'000;
  // auto engine: past `give_way_after` choices (0: never) the enumerator
  // gives way to the solver (throws EnumGaveWay) while it has found fewer
  // than one outcome per `give_way_ratio` choices, and at enum_limit.
  std::size_t give_way_after = 0;
  std::size_t give_way_ratio = 1000;
  // enum engine: drop every candidate whose values close a cycle of rf and
  // data dependencies, whatever the model (values follow rf acyclically
  // only, as before issue 43). Under a model without No-Thin-Air that misses
  // the cycles' solutions, so it is an under-approximation: only explain's
  // enumeration (a build without Z3) uses it, where the exact search gives
  // up (docs/cli.md "explain").
  bool acyclic_values_only = false;
  // enum engine: search each location on its own and take the product when
  // the model's checks and the outcome split over the locations
  // (docs/model.md "Splitting by location"); off only to compare.
  bool split_by_location = true;
  // Verdict only (`--verdict`, herd7's -speedcheck): decide the condition
  // without listing outcomes. z3 asks one query per path with the
  // proposition (forall: its negation) asserted; enum stops at the first
  // deciding execution; TestResult::verdict_only says which way it went.
  bool verdict_only = false;
  // A caller that prints outcomes one by one (`run`): an engine that can
  // (enum) keeps them in an OutcomeStore and returns it as
  // TestResult::listing, sorted by an external merge in bounded memory;
  // others list `outcomes` as always. Not with verdict_only.
  std::optional<ListingOptions> listing;
  // enum engine: asked of each consistent execution (barriers passing)
  // before its outcomes are made; one it declines makes none. For analyses
  // that look for an execution with given facts (atomicity's lost updates,
  // analysis/execution_search.hpp), which may end the search by throwing.
  // Facts name threads, so with it the threads' symmetry is not used.
  std::function<bool(const EnumCandidate&)> on_execution;
  // Where a long check reports how far it is (null: nowhere): the
  // enumerator, as it checks its budget, with the candidates tried so far
  // (phase "enumerate", total 0: their number is not known beforehand).
  std::shared_ptr<const ProgressReporter> progress;
  // op engine: threads exploring one test's search (results do not depend on it).
  unsigned workers = 1;
  // The cat model deciding consistency (--model FILE.cat): `user_model`,
  // parsed once by the caller, else the file `model_file` (parsed per test),
  // else the models/ptx.cat built into the binary (docs/model.md). The
  // operational machine is hand-written and ignores it (it is the cross-check).
  std::string model_file;
  std::shared_ptr<const cat::Model> user_model;
  // Options a test's semantics reads, by name without the dashes (a
  // dialect's row declares them; `--pto-order tree` is {"pto-order",
  // "tree"}); an option left out has its default.
  std::map<std::string, std::string, std::less<>> semantics_options;
};

// The cat model `opts` selects for `test` (see EngineOptions::model_file).
std::shared_ptr<const cat::Model> model_of(const EngineOptions& opts, const LitmusTest& test);

// Whatever checks one test (run_engine, driver/engines.hpp, or one engine):
// analyses that need results take one instead of calling a stage above them.
using TestRunner = std::function<TestResult(const LitmusTest&, const EngineOptions&)>;

// Shared by the engines: a result's header fields and observables (its
// outcomes are settled by settle_result, results/results.hpp).
TestResult start_result(const LitmusTest& test, const EngineOptions& opts, const Expansion& ex);

}  // namespace redscope
