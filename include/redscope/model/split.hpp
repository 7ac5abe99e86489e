// Whether a model's checks split over a partition of a skeleton's events
// (docs/model.md "Splitting by location"): an analysis of the model file
// by interval evaluation, for any cat model of the subset, so that an
// engine may search each part on its own and take the product.
//
// The question. The engine's choices (rf, co, ...) each relate events of one
// part; a candidate is one choice per part. The checks split when
// "consistent" is a conjunction of one predicate per part, each reading
// that part's choices only (and a constant): then the consistent candidates
// are the product of each part's consistent choices.
//
// The rule (a sufficient condition). Every relation node of the model is
// evaluated at both ends of its interval over all candidates (the dynamic
// primitives from their given bounds, `\` and `~` flipping the ends). If at
// every node the two ends agree on the pairs across parts, then by
// induction on the expression every relation has a constant cross part and a
// part-local rest (a pair (x, z) of one part composed through another part
// crosses twice, both constant; a closure's path leaving the part re-enters
// it on a constant edge), every set's membership of x reads x's part only,
// and so `empty r` and `irreflexive r` split, and `acyclic r` does as
// `irreflexive r+` (checked the same way). A `let rec` group is iterated
// from empty with every round's nodes checked. A negated check (`~empty`)
// is a disjunction over the parts: it answers no. Disabled checks and
// flags forbid nothing and are skipped.
#pragma once

#include <functional>
#include <string_view>
#include <utility>
#include <vector>

#include "redscope/core/bitrel.hpp"
#include "redscope/core/budget.hpp"
#include "redscope/model/cat.hpp"
#include "redscope/model/primitives.hpp"

namespace redscope::cat {

// The interval of a primitive the engine chooses: every value it may take
// lies between lo and hi (both relations over the skeleton's events).
struct ChoiceBounds {
  std::string_view primitive;
  BitRel lo, hi;
};

struct SplitQuestion {
  const StaticPrimitives& statics;    // over every event (all executed)
  std::vector<ChoiceBounds> choices;  // every primitive of level > 0 the model reads
  std::vector<int> part;              // per event: its part
  const Budget* budget = nullptr;     // checked at every node and round (--timeout)
};

// Whether the enabled checks of `m` (with `variants` on) split over
// q.part. A primitive the question lacks makes the answer no.
bool checks_split(const Model& m, const std::vector<std::string>& variants,
                  const std::function<bool(std::string_view)>& enabled, const SplitQuestion& q);

}  // namespace redscope::cat
