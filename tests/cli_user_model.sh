#!/usr/bin/env bash
# A user's own model (--model FILE.cat, or --cat FILE): the shipped models/ptx.cat without its
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

# Every engine that reads a model, through both spellings of the option.
for engine in z3 enum; do
  shipped=$("$bin" run --engine $engine --format jsonl "$test") || fail "$engine, shipped model: the test must pass"
  grep -q '"x": "1"' <<<"$shipped" && fail "$engine: the shipped model lets an update be lost: $shipped"
  for opt in --model --cat; do
    mine=$("$bin" run --engine $engine $opt "$dir/no-atomicity.cat" --format jsonl "$test")
    grep -q '"holds": false' <<<"$mine" || fail "$engine $opt: without Atomicity the forall must fail: $mine"
    grep -q '"model": "[^"]*no-atomicity.cat"' <<<"$mine" || fail "$engine: the result must name the user's model: $mine"
    grep -q '"x": "1"' <<<"$mine" || fail "$engine: without Atomicity: no lost update: $mine"
    grep -q '"x": "2"' <<<"$mine" || fail "$engine: without Atomicity: x=2 must stay allowed: $mine"
  done
done
# The shipped file given as a file: the same verdict as the built-in model.
"$bin" run -q --model "$src/models/ptx.cat" "$test" || fail "models/ptx.cat as a file must pass the test"
# The analyses read the user's model too.
ex=$("$bin" explain --model "$dir/no-atomicity.cat" "$test" --outcome "x=1") || fail "explain with a user model"
grep -q "x=1 is Allowed" <<<"$ex" || fail "explain: without Atomicity x=1 is allowed: $ex"
ex=$("$bin" explain "$test" --outcome "x=1") || fail "explain, shipped model"
grep -q "^Forbidden by:.*Atomicity" <<<"$ex" || fail "explain: the shipped model forbids x=1 by Atomicity: $ex"
at=$("$bin" atomicity --model "$dir/no-atomicity.cat" "$test") || fail "atomicity with a user model"
grep -q "lost update: POSSIBLE" <<<"$at" || fail "atomicity: without Atomicity the update can be lost: $at"
grep -q "no-atomicity.cat" <<<"$at" || fail "atomicity must name the user's model: $at"
# A model whose check has another name: explain reports the model's name.
sed 's/as Atomicity$/as No-Lost-Update/' "$src/models/ptx.cat" > "$dir/renamed.cat"
ex=$("$bin" explain --model "$dir/renamed.cat" "$test" --outcome "x=1") || fail "explain, renamed axiom"
grep -q "^Forbidden by:.*No-Lost-Update" <<<"$ex" || fail "explain must use the model's axiom names: $ex"
"$bin" run --engine op --model "$dir/no-atomicity.cat" "$test" >/dev/null 2>&1; [ $? -eq 2 ] \
  || fail "the operational machine reads no model: --engine op with a model file must be a usage error"

models=$("$bin" models) || fail "redscope models failed"
grep -q '^ptx  .*models/ptx.cat' <<<"$models" || fail "models: no ptx: $models"
grep -q '^ptx-sm6x .*variant "sm6x"' <<<"$models" || fail "models: no ptx-sm6x: $models"

printf '"broken"\nacyclic po | nosuch as X\n' > "$dir/bad.cat"
for cmd in "run" "run --engine enum" "atomicity" "xval"; do
  "$bin" $cmd --model "$dir/bad.cat" "$test" >/dev/null 2>"$dir/err"; rc=$?
  [ $rc -eq 2 ] || fail "$cmd: a bad model must be a usage error (2), not $rc"
  grep -q "bad.cat:2:" "$dir/err" || fail "$cmd: bad model: no located error: $(cat "$dir/err")"
done
"$bin" run --model nosuch "$test" >/dev/null 2>&1; [ $? -eq 2 ] || fail "an unknown model name must be a usage error"
echo "user model without Atomicity loses an update; bad model located"
