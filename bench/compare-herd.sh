#!/usr/bin/env bash
# Times redscope on the benchmark's families (default a, b, j, n, k, w: the
# shapes the issue tracker measured against herd7) and, when a herd7 binary
# is given, herd7 on the same tests: checks that the two list the same
# number of outcomes and prints herd7's CPU time over redscope's. herd7 is
# not a dependency: without --herd7 only redscope's numbers print.
#
#   bench/compare-herd.sh [--herd7 PATH [--herd-model DIR] [--optace]]
#                         [--only LETTERS] [--max-n N] [--timeout SECONDS]
#                         [--runs R]
#
# The tests are written by `redscope_bench --emit-only` in redscope's PTX
# litmus syntax; bench/ptx2herd.py writes each again as a herd7 LISA test
# (accesses annotated with their .sem and .scope, the CTA/GPU placement as a
# `scopes:` tree) for the port of the PTX axioms in DIR (default bench/herd:
# ptx.bell and ptx.cat, the PTX axioms in herd7's cat language; ptx.cat says
# why each statement is written as it is and what that costs herd7).
# herd7 is run as
#   $HERD7 -I $DIR $HERD_ARGS -bell $DIR/ptx.bell -model $DIR/ptx.cat FILE
# and its "States N" line read; set HERD_ARGS for more options (for a herd7
# that is not installed, `-I` its herd/libdir, where cos.cat and stdlib.cat
# are). --optace adds a second herd7 column with `-optace true` (exact on
# these families, where every same-location pair is morally strong; not on
# PTX tests with weak races, see bench/herd/ptx.cat).
#
# Times are CPU seconds (user + system) of whole processes, children
# included: redscope's the median of R runs (default 5), herd7's one run.
# Once herd7 passes --timeout (wall seconds, default 150) on a family, its
# larger sizes are skipped; the summary names, per family, herd7's largest
# size that finished and the ratio there.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
redscope="${REDSCOPE:-$here/build/redscope}"
bench="${BENCH:-$here/build/bench/redscope_bench}"
herd7="" model="$here/bench/herd" only="abjnkw" max_n=10 timeout=150 runs=5 optace=""
while [ $# -gt 0 ]; do
  case "$1" in
    --herd7) herd7="$2"; shift 2 ;;
    --herd-model) model="$2"; shift 2 ;;
    --optace) optace=1; shift ;;
    --only) only="$2"; shift 2 ;;
    --max-n) max_n="$2"; shift 2 ;;
    --timeout) timeout="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    -h|--help) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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

# cpu CMD...: runs CMD (output to $dir/out, its status to $dir/rc) and prints
# the CPU seconds bash's `time` reports for it, user + system, children
# included.
cpu() {
  local TIMEFORMAT='%3U %3S' t
  t=$( { time { "$@" > "$dir/out" 2>&1; echo $? > "$dir/rc"; }; } 2>&1 )
  awk -v t="$t" 'BEGIN { split(t, a, " "); printf "%.4f", a[1] + a[2] }'
}

# herd MODEL-OPTIONS...: runs herd7 on $lisa; sets herd_s and herd_n.
herd() {
  # shellcheck disable=SC2086 # HERD_ARGS is a list of options
  herd_s=$(cpu timeout "$timeout" "$herd7" -I "$model" ${HERD_ARGS:-} "$@" \
           -bell "$model/ptx.bell" -model "$model/ptx.cat" "$lisa")
  herd_n=$(sed -n 's/^States \([0-9]*\).*/\1/p' "$dir/out" | head -1)
  # herd7 prints "States N" before the states: stopped while printing them,
  # it has not finished.
  if [ "$(cat "$dir/rc")" = 124 ]; then
    herd_s="timeout" herd_n="-"
  elif [ -z "$herd_n" ]; then
    herd_s="failed" herd_n="-" status=1
    printf '%s: herd7: %s\n' "$name" "$(head -1 "$dir/out")" >&2
  fi
}

# ratio_of VAR HERD_S HERD_N: sets VAR to herd7's CPU over redscope's (or
# -), marked DIFFER, and the run failed, when the outcome counts differ. Run
# in this shell, not $(...), so that the failure is kept.
ratio_of() {
  local r="-"
  case "$2" in
    [0-9]*)
      r=$(awk -v a="$2" -v o="$ours" 'BEGIN { printf "%.0f", a / (o > 0 ? o : 1e-4) }')
      if [ "$3" != "$count" ]; then status=1; r="$r DIFFER"; fi ;;
  esac
  printf -v "$1" '%s' "$r"
}

printf '%-15s %9s %10s %7s %10s %9s %10s' test outcomes redscope engine herd7 herd_outc ratio
[ -n "$optace" ] && printf ' %10s %10s' herd7-optace ratio
printf '\n'
status=0
declare -A skip=() skip_o=() best=()
for f in $(ls "$dir"/*.litmus | sort -V); do
  name="$(basename "$f" .litmus)"
  n="${name##*-}" family="${name%-*}"
  [ "$n" -le "$max_n" ] || continue
  times=() line=""
  for _ in $(seq "$runs"); do
    # -v: "checked FILE with ENGINE (auto: ...): N outcome(s), ..." on stderr.
    times+=("$(cpu "$redscope" run -q -v --timeout "$timeout" --max-outcomes 16777216 "$f")")
    line=$(grep '^checked ' "$dir/out" || true)
    [ -n "$line" ] || break
  done
  ours=$(printf '%s\n' "${times[@]}" | sort -g \
         | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')  # the median
  if [ -z "$line" ]; then
    printf '%-15s %9s %10s\n' "$name" - "timeout"; continue
  fi
  count=$(printf '%s' "$line" | sed 's/.*: \([0-9]*\) outcome(s).*/\1/')
  engine=$(printf '%s' "$line" | sed 's/^checked .* with \([a-z0-9]*\).*/\1/')
  herd_s="-" herd_n="-" ratio="-" o_s="-" o_ratio="-"
  if [ -n "$herd7" ]; then
    lisa="$dir/herd-$name.litmus"
    python3 "$here/bench/ptx2herd.py" "$f" > "$lisa"
    if [ -n "$optace" ] && [ -z "${skip_o[$family]:-}" ]; then
      herd -optace true
      o_s=$herd_s
      ratio_of o_ratio "$herd_s" "$herd_n"
      [ "$herd_s" != timeout ] || skip_o[$family]=1
    fi
    if [ -n "${skip[$family]:-}" ]; then herd_s="skipped" herd_n="-"; else
      herd
      ratio_of ratio "$herd_s" "$herd_n"
      case "$herd_s" in
        timeout) skip[$family]=1 ;;
        [0-9]*) best[$family]="$name: herd7 ${herd_s} s, redscope ${ours} s, ratio $ratio" ;;
      esac
    fi
  fi
  printf '%-15s %9s %10.4f %7s %10s %9s %10s' "$name" "$count" "$ours" "$engine" \
    "$herd_s" "$herd_n" "$ratio"
  [ -n "$optace" ] && printf ' %10s %10s' "$o_s" "$o_ratio"
  printf '\n'
done
if [ -n "$herd7" ]; then
  echo "herd7's largest finishing size per family (CPU seconds):"
  for k in $(printf '%s\n' "${!best[@]}" | sort); do echo "  ${best[$k]}"; done
fi
exit $status
