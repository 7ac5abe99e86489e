#!/usr/bin/env bash
# `redscope ptxas-check` (issue 29): NVIDIA's ptxas is the authority on what
# PTX is. Over litmus/, ../shared/conformance/dat3m-ptx and tests/invalid,
# every file agrees with ptxas wherever ptxas can judge it (both accept, or
# both reject, each instruction); a ptxas crash is "cannot judge", never
# agreement; without a ptxas the command says so and exits 2. The checker's
# own logic runs first against a stand-in (tests/fake_ptxas.sh), on every
# machine; the real check is skipped (exit 77) where no ptxas exists.
#
# Usage: tests/cli_ptxas.sh REDSCOPE SOURCE_DIR SHARED_DIR WORK_DIR
set -uo pipefail
bin=$1; root=$2; shared=$3; work=$4
fail() { echo "FAIL: $*"; exit 1; }
fake=$root/tests/fake_ptxas.sh
one=$root/litmus/float/f32-four-reds-four-results.litmus

# No ptxas: said, exit 2.
out=$("$bin" ptxas-check --ptxas "$work/no-such-ptxas" "$one" 2>&1); rc=$?
[ $rc -eq 2 ] || fail "with no ptxas: exit $rc, expected 2: $out"
grep -q "is not a ptxas that runs: nothing can be checked" <<<"$out" || fail "no ptxas: $out"
# A ptxas that rejects every instruction: the file disagrees, at its lines (exit 3).
out=$(FAKE_PTXAS=reject "$bin" ptxas-check --ptxas "$fake" "$one" 2>&1); rc=$?
[ $rc -eq 3 ] || fail "a disagreement: exit $rc, expected 3: $out"
grep -qF "$one: DISAGREE" <<<"$out" || fail "no DISAGREE: $out"
grep -qF "$one:10:32: redscope accepts 'red.global.add.f32 [x], 1e8', ptxas rejects it: fake rejection" \
  <<<"$out" || fail "the disagreement is not located: $out"
# A ptxas that crashes: cannot judge, never agreement (exit 0).
out=$(FAKE_PTXAS=crash "$bin" ptxas-check --ptxas "$fake" "$one" 2>&1); rc=$?
[ $rc -eq 0 ] || fail "a crash: exit $rc: $out"
grep -qF "$one: cannot judge: no instruction ptxas can judge: ptxas crashed (signal 11" <<<"$out" ||
  fail "a crash is not 'cannot judge': $out"

# The real assembler.
ptxas=$(command -v ptxas 2>/dev/null)
[ -z "$ptxas" ] && [ -n "${CUDA_HOME:-}" ] && [ -x "$CUDA_HOME/bin/ptxas" ] && ptxas=$CUDA_HOME/bin/ptxas
[ -z "$ptxas" ] && [ -x /usr/local/cuda/bin/ptxas ] && ptxas=/usr/local/cuda/bin/ptxas
if [ -z "$ptxas" ]; then
  echo "SKIP: no ptxas on PATH, in \$CUDA_HOME/bin or in /usr/local/cuda/bin (the stand-in checks passed)"
  exit 77
fi
dirs=("$root/litmus" "$root/tests/invalid")
if [ -d "$shared/conformance/dat3m-ptx" ]; then
  dirs+=("$shared/conformance/dat3m-ptx")
else
  echo "note: $shared/conformance/dat3m-ptx is absent; checking litmus/ and tests/invalid only"
fi
"$bin" ptxas-check --ptxas "$ptxas" -j 2 "${dirs[@]}" >"$work/ptxas-check.txt" 2>&1; rc=$?
head -1 "$work/ptxas-check.txt"
grep -E "^[0-9]+ files?:|^  cannot judge" "$work/ptxas-check.txt"
if [ $rc -ne 0 ]; then
  grep -A8 "DISAGREE" "$work/ptxas-check.txt" | head -40
  fail "ptxas-check exit $rc (3: some file disagrees with ptxas); full output: $work/ptxas-check.txt"
fi
grep -q " 0 disagree, " "$work/ptxas-check.txt" || fail "the summary does not say 0 disagree"
# sured.b.inc crashes ptxas 13.0: not judged, and not agreement.
grep -qE "^$root/tests/invalid/sured-inc.litmus: cannot judge: .*ptxas (crashed|timed out)|^$root/tests/invalid/sured-inc.litmus: agree" \
  "$work/ptxas-check.txt" || fail "sured-inc.litmus: $(grep sured-inc "$work/ptxas-check.txt")"
# The tests rewritten into PTX (issue 29) are assembled and accepted by both.
for t in float/f16-rne-tie-to-even float/f16-noftz-keeps-subnormals float/bf16-noftz-keeps-subnormals \
  float/f32-global-flush-keeps-sign float/f32-global-flushes-inputs float/f32-shared-keeps-subnormals \
  float/f64-never-flushes float/inf-minus-inf-nan red/red-add-s64-wrap types/red-add-bf16-on-f16 \
  vector/packed-f16x2-torn vector/packed-f16x2-two-reds vector/vec-bf16x2-max vector/vec-v8-f16-min; do
  grep -qE "^$root/litmus/$t.litmus: agree \(.*redscope and ptxas accept them\)" "$work/ptxas-check.txt" ||
    fail "litmus/$t.litmus: $(grep -F "litmus/$t.litmus" "$work/ptxas-check.txt" | head -3)"
done
# The JSON form is one valid document.
if command -v python3 >/dev/null; then
  "$bin" ptxas-check --ptxas "$ptxas" --format json "$root/litmus/vector" >"$work/ptxas-check.json" ||
    fail "--format json: exit $?"
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["summary"]["disagree"] == 0' \
    "$work/ptxas-check.json" || fail "--format json is not valid JSON"
fi
echo "ptxas-check: every file agrees with ptxas where ptxas can judge it"
