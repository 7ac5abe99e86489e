// The operational machine (docs/model.md, the machine table).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "redscope/engine/engine.hpp"

namespace redscope {

// The operational executor; `traces` (optional) receives one machine trace
// per reached outcome.
TestResult run_op(const LitmusTest& test, const EngineOptions& opts,
                  std::map<std::vector<std::uint64_t>, std::string>* traces = nullptr);

}  // namespace redscope
