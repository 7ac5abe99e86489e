#include "engine/enumerate/hooks.hpp"

namespace redscope::enumerate {

void checkpoint(const EngineOptions& opts, std::size_t candidates) {
  if (opts.budget) opts.budget->check();
  if (opts.progress) (*opts.progress)(ProgressReport{candidates, 0, "enumerate"});
}

ThreadClasses classes_for(const Skeleton& sk, const std::vector<Observable>& obs,
                          const EngineOptions& opts) {
  if (!opts.on_execution) return thread_classes(sk, obs, opts.budget);
  ThreadClasses none;  // every thread its own class (symmetry.hpp)
  for (std::size_t t = 0; t < sk.placement.size(); ++t)
    none.class_of.push_back(static_cast<int>(t));
  return none;
}

}  // namespace redscope::enumerate
