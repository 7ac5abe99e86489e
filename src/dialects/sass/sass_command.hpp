// `redscope sass encode|decode [FILE]` (docs/cli.md).
#pragma once

namespace redscope::cli {

// argv[1] is "sass"; returns the exit status.
int run_sass(int argc, char** argv);

}  // namespace redscope::cli
