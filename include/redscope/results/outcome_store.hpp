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

// Memory for the store's large arrays. A block of 1 MiB or more is mapped
// from the kernel (Linux): its pages come zeroed, it grows by mremap without
// copying a byte, and the kernel is asked to back it with huge pages
// (madvise MADV_HUGEPAGE), so tens of megabytes do not fault in 4 KiB at a
// time: with malloc, which copies a block its heap cannot extend and faults
// the copy in page by page, that was most of a large listing's system time
// (docs/performance.md). Smaller blocks, and other systems, use malloc.
class BigBlock {
 public:
  BigBlock() = default;
  BigBlock(const BigBlock&) = delete;
  BigBlock& operator=(const BigBlock&) = delete;
  ~BigBlock() { reset(); }
  void* data() const { return data_; }
  std::size_t bytes() const { return bytes_; }
  // To `n` bytes, the first min(bytes(), n) kept; with `zero`, the new ones 0.
  void resize(std::size_t n, bool zero);
  void reset();
  void swap(BigBlock& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(bytes_, o.bytes_);
    std::swap(mapped_, o.mapped_);
  }

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
  std::size_t mapped_ = 0;  // the mapping's length, or 0 when from malloc
};

// The store's records: bytes in a BigBlock, grown by doubling. New bytes
// are left unset.
class ByteArena {
 public:
  std::uint8_t* data() { return static_cast<std::uint8_t*>(mem_.data()); }
  const std::uint8_t* data() const { return static_cast<const std::uint8_t*>(mem_.data()); }
  std::size_t size() const { return size_; }
  std::size_t capacity() const { return mem_.bytes(); }
  std::uint8_t& operator[](std::size_t i) { return data()[i]; }
  const std::uint8_t& operator[](std::size_t i) const { return data()[i]; }
  void resize(std::size_t n) {
    if (n > capacity()) mem_.resize(std::max({n, 2 * capacity(), std::size_t{4096}}), false);
    size_ = n;
  }
  void append(const std::uint8_t* p, std::size_t n) {
    const std::size_t at = size_;
    resize(size_ + n);
    if (n) std::memcpy(data() + at, p, n);
  }
  void release() {
    mem_.reset();
    size_ = 0;
  }

 private:
  BigBlock mem_;
  std::size_t size_ = 0;
};

// The records' offsets, in the order added, then in key order once sorted.
class OffsetList {
 public:
  std::size_t size() const { return size_; }
  std::uint64_t& operator[](std::size_t i) { return data()[i]; }
  std::uint64_t operator[](std::size_t i) const { return data()[i]; }
  void push_back(std::uint64_t off) {
    if (size_ * sizeof off == mem_.bytes())
      mem_.resize(std::max<std::size_t>(2 * mem_.bytes(), 4096), false);
    data()[size_++] = off;
  }
  std::size_t bytes() const { return mem_.bytes(); }
  const std::uint64_t* begin() const { return data(); }
  const std::uint64_t* end() const { return data() + size_; }
  void release() {
    mem_.reset();
    size_ = 0;
  }

 private:
  std::uint64_t* data() const { return static_cast<std::uint64_t*>(mem_.data()); }
  BigBlock mem_;
  std::size_t size_ = 0;
};

// The store's hash index: `size()` words, zero when made.
class SlotTable {
 public:
  void assign_zero(std::size_t n) {
    mem_.reset();
    mem_.resize(n * sizeof(std::uint64_t), true);
  }
  std::size_t size() const { return mem_.bytes() / sizeof(std::uint64_t); }
  std::uint64_t& operator[](std::size_t i) { return static_cast<std::uint64_t*>(mem_.data())[i]; }
  void swap(SlotTable& o) noexcept { mem_.swap(o.mem_); }
  void release() { mem_.reset(); }

 private:
  BigBlock mem_;
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
  // Empty again, for outcomes of skeleton `skeleton`; its memory is kept.
  void reuse(std::uint32_t skeleton) {
    skeleton_ = skeleton;
    records_.resize(0);
    hashes_.clear();
  }

 private:
  friend class OutcomeStore;
  void append_key(std::span<const std::uint64_t> values);
  void append_witness();
  const OutcomeStore* store_;
  std::uint32_t skeleton_;
  ByteArena records_;  // held through a pointer: a batch is never moved
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
  void added(std::uint64_t offset);  // after a new record: its offset, the index, the spill
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
  // open-addressing index of their offsets (+1; 0 empty), and the offsets
  // as added (in key order once sorted).
  ByteArena arena_;
  SlotTable slots_;
  OffsetList order_;
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
