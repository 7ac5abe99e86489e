// The syntax tables of PTX `red` and `atom` as rules over a parsed form
// (seed ../shared/seeds/ptx-red.txt "Syntax"; PTX ISA §9.7.13.5 atom).
// Private to the frontend.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "redscope/core/litmus.hpp"

namespace redscope::detail {

// The parts of an atom/red instruction the tables constrain.
struct RmwForm {
  bool is_red = false;
  bool typed = true;        // false for Dat3M's untyped shorthand (.s32, no checks on type)
  bool dat3m_form = false;  // untyped and without brackets
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
  // The rule, worded the same for every line that breaks it (Diagnostic::rule);
  // empty when `message` is that wording. `isa` is false for a form the PTX ISA
  // allows that redscope does not support yet.
  std::string rule;
  bool isa = true;
};

// The first rule of the tables `f` breaks, if any.
std::optional<RuleViolation> check_rmw_form(const RmwForm& f);

// ---- Target rules -----------------------------------------------------------
// What an instruction uses that the "Target ISA notes" of its PTX ISA section
// put a minimum sm_NN on. Qualifiers the line does not write (a default .sem,
// .scope or state space) need nothing.
enum class TargetInstr { Red, Atom, Ld, St, Fence, Membar, ProxyFence, BulkCommit, BulkWait };

struct TargetUse {
  TargetInstr instr = TargetInstr::Red;
  bool sem_given = false;      // an explicit .sem qualifier (.volatile and .weak are not one)
  bool weak_given = false;     // an explicit .weak
  std::optional<Scope> scope;  // the .scope qualifier as written (membar: its level)
  std::optional<Space> space;  // the state space as written; none = generic addressing
  bool shared_cta = false;     // the ::cta sub-qualifier is written (.shared::cta)
  bool typed = true;           // false for Dat3M's untyped shorthand: no type rules
  DataType type = DataType::S32;
  RmwOp op = RmwOp::Add;
  unsigned vec = 1;
  bool cache_hint = false;
  bool async_proxy = false;  // ProxyFence: fence.proxy.async{.space}
};

// One row of the table: `feature` needs sm_`min_sm` or later; `source` names
// the PTX ISA section whose Target ISA notes say so (the exact sentence is in
// the comment above the row in ptx_rules.cpp and in docs/litmus-format.md).
struct TargetRule {
  std::string_view feature;
  int min_sm;
  RuleSite site;  // where the error points
  std::string_view source;
  std::string_view hint;  // appended to the message, may be empty
  bool (*applies)(const TargetUse&);
};

// The whole table, in the order the notes list them.
std::span<const TargetRule> target_rules();

// The rule `u` breaks on `target_sm`, if any: of all broken rules, the one
// with the highest minimum (the target the test would need), then the first.
// Message: "<feature> needs sm_N or later (<source>); this test's Target is sm_T".
std::optional<RuleViolation> target_violation(int target_sm, const TargetUse& u);

}  // namespace redscope::detail
