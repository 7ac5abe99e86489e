// Interchangeable threads. Two threads of a skeleton are interchangeable
// when swapping them maps the test onto itself: the same events in the same
// order (kinds, locations, semantics, scopes, values, with each thread's own
// reads renamed), the same registers and observed registers, the same
// dependencies, and the same place relative to every other thread (shares a
// CTA, cluster, GPU with it or not). Scopes and moral strength only compare
// placements for equality (types.hpp: scope_includes), so such a swap maps
// every relation of the model to itself, and with it consistency: the
// consistent executions, and so the outcomes, are closed under permuting the
// threads of each class.
//
// The enumerator uses this to explore one execution per orbit: it keeps an
// execution only when each class's threads appear in the order of a
// signature that the permutation carries along (a thread's first write's
// place in coherence, or where each of its reads reads from, named by class
// and position, not by thread), then gives every distinct permutation of
// the outcome it found (redscope docs/performance.md "Symmetric threads").
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "redscope/engine/engine.hpp"

namespace redscope::enumerate {

struct ThreadClasses {
  std::vector<int> class_of;                  // per thread
  std::vector<std::vector<ThreadId>> groups;  // classes of two or more threads, ascending
  bool any() const { return !groups.empty(); }
};

// The classes of `sk` (none when the skeleton has guards or assumptions,
// or `obs` a status observable: then every thread is its own class).
// Checks `budget` (may be null) as it goes: n log n in the threads.
ThreadClasses thread_classes(const Skeleton& sk, const std::vector<Observable>& obs,
                             const Budget* budget = nullptr);

// Every distinct outcome the classes' permutations make of `vals`, once
// each: calls f(permuted values, from) where thread u now does what thread
// from[u] did (from[u] == u outside the classes).
void for_each_permutation(
    const ThreadClasses& c, const std::vector<Observable>& obs,
    const std::vector<std::uint64_t>& vals,
    const std::function<void(const std::vector<std::uint64_t>&, const std::vector<ThreadId>&)>& f);

}  // namespace redscope::enumerate
