// Per-test budgets (--timeout, --max-memory). A Budget is a deadline and a
// memory cap for one test. Engines call check() in their loops; work that
// cannot poll (a solver call) registers an interrupt hook for its scope
// (Budget::InterruptGuard; the Z3 engine registers its context's interrupt)
// so that the watchdog can stop it past the deadline. Nothing here is
// global: each test owns its Budget, so suites run on many threads.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace redscope {

enum class BudgetKind : std::uint8_t { Timeout, Memory };
std::string_view to_string(BudgetKind k);  // "timeout", "memory"

// Thrown by Budget::check() once the budget is spent.
class BudgetExceeded : public std::runtime_error {
 public:
  BudgetExceeded(BudgetKind k, std::string what) : std::runtime_error(std::move(what)), kind_(k) {}
  BudgetKind kind() const { return kind_; }

 private:
  BudgetKind kind_;
};

struct BudgetLimits {
  double seconds = 300;       // 0: no deadline
  std::size_t memory_mb = 0;  // 0: no cap
};

class Budget {
 public:
  explicit Budget(BudgetLimits limits = {0, 0});
  // `limits` with `deadline` (used when limits.seconds > 0) instead of one
  // counted from now: a test's budget as a forked solver checks it on its
  // own, sharing no lock with the parent's, or a shorter part of it
  // (engine/z3/solver_process.hpp).
  Budget(BudgetLimits limits, std::chrono::steady_clock::time_point deadline);
  std::chrono::steady_clock::time_point deadline() const { return deadline_; }

  // Throws BudgetExceeded when the deadline has passed or the watchdog has
  // stopped the test. Cheap: one clock read.
  void check() const;
  bool limited() const { return limits_.seconds > 0 || limits_.memory_mb > 0; }
  // Charges `bytes` about to be allocated: throws BudgetExceeded (Memory)
  // when --max-memory is set and resident_mb() plus the request is over it,
  // so an input-sized allocation is refused before it is made; also check()s
  // the deadline. Call it before every allocation whose size grows with the
  // input (n x n relations, memory cells, estimates).
  void charge(std::size_t bytes) const;
  // Throws BudgetExceeded (Memory) when --max-memory is set and
  // resident_mb() is over it (what the watchdog's poll() finds), and check()s
  // the deadline: for a thread waiting on a helper process.
  void check_memory() const;
  const BudgetLimits& limits() const { return limits_; }

  // Stops the test: later check() calls throw, and every registered
  // interrupt hook is called (a Z3 context's check() then returns unknown).
  void stop(BudgetKind k);
  // Called by the watchdog: stops the test when the deadline has passed or
  // the process's resident memory is over the cap; true when stopped.
  bool poll();

  // Registers `interrupt` with the budget `b` (may be null: then nothing)
  // for the guard's lifetime. The watchdog calls it, on its own thread and
  // under the budget's lock, when it stops the test and at every later poll
  // (a solver made after the first stop must stop too); it is called at
  // once when the test is already stopped. It must be safe to call from
  // another thread (z3::context::interrupt is).
  class InterruptGuard {
   public:
    InterruptGuard(const Budget* b, std::function<void()> interrupt);
    ~InterruptGuard();
    InterruptGuard(const InterruptGuard&) = delete;
    InterruptGuard& operator=(const InterruptGuard&) = delete;

   private:
    const Budget* b_;
    std::function<void()> interrupt_;
    friend class Budget;
  };

 private:
  [[noreturn]] void raise() const;

  BudgetLimits limits_;
  std::chrono::steady_clock::time_point deadline_;
  mutable std::atomic<int> stopped_{-1};         // -1, or a BudgetKind
  mutable std::atomic<std::size_t> pending_{0};  // small charges not yet compared
  mutable std::mutex mu_;
  mutable std::vector<const InterruptGuard*> hooks_;  // guarded by mu_
};

// Resident memory of this process, in MiB (0 when unknown), plus what its
// live helper processes hold beyond the pages they share with it
// (HelperMemory): the memory --max-memory bounds.
std::size_t resident_mb();

// One helper process's own memory (a forked solver's growth since its fork,
// which its parent measures), counted in resident_mb() for this object's
// lifetime. Process-wide by nature, like the resident size itself.
class HelperMemory {
 public:
  HelperMemory() = default;
  ~HelperMemory();
  HelperMemory(const HelperMemory&) = delete;
  HelperMemory& operator=(const HelperMemory&) = delete;
  void set(std::size_t mb);

 private:
  std::size_t mb_ = 0;
};
// In a helper process just forked: its parent's helpers are not its own.
void forget_helper_memory();

// The budget of the test this thread is running (null: none), for the
// stages whose interfaces carry no options: the dialects' parsers check it
// (issue 28: the budget starts before parsing). with_budget sets it for its
// body through AmbientBudget. Per thread, like the test it belongs to: a
// suite's workers each run one test at a time, and nothing is shared.
const Budget* ambient_budget();
class AmbientBudget {
 public:
  explicit AmbientBudget(const Budget* b);
  ~AmbientBudget();
  AmbientBudget(const AmbientBudget&) = delete;
  AmbientBudget& operator=(const AmbientBudget&) = delete;

 private:
  const Budget* saved_;
};

// budget->charge(bytes), or nothing when there is no budget (engines run
// without one from tests and analyses).
inline void charge(const Budget* budget, std::size_t bytes) {
  if (budget) budget->charge(bytes);
}
// budget->check(), or nothing when there is no budget.
inline void check(const Budget* budget) {
  if (budget) budget->check();
}

// Calls tick() every `period` until `st` is stopped (for watchdogs and
// progress lines on a std::jthread). condition_variable_any::wait_for with a
// stop token returns the predicate's value (false) both on time-out and on
// stop, so the token itself is tested.
template <class F>
void every(std::stop_token st, std::chrono::milliseconds period, F tick) {
  std::mutex m;
  std::condition_variable_any cv;
  std::unique_lock<std::mutex> lock(m);
  while (!st.stop_requested()) {
    cv.wait_for(lock, st, period, [] { return false; });
    if (st.stop_requested()) return;
    tick();
  }
}

// Runs body(o) where `o` is `opts` with a fresh Budget from opts.limits,
// watched by a thread that stops it at the deadline or the memory cap (and
// calls its interrupt hooks). Any failure once the budget is spent (an
// interrupted solver's "unknown", say) becomes BudgetExceeded.
template <class Opts, class F>
auto with_budget(const Opts& opts, F body) {
  Budget budget(opts.limits);
  Opts o = opts;
  o.budget = &budget;
  // Expansion (memory layout, paths, skeletons) runs under the same budget.
  if constexpr (requires { o.expand.budget; }) o.expand.budget = &budget;
  const AmbientBudget ambient(&budget);
  std::jthread watchdog;
  if (budget.limited())
    // Once stopped, poll() keeps interrupting: a solver made after the first
    // interrupt must stop too.
    watchdog = std::jthread([&budget](std::stop_token st) {
      every(st, std::chrono::milliseconds(50), [&budget] { budget.poll(); });
    });
  try {
    return body(static_cast<const Opts&>(o));
  } catch (const BudgetExceeded&) {
    throw;
  } catch (const std::exception&) {
    budget.check();
    throw;
  }
}

}  // namespace redscope
