// `redscope report --matrix ROWS COLS ... INPUT...` and `report --from SPEC`
// (docs/cli.md "Matrix reports"). main.cpp's report dispatch takes the
// matrix options out of the command line, parses the rest as every command
// does, and calls run_report_matrix.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "redscope/engine/engine.hpp"
#include "redscope/report/matrix.hpp"

namespace redscope::cli {

// The matrix report's own options.
struct MatrixOptions {
  bool any = false;                       // --matrix or --from was given
  std::optional<std::string> rows, cols;  // --matrix ROWS COLS
  std::optional<std::string> from;        // --from SPEC
  std::optional<VerdictKind> verdict;     // --verdict condition|atomicity|mapping
  std::optional<std::string> format;      // --format text|csv|json|svg|html
};

// Takes --matrix, --from, --verdict and --format out of argv when --matrix
// or --from is among them; `rest` gets every other argument (argv[0] and
// argv[1] included). A bad value of one of them is a usage error (exit 2).
MatrixOptions take_matrix_options(int argc, char** argv, std::vector<char*>& rest);

// What the command shares with the other commands' options.
struct MatrixCommon {
  EngineOptions engine;
  unsigned jobs = 1;
  bool quiet = false;
  std::vector<std::string> paths;
  std::optional<std::string> html_dir;  // --html DIR
  bool xval = true, pictures = true;    // --no-xval, --no-pictures
  std::size_t max_file_bytes = 0;
};

// Returns the exit status: 0, 1 (a test could not be checked or placed, an
// input could not be read), 2 (usage: an unknown axis, ...), 4 (--html: the
// machine reached an outcome the model forbids).
int run_report_matrix(const MatrixOptions& m, const MatrixCommon& c);

}  // namespace redscope::cli
