// The syntax tables of PTX `red` and `atom` as rules over a parsed form
// (seed ../shared/seeds/ptx-red.txt "Syntax"; PTX ISA §9.7.13.5 atom).
// Private to the frontend.
#pragma once

#include <optional>
#include <string>

#include "redscope/litmus.hpp"

namespace redscope::detail {

// The parts of an atom/red instruction the tables constrain.
struct RmwForm {
  bool is_red = false;
  bool typed = true;         // false for Dat3M's untyped shorthand (.s32, no checks on type)
  bool dat3m_form = false;   // untyped and without brackets
  Sem sem = Sem::Relaxed;
  bool sem_given = false;
  Space space = Space::Generic;
  Scope scope = Scope::Gpu;
  bool scope_given = false;
  RmwOp op = RmwOp::Add;
  DataType type = DataType::S32;
  bool noftz = false;
  unsigned vec = 1;
  bool cache_hint = false;
  bool has_policy = false;
  int target_sm = 90;
};

// Which qualifier a violation is reported at.
enum class RuleSite { Mnemonic, Sem, Scope, Space, Op, Type, Noftz, Vec, Hint };

struct RuleViolation {
  RuleSite site = RuleSite::Mnemonic;
  std::string message;
};

// The first rule of the tables `f` breaks, if any.
std::optional<RuleViolation> check_rmw_form(const RmwForm& f);

// Qualifiers that need a newer target than the test's (PTX ISA "Target ISA
// notes"): .sem qualifiers and fence need sm_70; .cluster needs sm_90.
std::optional<std::string> target_violation(int target_sm, bool sem_given, Sem sem, std::optional<Scope> scope,
                                             std::optional<Space> space, bool is_fence);

}  // namespace redscope::detail
