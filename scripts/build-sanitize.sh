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
cmake -S "$root" -B "$out" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DREDSCOPE_SANITIZE=ON \
      -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DREDSCOPE_SANITIZER_TEST=OFF >/dev/null
cmake --build "$out" -j "${JOBS:-2}" --target redscope_tests redscope_fuzz
echo "sanitizer build ready: $out/tests/redscope_tests $out/tests/redscope_fuzz"
