// Sets of events as bit vectors (cat::Bits: event i is bit i % 64 of word
// i / 64), and the relations made from them: what the cat evaluator and the
// split analysis (split.cpp) both compute over a skeleton's n events.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "redscope/core/bitrel.hpp"
#include "redscope/model/cat_eval.hpp"

namespace redscope::cat {

inline std::size_t words(std::size_t n) { return (n + 63) / 64; }

// Every event of n, into `b` (reusing its storage: evaluation runs this for
// every sequence of every candidate).
inline void fill_all_events(Bits& b, std::size_t n) {
  b.assign(words(n), ~0ULL);
  if (n % 64) b.back() = (1ULL << (n % 64)) - 1;
}

inline Bits all_events(std::size_t n) {
  Bits b;
  fill_all_events(b, n);
  return b;
}

inline bool bit(const Bits& s, std::size_t i) { return (s[i / 64] >> (i % 64)) & 1U; }

// The events with an edge out.
inline Bits domain(const BitRel& r) {
  Bits s(words(r.size()), 0);
  for (std::size_t i = 0; i < r.size(); ++i) {
    const std::uint64_t* row = r.row(i);
    if (std::any_of(row, row + r.words(), [](std::uint64_t w) { return w != 0; }))
      s[i / 64] |= 1ULL << (i % 64);
  }
  return s;
}

// The events with an edge in.
inline Bits range(const BitRel& r) {
  Bits s(words(r.size()), 0);
  for (std::size_t i = 0; i < r.size(); ++i)
    for (std::size_t k = 0; k < r.words(); ++k) s[k] |= r.row(i)[k];
  return s;
}

// S * T into `out` (its storage reused), and [S].
inline void cartesian_into(const Bits& s, const Bits& t, BitRel& out) {
  out.clear();
  for (std::size_t i = 0; i < out.size(); ++i)
    if (bit(s, i)) std::copy(t.begin(), t.end(), out.row(i));
}

inline void identity_into(const Bits& s, BitRel& out) {
  out.clear();
  for (std::size_t i = 0; i < out.size(); ++i)
    if (bit(s, i)) out.set(i, i);
}

}  // namespace redscope::cat
