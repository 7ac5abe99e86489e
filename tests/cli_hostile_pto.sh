#!/usr/bin/env bash
# Issue 28 (hostile input), .test and PTO through the CLI: explain refuses
# PTO programs with a clear message (it ended in `redscope: map::at` on 6 of
# the shipped tests), `pto cycles` runs under --timeout/--max-memory like
# `run`, and numbers past 64 bits or loops that unroll without end are
# located errors within the budget, never an abort.
#
# Usage: tests/cli_hostile_pto.sh REDSCOPE REPO_ROOT WORK_DIR
set -u
bin=$1 root=$2 work=$3/cli_hostile_pto
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }

# 1. explain on every shipped PTO test: a refusal (exit 2), never map::at.
n=0
for f in "$root"/litmus/pto/*.litmus; do
  "$bin" explain --condition "$f" >"$work/out" 2>"$work/err"; rc=$?
  [ "$rc" -eq 2 ] || fail "explain $f: exit $rc, expected 2: $(cat "$work/err")"
  grep -q "explain needs an event-graph test; PTO programs" "$work/err" ||
    fail "explain $f: $(cat "$work/err")"
  grep -q "map::at" "$work/err" && fail "explain $f: map::at"
  n=$((n + 1))
done
[ "$n" -ge 40 ] || fail "expected the 40 shipped PTO tests, found $n"

# 2. pto cycles takes run's budget options.
rowsum=$root/litmus/pto/seed-rowsum.litmus
"$bin" pto cycles --timeout 30 --max-memory 4096 --max-file-size 2 "$rowsum" >"$work/out" ||
  fail "pto cycles with budget options"
grep -q "^Total 54 cycles" "$work/out" || fail "pto cycles: $(cat "$work/out")"
for bad in "--timeout x" "--timeout -1" "--max-memory 99999999999999999999" "--timeout"; do
  # shellcheck disable=SC2086
  "$bin" pto cycles "$rowsum" $bad >/dev/null 2>"$work/err"; rc=$?
  [ "$rc" -eq 2 ] || fail "pto cycles $bad: exit $rc, expected 2"
done
# A program whose unrolling costs about a second: the memory budget (1 MiB,
# passed as soon as the watchdog looks) stops it, as it stops `run`.
{
  printf 'PTO consts\n{\n  ub f32 out[64];\n}\npto.vecscope {\n'
  printf '  scf.for %%i = 0 to 20000 step 1 {\n'
  for j in $(seq 0 1999); do printf '    %%k%d = arith.constant %d : index\n' "$j" "$j"; done
  printf '  }\n}\nexists (out[0] == 0.0)\n'
} >"$work/consts.litmus"
"$bin" pto cycles --max-memory 1 "$work/consts.litmus" >/dev/null 2>"$work/err"; rc=$?
[ "$rc" -eq 1 ] || fail "pto cycles --max-memory 1: exit $rc"
grep -q "consts.litmus: error: memory: over the 1 MiB budget" "$work/err" ||
  fail "pto cycles --max-memory 1: $(cat "$work/err")"
# Without a budget problem the same program is a located error at the cap,
# within a few seconds (it ran 17 s before, ignoring --timeout).
start=$(date +%s)
"$bin" run --timeout 2 "$work/consts.litmus" >"$work/out" 2>&1; rc=$?
[ $(($(date +%s) - start)) -le 9 ] || fail "run --timeout 2 took more than 2T + 5 s"
[ "$rc" -eq 1 ] || fail "run consts.litmus: exit $rc"
grep -Eq "consts.litmus(:[0-9]+:[0-9]+: error: the program runs more than 1000000|: error: timeout)" \
  "$work/out" || fail "run consts.litmus: $(cat "$work/out")"

# 3. Numbers past 64 bits in a .test hole, immediate and claim: located.
printf '.global x;\nd0.b0.t0 {\n  st.relaxed.gpu [x], $0;\n  ld.relaxed.gpu r0, [x];\n}\npermit(r0 == 1) as p;\n$$\n99999999999999999999999\n' >"$work/hole.test"
printf '.global x;\nd0.b0.t0 {\n  st.relaxed.gpu [x], $99999999999999999999999;\n}\npermit(r0 == 1) as p;\n$$\n1\n' >"$work/holenum.test"
printf '.global x;\nd0.b0.t0 {\n  ld.relaxed.gpu r0, [x];\n}\npermit(r0 == 18446744073709551616) as p;\n' >"$work/claim.test"
for t in hole:8:1 holenum:3:23 claim:5:14; do
  name=${t%%:*} at=${t#*:}
  "$bin" run "$work/$name.test" >"$work/out" 2>&1; rc=$?
  [ "$rc" -eq 1 ] || fail "$name.test: exit $rc, expected 1: $(cat "$work/out")"
  grep -q "$name.test:$at: error: number '[0-9]*' does not fit in 64 bits" "$work/out" ||
    fail "$name.test: $(cat "$work/out")"
done
echo "cli_hostile_pto: explain refuses $n PTO tests, pto cycles is budgeted, numbers located"
