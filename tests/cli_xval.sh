#!/usr/bin/env bash
# `redscope xval` over litmus/ and the conformance suite: no outcome reached by
# the operational machine may be forbidden by the model, and none the model
# allows may be left unreached (exit 4 otherwise: issue 47),
# and the machine itself must reach the lost updates of red.cta across CTAs
# and of a plain store against red.shared on sm_60, but not those of red.gpu
# on one GPU or of a strong store on sm_70. Every PTO program is checked by
# its explorer against its Z3 twin (none left unchecked, no disagreement),
# and every SASS test says that it ran through its lowering to PTX events.
set -uo pipefail
bin=$1; litmus=$2; conformance=$3
fail() { echo "FAIL: $*"; exit 1; }
paths=("$litmus")
[ -d "$conformance" ] && paths+=("$conformance") || echo "note: $conformance absent; litmus/ only"
out=$("$bin" xval -j 2 "${paths[@]}" 2>/dev/null); rc=$?
total=$(tail -1 <<<"$out")
echo "$total"
[ $rc -eq 0 ] || [ $rc -eq 1 ] || { grep -A30 "reached-but-forbidden [1-9]" <<<"$out" | head -60; fail "xval exit status $rc"; }
grep -q "reached-but-forbidden 0$" <<<"$total" || fail "reached-but-forbidden outcomes: $total"
grep -q "(0 not checked): .*allowed-never-reached 0 (in 0 tests)" <<<"$total" \
  || { grep -A3 "never-reached [1-9]" <<<"$out" | head -40; fail "the machine misses outcomes: $total"; }
[ $rc -eq 0 ] || fail "xval exit status $rc (0: every test checked, the two sides agree)"
# PTO: the explorer against the Z3 twin, on every test of litmus/pto.
pto=$("$bin" xval -j 2 "$litmus/pto" 2>&1); rc=$?
[ $rc -eq 0 ] || { grep -v "^Xval.*, allowed-never-reached 0, .*forbidden 0$" <<<"$pto" | head -60
  fail "xval litmus/pto: exit status $rc (0: every program checked, both sides agree)"; }
echo "pto: $(tail -1 <<<"$pto")"
grep -q "^Total [1-9][0-9]* tests (0 not checked): .*never-reached 0 (in 0 tests)" <<<"$pto" \
  || fail "xval litmus/pto: $(tail -1 <<<"$pto")"
[ "$(grep -c "^Xval .* (pto: explorer vs z3 twin): " <<<"$pto")" = \
  "$(grep -c "^Xval " <<<"$pto")" ] || fail "xval litmus/pto: a test not checked by that pair"
# (Read whole, not piped into grep -q: the JSON streams, and a reader that
# stops early would kill the writer with SIGPIPE under pipefail.)
json=$("$bin" xval --format json "$litmus/pto/hazard-no-barrier.litmus" 2>/dev/null)
grep -q '"pair": "explorer vs z3 twin"' <<<"$json" || fail "xval JSON: no pair field for a PTO program"
# SASS: the machine runs the PTX events SASS lowers to, and says so.
sass=$(find "$litmus" -name '*.litmus' -print0 | xargs -0 awk 'FNR == 1 && $1 == "SASS"' | wc -l)
said=$(grep -c "^Xval .* (sass-sm30; sass, via lowering to PTX events): " <<<"$out")
[ "$sass" -gt 0 ] && [ "$said" = "$sass" ] \
  || fail "xval: $said of $sass SASS tests say 'sass, via lowering to PTX events'"
json=$("$bin" xval --format json "$litmus/sass/LB.litmus" 2>/dev/null)
grep -q '"via": "lowering to PTX events"' <<<"$json" || fail "xval JSON: no via field for a SASS test"
verdict() { "$bin" run --engine op "$litmus/$1.litmus" | grep -E '^(Ok|No)$'; }
[ "$(verdict scope/red-cta-2cta-lost)" = Ok ] || fail "the machine must lose an update of red.cta across CTAs"
[ "$(verdict scope/red-gpu-2cta-safe)" = No ] || fail "the machine must not lose an update of red.gpu"
[ "$(verdict sm6x/store-vs-red-shared-lost)" = Ok ] || fail "the machine must lose the store against red.shared on sm_60"
[ "$(verdict sm6x/store-vs-red-shared-sm70-safe)" = No ] || fail "the machine must not lose a strong store on sm_70"
echo "xval clean; lost updates reached as required"
