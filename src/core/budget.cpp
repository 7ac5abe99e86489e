#include "redscope/core/budget.hpp"

#include <unistd.h>

#include <algorithm>
#include <fstream>

#include <fmt/format.h>

namespace redscope {

std::string_view to_string(BudgetKind k) { return k == BudgetKind::Timeout ? "timeout" : "memory"; }

Budget::Budget(BudgetLimits limits) : limits_(limits) {
  const auto span = std::chrono::duration<double>(limits.seconds > 0 ? limits.seconds : 1e9);
  deadline_ = std::chrono::steady_clock::now() +
              std::chrono::duration_cast<std::chrono::steady_clock::duration>(span);
}

Budget::Budget(BudgetLimits limits, std::chrono::steady_clock::time_point deadline)
    : limits_(limits),
      deadline_(deadline) {}

void Budget::raise() const {
  const auto k = static_cast<BudgetKind>(stopped_.load() < 0 ? 0 : stopped_.load());
  if (k == BudgetKind::Memory)
    throw BudgetExceeded(
        k, fmt::format("memory: over the {} MiB budget (--max-memory)", limits_.memory_mb));
  throw BudgetExceeded(k,
                       fmt::format("timeout: over the {:g} s budget (--timeout)", limits_.seconds));
}

void Budget::check() const {
  if (stopped_.load(std::memory_order_relaxed) >= 0) raise();
  if (limits_.seconds > 0 && std::chrono::steady_clock::now() > deadline_) raise();
}

void Budget::charge(std::size_t bytes) const {
  check();
  if (limits_.memory_mb == 0) return;
  constexpr std::size_t kMiB = 1024 * 1024;
  // Small requests are summed and compared once per MiB, so that charging in
  // a hot loop costs an addition, not a read of /proc.
  if (bytes < kMiB) {
    bytes = pending_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
    if (bytes < kMiB) return;
    pending_.store(0, std::memory_order_relaxed);
  }
  const std::size_t want = bytes / kMiB + (bytes % kMiB ? 1 : 0);
  if (want > limits_.memory_mb || resident_mb() + want > limits_.memory_mb) {
    int expected = -1;
    stopped_.compare_exchange_strong(expected, static_cast<int>(BudgetKind::Memory));
    raise();
  }
}

void Budget::check_memory() const {
  check();
  if (limits_.memory_mb == 0 || resident_mb() <= limits_.memory_mb) return;
  int expected = -1;
  stopped_.compare_exchange_strong(expected, static_cast<int>(BudgetKind::Memory));
  raise();
}

void Budget::stop(BudgetKind k) {
  int expected = -1;
  stopped_.compare_exchange_strong(expected, static_cast<int>(k));
  std::lock_guard<std::mutex> lock(mu_);
  for (const InterruptGuard* g : hooks_) g->interrupt_();
}

bool Budget::poll() {
  if (stopped_.load() >= 0) {
    stop(static_cast<BudgetKind>(stopped_.load()));
    return true;
  }
  if (limits_.seconds > 0 && std::chrono::steady_clock::now() > deadline_) {
    stop(BudgetKind::Timeout);
    return true;
  }
  if (limits_.memory_mb > 0 && resident_mb() > limits_.memory_mb) {
    stop(BudgetKind::Memory);
    return true;
  }
  return false;
}

Budget::InterruptGuard::InterruptGuard(const Budget* b, std::function<void()> interrupt)
    : b_(b),
      interrupt_(std::move(interrupt)) {
  if (!b_) return;
  std::lock_guard<std::mutex> lock(b_->mu_);
  b_->hooks_.push_back(this);
  if (b_->stopped_.load() >= 0) interrupt_();
}

Budget::InterruptGuard::~InterruptGuard() {
  if (!b_) return;
  std::lock_guard<std::mutex> lock(b_->mu_);
  b_->hooks_.erase(std::remove(b_->hooks_.begin(), b_->hooks_.end(), this), b_->hooks_.end());
}

namespace {
thread_local const Budget* tls_budget = nullptr;  // see ambient_budget()
}  // namespace

const Budget* ambient_budget() { return tls_budget; }

AmbientBudget::AmbientBudget(const Budget* b) : saved_(tls_budget) { tls_budget = b; }

AmbientBudget::~AmbientBudget() { tls_budget = saved_; }

namespace {
// The MiB the live helper processes hold of their own (HelperMemory).
std::atomic<std::size_t> helpers_mb{0};
}  // namespace

std::size_t resident_mb() {
  std::ifstream statm("/proc/self/statm");
  std::size_t pages = 0, resident = 0;
  if (!(statm >> pages >> resident)) return 0;
  return resident * static_cast<std::size_t>(sysconf(_SC_PAGESIZE)) / (1024 * 1024) +
         helpers_mb.load(std::memory_order_relaxed);
}

HelperMemory::~HelperMemory() { helpers_mb.fetch_sub(mb_, std::memory_order_relaxed); }

void HelperMemory::set(std::size_t mb) {
  helpers_mb.fetch_add(mb - mb_, std::memory_order_relaxed);  // modulo 2^64: a decrease too
  mb_ = mb;
}

void forget_helper_memory() { helpers_mb.store(0, std::memory_order_relaxed); }

}  // namespace redscope
