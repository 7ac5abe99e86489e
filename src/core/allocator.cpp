// The allocator's settings (allocator.hpp says why).
#include "redscope/core/allocator.hpp"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace redscope {

void tune_allocator() {
#if defined(__GLIBC__)
  constexpr int kMiB = 1 << 20;
  // Setting either threshold ends glibc's own raising of the mmap one.
  mallopt(M_MMAP_THRESHOLD, 32 * kMiB);
  mallopt(M_TRIM_THRESHOLD, 64 * kMiB);
#endif
}

}  // namespace redscope
