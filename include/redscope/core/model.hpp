// The memory models redscope checks against, and the names of their axioms.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace redscope {

// Ptx: the PTX memory consistency model (PTX ISA §8, which covers sm_70 and
// later). PtxSm6x: the same axioms with the sm_6x rule of the red/atom seed:
// an RMW on .shared memory is not atomic with respect to plain stores.
// SassSm30: models/sass-sm30.cat, the legacy model of Kepler SASS tests
// (the PTX axioms over the events SASS instructions lower to, with the
// sm_6x rule; docs/model.md "SASS (sm_30)"). Pto: the semantics of PTO vector
// programs (core/pto.hpp; docs/model.md "PTO vector reductions"), which no
// cat model describes: the engines run the program's operations.
enum class ModelKind : std::uint8_t { Ptx, PtxSm6x, SassSm30, Pto };

// The model a test's target selects: sm_6x and earlier get PtxSm6x.
constexpr ModelKind model_for_target(int sm) {
  return sm < 70 ? ModelKind::PtxSm6x : ModelKind::Ptx;
}
// The model a test selects: SASS tests get SassSm30, PTX ones their target's.
constexpr ModelKind model_for_test(std::string_view arch, int sm) {
  return arch == "SASS"  ? ModelKind::SassSm30
         : arch == "PTO" ? ModelKind::Pto
                         : model_for_target(sm);
}
// Whether the model has the sm_6x rule (the model file's variant "sm6x").
constexpr bool has_sm6x_rule(ModelKind m) {
  return m == ModelKind::PtxSm6x || m == ModelKind::SassSm30;
}
inline std::vector<std::string> model_variants(ModelKind m) {
  return has_sm6x_rule(m) ? std::vector<std::string>{"sm6x"} : std::vector<std::string>{};
}

// The six axioms of the PTX memory consistency model (PTX ISA §8.9 "Axioms").
enum class Axiom : std::uint8_t {
  Coherence,
  FenceSc,
  Atomicity,
  NoThinAir,
  ScPerLocation,
  Causality
};

inline constexpr std::array<Axiom, 6> kAllAxioms = {Axiom::Coherence,     Axiom::FenceSc,
                                                    Axiom::Atomicity,     Axiom::NoThinAir,
                                                    Axiom::ScPerLocation, Axiom::Causality};

constexpr std::string_view to_string(Axiom a) {
  switch (a) {
    case Axiom::Coherence: return "Coherence";
    case Axiom::FenceSc: return "Fence-SC";
    case Axiom::Atomicity: return "Atomicity";
    case Axiom::NoThinAir: return "No-Thin-Air";
    case Axiom::ScPerLocation: return "SC-per-Location";
    case Axiom::Causality: return "Causality";
  }
  return "?";
}

constexpr std::string_view to_string(ModelKind m) {
  switch (m) {
    case ModelKind::Ptx: return "ptx";
    case ModelKind::PtxSm6x: return "ptx-sm6x";
    case ModelKind::SassSm30: return "sass-sm30";
    case ModelKind::Pto: return "pto";
  }
  return "?";
}

// What a result names as its model: the user's model file (--model
// FILE.cat) when there is one, else the built-in model's name.
inline std::string model_name(ModelKind m, const std::string& model_file) {
  return model_file.empty() ? std::string(to_string(m)) : model_file;
}

}  // namespace redscope
