#!/usr/bin/env bash
# Builds the AddressSanitizer + UndefinedBehaviorSanitizer tree that the
# `sanitizers.fuzz` ctest runs: ./build-sanitize (or $1), RelWithDebInfo,
# REDSCOPE_SANITIZE=ON, only the unit tests and the fuzz harness. Incremental:
# a second run rebuilds only what changed. Run it before ctest (docs/testing.md).
#   scripts/build-sanitize.sh [DIR]     JOBS=n to change the parallelism (default 2)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/build-sanitize}
# -O1 -g1 (line tables): ASan+UBSan at -O2 -g took twice as long to compile
# (12 of CI's 25 minutes); reports still name file and line.
# A new tree: Ninja, and clang++ when installed (scripts/setup.sh installs it),
# which compiles this tree in about two thirds of GCC's time (docs/performance.md
# "CI time, round 2"); an existing tree keeps its generator and compiler.
new=()
if [[ ! -f $out/CMakeCache.txt ]]; then
  command -v ninja >/dev/null && new+=(-G Ninja)
  command -v clang++ >/dev/null && new+=(-DCMAKE_CXX_COMPILER=clang++)
fi
cmake -S "$root" -B "$out" "${new[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DREDSCOPE_SANITIZE=ON \
      -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="${REDSCOPE_SANITIZE_OPT:--O0} -g1 -DNDEBUG" -DREDSCOPE_SANITIZER_TEST=OFF >/dev/null
cmake --build "$out" -j "${JOBS:-2}" --target redscope_tests redscope_fuzz
echo "sanitizer build ready: $out/tests/redscope_tests $out/tests/redscope_fuzz"
