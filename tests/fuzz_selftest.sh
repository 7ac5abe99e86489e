#!/usr/bin/env bash
# The fuzz harness finds what it must: a crash and a hang planted at known
# inputs (REDSCOPE_FUZZ_CRASH_AT / REDSCOPE_FUZZ_HANG_AT, tests/fuzz_main.cpp)
# are reported at those inputs, with the input written, the run exits 1, and
# the rest of the lost batch still runs (every input counted).
#   fuzz_selftest.sh REDSCOPE_FUZZ WORK_DIR
set -uo pipefail
fuzz=$1; dir="$2/fuzz-selftest"
rm -rf "$dir"; mkdir -p "$dir"
fail() { echo "FAIL: $*"; cat "$dir"/*.out 2>/dev/null | tail -20; exit 1; }
common=(--targets merge,cat,sass-words --seed 1)

# Fast mode: input 1234 (cat) crashes in its batch of 2000; replayed alone.
REDSCOPE_FUZZ_CRASH_AT=1234 "$fuzz" --fast --inputs 3000 --full-every 0 "${common[@]}" \
  --findings "$dir/crash" >"$dir/crash.out" 2>&1
[ $? -eq 1 ] || fail "a crash must fail the run"
[ -f "$dir/crash/cat-crash-1-1234.cat" ] || fail "the crashing input is not written"
grep -q "fast mode: 3000 inputs" "$dir/crash.out" || fail "the rest of the batch did not run"
grep -q "1 inputs replayed alone" "$dir/crash.out" || fail "the suspect was not replayed"

# Fast mode: input 1500 (merge) spins; killed at --fast-hang, a finding.
REDSCOPE_FUZZ_HANG_AT=1500 "$fuzz" --fast --inputs 3000 --full-every 0 --fast-hang 1 \
  "${common[@]}" --findings "$dir/hang" >"$dir/hang.out" 2>&1
[ $? -eq 1 ] || fail "a fast-mode hang must fail the run"
[ -f "$dir/hang/merge-hang-1-1500.json" ] || fail "the spinning input is not written"
grep -q "fast mode: 3000 inputs" "$dir/hang.out" || fail "the rest of the batch did not run"

# Full mode: input 30 crashes in its own child.
REDSCOPE_FUZZ_CRASH_AT=30 "$fuzz" --inputs 40 "${common[@]}" --findings "$dir/full" \
  >"$dir/full.out" 2>&1
[ $? -eq 1 ] || fail "a crash in full mode must fail the run"
[ -f "$dir/full/merge-crash-1-30.json" ] || fail "the crashing full input is not written"
grep -q "full mode: 40 inputs" "$dir/full.out" || fail "full mode did not run 40 inputs"

# Without the planted faults, the same runs pass.
"$fuzz" --fast --inputs 3000 --full-every 0 "${common[@]}" --findings "$dir/clean" \
  >"$dir/clean.out" 2>&1 || fail "the clean run has findings"
echo "fuzz self-test: crash, hang and full-mode crash found at their inputs"
