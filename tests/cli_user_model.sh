#!/usr/bin/env bash
# A user's own model (--cat): the shipped models/ptx.cat without its
# Atomicity axiom lets two relaxed.gpu reds lose an update (x ends 1), which
# the shipped model forbids (PTX §8.9.3: no morally strong write between an
# RMW's read and write). Also: a bad model file is a located error.
set -u
bin=$1 src=$2 dir=$3/user-model
rm -rf "$dir" && mkdir -p "$dir"
fail() { echo "FAIL: $*"; exit 1; }
test=$src/litmus/red/red-defaults-relaxed-gpu.litmus

grep -q '^empty rmw & between as Atomicity$' "$src/models/ptx.cat" || fail "ptx.cat: Atomicity line moved"
grep -v '^empty rmw & between as Atomicity$' "$src/models/ptx.cat" > "$dir/no-atomicity.cat"

shipped=$("$bin" run --engine enum --format jsonl "$test") || fail "shipped model: the test must pass"
grep -q '"x": "1"' <<<"$shipped" && fail "shipped model lets an update be lost: $shipped"
mine=$("$bin" run --engine enum --cat "$dir/no-atomicity.cat" --format jsonl "$test")
grep -q '"holds": false' <<<"$mine" || fail "without Atomicity the forall must fail: $mine"
grep -q '"model": "[^"]*no-atomicity.cat"' <<<"$mine" || fail "the result must name the user's model: $mine"
grep -q '"x": "1"' <<<"$mine" || fail "without Atomicity: no lost update: $mine"
grep -q '"x": "2"' <<<"$mine" || fail "without Atomicity: x=2 must stay allowed: $mine"

models=$("$bin" models) || fail "redscope models failed"
grep -q '^ptx  .*models/ptx.cat' <<<"$models" || fail "models: no ptx: $models"
grep -q '^ptx-sm6x .*variant "sm6x"' <<<"$models" || fail "models: no ptx-sm6x: $models"

printf '"broken"\nacyclic po | nosuch as X\n' > "$dir/bad.cat"
"$bin" run --engine enum --cat "$dir/bad.cat" "$test" >/dev/null 2>"$dir/err"; rc=$?
[ $rc -eq 2 ] || fail "a bad model must be a usage error (2), not $rc"
grep -q "bad.cat:2:" "$dir/err" || fail "bad model: no located error: $(cat "$dir/err")"
echo "user model without Atomicity loses an update; bad model located"
