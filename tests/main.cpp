// Catch2's runner, after the allocator's settings every redscope program
// starts with (redscope/core/allocator.hpp).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "redscope/core/allocator.hpp"

int main(int argc, char** argv) {
  redscope::tune_allocator();
  return Catch::Session().run(argc, argv);
}
