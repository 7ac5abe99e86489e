// Event graphs under a cat model (the PTX IR's semantics; SASS lowers onto
// it): the z3, enum and op engines behind the Semantics interface.
#pragma once

#include <string_view>

#include "redscope/engine/semantics.hpp"

namespace redscope {

class EventGraphs final : public Semantics {
 public:
  // `label` and `via` name a dialect that lowers onto these events in xval's
  // header ("sass", "lowering to PTX events"); empty for the PTX IR's own.
  constexpr EventGraphs(std::string_view label = {}, std::string_view via = {})
      : label_(label),
        via_(via) {}

  TestResult run(const LitmusTest& test, const EngineOptions& opts) const override;
  TestResult allowed(const LitmusTest& test, const EngineOptions& opts) const override;
  TestResult reached(const LitmusTest& test, const EngineOptions& opts,
                     std::map<std::vector<std::uint64_t>, std::string>* traces) const override;
  XvalFormulations formulations() const override;
  bool has_model_axioms() const override { return true; }

 private:
  std::string_view label_, via_;
};

}  // namespace redscope
