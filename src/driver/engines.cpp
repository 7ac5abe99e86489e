// The engine a test is checked by: its semantics (the registry's row for its
// dialect) runs the engine EngineOptions::engine names.
#include "redscope/driver/engines.hpp"

#include "redscope/engine/semantics.hpp"
#include "redscope/registry/registry.hpp"

namespace redscope {

TestResult run_engine(const LitmusTest& test, const EngineOptions& options) {
  // Expansion runs under the test's budget too (with_budget sets both; a
  // caller that set only `budget` gets it there as well).
  EngineOptions opts = options;
  if (!opts.expand.budget) opts.expand.budget = opts.budget;
  TestResult r = semantics_of(test).run(test, opts);
  // A semantics or engine without a verdict-only search (PTO's, the
  // operational machine) lists every outcome; the verdict is read off them.
  if (opts.verdict_only && !r.verdict_only && !r.error) reduce_to_verdict(r, test);
  return r;
}

}  // namespace redscope
