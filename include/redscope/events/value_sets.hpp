// Static value analysis of a skeleton: for each memory event, a finite set
// that contains every value it can read or write in any execution the model
// allows, or "unknown" when that set would be larger than a cap.
//
// Why it is sound: No-Thin-Air (PTX §8.9.4: rf ∪ dep is acyclic) makes every
// value the end of an acyclic chain of rf and data-dependency steps, which
// has at most one step per event. Rounds of "a read takes any value of a
// same-cell write; a write evaluates its value over the sets of the reads it
// depends on" therefore reach every such value within skeleton-size rounds
// (or stop earlier at a fixpoint). Tracking each value's provenance (the
// events of its chain) sharpens this: an acyclic chain passes each event at
// most once, so N reductions give subset sums, not sums with repetitions.
// Guards, branch assumptions and the other axioms are ignored, so the sets
// over-approximate.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "redscope/events/events.hpp"

namespace redscope {

struct ValueSetLimits {
  std::size_t max_values = 256;         // per event; beyond: unknown
  std::size_t max_combinations = 4096;  // operand-value combinations evaluated per write
  std::size_t max_states = 8192;        // (value, provenance) pairs per event
  std::size_t max_work = 1 << 21;       // pairs built by the provenance rounds in all
  // The running test's budget (null: unlimited): checked once per event per
  // round, and charged for the provenance bits before they are made.
  const Budget* budget = nullptr;
};

// Indexed by EventId; std::nullopt for unknown and for non-memory events.
// Each known set is sorted.
using ValueSets = std::vector<std::optional<std::vector<std::uint64_t>>>;

ValueSets value_sets(const Skeleton& sk, const ValueSetLimits& limits = {});

}  // namespace redscope
