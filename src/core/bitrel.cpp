#include "redscope/core/bitrel.hpp"

namespace redscope {

BitRel BitRel::from(const BoolMatrix& m) {
  BitRel r(m.size());
  for (std::size_t i = 0; i < m.size(); ++i)
    for (std::size_t j = 0; j < m.size(); ++j)
      if (m[i][j]) r.set(i, j);
  return r;
}

BitRel BitRel::operator|(const BitRel& o) const {
  BitRel r = *this;
  for (std::size_t k = 0; k < bits_.size(); ++k) r.bits_[k] |= o.bits_[k];
  return r;
}

BitRel BitRel::operator-(const BitRel& o) const {
  BitRel r = *this;
  for (std::size_t k = 0; k < bits_.size(); ++k) r.bits_[k] &= ~o.bits_[k];
  return r;
}

bool BitRel::empty() const {
  for (std::uint64_t w : bits_)
    if (w) return false;
  return true;
}

BitRel BitRel::operator&(const BitRel& o) const {
  BitRel r = *this;
  for (std::size_t k = 0; k < bits_.size(); ++k) r.bits_[k] &= o.bits_[k];
  return r;
}

// Row i of (this ; o) is the union of o's rows j for every j related to i.
BitRel BitRel::compose(const BitRel& o) const {
  BitRel r(n_);
  for (std::size_t i = 0; i < n_; ++i)
    for (std::size_t j = 0; j < n_; ++j)
      if (has(i, j))
        for (std::size_t k = 0; k < w_; ++k) r.bits_[i * w_ + k] |= o.bits_[j * w_ + k];
  return r;
}

// Warshall: for each k, rows that reach k gain k's row.
BitRel BitRel::plus() const {
  BitRel r = *this;
  for (std::size_t k = 0; k < n_; ++k)
    for (std::size_t i = 0; i < n_; ++i)
      if (r.has(i, k))
        for (std::size_t x = 0; x < w_; ++x) r.bits_[i * w_ + x] |= r.bits_[k * w_ + x];
  return r;
}

BitRel BitRel::reflexive() const {
  BitRel r = *this;
  for (std::size_t i = 0; i < n_; ++i) r.set(i, i);
  return r;
}

BitRel BitRel::star() const { return plus().reflexive(); }

BitRel BitRel::inverse() const {
  BitRel r(n_);
  for (std::size_t i = 0; i < n_; ++i)
    for (std::size_t j = 0; j < n_; ++j)
      if (has(i, j)) r.set(j, i);
  return r;
}

bool BitRel::irreflexive() const {
  for (std::size_t i = 0; i < n_; ++i)
    if (has(i, i)) return false;
  return true;
}

}  // namespace redscope
