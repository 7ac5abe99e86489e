#include "engine/enumerate/leaf_pool.hpp"

#include <algorithm>
#include <optional>
#include <queue>

#include "redscope/core/parallel.hpp"

namespace redscope::enumerate {

LeafPool::LeafPool(unsigned helpers, const Budget* budget) : budget_(budget), helpers_(helpers) {}

// The helpers start once kStartQueued jobs wait: a search that queues fewer
// (most small tests; the maker runs them in drain() or absorb()) costs no
// thread, about 1.2 ms of a process here (docs/performance.md "CI time,
// round 5"). Only the maker calls push, so threads_ changes on its thread
// alone. `queued`: the queue's length, read by push under mu_.
constexpr std::size_t kStartQueued = 4;

void LeafPool::start_helpers(std::size_t queued) {
  if (!threads_.empty() || queued < kStartQueued) return;
  for (unsigned k = 0; k < helpers_; ++k)
    threads_.emplace_back([this](std::stop_token st) { work(st); });
}

LeafPool::~LeafPool() {
  abandon();
  for (std::jthread& t : threads_) t.request_stop();
  cv_.notify_all();
}

void LeafPool::push(Job job) {
  std::size_t queued;
  {
    const std::lock_guard lock(mu_);
    slots_.push_back(Slot{std::move(job), {}, {}, {}, {}, false});
    queue_.push_back(slots_.size() - 1);
    queued = queue_.size();
  }
  start_helpers(queued);
  cv_.notify_one();
}

void LeafPool::push(PackedJob job, std::unique_ptr<OutcomeBatch> batch, OutcomeStore& store) {
  std::size_t queued;
  {
    const std::lock_guard lock(mu_);
    if (!store_) store_ = &store;  // set once: the adders read it without mu_
    slots_.push_back(Slot{{}, {}, {}, std::move(job), std::move(batch), false});
    queue_.push_back(slots_.size() - 1);
    queued = queue_.size();
  }
  start_helpers(queued);
  cv_.notify_one();
}

std::unique_ptr<OutcomeBatch> LeafPool::spare_batch() {
  const std::lock_guard lock(mu_);
  if (spare_.empty()) return nullptr;
  std::unique_ptr<OutcomeBatch> b = std::move(spare_.back());
  spare_.pop_back();
  return b;
}

void LeafPool::absorb(bool all) {
  if (!all) {               // the search goes on: the finishers add
    if (failed()) drain();  // rethrows
    return;
  }
  std::unique_lock lock(mu_);
  while (absorbed_ < slots_.size() && !failed()) {
    if (!queue_.empty()) {
      run_next(lock, true);  // adds what it can once its job is done
    } else if (!next_batch_ready()) {
      done_cv_.wait(lock);
    } else {  // its finisher could not add it: another thread was adding
      const std::size_t before = absorbed_;
      lock.unlock();
      const bool added = absorb_ready();
      lock.lock();
      if (!added) done_cv_.wait(lock, [&] { return absorbed_ != before || failed(); });
    }
  }
  lock.unlock();
  if (failed()) drain();  // rethrows
}

bool LeafPool::next_batch_ready() { return absorbed_ < slots_.size() && slots_[absorbed_].done; }

bool LeafPool::absorb_ready() {
  for (bool added = false;; added = true) {
    std::unique_lock adding(store_mu_, std::try_to_lock);
    if (!adding) return added;  // the holder re-checks after it lets go
    for (;;) {
      Slot* s = nullptr;
      {
        const std::lock_guard lock(mu_);
        if (!next_batch_ready() || failed()) break;
        s = &slots_[absorbed_];  // a deque's elements stay put as it grows
      }
      if (s->batch && !s->error) {
        try {
          store_->absorb(*s->batch);
          listed_.store(store_->size_at_least(), std::memory_order_relaxed);
        } catch (...) {
          const std::lock_guard lock(mu_);
          store_error_ = std::current_exception();
          failed_ = true;
        }
      }
      const std::lock_guard lock(mu_);
      if (s->batch && spare_.size() < 16) spare_.push_back(std::move(s->batch));
      s->batch.reset();
      ++absorbed_;
      done_cv_.notify_all();
    }
    adding.unlock();
    const std::lock_guard lock(mu_);
    if (!next_batch_ready() || failed()) return true;
  }
}

void LeafPool::work(std::stop_token st) {
  std::unique_lock lock(mu_);
  for (;;) {
    if (!cv_.wait(lock, st, [this] { return !queue_.empty(); })) return;  // stopped
    run_next(lock, true);
  }
}

// Runs the first queued job with `lock` released meanwhile; then, with
// `add`, adds the batches it can.
void LeafPool::run_next(std::unique_lock<std::mutex>& lock, bool add) {
  const std::size_t i = queue_.front();
  queue_.pop_front();
  Slot& s = slots_[i];  // a deque's elements stay put as it grows
  Job job = std::move(s.job);
  PackedJob packed = std::move(s.packed);
  ++running_;
  lock.unlock();
  if (!failed_.load(std::memory_order_relaxed)) {
    try {
      check(budget_);
      if (packed)
        packed(*s.batch);
      else
        job(s.found);
    } catch (...) {
      s.error = std::current_exception();
      failed_ = true;
    }
  }
  job = nullptr;  // the leaves it held
  packed = nullptr;
  std::size_t seen = largest_.load();
  while (s.found.size() > seen && !largest_.compare_exchange_weak(seen, s.found.size())) {}
  lock.lock();
  s.done = true;
  if (store_ && add) {  // still running: abandon() and drain() wait for the adding too
    lock.unlock();
    absorb_ready();
    lock.lock();
  }
  --running_;
  done_cv_.notify_all();
}

void LeafPool::help_if_behind(std::size_t queued) {
  std::unique_lock lock(mu_);
  // The search goes on at once: the workers add the batches (a large
  // store's growth would otherwise stall it, and them with it).
  if (queue_.size() > queued) run_next(lock, false);
}

void LeafPool::drain() {
  {
    std::unique_lock lock(mu_);
    for (;;) {
      if (!queue_.empty())
        run_next(lock, true);
      else if (running_ == 0)
        break;
      else
        done_cv_.wait(lock);
    }
  }
  for (const Slot& s : slots_)
    if (s.error) std::rethrow_exception(s.error);
  if (store_error_) std::rethrow_exception(store_error_);
}

void LeafPool::abandon() noexcept {
  std::unique_lock lock(mu_);
  queue_.clear();
  done_cv_.wait(lock, [this] { return running_ == 0; });
}

std::size_t LeafPool::lower_bound() const { return std::max(largest_.load(), counted_.size()); }

std::size_t LeafPool::count() {
  drain();
  for (; counted_upto_ < slots_.size(); ++counted_upto_)
    for (const auto& [vals, w] : slots_[counted_upto_].found) counted_.insert(vals);
  return counted_.size();
}

std::vector<Found> LeafPool::take() {
  drain();
  std::vector<Found> parts;
  parts.reserve(slots_.size());
  for (Slot& s : slots_) parts.push_back(std::move(s.found));
  slots_.clear();
  counted_.clear();
  counted_upto_ = 0;
  absorbed_ = 0;
  return parts;
}

namespace {

// A part's outcomes in value order, moved out of its map.
using Entry = std::pair<Values, Witness>;
using List = std::vector<Entry>;

List listed(Found& part) {
  List l;
  l.reserve(part.size());
  while (!part.empty()) {
    auto node = part.extract(part.begin());  // keys move: no copy of a value vector
    l.emplace_back(std::move(node.key()), std::move(node.mapped()));
  }
  return l;
}

// Keys that cut the values into about `ranges` ranges of similar size,
// taken from the longest list; ascending.
std::vector<Values> splitters(const std::vector<List>& lists, std::size_t ranges) {
  const List* big = nullptr;
  for (const List& l : lists)
    if (!big || l.size() > big->size()) big = &l;
  std::vector<Values> cuts;
  if (!big || ranges < 2 || big->size() < 2 * ranges) return cuts;
  for (std::size_t r = 1; r < ranges; ++r) cuts.push_back((*big)[r * big->size() / ranges].first);
  return cuts;
}

using Range = std::pair<Entry*, Entry*>;

// The outcomes of one value range: a heap of the lists' heads, the smallest
// value first and, among equal values, the earliest list (whose witness is
// kept; the others' are dropped).
std::vector<Outcome> merge_range(std::vector<Range> heads, const LitmusTest& test,
                                 const std::vector<Observable>& obs) {
  const auto later = [&](std::size_t a, std::size_t b) {
    const Values& x = heads[a].first->first;
    const Values& y = heads[b].first->first;
    return x != y ? y < x : b < a;
  };
  std::priority_queue<std::size_t, std::vector<std::size_t>, decltype(later)> heap(later);
  std::size_t total = 0;
  for (std::size_t i = 0; i < heads.size(); ++i) {
    total += static_cast<std::size_t>(heads[i].second - heads[i].first);
    if (heads[i].first != heads[i].second) heap.push(i);
  }
  std::vector<Outcome> out;
  out.reserve(total);
  while (!heap.empty()) {
    const std::size_t i = heap.top();
    heap.pop();
    Entry& e = *heads[i].first;
    const bool sat = eval_condition(test.condition, obs, e.first);
    out.push_back(Outcome{std::move(e.first), sat, std::move(e.second)});
    const Values& key = out.back().values;
    if (++heads[i].first != heads[i].second) heap.push(i);
    while (!heap.empty() && heads[heap.top()].first->first == key) {
      const std::size_t j = heap.top();
      heap.pop();
      if (++heads[j].first != heads[j].second) heap.push(j);
    }
  }
  return out;
}

}  // namespace

std::vector<Outcome> merge_parts(std::vector<Found>& parts, const LitmusTest& test,
                                 const std::vector<Observable>& obs, unsigned workers) {
  std::vector<List> lists(parts.size());
  parallel_for(parts.size(), workers, [&](std::size_t i) { lists[i] = listed(parts[i]); });
  parts.clear();
  const std::vector<Values> cuts = splitters(lists, workers > 1 ? 8 * std::size_t{workers} : 1);
  std::vector<std::vector<Range>> ranges(cuts.size() + 1);
  for (List& l : lists) {
    Entry* from = l.data();
    for (std::size_t r = 0; r < ranges.size(); ++r) {
      Entry* to = r < cuts.size() ? std::lower_bound(
                                        from, l.data() + l.size(), cuts[r],
                                        [](const Entry& e, const Values& v) { return e.first < v; })
                                  : l.data() + l.size();
      ranges[r].emplace_back(from, to);
      from = to;
    }
  }
  std::vector<std::vector<Outcome>> merged(ranges.size());
  parallel_for(ranges.size(), workers,
               [&](std::size_t r) { merged[r] = merge_range(ranges[r], test, obs); });
  std::size_t total = 0;
  for (const auto& m : merged) total += m.size();
  std::vector<Outcome> out;
  out.reserve(total);
  for (auto& m : merged) {
    std::move(m.begin(), m.end(), std::back_inserter(out));
    std::vector<Outcome>().swap(m);  // moved-from: one block to free
  }
  // What is left of the lists is moved-from too, but a million entries
  // still free faster on every worker.
  parallel_for(lists.size(), workers, [&](std::size_t i) { List().swap(lists[i]); });
  return out;
}

}  // namespace redscope::enumerate
