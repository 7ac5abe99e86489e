// The outcome store (outcome_store.hpp): packed keys, a hash index, sorted
// runs spilled to unlinked files, and their k-way merge.
#include "redscope/results/outcome_store.hpp"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <queue>
#include <stdexcept>

#include <fmt/format.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "redscope/core/parallel.hpp"

namespace redscope {

namespace {

// ---- keys: each value as a prefix byte and its significant bytes ------------
// A value is compared as its type reads it (a signed type's bits sign-extended
// from its width, results.cpp: settle_outcomes). A value x >= 0 with n
// significant bytes is the byte 9 + n then those bytes, most significant
// first; x < 0 is 8 - n, n the significant bytes of ~x, then x's low n bytes.
// So comparing keys byte by byte compares the values in order, and no
// value's bytes are a prefix of another's: a key's order is its values'.
constexpr std::uint8_t kNonNegative = 9;

unsigned significant_bytes(std::uint64_t x) {
  return x == 0 ? 0 : (64 - static_cast<unsigned>(std::countl_zero(x)) + 7) / 8;
}

std::uint64_t low_mask(unsigned w) { return w >= 64 ? ~0ULL : (1ULL << w) - 1; }

// Writes v's encoding at p; returns the end.
std::uint8_t* encode(std::uint8_t* p, std::uint64_t v, bool is_signed, unsigned w) {
  const std::uint64_t m = v & low_mask(w);
  std::int64_t s = static_cast<std::int64_t>(m);
  if (is_signed && w < 64) s = static_cast<std::int64_t>(m << (64 - w)) >> (64 - w);
  const bool neg = is_signed && s < 0;
  const std::uint64_t x = neg ? static_cast<std::uint64_t>(s) : m;
  const unsigned n = significant_bytes(neg ? ~x : x);
  *p++ = static_cast<std::uint8_t>(neg ? kNonNegative - 1 - n : kNonNegative + n);
  for (unsigned i = n; i-- > 0;) *p++ = static_cast<std::uint8_t>(x >> (8 * i));
  return p;
}

// The values of a key, each masked to its type's width (how they print).
void decode(const std::uint8_t* p, const std::vector<unsigned>& width,
            std::vector<std::uint64_t>& out) {
  for (std::size_t i = 0; i < width.size(); ++i) {
    const std::uint8_t prefix = *p++;
    const bool neg = prefix < kNonNegative;
    const unsigned n = neg ? kNonNegative - 1u - prefix : prefix - kNonNegative;
    std::uint64_t x = 0;
    for (unsigned k = 0; k < n; ++k) x = (x << 8) | *p++;
    if (neg && n < 8) x |= ~0ULL << (8 * n);
    out[i] = x & low_mask(width[i]);
  }
}

// A slot holds a record's offset + 1 in its low 40 bits and the low 24 bits
// of its key's hash above them. Those bits are compared before the record
// is read, and while the table has at most 2^24 slots they hold the slot's
// home index whole: grow() then moves slots without hashing a key again.
constexpr unsigned kOffsetBits = 40;
constexpr std::uint64_t kOffsetMask = (std::uint64_t{1} << kOffsetBits) - 1;
constexpr std::uint64_t kHashMask = 0xffffff;
std::uint64_t slot_of(std::uint64_t h, std::uint64_t offset) {
  return ((h & kHashMask) << kOffsetBits) | (offset + 1);
}

std::uint64_t hash_bytes(const std::uint8_t* p, std::size_t n) {
  std::uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
  for (; n >= 8; n -= 8, p += 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ w) * 0xff51afd7ed558ccdULL;
    h ^= h >> 32;
  }
  std::uint64_t w = 0;
  std::memcpy(&w, p, n);
  h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
  return h ^ (h >> 29);
}

// ---- records: u16 key length, key, then (witnesses on) u32 skeleton, u16
// rf count, u16 co count, and the edges as u32 pairs -------------------------
template <class T>
T load(const std::uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <class T>
void append(ByteArena& out, T v) {
  out.append(reinterpret_cast<const std::uint8_t*>(&v), sizeof v);
}

struct KeyView {
  const std::uint8_t* data;
  std::uint16_t size;
  bool operator<(const KeyView& o) const {
    const int c = std::memcmp(data, o.data, std::min(size, o.size));
    return c != 0 ? c < 0 : size < o.size;
  }
  bool operator==(const KeyView& o) const {
    return size == o.size && std::memcmp(data, o.data, size) == 0;
  }
};

// The key's length, whose top bit says whether the outcome satisfies the
// condition (judged once, when it was new).
constexpr std::uint16_t kSatisfies = 0x8000;
std::uint16_t key_size(const std::uint8_t* rec) {
  return static_cast<std::uint16_t>(load<std::uint16_t>(rec) & ~kSatisfies);
}
bool satisfies(const std::uint8_t* rec) { return (load<std::uint16_t>(rec) & kSatisfies) != 0; }

KeyView key_at(const std::uint8_t* rec) { return KeyView{rec + 2, key_size(rec)}; }

// The record's length in bytes.
std::size_t record_size(const std::uint8_t* rec, bool witnesses) {
  std::size_t n = 2 + key_size(rec);
  if (!witnesses) return n;
  const std::size_t edges = load<std::uint16_t>(rec + n + 4) + load<std::uint16_t>(rec + n + 6);
  return n + 8 + edges * sizeof(EdgeCode);
}

std::FILE* spill_file(const std::string& dir_option) {
  std::string dir = dir_option;
  if (dir.empty()) {
    const char* t = std::getenv("TMPDIR");
    dir = t && *t ? t : "/tmp";
  }
  std::string path = dir + "/redscope-outcomes-XXXXXX";
  const int fd = ::mkstemp(path.data());
  if (fd < 0)
    throw std::runtime_error(
        fmt::format("cannot make a file for outcomes in {}: {}", dir, std::strerror(errno)));
  ::unlink(path.c_str());  // gone with the process, whatever happens
  std::FILE* f = ::fdopen(fd, "w+b");
  if (!f) {
    ::close(fd);
    throw std::runtime_error(fmt::format("cannot open a file for outcomes in {}", dir));
  }
  return f;
}

}  // namespace

OutcomeStore::OutcomeStore(const std::vector<Observable>& observables, const CondExpr& condition,
                           ListingOptions opts)
    : opts_(std::move(opts)),
      condition_(condition, observables),
      observables_(observables) {
  for (const Observable& o : observables) {
    signed_.push_back(is_signed(o.type));
    width_.push_back(width_of(o.type));
  }
  slots_.assign_zero(1024);
}

OutcomeStore::~OutcomeStore() {
  for (std::FILE* f : files_) std::fclose(f);
}

void OutcomeStore::begin_skeleton(std::uint32_t index, std::vector<std::string> labels) {
  skeleton_ = index;
  if (labels_.size() <= index) labels_.resize(index + 1);
  labels_[index] = std::move(labels);
}

// Appends the key of `values` to the arena; keeps it (true) unless the
// index already holds it. commit() then completes the record.
bool OutcomeStore::insert(std::span<const std::uint64_t> values) {
  pending_ = arena_.size();
  arena_.resize(pending_ + 2 + 9 * values.size());  // the longest key
  std::uint8_t* const start = arena_.data() + pending_ + 2;
  std::uint8_t* end = start;
  for (std::size_t i = 0; i < values.size(); ++i)
    end = encode(end, values[i], signed_[i], width_[i]);
  const auto len = static_cast<std::uint16_t>(end - start);
  arena_.resize(pending_ + 2 + len);
  std::memcpy(arena_.data() + pending_, &len, 2);
  const std::uint8_t* key = arena_.data() + pending_ + 2;
  const std::uint64_t h = hash_bytes(key, len);
  std::uint64_t* slot = free_slot(key, len, h);
  if (!slot) {
    arena_.resize(pending_);
    return false;
  }
  *slot = slot_of(h, pending_);
  if (condition_(values)) {
    const auto marked = static_cast<std::uint16_t>(len | kSatisfies);
    std::memcpy(arena_.data() + pending_, &marked, 2);
    ++held_satisfying_;
  }
  return true;
}

std::uint64_t* OutcomeStore::free_slot(const std::uint8_t* key, std::uint16_t size,
                                       std::uint64_t h) {
  const KeyView k{key, size};
  const std::uint64_t tag = h & kHashMask;
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = h & mask;; i = (i + 1) & mask) {
    const std::uint64_t slot = slots_[i];
    if (slot == 0) return &slots_[i];
    if ((slot >> kOffsetBits) == tag && key_at(arena_.data() + (slot & kOffsetMask) - 1) == k)
      return nullptr;
  }
}

