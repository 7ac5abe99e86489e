#!/usr/bin/env bash
# `redscope explain` and `--dot`: the lost update of two red.gpu on one GPU
# is forbidden and the explanation names Atomicity with the fr;co edges; MP
# with release/acquire at matching scope is forbidden by Causality through
# the synchronization; an allowed outcome gets a witness; JSON carries the
# same; --dot writes one picture per witness (SVG when Graphviz is present);
# malformed --outcome is a usage error (exit 2).
set -uo pipefail
bin=$1; litmus=$2; dir=$3/cli_explain
rm -rf "$dir"; mkdir -p "$dir"
fail() { echo "FAIL: $*"; exit 1; }
out=$("$bin" explain "$litmus/scope/red-gpu-2cta-safe.litmus" --outcome "x=1" --dot "$dir/pics") || fail "exit status $?"
grep -q "x=1 is Forbidden" <<<"$out" || fail "red.gpu lost update must be forbidden: $out"
grep -q "^Forbidden by:.*Atomicity" <<<"$out" || fail "Atomicity must be named: $out"
# The pair in the relation Atomicity constrains (models/ptx.cat), in words.
grep -q "^Atomicity: rmw & between relates P[01]'s red.relaxed.gpu.global.add.u32 \[x\], 1 (its read)" <<<"$out" || fail "Atomicity's pair: $out"
grep -q "P[01]'s red.relaxed.gpu.global.add.u32 \[x\], 1 (its read) reads x=0 from the initial value of x" <<<"$out" || fail "Atomicity in words: $out"
# Either RMW may be the one whose read is overtaken (the solver's choice).
grep -q "morally strong because P0 (.gpu) and P1 (.gpu) are in different CTAs of one GPU" <<<"$out" \
  || grep -q "morally strong because P1 (.gpu) and P0 (.gpu) are in different CTAs of one GPU" <<<"$out" || fail "why morally strong: $out"
grep -q -- "-fr-> " <<<"$out" && grep -q -- "-co-> " <<<"$out" || fail "the fr;co edges: $out"
[ -s "$dir/pics/red-gpu-2cta-safe-Atomicity.dot" ] || fail "no picture for the Atomicity breach"
grep -q 'penwidth=3' "$dir/pics/red-gpu-2cta-safe-Atomicity.dot" || fail "breaking edges not highlighted"
if command -v dot >/dev/null; then [ -s "$dir/pics/red-gpu-2cta-safe-Atomicity.svg" ] || fail "dot is installed but no SVG"; fi
out=$("$bin" explain "$litmus/classic/MP+rel-acq-cta.litmus" --condition) || fail "exit status $?"
grep -q "is Forbidden" <<<"$out" || fail "MP+rel-acq-cta must be forbidden: $out"
grep -q "^Forbidden by: Causality " <<<"$out" || fail "Causality alone must be named: $out"
grep -q "P0's st.release.cta y, 1 synchronizes with P1's ld.acquire.cta r0, y" <<<"$out" || fail "the synchronization: $out"
out=$("$bin" explain "$litmus/scope/red-cta-2cta-lost.litmus" --outcome "x=1" --format json) || fail "exit status $?"
grep -q '"verdict": "allowed"' <<<"$out" || fail "red.cta across CTAs loses an update: $out"
grep -q '"rf": \["init x -> P[01]#0' <<<"$out" || fail "witness rf: $out"
out=$("$bin" explain "$litmus/classic/MP+rel-acq-cta.litmus" --condition --format json) || fail "exit status $?"
grep -q '"axioms": \["Causality"\]' <<<"$out" || fail "JSON axioms: $out"
"$bin" explain "$litmus/classic/MP+rel-acq-cta.litmus" --outcome "P9:r0=1" >/dev/null 2>&1; [ $? -eq 2 ] || fail "unknown register must be a usage error"
"$bin" explain "$litmus/classic/MP+rel-acq-cta.litmus" >/dev/null 2>&1; [ $? -eq 2 ] || fail "explain without a target must be a usage error"
"$bin" run "$litmus/classic/MP.litmus" --dot "$dir/run" >/dev/null || fail "run --dot exit status"
[ -s "$dir/run/MP-1.dot" ] || fail "run --dot wrote no picture"
grep -q 'cluster_P0' "$dir/run/MP-1.dot" || fail "threads are not grouped"
# An execution that traps has no values: a condition on values is explained
# as unreachable, never with the trapping execution as its witness.
out=$("$bin" explain "$litmus/sured/trap-past-the-end.litmus" --condition 2>&1)
grep -q 'is Forbidden' <<<"$out" || fail "a trapping execution must not witness a value condition: $out"
echo "explain: all checks passed"
