// The frozen oracle: the enumerator's hand-written PTX axioms as they were
// before models/ptx.cat decided consistency. Tests run the enumerator with it
// and with the model and require the same outcomes.
#pragma once

#include <map>

#include "redscope/core/bitrel.hpp"
#include "redscope/engine/engine.hpp"
#include "redscope/engine/enumerate/enumerate.hpp"

namespace redscope::oracle {

// One oracle per test: it keeps the static relations of each skeleton it saw.
// Ignores EngineOptions::disabled_checks (as the old enumerator did).
class PtxOracle {
 public:
  bool operator()(const EnumCandidate& c);

  struct Statics {
    BitRel po, poloc, ms, rmw, dep, rel_pattern, acq_pattern;
  };

 private:
  std::map<const Skeleton*, Statics> statics_;
};

}  // namespace redscope::oracle
