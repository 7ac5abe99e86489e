#!/usr/bin/env bash
# `redscope xval` over litmus/ and the conformance suite: no outcome reached by
# the operational machine may be forbidden by the model (exit 4 otherwise),
# and the machine itself must reach the lost updates of red.cta across CTAs
# and of a plain store against red.shared on sm_60, but not those of red.gpu
# on one GPU or of a strong store on sm_70.
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
verdict() { "$bin" run --engine op "$litmus/$1.litmus" | grep -E '^(Ok|No)$'; }
[ "$(verdict scope/red-cta-2cta-lost)" = Ok ] || fail "the machine must lose an update of red.cta across CTAs"
[ "$(verdict scope/red-gpu-2cta-safe)" = No ] || fail "the machine must not lose an update of red.gpu"
[ "$(verdict sm6x/store-vs-red-shared-lost)" = Ok ] || fail "the machine must lose the store against red.shared on sm_60"
[ "$(verdict sm6x/store-vs-red-shared-sm70-safe)" = No ] || fail "the machine must not lose a strong store on sm_70"
echo "xval clean; lost updates reached as required"
