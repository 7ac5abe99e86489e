// Every allowed execution of one outcome (herd-www draws each candidate
// execution of an outcome; `run` keeps one witness per outcome): the
// enumerator's search over every path of the test, each consistent
// execution's outcome worked out from its rf and co as the enumerator makes
// outcomes (a register: its path's final value over the values read; a
// location: the value of each co-maximal executed write, one outcome each),
// and the execution kept when one of its outcomes is the one asked for.
// Executions with the same rf and co (differing only in their fence.sc
// order or barrier arrivals) are one.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "redscope/core/litmus.hpp"
#include "redscope/engine/engine.hpp"
#include "redscope/events/events.hpp"
#include "redscope/results/results.hpp"

namespace redscope {

struct OutcomeExecution {
  std::size_t path = 0;  // its skeleton in OutcomeExecutions::paths
  Witness witness;       // rf and co as run's witnesses write them
};

struct OutcomeExecutions {
  std::vector<Skeleton> paths;
  std::vector<OutcomeExecution> executions;
  bool complete = true;  // false: `limit` executions found, the search stopped
};

// `values`: the outcome, label -> value as run's JSON writes them
// ({"P1:r0": "1", "x": "2"}); each label must be an observable of the test
// (with opts.observe_all as in the run), else an InputError at the test's
// condition naming it. Labels left out match any value.
OutcomeExecutions outcome_executions(const LitmusTest& test, const EngineOptions& opts,
                                     const std::map<std::string, std::string>& values,
                                     std::size_t limit);

}  // namespace redscope
