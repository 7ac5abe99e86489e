// The memory models redscope checks against, and the names of their axioms.
#pragma once

#include <array>
#include <string_view>

namespace redscope {

enum class ModelKind : std::uint8_t { Ptx };  // PTX memory model, sm_70 and later

// The six axioms of the PTX memory consistency model (PTX ISA §8.9 "Axioms").
enum class Axiom : std::uint8_t { Coherence, FenceSc, Atomicity, NoThinAir, ScPerLocation, Causality };

inline constexpr std::array<Axiom, 6> kAllAxioms = {Axiom::Coherence, Axiom::FenceSc, Axiom::Atomicity,
                                                    Axiom::NoThinAir, Axiom::ScPerLocation, Axiom::Causality};

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

constexpr std::string_view to_string(ModelKind m) { return m == ModelKind::Ptx ? "ptx" : "?"; }

}  // namespace redscope
