// Aliases (PTX ISA §8.6 "Proxies"; LitmusTest::aliases): several names for
// one memory location. Private to the expansion.
#pragma once

#include "redscope/core/litmus.hpp"

namespace redscope::detail {

// The test with every alias resolved to the memory it names: memory operands,
// condition terms and `locations` name the location that owns the memory (the
// root of the alias chain), and a memory operand written with an alias keeps
// the virtual address it reached the memory by in Operand::vname. A generic
// alias (`y @ generic aliases x`, `.global y physically aliases x`) is a
// virtual address of its own; a surface, texture or constant alias (`s @
// surface aliases x`, `.surfref s virtually aliases x`) is its target's
// address seen through that proxy. Throws a located InputError for an alias
// of an undeclared location, an alias declared twice or initialised, and a
// cycle of aliases.
LitmusTest resolve_aliases(const LitmusTest& t);

}  // namespace redscope::detail
