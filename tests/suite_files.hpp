// What the cross-engine tests share: every suite test (litmus/, the Dat3M
// conformance folder and NVIDIA's .test files, one address per template
// row, when ../shared is there) and an outcome set rendered
// for comparison.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "redscope/driver/suite.hpp"
#include "redscope/engine/engine.hpp"

namespace redscope::testing {

// litmus/cuda is not among them: its tests need nvcc, which unit tests do
// not run; their PTX is checked by the ctests litmus.cuda (verdicts) and
// xval.suites (the machine), and its spin locks are past the enumerator's
// candidate limit. Nor are the three-GPU bulk reductions of litmus/multimem
// (18 async RMWs each): the enumerator gives up on one and takes 17 s on
// the other; litmus.multimem checks their verdicts, xval.suites the machine.
inline std::vector<std::string> suite_files() {
  std::vector<std::string> paths;
  const std::string cuda = std::string(REDSCOPE_SOURCE_DIR) + "/litmus/cuda/";
  const std::string three = std::string(REDSCOPE_SOURCE_DIR) + "/litmus/multimem/three-gpus-";
  for (const std::string& dir : {std::string(REDSCOPE_SOURCE_DIR) + "/litmus",
                                 std::string(REDSCOPE_SHARED_DIR) + "/conformance/dat3m-ptx",
                                 std::string(REDSCOPE_SHARED_DIR) + "/conformance/nvlitmus"})
    if (std::filesystem::is_directory(dir))
      for (const std::string& f : collect_litmus_files({dir}))
        if (!f.starts_with(cuda) && !f.starts_with(three)) paths.push_back(f);
  return paths;
}

// One line per outcome: "label=value " for each observable.
inline std::string render_outcomes(const TestResult& r) {
  std::string s;
  for (std::size_t i = 0; i < r.outcomes.size(); ++i) {
    for (std::size_t k = 0; k < r.observables.size(); ++k)
      s += r.observables[k].label + "=" + r.render_value(i, k) + " ";
    s += "\n";
  }
  return s;
}

}  // namespace redscope::testing
