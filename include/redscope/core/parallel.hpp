// A fixed pool of workers over an index range, for suites and for the
// machine's split search. No global state: each call has its own threads.
#pragma once

#include <cstddef>
#include <functional>

namespace redscope {

// Runs body(0..n-1) on `jobs` threads (the caller's included); each index once.
void parallel_for(std::size_t n, unsigned jobs, const std::function<void(std::size_t)>& body);

}  // namespace redscope
