// The results of checking a test, whatever checked it: the observables, each
// allowed outcome with a witness execution, the verdict of the final
// condition, and what was left incomplete. Engines produce them; reports,
// analyses and the driver read them without knowing which engine ran.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "redscope/core/diagnostic.hpp"
#include "redscope/core/litmus.hpp"
#include "redscope/core/model.hpp"
#include "redscope/events/events.hpp"

namespace redscope {

class OutcomeStore;

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
  const std::vector<Item>& items() const { return items_; }
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
  // The choices that lead to the outcome, one line each, from a semantics
  // that runs programs rather than event graphs (PTO: a float sum's order, a
  // consumer that saw a register before its reduction completed, the cores'
  // interleaving); empty for event graphs, whose witness is rf and co.
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

// How a verdict-only run (`--verdict`, herd7's -speedcheck) reached its
// verdict: an execution that decides it (the witness), a proof that none
// exists, or (a semantics without a verdict-only search) the full listing.
enum class VerdictBy : std::uint8_t { Witness, SolverProof, Exhausted, Listing };
// "witness" or "proof" (JSON "verdict_by"), and how a proof was made:
// "one solver query per path", "enumeration exhausted", "every outcome listed".
std::string_view verdict_by_word(VerdictBy b);
std::string_view proof_words(VerdictBy b);

struct IncompletePaths {
  std::size_t bound_cut = 0;         // consistent executions stopped by --unroll
  std::size_t barrier_deadlock = 0;  // consistent only if a barrier never completes
  std::size_t total() const { return bound_cut + barrier_deadlock; }
};

struct TestResult {
  std::string test;
  std::string file;
  ModelRef model = kDefaultModel;
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
  std::optional<std::string> error;    // the diagnostic when the test could not be checked
  std::optional<Diagnostic> error_at;  // the same as its parts (file, line, column, message)
  bool parsed = true;  // false when the file never parsed (model and target unknown)
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
  std::optional<std::string> status_of(const std::vector<std::uint64_t>& values) const;
  std::vector<std::string> undefined_reasons;  // from the expansion
  // What a reader should know beyond the outcomes, from any semantics (PTO
  // gives orders that change a float result, pipeline hazards, reads of
  // memory nothing wrote, races, and where a choice the seed leaves open
  // decided a value).
  std::vector<std::string> notes;
  // The `flag` checks of a model in herd7's language that hold in some
  // allowed execution, sorted: printed as herd7 prints them ("Flag NAME"
  // before "Condition"; JSON "flags").
  std::vector<std::string> flags;
  // The engine that produced the result ("z3", "enum", "op"), and under
  // --engine auto why it was chosen.
  std::string engine;
  std::string engine_reason;
  // A verdict-only run (EngineOptions::verdict_only): `outcomes` is empty,
  // `holds` and `observation` are the verdict (settle_verdict), and
  // `verdict_witness` is the one outcome that decided it, if one did.
  bool verdict_only = false;
  VerdictBy verdict_by = VerdictBy::Listing;
  std::optional<Outcome> verdict_witness;
  // A listing run (EngineOptions::listing, outcome_store.hpp): the outcomes
  // are here, replayed in order, and `outcomes` is empty.
  std::shared_ptr<const OutcomeStore> listing;
  // The number of outcomes, listed in `outcomes` or in `listing`.
  std::size_t outcome_count() const;
};

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

// Whether `obs` has the status observable (an execution may end early).
bool has_status_observable(const std::vector<Observable>& obs);
// An execution that ended early (a trap, an undefined access) has no final
// values: every observable but the status reads 0 in its outcome.
void clear_ended(const std::vector<Observable>& observables, std::vector<std::uint64_t>& values);

// A result's outcomes from the values an engine found, each with its
// witness: sorted, each judged by the condition, and the verdict and
// observation from them.
void settle_result(TestResult& r, const LitmusTest& test,
                   std::map<std::vector<std::uint64_t>, Witness> found);
// settle_result's second half, for an engine that lists r.outcomes itself:
// distinct values in unsigned order, each judged (`satisfies`), and no
// status observable. Sorts them as their types read them; sets the verdict
// and the observation.
void settle_outcomes(TestResult& r, const LitmusTest& test);
// The same for a listing run: finishes `store` (sorts and counts it), sets
// the verdict and the observation from its counts, and keeps it as r.listing.
void settle_listing(TestResult& r, const LitmusTest& test, std::shared_ptr<OutcomeStore> store);

// ---- verdict-only runs (herd7's -speedcheck) --------------------------------
// What decides the condition: for exists, ~exists (and .test permit/check)
// an outcome that satisfies the proposition; for forall (assert) one that
// violates it. `seeks_satisfying` says which; `decides` whether the values
// of an outcome (an ended execution satisfies nothing) are such an outcome.
bool seeks_satisfying(Quantifier q);
bool decides(const std::vector<Observable>& obs, const LitmusTest& test,
             const std::vector<std::uint64_t>& values);
// The verdict from the deciding outcome found (`values` and its witness) or
// none (`how` says how none was shown), as herd7 -speedcheck words it: the
// observation is Sometimes with a deciding outcome, else Never (exists,
// ~exists) or Always (forall); `outcomes` stays empty.
void settle_verdict(TestResult& r, const LitmusTest& test,
                    std::optional<std::pair<std::vector<std::uint64_t>, Witness>> found,
                    VerdictBy how);
// A full result reduced to a verdict-only one (for a semantics that can only
// list): its first deciding outcome, if any, with VerdictBy::Listing.
void reduce_to_verdict(TestResult& r, const LitmusTest& test);

}  // namespace redscope
