// The memory models redscope checks against: the table of built-in models.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace redscope {

struct LitmusTest;

// A built-in model: a row of the model table. Adding a model is its cat
// file in models/ (CMake embeds every models/*.cat) and one row here.
struct BuiltinModel {
  std::string_view name;  // --model NAME, and what results name it: "ptx"
  // Its cat file under models/ ("ptx.cat"); empty for a model that is a
  // dialect's own semantics (no cat file, redscope/engine/semantics.hpp).
  std::string_view file;
  // The variants of the file it turns on (cat `if "sm6x"`).
  std::span<const std::string_view> variants = {};
  // The tests it is the default of: those of the PTX IR whose target is
  // sm_<min_sm> to sm_<max_sm>; none when max_sm < min_sm (a dialect's
  // default, named by the dialect's registry row, or --model).
  int min_sm = 0, max_sm = -1;
  // Whether its tests run on an NVIDIA sm_NN (JSON "target").
  bool nvidia_target = true;
  // `redscope models`: what it is, after its name ("{title}" is the cat
  // file's title); continuation lines indented by 10.
  std::string_view about = {};

  bool has_variant(std::string_view v) const {
    return std::find(variants.begin(), variants.end(), v) != variants.end();
  }
  std::vector<std::string> variant_list() const { return {variants.begin(), variants.end()}; }
};

// Which model a result or an option names: a row of kBuiltinModels, or a
// dialect's own (never null).
using ModelRef = const BuiltinModel*;

inline constexpr std::string_view kSm6xVariants[] = {"sm6x"};

// ptx: the PTX memory consistency model (PTX ISA §8, which covers sm_70 and
// later). ptx-sm6x: the same axioms with the sm_6x rule of the red/atom
// seed: an RMW on .shared memory is not atomic with respect to plain stores.
// sass-sm30: models/sass-sm30.cat, the legacy model of Kepler SASS tests
// (the PTX axioms over the events SASS instructions lower to, with the sm_6x
// rule; docs/model.md "SASS (sm_30)"), the SASS dialect's default.
// scoped-cpp: models/scoped-cpp.cat, RC11 with cuda::thread_scope (docs/
// model.md "The scoped C++ model"), the default of source-level tests.
inline constexpr std::array kBuiltinModels{
    BuiltinModel{.name = "ptx",
                 .file = "ptx.cat",
                 .min_sm = 70,
                 .max_sm = std::numeric_limits<int>::max(),
                 .about = "models/ptx.cat (built in): \"{title}\"; sm_70 and later"},
    BuiltinModel{.name = "ptx-sm6x",
                 .file = "ptx.cat",
                 .variants = kSm6xVariants,
                 .min_sm = 0,
                 .max_sm = 69,
                 .about =
                     "models/ptx.cat with variant \"sm6x\": sm_6x and earlier, where an RMW on\n"
                     "          .shared is not atomic against plain stores"},
    BuiltinModel{.name = "sass-sm30",
                 .file = "sass-sm30.cat",
                 .variants = kSm6xVariants,
                 .about =
                     "models/sass-sm30.cat (built in, includes ptx.cat, variant \"sm6x\"): SASS\n"
                     "          litmus tests (Kepler sm_30)"},
    BuiltinModel{.name = "scoped-cpp",
                 .file = "scoped-cpp.cat",
                 .about =
                     "models/scoped-cpp.cat (built in): C/C++ source-level tests (herd7's C\n"
                     "          tests, CUDA tests read with --source): RC11 with CUDA's scopes"},
};
inline constexpr ModelRef kDefaultModel = &kBuiltinModels[0];

// The built-in model named `name`, or null.
constexpr ModelRef builtin_model_named(std::string_view name) {
  for (const BuiltinModel& m : kBuiltinModels)
    if (m.name == name) return &m;
  return nullptr;
}
// The model a PTX target selects: the row whose target range holds `sm`.
constexpr ModelRef model_for_target(int sm) {
  for (const BuiltinModel& m : kBuiltinModels)
    if (m.min_sm <= sm && sm <= m.max_sm) return &m;
  return kDefaultModel;
}
// The model a test selects: its dialect's default (LitmusTest::default_model,
// set by the registry), else its target's.
ModelRef model_for_test(const LitmusTest& test);

constexpr std::string_view to_string(ModelRef m) { return m->name; }

// What a result names as its model: the user's model file (--model
// FILE.cat) when there is one, else the built-in model's name.
inline std::string model_name(ModelRef m, const std::string& model_file) {
  return model_file.empty() ? std::string(to_string(m)) : model_file;
}

}  // namespace redscope