void OutcomeStore::commit() {
  if (opts_.witnesses) {
    append<std::uint32_t>(arena_, skeleton_);
    append<std::uint16_t>(arena_, static_cast<std::uint16_t>(rf_.size()));
    append<std::uint16_t>(arena_, static_cast<std::uint16_t>(co_.size()));
    for (const EdgeCode& e : rf_) append(arena_, e);
    for (const EdgeCode& e : co_) append(arena_, e);
  }
  added(pending_);
}

void OutcomeStore::added(std::uint64_t offset) {
  order_.push_back(offset);
  ++held_;
  if (2 * held_ > slots_.size()) grow();
  // (and before an offset outgrows a slot's 40 bits: a terabyte)
  if (held_bytes() > opts_.memory || arena_.size() > kOffsetMask / 2) spill();
}

// Each record of the batch in its order: a new key's record is copied
// whole (already judged, its witness already packed), a repeat is skipped.
void OutcomeStore::absorb(const OutcomeBatch& batch) {
  const std::uint8_t* rec = batch.records_.data();
  for (const std::uint64_t h : batch.hashes_) {
    const std::size_t n = record_size(rec, opts_.witnesses);
    const KeyView k = key_at(rec);
    if (std::uint64_t* slot = free_slot(k.data, k.size, h)) {
      const std::uint64_t offset = arena_.size();
      *slot = slot_of(h, offset);
      arena_.append(rec, n);
      if (satisfies(rec)) ++held_satisfying_;
      added(offset);
    }
    rec += n;
  }
}

