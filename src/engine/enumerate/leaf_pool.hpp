// The enumerator on several threads (EngineOptions::workers): the search
// stays on the thread that runs it, and the work of its leaves — each
// consistent candidate's outcomes under the permutations of interchangeable
// threads, their witnesses and the index that keeps each value once — runs
// as jobs on the workers, each job writing its own map. The maps are merged
// in the order the search made the jobs, so every value keeps the witness
// the one-thread run gives it, whatever the number of workers.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "redscope/core/budget.hpp"
#include "redscope/results/outcome_store.hpp"
#include "redscope/results/results.hpp"

namespace redscope::enumerate {

using Values = std::vector<std::uint64_t>;
// Outcomes found so far, by value vector. (A hash table was tried: its
// insertions are cheaper, but the sort settle_result then does from no
// order cost more than they saved; docs/performance.md.)
using Found = std::map<Values, Witness>;

// Jobs made by one thread in order, run on `helpers` threads of their own
// and on the maker's while it waits (drain). A job's exception stops the
// pool and is rethrown to the maker by drain() (the first in job order).
class LeafPool {
 public:
  using Job = std::function<void(Found&)>;
  LeafPool(unsigned helpers, const Budget* budget);
  ~LeafPool();
  LeafPool(const LeafPool&) = delete;
  LeafPool& operator=(const LeafPool&) = delete;

  // Queues a job; its outcomes go to a map of their own, after the
  // previous job's.
  void push(Job job);
  // A listing run's job: its outcomes go to `batch`, which goes into
  // `store` (the same for every job) after the previous jobs' batches.
  // Whichever thread finishes the job the next batch waits for adds the
  // finished batches in job order, one thread at a time, so the maker
  // (the search) does not add them all: the store is the pool's until
  // absorb(true) returns.
  using PackedJob = std::function<void(OutcomeBatch&)>;
  void push(PackedJob job, std::unique_ptr<OutcomeBatch> batch, OutcomeStore& store);
  // With `all`, returns once every job's batch is in the store, running
  // queued jobs and adding batches on this thread too meanwhile (like
  // drain()). Rethrows a job's exception, or the store's.
  void absorb(bool all);
  // A batch already added, to fill again (its memory already faulted in),
  // or null.
  std::unique_ptr<OutcomeBatch> spare_batch();
  // The store's size_at_least() after the last batch added (any thread).
  std::size_t listed_at_least() const { return listed_.load(std::memory_order_relaxed); }
  // Runs one queued job on this thread when more than `queued` wait (the
  // workers are behind: the maker helps rather than gather more leaves).
  void help_if_behind(std::size_t queued);
  // Runs queued jobs on this thread too until every job is done; rethrows
  // a job's exception.
  void drain();
  // Drops the queued jobs and waits for the running ones (the search
  // failed: the jobs read its state). Does not throw.
  void abandon() noexcept;
  // Whether a job failed (the maker should drain() to rethrow it).
  bool failed() const { return failed_.load(std::memory_order_relaxed); }
  // A lower bound of the number of distinct values found: the largest map
  // of a finished job, or the last count().
  std::size_t lower_bound() const;
  // drain(), then the number of distinct values over every job's map.
  std::size_t count();
  // drain(), then the maps in job order (the pool keeps none).
  std::vector<Found> take();

 private:
  struct Slot {
    Job job;  // moved out when the job starts
    Found found;
    std::exception_ptr error;
    PackedJob packed;                     // or this, for a listing run
    std::unique_ptr<OutcomeBatch> batch;  // its outcomes, until absorbed
    bool done = false;
  };
  void work(std::stop_token st);
  void start_helpers(std::size_t queued);  // once enough jobs wait
  void run_next(std::unique_lock<std::mutex>& lock, bool add);
  // The finished batches that follow the added ones into store_, unless
  // another thread holds store_mu_ (it re-checks before it leaves).
  // Whether this thread added (held store_mu_).
  bool absorb_ready();
  bool next_batch_ready();  // with mu_ held

  const Budget* budget_;
  std::mutex mu_;
  std::condition_variable_any cv_;   // a job queued, or the pool stops
  std::condition_variable done_cv_;  // a job finished
  std::deque<Slot> slots_;           // by job index (a deque: elements stay put)
  std::deque<std::size_t> queue_;    // jobs not started
  std::size_t running_ = 0;
  std::atomic<bool> failed_{false};
  std::atomic<std::size_t> largest_{0};
  std::set<Values> counted_;  // the values of slots [0, counted_upto_), for count()
  std::size_t counted_upto_ = 0;
  std::size_t absorbed_ = 0;       // slots whose batches are in store_ (mu_)
  OutcomeStore* store_ = nullptr;  // set by the first push; its contents under store_mu_
  std::mutex store_mu_;
  std::exception_ptr store_error_;  // the store's own failure (a spill), under mu_
  std::atomic<std::size_t> listed_{0};
  std::vector<std::unique_ptr<OutcomeBatch>> spare_;  // added batches to reuse (mu_)
  unsigned helpers_;
  std::vector<std::jthread> threads_;  // last: joined before the rest goes
};

// The outcomes of `parts` (maps made in this order): each value once, with
// the witness of the first part that has it, in unsigned value order, each
// judged by `test`'s condition. Runs on `workers` threads, by value ranges;
// empties `parts`.
std::vector<Outcome> merge_parts(std::vector<Found>& parts, const LitmusTest& test,
                                 const std::vector<Observable>& obs, unsigned workers);

}  // namespace redscope::enumerate
