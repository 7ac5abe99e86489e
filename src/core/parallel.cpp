#include "redscope/core/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace redscope {

void parallel_for(std::size_t n, unsigned jobs, const std::function<void(std::size_t)>& body) {
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < n;) body(i);
  };
  jobs = std::max(1u, std::min<unsigned>(jobs, static_cast<unsigned>(std::max<std::size_t>(1, n))));
  std::vector<std::jthread> pool;
  for (unsigned k = 1; k < jobs; ++k) pool.emplace_back(worker);
  worker();
}

}  // namespace redscope
