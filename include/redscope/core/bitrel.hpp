// Concrete binary relations over the events of one skeleton, as bit
// matrices: the relation algebra of the reference enumerator.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace redscope {

class Budget;

// A relation as vertex-indexed booleans (the static helpers of events.hpp).
using BoolMatrix = std::vector<std::vector<bool>>;
// The bytes of an n x n BoolMatrix, to charge to a Budget before making one.
inline std::size_t bool_matrix_bytes(std::size_t n) {
  return n * ((n + 63) / 64 * 8 + sizeof(std::vector<bool>));
}

class BitRel {
 public:
  explicit BitRel(std::size_t n = 0) : n_(n), w_((n + 63) / 64), bits_(n * w_, 0) {}
  // The same, charged to `budget` (may be null) before it is allocated
  // (Budget::charge: an input-sized relation past --max-memory is refused).
  BitRel(std::size_t n, const Budget* budget);
  static BitRel from(const BoolMatrix& m, const Budget* budget = nullptr);
  // The bytes of a relation over n events.
  static std::size_t bytes_for(std::size_t n) { return n * ((n + 63) / 64) * 8; }

  std::size_t size() const { return n_; }
  bool has(std::size_t i, std::size_t j) const { return (bits_[i * w_ + j / 64] >> (j % 64)) & 1U; }
  void set(std::size_t i, std::size_t j, bool v = true) {
    const std::uint64_t m = 1ULL << (j % 64);
    if (v)
      bits_[i * w_ + j / 64] |= m;
    else
      bits_[i * w_ + j / 64] &= ~m;
  }

  // Every j related from `i` is related from `k` (row i ⊆ row k).
  bool row_within(std::size_t i, std::size_t k) const {
    for (std::size_t x = 0; x < w_; ++x)
      if (bits_[i * w_ + x] & ~bits_[k * w_ + x]) return false;
    return true;
  }

  // Calls f(j) for every j related from i, in increasing order.
  template <class F>
  void for_each(std::size_t i, F&& f) const {
    for (std::size_t x = 0; x < w_; ++x)
      for (std::uint64_t w = bits_[i * w_ + x]; w != 0; w &= w - 1)
        f(x * 64 + static_cast<std::size_t>(__builtin_ctzll(w)));
  }
  // Row i relates nothing.
  bool row_empty(std::size_t i) const {
    for (std::size_t x = 0; x < w_; ++x)
      if (bits_[i * w_ + x]) return false;
    return true;
  }

  // The words of row i (w = words() of them): for the cat evaluator.
  std::size_t words() const { return w_; }
  std::uint64_t* row(std::size_t i) { return bits_.data() + i * w_; }
  const std::uint64_t* row(std::size_t i) const { return bits_.data() + i * w_; }
  bool empty() const;
  bool operator==(const BitRel& o) const { return bits_ == o.bits_; }

  // In place, into storage already sized (the evaluator's scratch values
  // allocate once): the operators below are built on these.
  BitRel& operator|=(const BitRel& o);
  BitRel& operator&=(const BitRel& o);
  BitRel& operator-=(const BitRel& o);
  void clear();
  void compose_into(const BitRel& o, BitRel& out) const;  // out = this ; o
  void inverse_into(BitRel& out) const;
  void close();  // transitive closure (Warshall)

  BitRel operator|(const BitRel& o) const;
  BitRel operator-(const BitRel& o) const;  // difference
  BitRel operator&(const BitRel& o) const;
  BitRel compose(const BitRel& o) const;  // this ; o
  BitRel plus() const;                    // transitive closure
  BitRel star() const;                    // reflexive-transitive closure
  BitRel reflexive() const;               // this ∪ id
  BitRel inverse() const;
  bool irreflexive() const;
  // No cycle (no self-loop either): a depth-first search, O(n * words + edges).
  bool acyclic() const;

 private:
  std::size_t n_, w_;
  std::vector<std::uint64_t> bits_;
};

}  // namespace redscope
