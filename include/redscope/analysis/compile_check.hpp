// Compile check: does the SASS a compiler emitted keep the guarantees of the
// PTX it was given? Both tests are run under their own models (the PTX
// test's, models/sass-sm30.cat for the SASS one); every SASS outcome that
// the PTX model forbids is a miscompilation, reported with the SASS
// execution that produces it and the PTX axioms it breaks.
//
// Pairing (docs/cli.md "compile-check"): thread k of one test is thread k
// of the other; a location is observed under one name in both; the
// registers a thread observes (in `locations`, then the condition, then the
// filter, by first appearance) are paired in that order.
#pragma once

#include <string>
#include <vector>

#include "redscope/analysis/explain.hpp"
#include "redscope/engine/engine.hpp"

namespace redscope {

struct ObservablePair {
  std::string ptx, compiled;  // "P1:r1" and "P1:R5", or "x" and "x"
};

struct Miscompilation {
  std::string compiled_outcome;  // "P1:R5=1; P1:R6=0"
  std::string ptx_outcome;       // the same values under the PTX names
  Witness compiled_execution;    // an execution of the SASS test with that outcome
  Explanation ptx;               // why the PTX model forbids it
};

struct CompileCheck {
  std::string ptx_test, compiled_test, ptx_file, compiled_file;
  std::string ptx_model, compiled_model;
  std::vector<ObservablePair> pairs;
  std::size_t ptx_outcomes = 0, compiled_outcomes = 0;
  std::vector<Miscompilation> miscompilations;
  double seconds = 0;
};

// Runs both tests with `run` (the driver's run_engine). Throws InputError
// when a test cannot be checked or the two do not pair.
CompileCheck compile_check(const LitmusTest& ptx, const LitmusTest& compiled,
                           const EngineOptions& opts, const TestRunner& run);

// "P1:r1=1; x=2": an outcome's values under their observables' names.
std::string outcome_text(const std::vector<Observable>& obs, const std::vector<std::uint64_t>& v);

std::string render_text(const CompileCheck& c);
std::string render_json(const CompileCheck& c);

}  // namespace redscope
