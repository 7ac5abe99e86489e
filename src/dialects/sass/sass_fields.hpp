// The sm_30 encoding table, private to the SASS frontend: one row per
// opcode with its template and fields (sass_isa.cpp).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "redscope/dialects/sass/sass.hpp"

namespace redscope::sass::detail {

struct OpInfo {
  Opcode op;
  std::string_view tmpl;  // LSB first, as in the seed (corrected where docs/sass.md says)
  bool guarded;           // bits 10-13 are the guard predicate
  std::vector<Field> fields;
  std::uint64_t hw_fixed;  // the default word of an opcode beyond the seed (no template)
  // Bits the hardware ignores: decode accepts any value there (and prints
  // none), encode writes the default word's. The guard bits of the control
  // instructions that are not predicated (envytools decodes them without one).
  std::uint64_t ignored = 0;

  std::uint64_t default_word() const;  // the template's word
  std::uint64_t operand_mask() const;  // the bits of all fields
};

const std::vector<OpInfo>& table();
const OpInfo& info(Opcode op);
std::uint64_t template_word(std::string_view tmpl);
std::uint64_t field_mask(const Field& f);
// Opcodes with a target operand; of those, the ones whose target is absolute
// (JMP, JCAL; the others' are relative to the next instruction).
bool is_branch(Opcode op);
bool is_absolute(Opcode op);

}  // namespace redscope::sass::detail
