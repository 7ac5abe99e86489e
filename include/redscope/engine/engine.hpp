// Outcome enumeration: every allowed final state of a test under a model,
// the verdict of its final condition, and a witness execution per outcome.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "redscope/core/budget.hpp"
#include "redscope/core/litmus.hpp"
#include "redscope/core/model.hpp"
#include "redscope/core/pto.hpp"
#include "redscope/events/events.hpp"

namespace redscope {

namespace cat {
struct Model;
}

// A register or location whose final value is part of an outcome.
struct Observable {
  std::string label;  // "P0:r0" or "x"
  bool is_register = false;
  RegName reg;
  std::string loc;  // the memory cell
  DataType type = DataType::S32;
  // A lane of the cell (LaneView): bits [lane_shift, lane_shift + lane_width)
  // of its value; lane_width 0 observes the whole cell.
  unsigned lane_shift = 0;
  unsigned lane_width = 0;
  // The observed value, given the cell's final value.
  std::uint64_t view(std::uint64_t cell) const {
    if (lane_width == 0) return cell;
    const std::uint64_t v = cell >> lane_shift;
    return lane_width >= 64 ? v : v & ((std::uint64_t{1} << lane_width) - 1);
  }
};

// An edge of an execution between two events of a skeleton: "rf", "co",
// "fr", "sync", "po", "rmw", "dep", "obs", "cause", "sc", "bar".
struct ExecEdge {
  EventId from = 0, to = 0;
  std::string kind;
  bool operator==(const ExecEdge&) const = default;
};

// The edges of a witness as text, each string shared: the witnesses of a
// million outcomes (IRIW with ten readers) name the same few hundred edges,
// and a copy per outcome would be gigabytes.
class EdgeTexts {
 public:
  using Item = std::shared_ptr<const std::string>;
  void push_back(std::string s) { items_.push_back(std::make_shared<const std::string>(s)); }
  void push_back(Item s) { items_.push_back(std::move(s)); }
  void reserve(std::size_t n) { items_.reserve(n); }
  std::size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  const std::string& operator[](std::size_t i) const { return *items_[i]; }
  std::vector<std::string> texts() const;

  struct const_iterator {
    std::vector<Item>::const_iterator it;
    const std::string& operator*() const { return **it; }
    const_iterator& operator++() {
      ++it;
      return *this;
    }
    bool operator!=(const const_iterator& o) const { return it != o.it; }
  };
  const_iterator begin() const { return {items_.begin()}; }
  const_iterator end() const { return {items_.end()}; }

 private:
  std::vector<Item> items_;
};

// One execution that produces an outcome, as the edges a reader checks.
struct Witness {
  EdgeTexts rf;  // "init x -> P1#0 ld.weak r0, x"
  EdgeTexts co;
  // PTO programs: the choices that lead to the outcome (a float sum's
  // order, a consumer that saw a register before its reduction completed,
  // the cores' interleaving), one line each.
  std::vector<std::string> choices;
  // The same execution, structured (z3 engine only): which skeleton of the
  // test's expansion, its executed events, rf/co/fr/sync edges, and the
  // value each executed memory event reads or writes.
  std::size_t skeleton = 0;
  std::vector<EventId> executed;
  std::vector<ExecEdge> edges;
  std::vector<std::pair<EventId, std::uint64_t>> values;
};

struct Outcome {
  std::vector<std::uint64_t> values;  // parallel to TestResult::observables
  bool satisfies = false;             // the condition's proposition holds
  Witness witness;
};

enum class Observation : std::uint8_t { Always, Sometimes, Never };
std::string_view to_string(Observation o);

struct IncompletePaths {
  std::size_t bound_cut = 0;         // consistent executions stopped by --unroll
  std::size_t barrier_deadlock = 0;  // consistent only if a barrier never completes
  std::size_t total() const { return bound_cut + barrier_deadlock; }
};

struct TestResult {
  std::string test;
  std::string file;
  ModelKind model = ModelKind::Ptx;
  int target_sm = 90;
  Quantifier quantifier = Quantifier::Exists;
  std::string condition_text;
  bool holds = false;
  Observation observation = Observation::Never;
  std::vector<Observable> observables;
  std::vector<Outcome> outcomes;  // sorted by values
  IncompletePaths incomplete;
  std::size_t skeletons = 0;
  double seconds = 0;
  std::optional<std::string> error;  // the diagnostic when the test could not be checked
  bool parsed = true;                // false when the file never parsed (model and target unknown)
  // What kind of error: "input" (a located diagnostic), "timeout", "memory"
  // (the test's budget), "internal" (a bug or a solver failure).
  std::string error_kind;
  // What the result was computed from, kept so that pictures, reports and
  // explanations need not parse or expand the file again: the expansion
  // (set by every engine) and the parsed test (set by check_file).
  std::shared_ptr<const Expansion> expansion;
  std::shared_ptr<const LitmusTest> source;
  // The user's model file (--cat) when one was checked instead of `model`.
  std::string model_file;

