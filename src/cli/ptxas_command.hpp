// `redscope ptxas-check FILE|DIR...` (docs/cli.md).
#pragma once

namespace redscope::cli {

// argv[1] is "ptxas-check"; returns the exit status.
int run_ptxas_check(int argc, char** argv);

}  // namespace redscope::cli