// ---- big blocks ---------------------------------------------------------------

namespace {
constexpr std::size_t kMapAtLeast = std::size_t{1} << 20;
}  // namespace

void BigBlock::resize(std::size_t n, bool zero) {
  const std::size_t old = bytes_;
#if defined(__linux__) && defined(MREMAP_MAYMOVE)
  if (n >= kMapAtLeast) {
    const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    const std::size_t len = (n + page - 1) / page * page;
    void* p =
        mapped_ ? ::mremap(data_, mapped_, len, MREMAP_MAYMOVE)
                : ::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    // Advice only: where the kernel has no huge pages the block is as before.
    (void)::madvise(p, len, MADV_HUGEPAGE);
    if (!mapped_ && data_) {  // from malloc until now
      std::memcpy(p, data_, std::min(old, n));
      std::free(data_);
    }
    data_ = p;
    mapped_ = len;
    bytes_ = n;
    return;  // a mapping's new pages are zero
  }
#endif
  // Below the threshold: malloc (a mapping being shrunk is copied out first).
  void* p = mapped_ ? std::malloc(std::max<std::size_t>(n, 1))
                    : std::realloc(data_, std::max<std::size_t>(n, 1));
  if (!p) throw std::bad_alloc();
#if defined(__linux__) && defined(MREMAP_MAYMOVE)
  if (mapped_) {
    std::memcpy(p, data_, std::min(old, n));
    ::munmap(data_, mapped_);
    mapped_ = 0;
  }
#endif
  data_ = p;
  bytes_ = n;
  if (zero && n > old) std::memset(static_cast<std::uint8_t*>(data_) + old, 0, n - old);
}

void BigBlock::reset() {
#if defined(__linux__) && defined(MREMAP_MAYMOVE)
  if (mapped_) {
    ::munmap(data_, mapped_);
    data_ = nullptr;
    bytes_ = mapped_ = 0;
    return;
  }
#endif
  std::free(data_);
  data_ = nullptr;
  bytes_ = 0;
}

// ---- batches ------------------------------------------------------------------

