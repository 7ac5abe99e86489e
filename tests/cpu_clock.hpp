// CPU time of this process, for the tests that bound a computation's cost
// (a quadratic algorithm coming back) rather than time it: unlike the wall
// clock, it does not grow when other jobs share the machine (ctest -j, a
// sanitizer build beside it), so the bounds hold on a loaded CI runner.
#pragma once

#include <ctime>

namespace redscope::testing {

inline double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace redscope::testing
