// PTX instruction syntax inside a litmus test's instruction table (PTX ISA
// §9.7: ld, st, atom, red, fence, membar, setp, bar, branches, local
// arithmetic), plus Dat3M's shorthand forms (docs/litmus-format.md).
#pragma once

#include "redscope/frontend/container.hpp"

namespace redscope::detail {

// Parses one cell: a label `L:` or `[@p] mnemonic{.qualifier} operands`.
// Each instruction takes exactly the qualifier classes of its PTX syntax.
void parse_ptx_instruction(const InstructionCell& cell, ThreadCode& thread);

// Addresses held in registers (`mov.u64 r0, x; add.u64 r1, r0, 4; ld.u32 r2,
// [r1]`), resolved once the whole test is read: each becomes the location
// and offset it holds on every path, or an InputError at the access.
// docs/litmus-format.md "Addresses in registers".
void resolve_register_addresses(LitmusTest& test);

}  // namespace redscope::detail
