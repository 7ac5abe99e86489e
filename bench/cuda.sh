#!/usr/bin/env bash
# CUDA tests end to end (issue 44 item 7): 100 CUDA litmus tests — litmus/cuda
# and the cells of litmus/matrix/cuda-mp-orders.toml, the first 100 by name,
# without the spin locks (below) — checked by `redscope run -j 2`, from a cold
# cache (nvcc runs: one call for all of them) and from a warm one (no nvcc).
# Each figure is the best of RUNS whole-process runs (default 3); the goals
# are 5 s cold and 0.5 s warm. The four spin-lock tests (litmus/cuda/Lock*)
# are timed apart, warm: their loops, unrolled, are 16 skeletons each, whose
# checking (not compiling) is their cost.
#   bench/cuda.sh [REDSCOPE] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/redscope}
runs=${2:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/tests"
"$bin" gen matrix litmus/matrix/cuda-mp-orders.toml --out "$work/matrix" > /dev/null
cp litmus/cuda/*.litmus "$work/matrix"/*.litmus "$work/tests/" 2>/dev/null
mkdir -p "$work/locks"
mv "$work/tests"/Lock*.litmus "$work/locks/"
ls "$work/tests" | sort | tail -n +101 | while read -r f; do rm "$work/tests/$f"; done
n=$(ls "$work/tests" | wc -l)
best() {  # best wall time of $runs runs of "$@", with a fresh cache when $cold
  local b=""
  for _ in $(seq "$runs"); do
    [ "$cold" = 1 ] && rm -rf "$work/cache"
    local s e
    s=$(date +%s.%N)
    XDG_CACHE_HOME="$work/cache" "$@" > /dev/null
    e=$(date +%s.%N)
    b=$(python3 -c "t=$e-$s; b='$b'; print(t if not b else min(t, float(b)))")
  done
  printf '%.2f' "$b"
}
cold=1; c=$(best "$bin" run -q -j 2 "$work/tests")
rm -rf "$work/cache"; XDG_CACHE_HOME="$work/cache" "$bin" run -q -j 2 "$work/tests" > /dev/null
cold=0; w=$(best "$bin" run -q -j 2 "$work/tests")
XDG_CACHE_HOME="$work/cache" "$bin" run -q -j 2 "$work/locks" > /dev/null
l=$(best "$bin" run -q -j 2 "$work/locks")
echo "cuda: the 4 spin locks, warm cache ${l} s"
echo "cuda: $n tests, cold cache ${c} s (goal 5), warm cache ${w} s (goal 0.5), best of $runs"
