// What callers outside the enumerator hook into its search
// (EngineOptions::on_execution), kept apart from the search itself.
#pragma once

#include <vector>

#include "engine/enumerate/symmetry.hpp"
#include "redscope/engine/enumerate/enumerate.hpp"

namespace redscope::enumerate {

// The interchangeable threads of `sk`, or none when a caller looks at each
// execution (its facts name threads: an image under a permutation is
// another execution).
ThreadClasses classes_for(const Skeleton& sk, const std::vector<Observable>& obs,
                          const EngineOptions& opts);

// Every 1024 candidates (the search's tick): the budget (--timeout,
// --max-memory) and the caller's progress report.
void checkpoint(const EngineOptions& opts, std::size_t candidates);

// Whether a consistent execution makes outcomes: the caller's say, else yes.
inline bool kept(const EngineOptions& opts, const EnumCandidate& c) {
  return !opts.on_execution || opts.on_execution(c);
}

}  // namespace redscope::enumerate