  std::string render_value(std::size_t outcome, std::size_t obs) const;
  // "trap" or "undefined: REASON" for an execution that ended early (a sured
  // out of bounds with .trap, or misaligned), else nothing: its values are
  // then meaningless and reports print this instead.
  std::optional<std::string> status_text(std::size_t outcome) const;
  std::vector<std::string> undefined_reasons;  // from the expansion
  // What a reader should know beyond the outcomes (PTO: orders that change
  // a float result, pipeline hazards, reads of memory nothing wrote, races,
  // and where a choice the seed leaves open decided a value).
  std::vector<std::string> notes;
  // The engine that produced the result ("z3", "enum", "op"), and under
  // --engine auto why it was chosen.
  std::string engine;
  std::string engine_reason;
};

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
  std::optional<ModelKind> model;  // default: chosen from the test (model_for_test)
  // Axioms left out of the check (for experiments and for the unit tests
  // that show each axiom forbidding something on its own).
  std::vector<Axiom> disabled_axioms;
  bool disables(Axiom a) const {
    return std::find(disabled_axioms.begin(), disabled_axioms.end(), a) != disabled_axioms.end();
  }
  // Whether the model's check named `axiom` forbids (not disabled).
  bool enables(std::string_view axiom) const {
    return std::none_of(disabled_axioms.begin(), disabled_axioms.end(),
                        [&](Axiom a) { return to_string(a) == axiom; });
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
  // enum engine: choices tried before giving up, over the whole test: each rf
  // assignment, each cell's coherence order, each Fence-SC orientation and
  // each barrier arrival set counts one (the op engine: states explored).
  std::size_t enum_limit = 5'000'000;
  // auto engine: past `give_way_after` choices (0: never) the enumerator
  // gives way to the solver (throws EnumGaveWay) while it has found fewer
  // than one outcome per `give_way_ratio` choices, and at enum_limit.
  std::size_t give_way_after = 0;
  std::size_t give_way_ratio = 1000;
  // op engine: threads exploring one test's search (results do not depend on it).
  unsigned workers = 1;
  // The cat model deciding consistency (--model FILE.cat): `user_model`,
  // parsed once by the caller, else the file `model_file` (parsed per test),
  // else the models/ptx.cat built into the binary (docs/model.md). The
  // operational machine is hand-written and ignores it (it is the cross-check).
  std::string model_file;
  std::shared_ptr<const cat::Model> user_model;
  // PTO float sums (--pto-order): one order, or both (nullopt), so that a
  // condition that depends on the order is reported as such.
  std::optional<pto::Order> pto_order;
};

// The cat model `opts` selects for `test` (see EngineOptions::model_file).
std::shared_ptr<const cat::Model> model_of(const EngineOptions& opts, const LitmusTest& test);

// The engine `opts.engine` names.
TestResult run_engine(const LitmusTest& test, const EngineOptions& opts);

// Thrown by the enumerator under EngineOptions::give_way_after.
struct EnumGaveWay {
  std::size_t choices = 0, outcomes = 0;
};

// What the auto engine weighs, over the skeletons of a test: the
// enumerator's choices before any pruning (each read's possible sources ×
// each cell's coherence orders × Fence-SC orientations, divided by the
// orders of interchangeable threads it does not explore), and a bound on
// the outcomes (the product of the observables' value-set sizes, computed
// only when the work is more than `outcomes_from`; 0 otherwise). `work`
// weighs each skeleton's candidates by what one costs the enumerator on a
// skeleton of its size (relative to a litmus-sized one).
struct EngineEstimate {
  double candidates = 0;
  double work = 0;
  double outcomes = 0;
};
EngineEstimate estimate_engines(const LitmusTest& test, const EngineOptions& opts,
                                double outcomes_from);
// The reference enumerator; throws InputError beyond `enum_limit` candidates.
// A cat model (models/ptx.cat unless opts.model_file) decides consistency.
TestResult run_enum(const LitmusTest& test, const EngineOptions& opts);

class BitRel;
// One candidate execution as the enumerator built it: the events of `sk`
// that `executed` marks, rf, co, the Fence-SC order and the barrier relation.
struct EnumCandidate {
  const Skeleton& sk;
  ModelKind model;
  const std::vector<bool>& executed;
  const BitRel& rf;
  const BitRel& co;
  const BitRel& sf;
  const BitRel& sync_barrier;
};
using CandidateCheck = std::function<bool(const EnumCandidate&)>;
// The enumerator with `consistent` in place of the model (for the frozen
// hand-written oracle in tests/oracle_ptx.cpp). Disabled axioms still pin co
// as in run_enum; `consistent` must honour them itself.
TestResult run_enum_with(const LitmusTest& test, const EngineOptions& opts,
                         const CandidateCheck& consistent);

// The operational executor; `traces` (optional) receives one machine trace
// per reached outcome.
TestResult run_op(const LitmusTest& test, const EngineOptions& opts,
                  std::map<std::vector<std::uint64_t>, std::string>* traces = nullptr);

// Shared by the engines: a result's header fields and observables, and its
// outcomes sorted with verdict and observation from the found values.
TestResult start_result(const LitmusTest& test, const EngineOptions& opts, const Expansion& ex);
// An execution that ended early (a trap, an undefined access) has no final
// values: every observable but the status reads 0 in its outcome.
void clear_ended(const std::vector<Observable>& observables, std::vector<std::uint64_t>& values);
void settle_result(TestResult& r, const LitmusTest& test,
                   std::map<std::vector<std::uint64_t>, Witness> found);

// Runs the Z3 engine on a parsed test. Throws InputError for inputs the
// expansion rejects; never for allowed/forbidden answers.
TestResult run_z3(const LitmusTest& test, const EngineOptions& opts);

// Which registers and locations an outcome reports (condition, filter and
// `locations`; everything with observe_all).
std::vector<Observable> observables_of(const LitmusTest& test, const Expansion& ex,
                                       bool observe_all);

// Throws InputError when a constant of the condition is not a value of the
// type it is compared at (e.g. 1.5 against an .s32 register).
void check_condition_literals(const LitmusTest& test, const std::vector<Observable>& obs);

// Evaluates a condition over concrete observable values.
bool eval_condition(const CondExpr& c, const std::vector<Observable>& obs,
                    const std::vector<std::uint64_t>& values);

}  // namespace redscope
