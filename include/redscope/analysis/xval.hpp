// `redscope xval`: two independent formulations of a test's semantics side
// by side. PTX tests (and SASS tests, through the PTX events their
// instructions lower to): the Z3 engine (the cat model) allows, the
// operational machine reaches. PTO programs, which have no event graph: the
// Z3 twin (dialects/pto/pto_z3.cpp) allows, the explicit explorer
// (dialects/pto/pto_exec.cpp) reaches. Each outcome is allowed and reached,
// allowed but never reached, or reached but forbidden; either disagreement
// is a defect in one of the two.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "redscope/engine/engine.hpp"
#include "redscope/engine/semantics.hpp"

namespace redscope {

// The pair of formulations a test was checked by: its semantics'
// (Semantics::formulations, redscope/engine/semantics.hpp).
using XvalPair = XvalFormulations;
// "machine vs z3" or "explorer vs z3 twin" (JSON "pair").
std::string to_string(const XvalPair& p);

enum class XvalStatus : std::uint8_t { AllowedReached, AllowedUnreached, ReachedForbidden };
std::string_view to_string(XvalStatus s);

struct XvalOutcome {
  std::vector<std::string> values;  // rendered, parallel to XvalResult::labels
  XvalStatus status = XvalStatus::AllowedReached;
  // The reaching side's witness (reached outcomes): the machine's trace,
  // or for PTO the explorer's choices, one a line.
  std::string trace;
  std::vector<std::string> forbidden_by;  // reached-but-forbidden only: axiom names
  // PTO: the Z3 twin's choices for an outcome it allows, one a line.
  std::string z3_choices;
};

struct XvalResult {
  std::string test, file;
  ModelRef model = kDefaultModel;
  std::string model_file;  // the user's model, if any (model_name)
  std::vector<std::string> labels;
  std::vector<XvalOutcome> outcomes;
  std::optional<XvalPair> pair;  // known once the file parsed
  std::size_t count(XvalStatus s) const;
  // Whether the pair disagrees (exit status 4): an outcome reached but
  // forbidden, or allowed but never reached. Neither side may be stronger:
  // the machine is meant to reach every outcome the model allows (issue 47),
  // and the PTO pair is exact.
  bool defect() const;
  double seconds = 0;
  std::optional<std::string> error;
  std::string error_kind;  // "input", "timeout", "memory" or "internal" (failure.hpp)
};

XvalResult xval_file(const std::string& path, const EngineOptions& opts);
// The reaching side of a test's pair, as a result: the operational
// machine's outcomes, or for a PTO program the explicit explorer's (the
// report's machine column).
TestResult run_reaching_side(const LitmusTest& t, const EngineOptions& opts);
std::string render_xval_text(const XvalResult& r);
// The closing summary's counts, added one result at a time (a streamed run
// keeps no results).
struct XvalSummary {
  std::size_t tests = 0, errors = 0, allowed_reached = 0, allowed_unreached = 0,
              tests_unreached = 0, reached_forbidden = 0;
  void add(const XvalResult& r);
  std::string render() const;  // "Total N tests (E not checked): ..."
};
std::string render_xval_summary(const std::vector<XvalResult>& rs);
// One result as an element of the JSON array (no separator), as run's
// render_json_item: "[", items joined by ",\n", "\n]\n" is render_xval_json.
std::string render_xval_json_item(const XvalResult& r);
std::string render_xval_json(const std::vector<XvalResult>& rs);

}  // namespace redscope
