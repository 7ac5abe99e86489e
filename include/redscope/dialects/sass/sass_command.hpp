// `redscope sass encode|decode [FILE]` (docs/cli.md).
#pragma once

#include "redscope/frontend/frontend.hpp"

namespace redscope::cli {

// argv[1] is "sass"; returns the exit status.
int run_sass(int argc, char** argv, TestFileReader read);

}  // namespace redscope::cli