OutcomeBatch::OutcomeBatch(const OutcomeStore& store, std::uint32_t skeleton)
    : store_(&store),
      skeleton_(skeleton) {}

// The record's key length (marked when the outcome satisfies the
// condition) and key, and the key's hash.
void OutcomeBatch::append_key(std::span<const std::uint64_t> values) {
  const std::size_t at = records_.size();
  records_.resize(at + 2 + 9 * values.size());
  std::uint8_t* const start = records_.data() + at + 2;
  std::uint8_t* end = start;
  for (std::size_t i = 0; i < values.size(); ++i)
    end = encode(end, values[i], store_->signed_[i], store_->width_[i]);
  const auto len = static_cast<std::uint16_t>(end - start);
  records_.resize(at + 2 + len);
  const auto marked =
      static_cast<std::uint16_t>(len | (store_->condition_(values) ? kSatisfies : 0));
  std::memcpy(records_.data() + at, &marked, 2);
  hashes_.push_back(hash_bytes(records_.data() + at + 2, len));
}

void OutcomeBatch::append_witness() {
  append<std::uint32_t>(records_, skeleton_);
  append<std::uint16_t>(records_, static_cast<std::uint16_t>(rf_.size()));
  append<std::uint16_t>(records_, static_cast<std::uint16_t>(co_.size()));
  for (const EdgeCode& e : rf_) append(records_, e);
  for (const EdgeCode& e : co_) append(records_, e);
}

std::size_t OutcomeStore::held_bytes() const {
  return arena_.capacity() + slots_.size() * sizeof(std::uint64_t) + order_.bytes();
}

// Twice the slots. Up to 2^24 of them each slot's stored hash bits are its
// home index: the old slots are moved as they are, no record read. Past
// that, filled from the records in the order added (read in sequence; only
// the slots are reached at random), each key hashed again.
void OutcomeStore::grow() {
  SlotTable old;
  old.assign_zero(2 * slots_.size());
  old.swap(slots_);
  const std::size_t mask = slots_.size() - 1;
  if (mask <= kHashMask) {
    for (std::size_t k = 0; k < old.size(); ++k) {
      const std::uint64_t s = old[k];
      if (s == 0) continue;
      std::size_t i = (s >> kOffsetBits) & mask;
      while (slots_[i] != 0) i = (i + 1) & mask;
      slots_[i] = s;
    }
    return;
  }
  old.release();
  for (const std::uint64_t off : order_) {
    const KeyView k = key_at(&arena_[off]);
    const std::uint64_t h = hash_bytes(k.data, k.size);
    std::size_t i = h & mask;
    while (slots_[i] != 0) i = (i + 1) & mask;
    slots_[i] = slot_of(h, off);
  }
}

