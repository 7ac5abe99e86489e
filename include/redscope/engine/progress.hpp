// Progress of a long check, for a caller that shows it (the playground's
// page, through src/wasm): how far an engine is, in its own unit, and of
// how much (0: not known; never an estimate passed off as a count).
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>

namespace redscope {

struct ProgressReport {
  std::size_t done = 0;
  std::size_t total = 0;   // 0: unknown
  std::string_view phase;  // what `done` counts, e.g. "enumerate"
};

// Hands reports on to `report`, at most one per `interval` (the first at
// once); the rest are dropped. Safe to call from several threads.
class ProgressReporter {
 public:
  using Sink = std::function<void(const ProgressReport&)>;
  explicit ProgressReporter(Sink report,
                            std::chrono::milliseconds interval = std::chrono::milliseconds(100))
      : report_(std::move(report)),
        interval_(interval) {}

  void operator()(const ProgressReport& r) const;

 private:
  Sink report_;
  std::chrono::nanoseconds interval_;
  mutable std::atomic<std::int64_t> next_{0};  // steady_clock ns of the next report
};

}  // namespace redscope
