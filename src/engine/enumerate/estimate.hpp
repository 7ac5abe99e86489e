// What the auto engine knows of the enumerator before running it
// (redscope::estimate_engines, engine.hpp), and what one of its choices
// costs on a skeleton of a given size (also used by its give-way).
#pragma once

#include <cstddef>

namespace redscope::enumerate {

// What one choice costs the enumerator on a skeleton of n events, relative
// to a litmus-sized one: evaluating the model is a few dozen compositions of
// n x n bit matrices, about n^3 / 64 word operations each; up to 32 events
// this is noise next to the rest of a choice.
double size_factor(std::size_t n);

}  // namespace redscope::enumerate
