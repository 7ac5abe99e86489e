// Splitting a skeleton's search by location (docs/model.md "Splitting by
// location"): when the model's checks split over the locations
// (cat::checks_split) and the outcome does too, the consistent candidates
// are the product of each location's consistent choices, and so are the
// outcomes. The enumerator then searches each location with the others
// held at one consistent choice and takes the product of what it found:
// a sum of the locations' searches instead of their product.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "redscope/engine/engine.hpp"
#include "redscope/events/events.hpp"
#include "redscope/model/cat.hpp"
#include "redscope/model/primitives.hpp"
#include "redscope/results/results.hpp"

namespace redscope::enumerate {

struct SplitPlan {
  int parts = 0;                   // the locations, in the order of their names
  std::vector<std::string> locs;   // per part: its location
  std::vector<int> part_of_event;  // per event: its location's part; -1 none
  std::vector<int> part_of_obs;    // per observable: the part it reads; -1 a constant
};

// The plan, or none when the search must stay whole: fewer than two
// locations with a choice; what the product cannot carry (guards or assumptions, barriers,
// fence.sc, interchangeable threads, status observables, a caller
// that looks at each execution); a value written to one location or
// observed that reads another; or checks that do not split.
std::optional<SplitPlan> split_plan(const Skeleton& sk, const std::vector<Observable>& obs,
                                    const cat::Model& m, const std::vector<std::string>& variants,
                                    const EngineOptions& opts,
                                    const cat::StaticPrimitives& statics);

}  // namespace redscope::enumerate
