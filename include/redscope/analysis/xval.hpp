// `redscope xval`: the axiomatic (Z3) and operational engines side by side.
// Each outcome is allowed and reached, allowed but never reached (the
// machine is stronger than the model there), or reached but forbidden (a
// defect in one of the two engines).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "redscope/engine/engine.hpp"

namespace redscope {

enum class XvalStatus : std::uint8_t { AllowedReached, AllowedUnreached, ReachedForbidden };
std::string_view to_string(XvalStatus s);

struct XvalOutcome {
  std::vector<std::string> values;  // rendered, parallel to XvalResult::labels
  XvalStatus status = XvalStatus::AllowedReached;
  std::string trace;                      // machine trace (reached outcomes)
  std::vector<std::string> forbidden_by;  // reached-but-forbidden only: axiom names
};

struct XvalResult {
  std::string test, file;
  ModelKind model = ModelKind::Ptx;
  std::string model_file;  // the user's model, if any (model_name)
  std::vector<std::string> labels;
  std::vector<XvalOutcome> outcomes;
  std::size_t count(XvalStatus s) const;
  double seconds = 0;
  std::optional<std::string> error;
  std::string error_kind;  // "input", "timeout", "memory" or "internal" (failure.hpp)
};

XvalResult xval_file(const std::string& path, const EngineOptions& opts);
std::string render_xval_text(const XvalResult& r);
std::string render_xval_summary(const std::vector<XvalResult>& rs);
std::string render_xval_json(const std::vector<XvalResult>& rs);

}  // namespace redscope
