// Surfaces and sured (seed ptx-sured.txt). Private to the expansion.
#pragma once

#include <string>

#include "redscope/core/litmus.hpp"

namespace redscope::detail {

// Resolves every sured of `t` in place, before the memory layout sees it:
// the surface (named directly, or by a register the init block sets to a
// surface and the thread never writes), the coordinates (constants, or such
// registers), the sample they address (.b: x is a byte offset; .p: a sample
// index scaled by the data size) and what happens out of bounds. An access
// becomes a red on the sample's cell (`[s+OFFSET]`, type per the surface's
// UINT/SINT format); a dropped one (.zero) does nothing; .trap out of bounds
// and a misaligned address set SuredSpec::effect for the expansion to report
// as a `trap` or `undefined` outcome. Throws a located InputError for what
// redscope cannot resolve statically, an unknown surface, or a ctype whose
// size is not the surface's sample size.
void resolve_surfaces(LitmusTest& t);

// The value a register holding surface `name` has (a handle: 1 + the
// surface's position among the test's surfaces).
std::uint64_t surface_handle(const LitmusTest& t, const std::string& name);

}  // namespace redscope::detail
