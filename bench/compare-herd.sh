#!/usr/bin/env bash
# Times redscope on the benchmark's families (default a, b, j, k, w: the shapes
# the issue tracker measured against herd7) and, when a herd7 binary is
# given, herd7 on the same tests: checks that the two list the same number of
# outcomes and prints herd7's time over redscope's. herd7 is not a
# dependency: without --herd7 only redscope's numbers print.
#
#   bench/compare-herd.sh [--herd7 PATH [--herd-model DIR]] [--only LETTERS]
#                         [--max-n N] [--timeout SECONDS]
#
# The tests are written by `redscope_bench --emit-only` in redscope's PTX
# litmus syntax; bench/ptx2herd.py writes each again as a herd7 LISA test
# (accesses annotated with their .sem and .scope, the CTA/GPU placement as a
# `scopes:` tree) for the port of the PTX axioms in DIR (default bench/herd:
# ptx.bell and ptx.cat, models/ptx.cat's axioms in herd7's cat language).
# herd7 is run as
#   $HERD7 -I $DIR $HERD_ARGS -bell $DIR/ptx.bell -model $DIR/ptx.cat FILE
# and its "States N" line read; set HERD_ARGS for more options (for a herd7
# that is not installed, `-I` its herd/libdir, where cos.cat and stdlib.cat
# are). Both times are whole processes, one run each. Once herd7 times out
# on a family, its larger sizes are skipped.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
redscope="${REDSCOPE:-$here/build/redscope}"
bench="${BENCH:-$here/build/bench/redscope_bench}"
herd7="" model="$here/bench/herd" only="abjkw" max_n=10 timeout=120
while [ $# -gt 0 ]; do
  case "$1" in
    --herd7) herd7="$2"; shift 2 ;;
    --herd-model) model="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    --max-n) max_n="$2"; shift 2 ;;
    --timeout) timeout="$2"; shift 2 ;;
    -h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "compare-herd.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
if [ -n "$herd7" ] && [ ! -f "$model/ptx.cat" ]; then
  echo "compare-herd.sh: --herd-model $model has no ptx.cat" >&2; exit 2
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
  family="${name%-*}"
  if [ -n "$herd7" ] && [ "${timed_out:-}" = "$family" ]; then
    herd_s="skipped"  # herd7 timed out at a smaller size of this family
  elif [ -n "$herd7" ]; then
    lisa="$dir/herd-$name.litmus"
    python3 "$here/bench/ptx2herd.py" "$f" > "$lisa"
    t0=$(now)
    # shellcheck disable=SC2086 # HERD_ARGS is a list of options
    out=$(timeout "$timeout" "$herd7" -I "$model" ${HERD_ARGS:-} -bell "$model/ptx.bell" \
          -model "$model/ptx.cat" "$lisa" 2>&1) && rc=0 || rc=$?
    t1=$(now)
    herd_n=$(printf '%s\n' "$out" | sed -n 's/^States \([0-9]*\).*/\1/p' | head -1)
    if [ -z "$herd_n" ]; then
      herd_n="-"
      if [ "$rc" = 124 ]; then
        herd_s="timeout" timed_out="$family"
      else
        herd_s="failed" status=1
        printf '%s: herd7: %s\n' "$name" "$(printf '%s\n' "$out" | head -1)" >&2
      fi
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
