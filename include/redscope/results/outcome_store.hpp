// Outcomes kept for printing at the limit of what can be printed (issue 34
// item 2): an engine hands each outcome it finds to an OutcomeStore, which
// keeps its values packed (a byte key whose byte order is the values' order)
// and its witness as event pairs, drops values seen before, and past a memory
// budget sorts what it holds and spills it to a file in $TMPDIR. Once the
// search ends, the outcomes are replayed in order by a k-way merge of the
// runs (the first run that found a value gives its witness, as a map would),
// so memory does not grow with the number of outcomes. The CLI's writers
// print a result's listing outcome by outcome (report.hpp: write_text,
// write_json_item, write_json_line).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "redscope/core/litmus.hpp"
#include "redscope/results/condition_plan.hpp"
#include "redscope/results/results.hpp"

namespace redscope {

// How a caller that prints outcomes as they are replayed wants them kept
// (EngineOptions::listing).
struct ListingOptions {
  bool witnesses = true;                        // JSON prints witnesses; text does not
  std::size_t memory = std::size_t{256} << 20;  // bytes held before a sorted run is spilled
  std::string spill_dir;                        // empty: $TMPDIR, else /tmp
  unsigned threads = 1;  // a run is sorted on this many (EngineOptions::workers)
};

// A witness edge between two events of the skeleton the outcome came from.
struct EdgeCode {
  std::uint32_t from = 0, to = 0;
};

class OutcomeStore;

// The store's records: bytes grown by realloc, which moves a large block's
// pages (glibc: mremap) where std::vector copies every byte into fresh
// memory and faults its pages in (a quarter of IRIW-10's calling thread,
// docs/performance.md). New bytes are left unset.
class ByteArena {
 public:
  ByteArena() = default;
  ByteArena(const ByteArena&) = delete;
  ByteArena& operator=(const ByteArena&) = delete;
  ~ByteArena() { std::free(data_); }
  std::uint8_t* data() { return data_; }
  const std::uint8_t* data() const { return data_; }
  std::size_t size() const { return size_; }
  std::size_t capacity() const { return cap_; }
  std::uint8_t& operator[](std::size_t i) { return data_[i]; }
  const std::uint8_t& operator[](std::size_t i) const { return data_[i]; }
  void resize(std::size_t n) {
    if (n > cap_) reserve(std::max({n, 2 * cap_, std::size_t{4096}}));
    size_ = n;
  }
  void append(const std::uint8_t* p, std::size_t n) {
    const std::size_t at = size_;
    resize(size_ + n);
    if (n) std::memcpy(data_ + at, p, n);
  }
  void release() {
    std::free(data_);
    data_ = nullptr;
    size_ = cap_ = 0;
  }

 private:
  void reserve(std::size_t n) {
    void* p = std::realloc(data_, n);
    if (!p) throw std::bad_alloc();
    data_ = static_cast<std::uint8_t*>(p);
    cap_ = n;
  }
  std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0, cap_ = 0;
};

// Outcomes packed on another thread for a store (the enumerator's workers,
// leaf_pool.hpp): records as the store keeps them, in the order found, each
// judged by the condition and with its key's hash, repeats included. The
// store absorbs batches in the order the one-thread search would have found
// their outcomes, so each value keeps the witness that search gives it.
class OutcomeBatch {
 public:
  // Outcomes for `store` from skeleton `skeleton`; reads only the store's
  // fixed parts (types, condition), so batches fill while it grows.
  OutcomeBatch(const OutcomeStore& store, std::uint32_t skeleton);
  // As OutcomeStore::add, without dropping repeats.
  template <class F>
  void add(std::span<const std::uint64_t> values, F&& witness);
  std::size_t size() const { return hashes_.size(); }
  std::size_t bytes() const { return records_.capacity() + hashes_.capacity() * 8; }

 private:
  friend class OutcomeStore;
  void append_key(std::span<const std::uint64_t> values);
  void append_witness();
  const OutcomeStore* store_;
  std::uint32_t skeleton_;
  std::vector<std::uint8_t> records_;
  std::vector<std::uint64_t> hashes_;
  std::vector<EdgeCode> rf_, co_;
};

class OutcomeStore {
 public:
  // Outcomes of `observables`, each judged by `condition` once, when new.
  OutcomeStore(const std::vector<Observable>& observables, const CondExpr& condition,
               ListingOptions opts);
  ~OutcomeStore();
  OutcomeStore(const OutcomeStore&) = delete;
  OutcomeStore& operator=(const OutcomeStore&) = delete;

