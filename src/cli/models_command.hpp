// `redscope models [-I DIR]... [FILE.cat...]` (docs/cli.md), and the folders
// a model's `include` is looked for in.
#pragma once

#include <string>
#include <vector>

namespace redscope::cli {

// argv[1] is "models"; returns the exit status.
int run_models(int argc, char** argv);

// `-I DIR` folders in command-line order, then $REDSCOPE_CATPATH's
// (colon-separated, empty entries skipped): where `include "f"` is looked
// for after the including file's folder and the model's (cat.hpp load_cat).
std::vector<std::string> cat_include_dirs(const std::vector<std::string>& from_cli);

}  // namespace redscope::cli
