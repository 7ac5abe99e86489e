// The question atomicity (and any analysis that needs one execution with
// given facts) asks of an engine: is there an execution of this skeleton
// that the model allows, with barriers passing, in which these facts (rf,
// co, fr, executed: engine/z3/query.hpp's ExecutionFact) hold, and which
// one. Two engines answer it: Z3's Query (one solver check per question)
// and the enumerator (its search, each consistent execution tested against
// the facts, stopping at the first that meets them). make_execution_searches
// picks one, as GenMC's ConsistencyChecker factory does: Z3 when the build
// has it and the options ask for it (z3 or auto), else the enumerator.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "redscope/engine/engine.hpp"
#include "redscope/engine/z3/query.hpp"

namespace redscope {

// One skeleton's allowed executions, searched for facts.
class ExecutionSearch {
 public:
  virtual ~ExecutionSearch() = default;
  // Some allowed execution meets all of `facts`; it is kept (below).
  bool possible_with(const std::vector<ExecutionFact>& facts) {
    return possible_with_any({facts}).has_value();
  }
  // The index of an alternative (each a conjunction of facts) that an
  // allowed execution meets, or none when none does.
  virtual std::optional<std::size_t> possible_with_any(
      const std::vector<std::vector<ExecutionFact>>& alternatives) = 0;

  // The execution of the last question answered yes.
  virtual Witness witness() const = 0;
  virtual ChosenExecution execution() const = 0;
  // Each location's final value in it, by cell name.
  virtual std::vector<std::pair<std::string, std::uint64_t>> final_values() const = 0;
  // The model's primitives that do not depend on the execution.
  virtual const cat::StaticPrimitives& static_primitives() const = 0;
};

// Makes the searches of one test's skeletons with one engine.
class ExecutionSearches {
 public:
  virtual ~ExecutionSearches() = default;
  // `sk` (of expand(test, opts.expand)) and these searches must outlive
  // the search (the enumerator's share the executions one search kept).
  virtual std::unique_ptr<ExecutionSearch> of(const Skeleton& sk) = 0;
  // How "no execution meets them" was reached: a solver's proof, or the
  // enumerator's search run to its end.
  virtual VerdictBy proof() const = 0;
};

// Z3 when the build has it and opts.engine is z3 or auto; the enumerator
// when it is enum (or the build has no Z3). `test`, `model` and `opts`
// must outlive the result. Another engine is an InputError.
std::unique_ptr<ExecutionSearches> make_execution_searches(const LitmusTest& test,
                                                           const QueryModel& model,
                                                           const EngineOptions& opts);

}  // namespace redscope
