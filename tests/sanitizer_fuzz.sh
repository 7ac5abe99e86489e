#!/usr/bin/env bash
# Rebuilds the unit tests with AddressSanitizer + UndefinedBehaviorSanitizer
# and runs the parser/engine fuzz cases, the axiom, layout, seed-example and
# value tests under them.
set -euo pipefail
src=$1; out=$2
cmake -S "$src" -B "$out" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DREDSCOPE_SANITIZE=ON -DREDSCOPE_SANITIZER_TEST=OFF >/dev/null
cmake --build "$out" -j 2 --target redscope_tests >/dev/null
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
"$out/tests/redscope_tests" "[fuzz],[axioms],[frontend],[layout],[seed],[values]"
