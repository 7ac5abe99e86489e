#include "cli/gen_command.hpp"

#include <string_view>

#include <fmt/format.h>

namespace redscope::cli {

namespace {

constexpr std::string_view kGenUsage = R"(Usage:
  redscope gen cycle [options] CYCLE...   litmus tests from cycles of relaxations
                                          (redscope gen cycle --help)
  redscope gen matrix SPEC --out DIR      the cells of a parameter matrix as
                                          litmus tests (redscope gen matrix --help)
)";

}  // namespace

int run_gen(int argc, char** argv) {
  const std::string_view what = argc > 2 ? argv[2] : "";
  if (what == "cycle") return run_gen_cycle(argc, argv);
  if (what == "matrix") return run_gen_matrix(argc, argv);
  if (what == "-h" || what == "--help") {
    fmt::print("{}", kGenUsage);
    return 0;
  }
  fmt::print(
      stderr, "redscope gen: {}\n{}",
      what.empty() ? "needs `cycle` or `matrix`" : fmt::format("unknown generator '{}'", what),
      kGenUsage);
  return 2;
}

}  // namespace redscope::cli
