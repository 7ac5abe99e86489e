// The progress line of long runs (docs/cli.md): shared by the commands of src/cli/.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include "redscope/core/budget.hpp"
#include "redscope/core/diagnostic.hpp"

namespace redscope::cli {

// The progress line: on stderr whenever stderr is a terminal (never in a
// redirected log), redrawn four times a second once the run has taken a
// second: tests done, errors, the oldest test still being checked and how
// long it has run. Output goes through print(), which clears the line first.
class Progress {
 public:
  Progress(std::size_t total, bool quiet)
      : total_(total),
        tty_(!quiet && isatty(2) != 0),
        start_(Clock::now()) {
    if (tty_) ticker_ = std::jthread([this](std::stop_token st) { tick(st); });
  }
  ~Progress() {
    ticker_ = {};  // joins
    std::lock_guard<std::mutex> lock(mu_);
    clear();
  }
  void started(std::size_t i, std::string name) {
    std::lock_guard<std::mutex> lock(mu_);
    running_[i] = {std::move(name), Clock::now()};
  }
  void finished(std::size_t i, bool error) {
    std::lock_guard<std::mutex> lock(mu_);
    running_.erase(i);
    ++done_;
    failed_ += error;
  }
  void print(std::FILE* out, std::string_view text) {
    std::lock_guard<std::mutex> lock(mu_);
    clear();
    fmt::print(out, "{}", text);
    std::fflush(out);
  }

 private:
  using Clock = std::chrono::steady_clock;
  static double since(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  }

  void tick(std::stop_token st) {
    redscope::every(st, std::chrono::milliseconds(250), [this] { draw(); });
  }
  void draw() {
    std::lock_guard<std::mutex> lock(mu_);
    if (since(start_) < 1.0) return;
    std::string line = fmt::format("[{}/{}] errors: {}", done_, total_, failed_);
    if (!running_.empty()) {
      const auto& [name, t0] = running_.begin()->second;
      line += fmt::format("  checking {} ({:.1f} s)", redscope::printable(name), since(t0));
    }
    fmt::print(stderr, "\r{:<{}}", line.substr(0, 100), std::max<std::size_t>(width_, line.size()));
    width_ = std::min<std::size_t>(100, line.size());
    shown_ = true;
  }
  void clear() {
    if (shown_) fmt::print(stderr, "\r{:{}}\r", "", width_);
    shown_ = false;
  }

  std::mutex mu_;
  std::size_t total_, done_ = 0, failed_ = 0, width_ = 0;
  bool tty_, shown_ = false;
  Clock::time_point start_;
  std::map<std::size_t, std::pair<std::string, Clock::time_point>> running_;
  std::jthread ticker_;  // last: started once everything above exists
};

}  // namespace redscope::cli
