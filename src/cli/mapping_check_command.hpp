// `redscope cuda-check FILE|DIR... [--ptx MODULE.ptx] [--arch sm_XX]`
// (docs/cli.md "cuda-check", docs/cuda.md "Checking the compiler").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "redscope/engine/engine.hpp"

namespace redscope::cli {

struct MappingCheckInput {
  std::vector<std::string> files;  // the tests, collected and sorted
  std::optional<std::string> ptx;  // --ptx MODULE.ptx: the compiled side, given
  std::string format = "text";     // text | json
  bool quiet = false;
};

// Checks each test; exit 1 if one is miscompiled, 2 if one cannot be read
// or checked, else 0.
int run_mapping_check(const MappingCheckInput& in, const EngineOptions& opts);

// Takes cuda-check's own options out of argv (the rest go to the common
// parser): --ptx MODULE.ptx and --arch sm_XX (a target, 75 or above).
struct MappingCheckOptions {
  std::optional<std::string> ptx;
  std::optional<int> arch;
};
MappingCheckOptions take_mapping_check_options(int argc, char** argv, std::vector<char*>& rest);

}  // namespace redscope::cli
