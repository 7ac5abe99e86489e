// `redscope pto cycles FILE [--arch a2a3|a5] [--format text|json]`
// (docs/cli.md).
#pragma once

#include "redscope/frontend/frontend.hpp"

namespace redscope::cli {

// argv[1] is "pto"; returns the exit status.
int run_pto(int argc, char** argv, TestFileReader read);

}  // namespace redscope::cli
