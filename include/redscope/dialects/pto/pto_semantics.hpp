// The semantics of PTO vector programs (docs/model.md "PTO vector
// reductions"): no event graph and no cat model; the explicit explorer
// (pto_exec.hpp) is the enum engine and the reaching side of xval, the Z3
// twin (pto_z3.hpp) the z3 engine and the allowing side.
#pragma once

#include <array>
#include <string_view>

#include "redscope/core/model.hpp"
#include "redscope/engine/semantics.hpp"

namespace redscope::pto {

const Semantics& semantics();

// What results name as the model of a PTO program: its operations'
// semantics, no cat file, no NVIDIA target.
inline constexpr BuiltinModel kModel{
    .name = "pto",
    .file = "",
    .nvidia_target = false,
    .about =
        "PTO vector programs: their operations' semantics (docs/model.md), not a\n"
        "          cat file; chosen by the file's first word PTO"};

// The option of PTO's semantics: `--pto-order` on the command line, its
// value in EngineOptions::semantics_options["pto-order"].
inline constexpr std::string_view kOrderOption = "pto-order";
// Its values; "both" is the default.
inline constexpr std::array<std::string_view, 3> kOrderValues{"tree", "sequential", "both"};

}  // namespace redscope::pto
