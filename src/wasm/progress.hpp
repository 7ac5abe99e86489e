// The module's progress reports: Module.onProgress({done, total, phase}) when
// the page has set it (its Worker forwards them; docs/architecture.md, the
// JS API). Natively (redscope-call) none.
#pragma once

#include <memory>

#include "redscope/engine/progress.hpp"

namespace redscope::wasm {

// What a call's EngineOptions::progress is (null natively).
std::shared_ptr<const ProgressReporter> page_progress();

}  // namespace redscope::wasm
