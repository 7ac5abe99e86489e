// The memory models redscope checks against, and the names of their axioms.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace redscope {

// Ptx: the PTX memory consistency model (PTX ISA §8, which covers sm_70 and
// later). PtxSm6x: the same axioms with the sm_6x rule of the red/atom seed:
// an RMW on .shared memory is not atomic with respect to plain stores.
enum class ModelKind : std::uint8_t { Ptx, PtxSm6x };

// The model a test's target selects: sm_6x and earlier get PtxSm6x.
constexpr ModelKind model_for_target(int sm) {
  return sm < 70 ? ModelKind::PtxSm6x : ModelKind::Ptx;
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
  return m == ModelKind::Ptx ? "ptx" : "ptx-sm6x";
}

// What a result names as its model: the user's model file (--model
// FILE.cat) when there is one, else the built-in model's name.
inline std::string model_name(ModelKind m, const std::string& model_file) {
  return model_file.empty() ? std::string(to_string(m)) : model_file;
}

}  // namespace redscope
