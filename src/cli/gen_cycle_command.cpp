// SCAFFOLD (issue 33): replaced by the cycle generator before it lands.
#include <fmt/format.h>

#include "cli/gen_command.hpp"

namespace redscope::cli {

int run_gen_cycle(int, char**) {
  fmt::print(stderr, "redscope gen cycle: not built yet\n");
  return 2;
}

}  // namespace redscope::cli