namespace {

// A record's offset with 8 bytes of its key as a number (zero-padded; byte
// order is numeric order), so most comparisons read no record.
struct SortItem {
  std::uint64_t prefix, off;
};

// Bytes [from, from + 8) of the key of the record at `rec`, zero-padded.
std::uint64_t key_word(const std::uint8_t* rec, std::size_t from) {
  const KeyView k = key_at(rec);
  std::uint64_t w = 0;
  for (std::size_t b = from; b < from + 8; ++b) w = (w << 8) | (b < k.size ? k.data[b] : 0);
  return w;
}

// Sorts items[lo, hi) by key, most significant word first: on the words in
// `prefix` (bytes [0, 8)), then each run of equal words refilled with the
// next 8 bytes of its keys and sorted again, until every run is one item.
// Integers are compared, and each record read once per word its run needs,
// where comparing keys reads two records per comparison. Keys are distinct
// and none is a proper prefix of another (the encoding above), so a run of
// two or more has keys longer than the bytes it agrees on; past the longest
// key (never, so) a run is sorted by whole keys.
void sort_by_words(SortItem* items, std::size_t lo, std::size_t hi, const std::uint8_t* base) {
  struct Run {
    std::size_t lo, hi, depth;  // the run's keys agree on bytes [0, depth)
  };
  const auto by_word = [](const SortItem& a, const SortItem& b) { return a.prefix < b.prefix; };
  std::vector<Run> todo{Run{lo, hi, 0}};
  while (!todo.empty()) {
    const Run r = todo.back();
    todo.pop_back();
    if (r.depth > 0xffff) {
      std::sort(items + r.lo, items + r.hi, [base](const SortItem& a, const SortItem& b) {
        return key_at(base + a.off) < key_at(base + b.off);
      });
      continue;
    }
    std::sort(items + r.lo, items + r.hi, by_word);
    for (std::size_t i = r.lo; i < r.hi;) {
      std::size_t j = i + 1;
      while (j < r.hi && items[j].prefix == items[i].prefix) ++j;
      if (j - i > 1) {
        const std::size_t depth = r.depth + 8;
        for (std::size_t k = i; k < j; ++k) items[k].prefix = key_word(base + items[k].off, depth);
        todo.push_back(Run{i, j, depth});
      }
      i = j;
    }
  }
}

// The buckets of a sample sort: `splitters` keys (records), ascending; an
// item goes to the number of splitters whose key is at most its own.
std::size_t bucket_of(const SortItem& item, const std::vector<SortItem>& splitters,
                      const std::uint8_t* base) {
  const KeyView k = key_at(base + item.off);
  std::size_t lo = 0, hi = splitters.size();
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    const SortItem& sp = splitters[mid];
    const bool below =
        sp.prefix != item.prefix ? sp.prefix < item.prefix : !(k < key_at(base + sp.off));
    if (below)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

// Items 0..n-1 (`item(i)`) written to `items` by bucket (`bucket(item)`, at
// most 256), in their order within a bucket, the n items cut into `threads`
// slices that count, then place, at once. Returns where each bucket starts,
// and n last.
template <class Item, class Bucket>
std::vector<std::size_t> place_by_bucket(std::size_t n, unsigned threads, std::size_t buckets,
                                         SortItem* items, const Item& item, const Bucket& bucket) {
  std::vector<std::uint8_t> which(n);
  std::vector<std::size_t> count(threads * buckets, 0);
  parallel_for(threads, threads, [&](std::size_t t) {
    for (std::size_t i = t * n / threads; i < (t + 1) * n / threads; ++i) {
      which[i] = static_cast<std::uint8_t>(bucket(item(i)));
      ++count[t * buckets + which[i]];
    }
  });
  std::vector<std::size_t> start(buckets + 1, 0), at(threads * buckets);
  for (std::size_t b = 0, sum = 0; b < buckets; ++b) {
    start[b] = sum;
    for (std::size_t t = 0; t < threads; ++t) {
      at[t * buckets + b] = sum;
      sum += count[t * buckets + b];
    }
    start[b + 1] = sum;
  }
  parallel_for(threads, threads, [&](std::size_t t) {
    for (std::size_t i = t * n / threads; i < (t + 1) * n / threads; ++i)
      items[at[t * buckets + which[i]]++] = item(i);
  });
  return start;
}

}  // namespace

// order_ sorted by key. On one thread: sort_by_words. With threads, a
// sample sort (Frazer and McKellar, JACM 1970): keys sampled at fixed
// places pick splitters that cut the keys into 4 buckets per thread, the
// items are placed by bucket, and the buckets are sorted at once, taken by
// whichever thread is free: no merge, and uneven buckets even out. Keys are
// distinct, so the order is the same on any number of threads.
void OutcomeStore::sort_held() {
  const std::size_t n = order_.size();
  const unsigned threads = n < (std::size_t{1} << 16) ? 1 : std::max(1u, opts_.threads);
  const std::uint8_t* base = arena_.data();
  BigBlock items_mem;  // left unset: every element is written before it is read
  items_mem.resize(n * sizeof(SortItem), false);
  auto* items = static_cast<SortItem*>(items_mem.data());
  const auto item = [&](std::size_t i) {
    return SortItem{key_word(base + order_[i], 0), order_[i]};
  };
  if (threads == 1) {
    for (std::size_t i = 0; i < n; ++i) items[i] = item(i);
    sort_by_words(items, 0, n, base);
    for (std::size_t i = 0; i < n; ++i) order_[i] = items[i].off;
    return;
  }
  const std::size_t buckets = std::min<std::size_t>(4 * std::size_t{threads}, 256);  // a byte
  std::vector<SortItem> sample;
  for (std::size_t k = 0; k < 32 * buckets; ++k) sample.push_back(item(k * n / (32 * buckets)));
  sort_by_words(sample.data(), 0, sample.size(), base);
  std::vector<SortItem> splitters;
  for (std::size_t b = 1; b < buckets; ++b) {
    const SortItem& sp = sample[b * sample.size() / buckets];
    splitters.push_back(SortItem{key_word(base + sp.off, 0), sp.off});  // its first word again
  }
  const std::vector<std::size_t> start = place_by_bucket(
      n, threads, buckets, items, [&](std::size_t i) { return item(i); },
      [&](const SortItem& x) { return bucket_of(x, splitters, base); });
  parallel_for(buckets, threads, [&](std::size_t b) {
    sort_by_words(items, start[b], start[b + 1], base);
    for (std::size_t i = start[b]; i < start[b + 1]; ++i) order_[i] = items[i].off;
  });
}

// The run in memory, sorted, to a file of its own; memory starts over.
void OutcomeStore::spill() {
  sort_held();
  std::FILE* f = spill_file(opts_.spill_dir);
  files_.push_back(f);
  std::vector<std::uint8_t> out;
  out.reserve(std::size_t{1} << 20);
  auto write = [&] {
    if (std::fwrite(out.data(), 1, out.size(), f) != out.size())
      throw std::runtime_error(fmt::format("cannot write outcomes to a file in {}: {}",
                                           opts_.spill_dir.empty() ? "$TMPDIR" : opts_.spill_dir,
                                           std::strerror(errno)));
    out.clear();
  };
  for (const std::uint64_t off : order_) {
    const std::uint8_t* rec = &arena_[off];
    out.insert(out.end(), rec, rec + record_size(rec, opts_.witnesses));
    if (out.size() >= (std::size_t{1} << 20)) write();
  }
  write();
  if (std::fflush(f) != 0)
    throw std::runtime_error(
        fmt::format("cannot write outcomes to a file: {}", std::strerror(errno)));
  spilled_ += held_;
  largest_run_ = std::max(largest_run_, held_);
  held_ = held_satisfying_ = 0;
  arena_.release();
  order_.release();
  slots_.assign_zero(1024);
}

void OutcomeStore::finish() {
  slots_.release();  // the index is no longer needed
  sort_held();
  if (files_.empty()) {
    count_ = held_;
    satisfying_ = held_satisfying_;
    return;
  }
  count_ = satisfying_ = 0;
  each_record([&](const std::uint8_t* rec) {
    ++count_;
    if (satisfies(rec)) ++satisfying_;
  });
}

// ---- replay -------------------------------------------------------------------

struct OutcomeStore::Cursor {
  virtual ~Cursor() = default;
  // The current record, or null at the end.
  virtual const std::uint8_t* get() const = 0;
  virtual void next() = 0;
};

struct OutcomeStore::MemoryCursor final : Cursor {
  const ByteArena& arena;
  const OffsetList& order;
  std::size_t at = 0;
  MemoryCursor(const ByteArena& a, const OffsetList& o) : arena(a), order(o) {}
  const std::uint8_t* get() const override {
    return at < order.size() ? arena.data() + order[at] : nullptr;
  }
  void next() override { ++at; }
};

// A spilled run read from its start, record by record, through a buffer.
struct OutcomeStore::FileCursor final : Cursor {
  std::FILE* f;
  bool witnesses;
  std::vector<std::uint8_t> buf, rec;
  std::size_t pos = 0, len = 0;
  bool done = false;
  FileCursor(std::FILE* file, bool w) : f(file), witnesses(w) {
    // A buffer no larger than the run: a small memory budget spills many small
    // runs, and every replay opens a cursor on each (a 256 KiB buffer apiece
    // was most of such a replay's time, zeroing memory).
    std::fseek(f, 0, SEEK_END);
    const long size = std::ftell(f);
    buf.resize(std::clamp<std::size_t>(size > 0 ? std::size_t(size) : 1, 1, std::size_t{1} << 18));
    std::rewind(f);
    next();
  }
  bool read(std::uint8_t* out, std::size_t n) {
    while (n > 0) {
      if (pos == len) {
        len = std::fread(buf.data(), 1, buf.size(), f);
        pos = 0;
        if (len == 0) return false;
      }
      const std::size_t k = std::min(n, len - pos);
      std::memcpy(out, buf.data() + pos, k);
      pos += k;
      out += k;
      n -= k;
    }
    return true;
  }
  const std::uint8_t* get() const override { return done ? nullptr : rec.data(); }
  void next() override {
    rec.resize(2);
    if (!read(rec.data(), 2)) {
      done = true;
      return;
    }
    std::size_t n = key_size(rec.data());
    if (witnesses) n += 8;
    rec.resize(2 + n);
    if (!read(rec.data() + 2, n)) throw std::runtime_error("a file of outcomes ended early");
    if (!witnesses) return;
    const std::size_t at = 2 + key_size(rec.data());
    const std::size_t edges = load<std::uint16_t>(&rec[at + 4]) + load<std::uint16_t>(&rec[at + 6]);
    rec.resize(rec.size() + edges * sizeof(EdgeCode));
    if (!read(rec.data() + 2 + n, edges * sizeof(EdgeCode)))
      throw std::runtime_error("a file of outcomes ended early");
  }
};

void OutcomeStore::for_each(const std::function<void(const Entry&)>& f) const {
  std::vector<std::uint64_t> values(width_.size());
  std::vector<EdgeCode> edges;
  each_record([&](const std::uint8_t* rec) {
    const KeyView k = key_at(rec);
    decode(k.data, width_, values);
    std::uint32_t skeleton = 0;
    std::size_t nrf = 0, nco = 0;
    if (opts_.witnesses) {
      const std::uint8_t* w = k.data + k.size;
      skeleton = load<std::uint32_t>(w);
      nrf = load<std::uint16_t>(w + 4);
      nco = load<std::uint16_t>(w + 6);
      edges.resize(nrf + nco);
      std::memcpy(edges.data(), w + 8, edges.size() * sizeof(EdgeCode));
    }
    const std::span<const EdgeCode> all(edges.data(), nrf + nco);
    f(Entry{values, satisfies(rec), skeleton, all.first(nrf), all.subspan(nrf)});
  });
}

void OutcomeStore::each_record(const std::function<void(const std::uint8_t*)>& emit) const {
  if (files_.empty()) {
    for (const std::uint64_t off : order_) emit(arena_.data() + off);
    return;
  }
  // The runs' heads in a heap: the smallest key first, among equal keys the
  // oldest run (the first found keeps its witness); later equal ones dropped.
  std::vector<std::unique_ptr<Cursor>> runs;
  for (std::FILE* file : files_)
    runs.push_back(std::make_unique<FileCursor>(file, opts_.witnesses));
  runs.push_back(std::make_unique<MemoryCursor>(arena_, order_));
  const auto later = [&](std::size_t a, std::size_t b) {
    const KeyView x = key_at(runs[a]->get()), y = key_at(runs[b]->get());
    return x == y ? b < a : y < x;
  };
  std::priority_queue<std::size_t, std::vector<std::size_t>, decltype(later)> heap(later);
  for (std::size_t i = 0; i < runs.size(); ++i)
    if (runs[i]->get()) heap.push(i);
  std::vector<std::uint8_t> last;
  bool any = false;
  while (!heap.empty()) {
    const std::size_t i = heap.top();
    heap.pop();
    const KeyView k = key_at(runs[i]->get());
    if (!any || !(KeyView{last.data(), static_cast<std::uint16_t>(last.size())} == k)) {
      emit(runs[i]->get());
      last.assign(k.data, k.data + k.size);
      any = true;
    }
    runs[i]->next();
    if (runs[i]->get()) heap.push(i);
  }
}

std::string OutcomeStore::edge_text(std::uint32_t skeleton, EdgeCode e) const {
  const std::vector<std::string>& l = labels_.at(skeleton);
  return l.at(e.from) + " -> " + l.at(e.to);
}

}  // namespace redscope
