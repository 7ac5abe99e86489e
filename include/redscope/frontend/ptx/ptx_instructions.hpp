// PTX instruction syntax inside a litmus test's instruction table (PTX ISA
// §9.7: ld, st, atom, red, fence, membar, setp, bar, branches, local
// arithmetic), plus Dat3M's shorthand forms (docs/litmus-format.md).
#pragma once

#include "redscope/frontend/container.hpp"

namespace redscope::detail {

// Parses one cell: a label `L:` or `[@p] mnemonic{.qualifier} operands`.
// Each instruction takes exactly the qualifier classes of its PTX syntax.
void parse_ptx_instruction(const InstructionCell& cell, ThreadCode& thread);

}  // namespace redscope::detail
