#include "wasm/progress.hpp"

#include <string>

#ifdef __EMSCRIPTEN__
#include <emscripten/emscripten.h>

// Module is the module's own object (MODULARIZE): the page sets onProgress on
// it; numbers as doubles (exact below 2^53).
// clang-format off
EM_JS(void, redscope_on_progress, (double done, double total, const char* phase), {
  if (typeof Module['onProgress'] === 'function')
    Module['onProgress']({done: done, total: total, phase: UTF8ToString(phase)});
});
// clang-format on
#endif

namespace redscope::wasm {

std::shared_ptr<const ProgressReporter> page_progress() {
#ifdef __EMSCRIPTEN__
  return std::make_shared<const ProgressReporter>([](const ProgressReport& r) {
    const std::string phase(r.phase);
    redscope_on_progress(static_cast<double>(r.done), static_cast<double>(r.total), phase.c_str());
  });
#else
  return nullptr;
#endif
}

}  // namespace redscope::wasm
