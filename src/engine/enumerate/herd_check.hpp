// A model in herd7's full cat language decides the enumerator's complete
// candidates: each one is given to herd's interpreter (model/herd/interp.hpp)
// as herd7 gives an execution to its own (herdtools7
// herd/machModelChecker.ml): the executed events only, the sets and
// relations herd7 binds, and co total per location (docs/model.md
// "herd7's cat language").
#pragma once

#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "redscope/engine/enumerate/enumerate.hpp"
#include "redscope/model/cat.hpp"
#include "redscope/model/herd/interp.hpp"
#include "redscope/model/primitives.hpp"

namespace redscope::enumerate {

// The candidate as herd7's interpreter sees it: its executed events,
// renumbered in order, and every name of docs/model.md's table. `p` holds
// the skeleton's static primitives.
cat::herd::Execution herd_execution(const EnumCandidate& c, const cat::StaticPrimitives& p);

// Whether co relates every two executed writes to one location (herd7
// enumerates only total coherence orders; redscope's engines choose partial
// ones, which a herd7 model never sees).
bool co_total(const EnumCandidate& c);

// The check the enumerator calls on each complete candidate, and what the
// allowed ones raised (herd7 prints flags after the outcomes).
class HerdCheck {
 public:
  HerdCheck(const cat::Model& m, const EngineOptions& opts, ModelRef model);
  bool operator()(const EnumCandidate& c) const;
  // The flags raised in some allowed execution, sorted.
  std::vector<std::string> flags() const;
  // A note when an allowed execution failed an `undefined_unless`.
  std::vector<std::string> notes() const;

 private:
  const EngineOptions& opts_;
  cat::herd::Interpreter interp_;
  mutable std::mutex mutex_;  // the skeleton's primitives and what was raised
  mutable const Skeleton* sk_ = nullptr;
  mutable std::shared_ptr<const cat::StaticPrimitives> prims_;
  mutable std::set<std::string> flags_;
  mutable bool undefined_ = false;
};

}  // namespace redscope::enumerate
