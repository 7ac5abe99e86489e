// The sm_30 encoding table, private to the SASS frontend: one row per
// opcode with its template and fields (sass_isa.cpp).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "redscope/frontend/sass.hpp"

namespace redscope::sass::detail {

struct OpInfo {
  Opcode op;
  std::string_view tmpl;  // LSB first, as in the seed (corrected where docs/sass.md says)
  bool guarded;           // bits 10-13 are the guard predicate
  std::vector<Field> fields;
  std::uint64_t hw_fixed;  // the default word of an opcode beyond the seed (no template)

  std::uint64_t default_word() const;  // the template's word
  std::uint64_t operand_mask() const;  // the bits of all fields
};

const std::vector<OpInfo>& table();
const OpInfo& info(Opcode op);
std::uint64_t template_word(std::string_view tmpl);
std::uint64_t field_mask(const Field& f);

}  // namespace redscope::sass::detail
