// How Z3 work meets the test's budget and failure kinds (core/budget.hpp,
// core/failure.hpp), which know no solver: a context registers its
// interrupt with the budget, and Z3's exceptions leave the engine stage as
// SolverError. Private to src/engine/z3.
#pragma once

#include <z3++.h>

#include "redscope/core/budget.hpp"
#include "redscope/core/failure.hpp"
#include "redscope/engine/z3/solver_process.hpp"

namespace redscope::detail {

// For its lifetime, the watchdog of `budget` (may be null) interrupts `c`
// when it stops the test: a check() in progress then returns unknown. The
// interrupt is Z3 code in a brief section (solver_process.hpp).
class InterruptOnStop {
 public:
  InterruptOnStop(const Budget* budget, z3::context& c)
      : guard_(budget, [&c] {
          const InProcessZ3 section(true);
          c.interrupt();
        }) {}

 private:
  Budget::InterruptGuard guard_;
};

// body(), with a z3::exception rethrown as SolverError (its message kept).
template <class F>
auto translate_z3_errors(F&& body) {
  try {
    return body();
  } catch (const z3::exception& e) {
    throw SolverError(e.msg());
  }
}

}  // namespace redscope::detail
