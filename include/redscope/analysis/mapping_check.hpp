// The compiler's mapping checked (`redscope cuda-check`, docs/cuda.md "Checking
// the compiler"): a compiled test (nvcc's PTX under models/ptx.cat) against
// its source (the statements as written, frontend/c, under
// models/scoped-cpp.cat). Three answers per test:
//   racy        some consistent execution of the source has a heterogeneous
//               race (the model's flag `racy`): undefined behaviour, so any
//               PTX outcome is a correct compilation; the race is reported.
//   miscompiled an outcome the PTX allows and the source forbids, with the
//               PTX execution and the source axioms that forbid it.
//   ok          every PTX outcome is a source outcome. An outcome the source
//               forbids only by C++'s No-Thin-Air rule (the check named
//               `no-thin-air`, with `no-dependency-cycle`: a dependency C++
//               gives no meaning may be folded) is listed apart: PTX allows load buffering,
//               and the paper's C++ side forbids it to rule out
//               out-of-thin-air values, not to forbid hardware's LB
//               (docs/model.md "The scoped C++ model").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "redscope/analysis/compile_check.hpp"
#include "redscope/core/json.hpp"

namespace redscope {

// The name of the source model's flag for undefined behaviour, of its
// relation of racing pairs, and of its No-Thin-Air check.
inline constexpr std::string_view kRacyFlag = "racy";
inline constexpr std::string_view kRaceRelation = "hrace";
inline constexpr std::string_view kThinAirCheck = "no-thin-air";
inline constexpr std::string_view kDependencyCycleCheck = "no-dependency-cycle";

struct RaceWitness {
  std::string first, second;  // the racing accesses, in words
  std::string why;            // why they race, in the model's words
  Witness execution;          // a consistent execution of the source with the race
};

struct MappingCheck {
  CompileCheck outcomes;                 // the comparison: source is the reference side
  std::vector<Miscompilation> thin_air;  // forbidden by No-Thin-Air alone
  std::optional<RaceWitness> race;
  std::string verdict() const;  // "ok", "miscompiled", "racy"
};

// Runs both tests with `run`; the source's model is its own (scoped-cpp).
// Throws InputError when a test cannot be checked or the two do not pair.
MappingCheck mapping_check(const LitmusTest& source, const LitmusTest& compiled,
                           const EngineOptions& opts, const TestRunner& run);

std::string render_text(const MappingCheck& c);
Json json_of(const MappingCheck& c);

}  // namespace redscope
