// Values along an rf ∪ data cycle, for a model that does not forbid one
// (issue 43). A read returns its source write's value, which may use reads
// of the writer's thread; when those dependencies and rf close a cycle, the
// values are the solutions of a system of equations val(r) = value of
// rf(r)'s write over the reads' values. The Z3 engine asserts exactly those
// equations over free bit-vectors, so a model without a No-Thin-Air check
// allows every solution, out-of-thin-air values included; the enumerator
// lists the same solutions:
//
//  1. Known bits: every read starts with no bit known, and rounds of
//     evaluating the writes' values over what is known (KnownBits below:
//     x - x is 0, x & 0 is 0, the low bits of a sum depend on the low bits
//     of its operands, ...) learn, soundly, bits every solution has. A
//     false dependency (diy's `sub t0, r0, r0; add t0, t0, 1`) makes its
//     read's value known: the cycle has one solution and costs nothing.
//  2. Reads still not known are cut where their dependency graph loops (a
//     depth-first search's back edges end at cut reads); each cut read
//     takes every value its known bits allow, the rest follow acyclically,
//     and an assignment is a solution when each cut read's equation holds.
//
// Each assignment tried is one candidate against the enumerator's limit, so
// a cycle of 32 unknown bits (a store of the loaded value itself: every
// value is a solution) ends in the enumerator's "gave up" error (auto then
// runs Z3), or in "more than N outcomes" when the values are observed, as
// under Z3. Value sets (value_sets.hpp) are not a domain here: they hold
// only values with an acyclic justification, sound under No-Thin-Air only.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "redscope/core/budget.hpp"
#include "redscope/core/expr.hpp"
#include "redscope/events/events.hpp"

namespace redscope::enumerate {

// What is known of a value of `width` bits: the bits set in `known` have
// the values in `bits` (bits ⊆ known ⊆ the width's mask).
struct KnownBits {
  std::uint64_t known = 0, bits = 0;
  bool operator==(const KnownBits&) const = default;
};

// `e` over reads of which `read` tells what is known; sound: every value
// `e` takes when each read takes a value its known bits allow agrees with
// the result on its known bits.
KnownBits known_bits(const ExprPtr& e, const std::function<KnownBits(ReadRef)>& read);

// Every assignment of values to the reads of `sk` (indexed by EventId, 0
// for other events) satisfying val(r) = rf[r]'s write's value for each
// read in `reads`: `visit` is called once per solution. `tick` is called
// once per assignment of the cut reads tried (it may throw to stop);
// `budget` is checked once per round of known bits.
void cycle_values(const Skeleton& sk, const std::vector<EventId>& reads,
                  const std::vector<EventId>& rf, const Budget* budget,
                  const std::function<void()>& tick,
                  const std::function<void(const std::vector<std::uint64_t>&)>& visit);

}  // namespace redscope::enumerate