  // Whether outcomes of this many observables, with witnesses over
  // skeletons of at most this many events, fit the store's records (a key
  // of up to 65,535 bytes, up to 65,535 rf and co edges each).
  static bool fits(std::size_t observables, std::size_t events) {
    return observables <= 3000 && events <= 256;
  }

  // The skeleton the next outcomes come from, and its events' labels
  // ("P1#0 ld.weak r0, x"), which witness edges are printed with.
  void begin_skeleton(std::uint32_t index, std::vector<std::string> labels);

  // Keeps `values` unless kept before; for a new outcome with witnesses on,
  // calls witness(rf, co) to append its edges. Returns whether it was new.
  template <class F>
  bool add(std::span<const std::uint64_t> values, F&& witness) {
    if (!insert(values)) return false;
    if (opts_.witnesses) {
      rf_.clear();
      co_.clear();
      witness(rf_, co_);
    }
    commit();
    return true;
  }
  // Adds a batch's outcomes in its order, as add() would have (the
  // repeats dropped, the first witness kept).
  void absorb(const OutcomeBatch& batch);
  // Distinct outcomes kept so far: at least (the largest run) and at most
  // (every run's, duplicates across spilled runs counted twice).
  std::size_t size_at_least() const { return std::max(held_, largest_run_); }
  std::size_t size_at_most() const { return spilled_ + held_; }
  bool witnesses() const { return opts_.witnesses; }
  std::size_t runs_spilled() const { return files_.size(); }

  // After the last add: sorts the run in memory and counts the distinct
  // outcomes and those satisfying the condition (a merge pass when spilled).
  void finish();
  std::size_t size() const { return count_; }
  std::size_t satisfying() const { return satisfying_; }

  struct Entry {
    const std::vector<std::uint64_t>& values;
    bool satisfies;
    std::uint32_t skeleton;
    std::span<const EdgeCode> rf, co;
  };
  // Each distinct outcome (after finish), ordered by its values as their
  // types read them, with the witness of the first found. Replayable.
  void for_each(const std::function<void(const Entry&)>& f) const;
  // "A -> B" for an edge of skeleton `skeleton`.
  std::string edge_text(std::uint32_t skeleton, EdgeCode e) const;

 private:
  friend class OutcomeBatch;
  struct Cursor;
  struct MemoryCursor;
  struct FileCursor;
  bool insert(std::span<const std::uint64_t> values);
  // The empty slot a key of hash `h` goes to, or null when held already.
  std::uint64_t* free_slot(const std::uint8_t* key, std::uint16_t size, std::uint64_t h);
  void commit();
  void added();  // after a new record: the index's growth and the spill
  void grow();
  void spill();
  void sort_held();
  std::size_t held_bytes() const;
  // Each distinct record in key order (a merge of the runs when spilled).
  void each_record(const std::function<void(const std::uint8_t*)>& f) const;

  ListingOptions opts_;
  std::vector<bool> signed_;
  std::vector<unsigned> width_;
  ConditionProgram condition_;
  std::vector<Observable> observables_;
  std::uint32_t skeleton_ = 0;
  std::vector<std::vector<std::string>> labels_;  // per skeleton
  // The run in memory: records appended (key length, key, witness), an
  // open-addressing index of their offsets (+1; 0 empty), and after sorting
  // their offsets in key order.
  ByteArena arena_;
  std::vector<std::uint64_t> slots_;
  std::vector<std::uint64_t> order_;
  std::size_t held_ = 0, spilled_ = 0, largest_run_ = 0;
  std::size_t held_satisfying_ = 0;
  std::size_t pending_ = 0;  // the offset of the record insert() started
  std::vector<EdgeCode> rf_, co_;
  std::vector<std::FILE*> files_;  // spilled runs, sorted, oldest first (unlinked)
  std::size_t count_ = 0, satisfying_ = 0;
};

template <class F>
void OutcomeBatch::add(std::span<const std::uint64_t> values, F&& witness) {
  append_key(values);
  if (!store_->opts_.witnesses) return;
  rf_.clear();
  co_.clear();
  witness(rf_, co_);
  append_witness();
}

}  // namespace redscope
