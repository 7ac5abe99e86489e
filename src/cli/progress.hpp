// The progress line of long runs (docs/cli.md "The progress line"): shared by
// the commands of src/cli/.
#pragma once

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include "redscope/core/budget.hpp"
#include "redscope/core/diagnostic.hpp"

namespace redscope::cli {

// How fast a run goes and how long it has left: the mean rate since it
// began (items finished per second of wall-clock time, so parallel workers
// count), and the items left at that rate. No ETA before the first item
// finishes or when the total is unknown (0).
struct ProgressEstimate {
  double per_second = 0;
  std::optional<double> eta_seconds;
};

inline ProgressEstimate estimate_progress(std::size_t done, std::size_t total, double elapsed) {
  ProgressEstimate e;
  if (done == 0 || elapsed <= 0) return e;
  e.per_second = static_cast<double>(done) / elapsed;
  if (total > 0) e.eta_seconds = static_cast<double>(total - std::min(done, total)) / e.per_second;
  return e;
}

// A duration as a person reads it on a progress line: "7s", "3m05s", "2h07m".
inline std::string format_duration(double seconds) {
  const auto s = static_cast<long long>(std::ceil(std::max(0.0, seconds)));
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m", s / 3600, s % 3600 / 60);
}

// A rate with as many digits as it needs: "1234 tests/s", "3.5 tests/s", "0.04 tests/s".
inline std::string format_rate(double per_second, std::string_view label) {
  const int digits = per_second >= 10 ? 0 : per_second >= 1 ? 1 : 2;
  return fmt::format("{:.{}f} {}/s", per_second, digits, label);
}

// What the line shows at one moment.
struct ProgressState {
  std::size_t done = 0, total = 0, failed = 0;  // total 0: unknown
  double elapsed = 0;                           // seconds since the run began
  std::string label = "tests";                  // what is counted
  std::string oldest;                           // the oldest item still running, or ""
  double oldest_seconds = 0;                    // and how long it has run
};

// "[1234/10000] 456 tests/s, ETA 19s, 2 failed; checking MP+rel-acq (3.1 s)".
inline std::string progress_line(const ProgressState& s) {
  const ProgressEstimate e = estimate_progress(s.done, s.total, s.elapsed);
  std::string line =
      s.total ? fmt::format("[{}/{}]", s.done, s.total) : fmt::format("[{} {}]", s.done, s.label);
  if (s.done > 0) line += " " + format_rate(e.per_second, s.label);
  if (e.eta_seconds) line += ", ETA " + format_duration(*e.eta_seconds);
  line += fmt::format("{} {} failed", s.done > 0 ? "," : "", s.failed);
  if (!s.oldest.empty())
    line += fmt::format("; checking {} ({:.1f} s)", s.oldest, s.oldest_seconds);
  return line;
}

// The progress line: on stderr whenever stderr is a terminal (never in a
// redirected log) and the run is not quiet, redrawn four times a second once
// the run has taken a second (progress_line). Output goes through print(),
// which clears the line first; the destructor clears it for good, before the
// command's summary.
class Progress {
 public:
  // `total` 0: unknown (the line shows a count without ETA).
  Progress(std::size_t total, bool quiet, std::string label = "tests")
      : total_(total),
        tty_(!quiet && isatty(2) != 0),
        label_(std::move(label)),
        start_(Clock::now()) {
    if (tty_) ticker_ = std::jthread([this](std::stop_token st) { tick(st); });
  }
  ~Progress() {
    ticker_ = {};  // joins
    std::lock_guard<std::mutex> lock(mu_);
    clear();
  }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void set_total(std::size_t total) {
    std::lock_guard<std::mutex> lock(mu_);
    total_ = total;
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
  // The terminal's width less one column (a line that fills it would wrap).
  static std::size_t columns() {
    winsize w{};
    if (ioctl(2, TIOCGWINSZ, &w) == 0 && w.ws_col > 20) return w.ws_col - 1u;
    return 100;
  }

  void tick(std::stop_token st) {
    redscope::every(st, std::chrono::milliseconds(250), [this] { draw(); });
  }
  void draw() {
    std::lock_guard<std::mutex> lock(mu_);
    if (since(start_) < 1.0) return;
    ProgressState s;
    s.done = done_;
    s.total = total_;
    s.failed = failed_;
    s.elapsed = since(start_);
    s.label = label_;
    if (!running_.empty()) {  // the lowest index still running: the oldest started
      const auto& [name, t0] = running_.begin()->second;
      s.oldest = redscope::printable(name);
      s.oldest_seconds = since(t0);
    }
    std::string line = progress_line(s);
    line.resize(std::min(line.size(), columns()));
    fmt::print(stderr, "\r{:<{}}", line, std::max(width_, line.size()));
    width_ = line.size();
    shown_ = true;
  }
  void clear() {
    if (shown_) fmt::print(stderr, "\r{:{}}\r", "", width_);
    shown_ = false;
  }

  std::mutex mu_;
  std::size_t total_, done_ = 0, failed_ = 0, width_ = 0;
  bool tty_, shown_ = false;
  std::string label_;
  Clock::time_point start_;
  std::map<std::size_t, std::pair<std::string, Clock::time_point>> running_;
  std::jthread ticker_;  // last: started once everything above exists
};

}  // namespace redscope::cli
