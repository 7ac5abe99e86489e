#include "redscope/core/bitrel.hpp"

#include <algorithm>

#include "redscope/core/budget.hpp"

namespace redscope {

BitRel::BitRel(std::size_t n, const Budget* budget) : n_(n), w_((n + 63) / 64) {
  charge(budget, bytes_for(n));
  bits_.assign(n * w_, 0);
}

BitRel BitRel::from(const BoolMatrix& m, const Budget* budget) {
  BitRel r(m.size(), budget);
  for (std::size_t i = 0; i < m.size(); ++i) {
    if (i % 256 == 0) check(budget);
    for (std::size_t j = 0; j < m.size(); ++j)
      if (m[i][j]) r.set(i, j);
  }
  return r;
}

BitRel& BitRel::operator|=(const BitRel& o) {
  for (std::size_t k = 0; k < bits_.size(); ++k) bits_[k] |= o.bits_[k];
  return *this;
}

BitRel& BitRel::operator&=(const BitRel& o) {
  for (std::size_t k = 0; k < bits_.size(); ++k) bits_[k] &= o.bits_[k];
  return *this;
}

BitRel& BitRel::operator-=(const BitRel& o) {
  for (std::size_t k = 0; k < bits_.size(); ++k) bits_[k] &= ~o.bits_[k];
  return *this;
}

void BitRel::clear() { std::fill(bits_.begin(), bits_.end(), 0); }

BitRel BitRel::operator|(const BitRel& o) const {
  BitRel r = *this;
  return r |= o;
}

BitRel BitRel::operator-(const BitRel& o) const {
  BitRel r = *this;
  return r -= o;
}

bool BitRel::empty() const {
  for (std::uint64_t w : bits_)
    if (w) return false;
  return true;
}

BitRel BitRel::operator&(const BitRel& o) const {
  BitRel r = *this;
  return r &= o;
}

// Row i of (this ; o) is the union of o's rows j for every j related to i
// (the set bits of row i, found a word at a time). One word per row (up to
// 64 events, every litmus test) is the common case and has its own loop.
void BitRel::compose_into(const BitRel& o, BitRel& out) const {
  out.n_ = n_;
  out.w_ = w_;
  out.bits_.assign(bits_.size(), 0);
  if (w_ == 1) {
    for (std::size_t i = 0; i < n_; ++i) {
      std::uint64_t acc = 0;
      for (std::uint64_t w = bits_[i]; w != 0; w &= w - 1)
        acc |= o.bits_[static_cast<std::size_t>(__builtin_ctzll(w))];
      out.bits_[i] = acc;
    }
    return;
  }
  for (std::size_t i = 0; i < n_; ++i)
    for_each(i, [&](std::size_t j) {
      for (std::size_t k = 0; k < w_; ++k) out.bits_[i * w_ + k] |= o.bits_[j * w_ + k];
    });
}

BitRel BitRel::compose(const BitRel& o) const {
  BitRel r(n_);
  compose_into(o, r);
  return r;
}

// Warshall: for each k, rows that reach k gain k's row.
void BitRel::close() {
  for (std::size_t k = 0; k < n_; ++k) {
    const std::size_t kw = k / 64;
    const std::uint64_t km = 1ULL << (k % 64);
    const std::uint64_t* rk = bits_.data() + k * w_;
    if (row_empty(k)) continue;  // nothing to pass on through k (sparse relations)
    for (std::size_t i = 0; i < n_; ++i) {
      std::uint64_t* ri = bits_.data() + i * w_;
      if (ri[kw] & km)
        for (std::size_t x = 0; x < w_; ++x) ri[x] |= rk[x];
    }
  }
}

BitRel BitRel::plus() const {
  BitRel r = *this;
  r.close();
  return r;
}

BitRel BitRel::reflexive() const {
  BitRel r = *this;
  for (std::size_t i = 0; i < n_; ++i) r.set(i, i);
  return r;
}

BitRel BitRel::star() const { return plus().reflexive(); }

void BitRel::inverse_into(BitRel& out) const {
  out.n_ = n_;
  out.w_ = w_;
  out.bits_.assign(bits_.size(), 0);
  for (std::size_t i = 0; i < n_; ++i) for_each(i, [&](std::size_t j) { out.set(j, i); });
}

BitRel BitRel::inverse() const {
  BitRel r(n_);
  inverse_into(r);
  return r;
}

// Depth-first, iteratively: a node is on the path (`on`) until every node it
// reaches is done; an edge to a node on the path closes a cycle.
bool BitRel::acyclic() const {
  // Up to 256 events on the stack (the search asks this per candidate).
  constexpr std::size_t kSmall = 4;
  std::uint64_t done_small[kSmall] = {}, on_small[kSmall] = {};
  std::vector<std::uint64_t> done_big, on_big;
  if (w_ > kSmall) {
    done_big.assign(w_, 0);
    on_big.assign(w_, 0);
  }
  std::uint64_t* done = w_ > kSmall ? done_big.data() : done_small;
  std::uint64_t* on = w_ > kSmall ? on_big.data() : on_small;
  std::size_t path_small[kSmall * 64];
  std::vector<std::size_t> path_big(w_ > kSmall ? n_ : 0);
  std::size_t* const path = w_ > kSmall ? path_big.data() : path_small;
  std::size_t depth = 0;  // the path is path[0 .. depth)
  const auto mark = [](std::uint64_t* b, std::size_t i, bool v) {
    if (v)
      b[i / 64] |= 1ULL << (i % 64);
    else
      b[i / 64] &= ~(1ULL << (i % 64));
  };
  for (std::size_t root = 0; root < n_; ++root) {
    if ((done[root / 64] >> (root % 64)) & 1U) continue;
    path[depth++] = root;
    mark(on, root, true);
    while (depth > 0) {
      const std::size_t u = path[depth - 1];
      const std::uint64_t* ru = row(u);
      std::size_t next = n_;
      for (std::size_t x = 0; x < w_ && next == n_; ++x) {
        if (ru[x] & on[x]) return false;
        if (const std::uint64_t open = ru[x] & ~done[x])
          next = x * 64 + static_cast<std::size_t>(__builtin_ctzll(open));
      }
      if (next == n_) {  // every successor done
        mark(on, u, false);
        mark(done, u, true);
        --depth;
        continue;
      }
      mark(on, next, true);
      path[depth++] = next;  // a node is on the path at most once: depth <= n
    }
  }
  return true;
}

bool BitRel::irreflexive() const {
  for (std::size_t i = 0; i < n_; ++i)
    if (has(i, i)) return false;
  return true;
}

}  // namespace redscope
