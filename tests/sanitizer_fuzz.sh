#!/usr/bin/env bash
# Runs, under AddressSanitizer + UndefinedBehaviorSanitizer, the binaries that
# scripts/build-sanitize.sh built beforehand (this test never builds): the
# parser/engine fuzz cases, the axiom, frontend, layout, seed-example and value
# unit tests, then the fuzz harness for $SANITIZER_FUZZ_SECONDS (default 40):
# every target round-robin, parse-level in batches (--fast), every 50th input
# through the whole pipeline.
# Fails, saying what to run, when the tree is missing or older than the sources.
#   sanitizer_fuzz.sh SOURCE_DIR SANITIZE_DIR WORK_DIR [TEST_SOURCE...]
# TEST_SOURCE: the files of tests/ that tree's redscope_tests is built from
# (tests/CMakeLists.txt); without them every tests/*.cpp counts as one.
set -uo pipefail
src=$1; out=$2; work=${3:-$out}; shift 3 2>/dev/null || shift $#
sources=("$@")
tests="$out/tests/redscope_tests"; fuzz="$out/tests/redscope_fuzz"
for b in "$tests" "$fuzz"; do
  if [ ! -x "$b" ]; then
    echo "FAIL: $b is missing: build the sanitizer tree first with"
    echo "      $src/scripts/build-sanitize.sh $out"
    exit 1
  fi
done
# Stale binaries would test old code: a source newer than its binary fails.
newer=$( { find "$src/src" "$src/include" -type f \( -name '*.cpp' -o -name '*.hpp' \) \( -newer "$tests" -o -newer "$fuzz" \);
           if [ ${#sources[@]} -gt 0 ]; then
             for f in "${sources[@]}"; do [ "$src/tests/$f" -nt "$tests" ] && echo "$src/tests/$f"; done
           else
             find "$src/tests" -maxdepth 1 -name '*.cpp' ! -name fuzz_main.cpp -newer "$tests"
           fi;
           find "$src/tests" -maxdepth 1 \( -name 'fuzz*.cpp' -o -name fuzz.hpp \) \
             \( -newer "$fuzz" -o -newer "$tests" \); } | head -3)
if [ -n "$newer" ]; then
  echo "FAIL: the sanitizer build in $out is older than:"
  echo "$newer" | sed 's/^/      /'
  echo "      rebuild it with $src/scripts/build-sanitize.sh $out"
  exit 1
fi
# hard_rss_limit_mb: an input that allocates without bound ends its child
# with a report (a finding) instead of taking the machine's memory.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:hard_rss_limit_mb=4096
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
status=0
# One mutant per corpus file instead of ten (tests/test_fuzz.cpp): each
# check costs several times more here (most of it Z3, whose memory ASan's
# allocator faults in afresh), and the harness below mutates on for 40 s.
# The value tests' sampled loops check 2,000 values each instead of up to
# 200,000 (tests/test_values.cpp, samples()): at -O0 they took 31 s here.
REDSCOPE_FUZZ_MUTANTS=${REDSCOPE_FUZZ_MUTANTS:-1} \
REDSCOPE_VALUE_SAMPLES=${REDSCOPE_VALUE_SAMPLES:-2000} \
  "$tests" "[fuzz],[axioms],[frontend],[layout],[seed],[values]" || status=1
findings="$work/fuzz-findings-sanitize"
# Each check costs about 10 times more here: smaller batches, longer caps.
"$fuzz" --fast --full-every 50 --batch 500 --seconds "${SANITIZER_FUZZ_SECONDS:-40}" --seed 7 \
  --findings "$findings" --slow 30 --hang 60 --fast-slow 10 --fast-hang 60 || status=1
exit $status
