#!/usr/bin/env bash
# Builds the AddressSanitizer + UndefinedBehaviorSanitizer tree that the
# `sanitizers.fuzz` ctest runs: ./build-sanitize (or $1), RelWithDebInfo,
# REDSCOPE_SANITIZE=ON, only the unit tests and the fuzz harness. Incremental:
# a second run rebuilds only what changed. Run it before ctest (docs/testing.md).
#   scripts/build-sanitize.sh [DIR]     JOBS=n to change the parallelism (default 2),
#                                       SANITIZE_OPT=-O1 (or another level), not -O0
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/build-sanitize}
# -O0 -g1 (line tables): ASan+UBSan at -O1 took 478 s of CPU to compile, at
# -O0 260 s (at -O2 -g twice -O1's); sanitizers.fuzz runs 11 s longer at -O0
# (docs/performance.md "CI time, round 5"). Reports name file and line.
# A new tree: Ninja, and clang++ when installed (scripts/setup.sh installs it),
# which compiles this tree in about two thirds of GCC's time (docs/performance.md
# "CI time, round 2"); an existing tree keeps its generator and compiler.
new=()
if [[ ! -f $out/CMakeCache.txt ]]; then
  command -v ninja >/dev/null && new+=(-G Ninja)
  command -v clang++ >/dev/null && new+=(-DCMAKE_CXX_COMPILER=clang++)
fi
cmake -S "$root" -B "$out" "${new[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DREDSCOPE_SANITIZE=ON \
      -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="${SANITIZE_OPT:--O0} -g1 -DNDEBUG" \
      -DREDSCOPE_SANITIZER_TEST=OFF >/dev/null
cmake --build "$out" -j "${JOBS:-2}" --target redscope_tests redscope_fuzz
echo "sanitizer build ready: $out/tests/redscope_tests $out/tests/redscope_fuzz"
