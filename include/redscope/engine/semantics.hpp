// What a dialect's tests mean, after GenMC's ConsistencyChecker and its
// factory (docs/architecture.md "Semantics"): each dialect's registry row
// names one Semantics, and run_engine, xval and report ask the test's
// semantics instead of branching on the kind of test. Two exist: event
// graphs under a cat model (src/registry/event_graphs.cpp: the z3, enum and
// op engines) and a dialect's own programs (src/dialects/<name>/).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "redscope/engine/engine.hpp"

namespace redscope {

// The two formulations `redscope xval` compares for a semantics, and how
// its output names them.
struct XvalFormulations {
  std::string_view allowing = {};  // the side whose outcomes are allowed: "z3", "z3 twin"
  std::string_view reaching = {};  // the side that reaches outcomes: "machine", "explorer"
  // Both sides are exact (no model axioms): what forbids a reached outcome
  // is `allowing` itself, and an outcome's witness on either side is its
  // choices (how xval prints a disagreement).
  bool exact = false;
  // How a test's header names the pair: with exact, "<label>: <reaching> vs
  // <allowing>"; else the model's name, then "; <label>, via <via>" when the
  // dialect lowers onto another's events ("sass, via lowering to PTX events").
  std::string_view label = {};
  std::string_view via = {};  // "lowering to PTX events", or empty (JSON "via")
};

class Semantics {
 public:
  Semantics() = default;
  Semantics(const Semantics&) = delete;
  Semantics& operator=(const Semantics&) = delete;
  virtual ~Semantics() = default;

  // The test's outcomes from the engine opts.engine names (under auto, the
  // one the semantics picks), with TestResult::engine and engine_reason set.
  virtual TestResult run(const LitmusTest& test, const EngineOptions& opts) const = 0;

  // xval's allowing side: its outcomes, each with its witness.
  virtual TestResult allowed(const LitmusTest& test, const EngineOptions& opts) const = 0;
  // xval's reaching side (also the report's machine column); `traces`, when
  // given, receives each reached outcome's witness as text.
  virtual TestResult reached(const LitmusTest& test, const EngineOptions& opts,
                             std::map<std::vector<std::uint64_t>, std::string>* traces) const = 0;
  virtual XvalFormulations formulations() const = 0;

  // Whether the test's outcomes are judged by a cat model's axioms (events
  // and relations that explain and atomicity can put into words).
  virtual bool has_model_axioms() const = 0;
};

// `r` with the engine that produced it and why (TestResult::engine).
inline TestResult tagged(TestResult r, std::string_view engine, std::string reason) {
  r.engine = engine;
  r.engine_reason = std::move(reason);
  return r;
}

}  // namespace redscope
