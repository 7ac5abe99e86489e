// The reference enumerator and what the auto engine asks it to estimate.
#pragma once

#include <functional>
#include <vector>

#include "redscope/engine/engine.hpp"

namespace redscope {

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
  ModelRef model;
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

}  // namespace redscope
