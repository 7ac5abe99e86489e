// Explanations: why the model allows or forbids one outcome of a test.
//
// Forbidden: the axioms of a minimal unsat core (over the named axiom
// literals of the Z3 encoding), and for each of them the execution that
// would produce the outcome if that axiom were dropped, with the edges that
// break it, in words. Allowed: a witness execution.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "redscope/engine/engine.hpp"

namespace redscope {

struct ExplainRequest {
  // "P0:r0=0; x=1": the values of some registers and locations. Without it,
  // the proposition of the test's condition.
  std::optional<std::string> outcome;
};

// One axiom that the outcome needs broken, in the execution that breaks it.
struct Breach {
  std::string axiom;            // its name in the model (`as NAME`)
  std::string why;              // in words
  std::vector<ExecEdge> edges;  // the cycle or edge set that breaks it
  Witness execution;            // the rest of that execution
};

struct Explanation {
  std::string test, file, outcome;  // outcome: the explained outcome or condition, as text
  ModelRef model = kDefaultModel;
  std::string model_file;  // the user's model (--model FILE.cat), or "" for the built-in one
  int target_sm = 90;
  bool allowed = false;
  Witness witness;                  // allowed: an execution that produces the outcome
  std::vector<std::string> notes;   // allowed: its synchronization, in words
  std::vector<std::string> axioms;  // forbidden: a minimal set of axioms that forbids it
  std::vector<Breach> breaches;     // forbidden: one per axiom, on the first path that needs it
  std::size_t paths = 0;            // complete paths (skeletons) examined
  std::size_t paths_without_values = 0;  // paths that cannot produce the values whatever the axioms
  bool barrier_needed = false;           // some path produces it only if a barrier never completes
  std::shared_ptr<const Expansion> expansion;  // the skeletons the witnesses refer to
};

// Throws InputError for bad tests and std::invalid_argument for a malformed
// or unknown --outcome.
Explanation explain(const LitmusTest& test, const EngineOptions& opts, const ExplainRequest& req);

// The axioms that forbid "the observables take these values" (an outcome
// the operational machine reached, in `xval`): the same minimal cores, with
// the same filter and normal-end constraints, that `explain` reports for
// that outcome; empty when some path allows it.
std::vector<std::string> forbidding_axioms(const LitmusTest& test, const EngineOptions& opts,
                                           const std::vector<Observable>& obs,
                                           const std::vector<std::uint64_t>& values);

std::string render_text(const Explanation& e);
std::string render_json(const Explanation& e);

// Words for an event: "P1's red.gpu.global.add.u32 [x], 1 (read)" or
// "the initial value of x".
std::string describe_event(const Skeleton& sk, EventId e);

}  // namespace redscope
