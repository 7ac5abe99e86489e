// `redscope gen cycle|matrix ...` (docs/cli.md "Generating tests").
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "redscope/core/cli_args.hpp"
#include "redscope/core/diagnostic.hpp"

namespace redscope::cli {

// The generators' budget (docs/cli.md "redscope gen cycle", "redscope gen
// matrix"): defaults that stop a mistaken vocabulary or spec in seconds (the
// default vocabulary's --size 8 makes 2,006 tests in 0.15 s; the shipped
// matrices have at most 1,440 cells).
struct GenBudget {
  std::size_t max_tests = 10'000;  // --max-tests; 0: no bound
  double timeout = 60;             // --timeout, seconds; 0: none
};

// Whether `opt` is one of the budget's options.
inline bool is_gen_budget_option(std::string_view opt) {
  return opt == "--max-tests" || opt == "--timeout";
}

// Sets the budget's `opt` (an is_gen_budget_option) to `v`: nothing, or the
// usage error's message for a value out of its range.
inline std::optional<std::string> set_gen_budget(std::string_view opt, std::string_view v,
                                                 GenBudget& b) {
  const bool tests = opt == "--max-tests";
  const long long hi = tests ? kMaxTestsBound : kMaxTimeoutSeconds;
  const std::optional<long long> n = parse_whole(v, 0, hi);
  if (!n)
    return fmt::format("{} takes a whole number{} from 0 to {}, not '{}'", opt,
                       tests ? "" : " of seconds", hi, printable(v));
  if (tests)
    b.max_tests = static_cast<std::size_t>(*n);
  else
    b.timeout = static_cast<double>(*n);
  return std::nullopt;
}

// argv[1] is "gen"; dispatches on argv[2]; returns the exit status.
int run_gen(int argc, char** argv);

// argv[1] is "gen", argv[2] "cycle" (gen_cycle_command.cpp).
int run_gen_cycle(int argc, char** argv);

// argv[1] is "gen", argv[2] "matrix" (gen_matrix_command.cpp).
int run_gen_matrix(int argc, char** argv);

}  // namespace redscope::cli
