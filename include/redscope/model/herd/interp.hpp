// Running a model of herd7's cat language (herd/ast.hpp) on one candidate
// execution, as herd7's interpreter does (herdtools7 lib/interpreter.ml):
// values are computed, not encoded; `with x from S` tries each element of
// S; the execution is allowed when some branch passes every enabled check.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "redscope/core/bitrel.hpp"
#include "redscope/core/budget.hpp"
#include "redscope/model/herd/ast.hpp"

namespace redscope::cat::herd {

// A set of events as bits (event i is bit i % 64 of word i / 64).
using EventBits = std::vector<std::uint64_t>;

// One candidate execution as the model sees it: events 0 .. n-1 and the
// names herd7 binds before the model runs (event sets and relations). The
// engine fills them (engine/herd: PTX events as herd7 events).
struct Execution {
  std::size_t n = 0;
  std::vector<std::pair<std::string, EventBits>> sets;
  std::vector<std::pair<std::string, BitRel>> rels;
};

struct Verdict {
  bool allowed = false;  // some branch passes every enabled check
  // Some allowed branch failed an `undefined_unless` test (herd7: "Undef").
  bool undefined = false;
  // The names of the `flag` tests that hold in some allowed branch, sorted.
  std::vector<std::string> flags;
  // When not allowed: the names of the enabled checks that failed (in the
  // last branch tried; an unnamed check by its text's location).
  std::vector<std::string> failing;
};

// What a model file binds, reads from the engine, and checks (`redscope
// models`).
struct Interface {
  std::vector<std::string> defines;   // names bound at the top level (let, procedure, enum, with)
  std::vector<std::string> needs;     // names read and bound by none of its files (outside `try`)
  std::vector<std::string> checks;    // the named checks (`as NAME`), in file order
  std::vector<std::string> flags;     // the named flags
  std::vector<std::string> variants;  // the variants it tests (`if "v"`)
};

class Interpreter {
 public:
  // `prelude`: run before the model (herd7's stdlib.cat), may be null.
  // `variants`: the variant names `if "v"` holds for. `enabled`: whether a
  // named check forbids (disabled checks are evaluated, never forbid).
  Interpreter(std::shared_ptr<const Program> prelude, std::shared_ptr<const Program> model,
              std::vector<std::string> variants, std::function<bool(std::string_view)> enabled);

  // Runs the model on `x`. Errors of the model (a name bound nowhere, a
  // type mismatch, a failing `assert`) are located InputErrors. Charges
  // and checks `budget` (may be null) as it goes.
  Verdict run(const Execution& x, const Budget* budget = nullptr) const;

 private:
  std::shared_ptr<const Program> prelude_, model_;
  std::vector<std::string> variants_;
  std::function<bool(std::string_view)> enabled_;
};

// The interface of `model` (its includes followed) when `bound` are the
// names the engine and the prelude bind.
Interface interface_of(const Program& model, const std::vector<std::string>& bound);

}  // namespace redscope::cat::herd
