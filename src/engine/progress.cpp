#include "redscope/engine/progress.hpp"

namespace redscope {

void ProgressReporter::operator()(const ProgressReport& r) const {
  const std::int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                               std::chrono::steady_clock::now().time_since_epoch())
                               .count();
  std::int64_t next = next_.load(std::memory_order_relaxed);
  if (now < next) return;
  // One thread wins the slot; the others drop their report.
  if (!next_.compare_exchange_strong(next, now + interval_.count(), std::memory_order_relaxed))
    return;
  report_(r);
}

}  // namespace redscope
