// The value each read takes in one execution of a skeleton: its rf
// source's value, a write's value evaluated over the reads it depends on.
// Private to src/analysis (execution searches, explain on the enumerator).
#pragma once

#include <cstdint>
#include <vector>

#include "redscope/core/expr.hpp"
#include "redscope/engine/z3/query.hpp"

namespace redscope {

class ReadValues {
 public:
  // `rf` of one execution of `sk` (must outlive this).
  ReadValues(const BitRel& rf, const Skeleton& sk)
      : rf_(rf),
        sk_(sk),
        val_(sk.size()),
        state_(sk.size(), 0) {}
  std::uint64_t of_write(EventId w) {
    return evaluate(sk_.ev(w).value, [&](ReadRef r) { return of_read(sk_.vertex(r)); });
  }
  std::uint64_t of_read(EventId r) {
    if (state_[r] == 2) return val_[r];
    if (state_[r] == 1) return 0;  // a cycle of values: the model has ruled it out
    state_[r] = 1;
    for (EventId w = 0; w < sk_.size(); ++w)
      if (rf_.has(w, r)) val_[r] = of_write(w);
    state_[r] = 2;
    return val_[r];
  }

 private:
  const BitRel& rf_;
  const Skeleton& sk_;
  std::vector<std::uint64_t> val_;
  std::vector<int> state_;
};

}  // namespace redscope
