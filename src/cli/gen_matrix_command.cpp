// SCAFFOLD (issue 33): replaced by the matrix generator before it lands.
#include <fmt/format.h>

#include "cli/gen_command.hpp"

namespace redscope::cli {

int run_gen_matrix(int, char**) {
  fmt::print(stderr, "redscope gen matrix: not built yet\n");
  return 2;
}

}  // namespace redscope::cli
