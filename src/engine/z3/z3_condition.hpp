// A litmus condition as a Z3 formula over the observables' terms (the
// semantics of eval_condition). Private to the Z3-based modules.
#pragma once

#include <vector>

#include <z3++.h>

#include "redscope/engine/engine.hpp"

namespace redscope {

z3::expr condition_to_z3(z3::context& c, const CondExpr& e, const std::vector<Observable>& obs,
                         const std::vector<z3::expr>& terms);

// What a verdict-only run asks of one execution (settle_verdict's
// `decides`): that the execution ends normally (the status observable, if
// any, is 0) and satisfies the condition, or for forall/assert the negation.
z3::expr deciding_to_z3(z3::context& c, const LitmusTest& test, const std::vector<Observable>& obs,
                        const std::vector<z3::expr>& terms);

}  // namespace redscope
