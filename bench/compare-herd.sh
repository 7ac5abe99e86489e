#!/usr/bin/env bash
# Times redscope on the benchmark's families (default a, b, j, k: the shapes
# the issue tracker measured against herd7) and, when a herd7 binary and a
# model directory are given, herd7 on the same files: checks that the two
# list the same number of outcomes and prints herd7's time over redscope's.
# herd7 is not a dependency: without --herd7 only redscope's numbers print.
#
#   bench/compare-herd.sh [--herd7 PATH --herd-model DIR] [--only LETTERS]
#                         [--max-n N] [--timeout SECONDS]
#
# The tests are written by `redscope_bench --emit-only` in the PTX litmus
# syntax redscope reads (herd's container: init block, `P0@cta 0,gpu 0`
# thread placement, `locations [...]` listing every register and location
# the benchmark observes, `exists`), one file per size. herd7 is run as
#   $HERD7 -I $DIR -model $DIR/ptx.cat $HERD_ARGS FILE
# and its "States N" line read; set HERD_ARGS for your port's options (its
# bell file, for instance). Not run on the project machine: no herd7 build
# is installable there (no Debian package; docs/performance.md).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
redscope="${REDSCOPE:-$here/build/redscope}"
bench="${BENCH:-$here/build/bench/redscope_bench}"
herd7="" model="" only="abjk" max_n=10 timeout=120
while [ $# -gt 0 ]; do
  case "$1" in
    --herd7) herd7="$2"; shift 2 ;;
    --herd-model) model="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    --max-n) max_n="$2"; shift 2 ;;
    --timeout) timeout="$2"; shift 2 ;;
    -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "compare-herd.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
if [ -n "$herd7" ] && [ -z "$model" ]; then
  echo "compare-herd.sh: --herd7 needs --herd-model DIR" >&2; exit 2
fi
if [ ! -x "$bench" ]; then  # the set-up command builds redscope only
  cmake --build "$here/build" -j "$(nproc)" --target redscope_bench > /dev/null
fi
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
"$bench" --only "$only" --emit-only "$dir" > /dev/null

now() { date +%s.%N; }
printf '%-14s %10s %10s %8s %10s %10s %8s\n' test outcomes redscope engine herd7 herd_outc ratio
status=0
for f in $(ls "$dir"/*.litmus | sort -V); do
  name="$(basename "$f" .litmus)"
  n="${name##*-}"
  [ "$n" -le "$max_n" ] || continue
  t0=$(now)
  # -v: "checked FILE with ENGINE (auto: ...): N outcome(s), ..." on stderr.
  line=$(timeout "$timeout" "$redscope" run -q -v --max-outcomes 16777216 "$f" 2>&1 >/dev/null \
         | grep '^checked ' || true)
  t1=$(now)
  if [ -z "$line" ]; then
    printf '%-14s %10s %10s\n' "$name" - "timeout"; continue
  fi
  count=$(printf '%s' "$line" | sed 's/.*: \([0-9]*\) outcome(s).*/\1/')
  engine=$(printf '%s' "$line" | sed 's/^checked .* with \([a-z0-9]*\).*/\1/')
  ours=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
  herd_s="-" herd_n="-" ratio="-"
  if [ -n "$herd7" ]; then
    t0=$(now)
    out=$(timeout "$timeout" "$herd7" -I "$model" -model "$model/ptx.cat" ${HERD_ARGS:-} "$f" \
          2>&1 || true)
    t1=$(now)
    herd_n=$(printf '%s\n' "$out" | sed -n 's/^States \([0-9]*\).*/\1/p' | head -1)
    if [ -z "$herd_n" ]; then
      herd_s="failed"; herd_n="-"
    else
      herd_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
      ratio=$(awk -v a="$t0" -v b="$t1" -v o="$ours" 'BEGIN { printf "%.1f", (b - a) / o }')
      if [ "$herd_n" != "$count" ]; then status=1; ratio="$ratio DIFFER"; fi
    fi
  fi
  printf '%-14s %10s %10.3f %8s %10s %10s %8s\n' "$name" "$count" "$ours" "$engine" \
    "$herd_s" "$herd_n" "$ratio"
done
exit $status
