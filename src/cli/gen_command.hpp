// `redscope gen cycle|matrix ...` (docs/cli.md "Generating tests").
#pragma once

namespace redscope::cli {

// argv[1] is "gen"; dispatches on argv[2]; returns the exit status.
int run_gen(int argc, char** argv);

// argv[1] is "gen", argv[2] "cycle" (gen_cycle_command.cpp).
int run_gen_cycle(int argc, char** argv);

// argv[1] is "gen", argv[2] "matrix" (gen_matrix_command.cpp).
int run_gen_matrix(int argc, char** argv);

}  // namespace redscope::cli
