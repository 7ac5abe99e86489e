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
# Hostile models (issue 28): each a located error (exit 2) or a bounded
# answer, never a crash, a hang or a wrong verdict. `timeout` turns a hang
# into a failure.
mp=$src/litmus/classic/MP.litmus
expect_error() {  # expect_error WHAT PATTERN ARGS...: exit 2, PATTERN on stderr
  local what=$1 pattern=$2; shift 2
  timeout 60 "$bin" "$@" >/dev/null 2>"$dir/err"; local rc=$?
  [ $rc -eq 2 ] || fail "$what: expected a usage error (2), got $rc: $(head -c 300 "$dir/err")"
  grep -q -- "$pattern" "$dir/err" || fail "$what: expected '$pattern', got: $(head -c 300 "$dir/err")"
}
# A folder is no model: it read as an empty one and MP's forbidden outcome
# came out allowed ("Ok").
mkdir -p "$dir/folder.cat"
expect_error "--model DIR" "folder.cat: error: is a folder, not a cat model" run --model "$dir/folder.cat" "$mp"
printf '"inc"\ninclude "folder.cat"\nacyclic po\n' > "$dir/inc-dir.cat"
expect_error "include DIR" 'inc-dir.cat:2:9: error: cannot read included file "folder.cat": is a folder' \
  run --model "$dir/inc-dir.cat" "$mp"
expect_error "--model /dev/zero" "/dev/zero: error: not a regular file" run --model /dev/zero "$mp"
# The size limit holds wherever --max-file-size stands.
head -c 1100000 /dev/zero | tr '\0' ' ' > "$dir/big.cat"
expect_error "--max-file-size after --model" "over the 1048576-byte input limit" \
  run --model "$dir/big.cat" --max-file-size 1 "$mp"
# 200,000 `|` are one flat union (it overflowed the stack); 200,000 `^-1`
# or `~` nest past the bound: a located error.
python3 - "$dir" <<'PY'
import sys
d = sys.argv[1]
open(d + "/bar.cat", "w").write('"bar"\nacyclic po' + " | po" * 200000 + "\n")
open(d + "/inv.cat", "w").write('"inv"\nacyclic po' + "^-1" * 200000 + "\n")
open(d + "/tilde.cat", "w").write('"tilde"\nempty ' + "~" * 200000 + "W\n")
for i in range(1, 41):  # each file includes the next twice: 2^39 reads if not deduplicated
    nxt = 'include "f%d.cat"\n' % (i + 1)
    open(d + "/f%d.cat" % i, "w").write('"f"\n' + (nxt * 2 if i < 40 else "let x = co\n"))
open(d + "/chain.cat", "w").write('"chain"\ninclude "f1.cat"\nacyclic po | x\n')
PY
for engine in auto z3 enum; do
  out=$(timeout 60 "$bin" run --engine $engine --model "$dir/bar.cat" --format jsonl "$mp") \
    || fail "$engine: a 200,000-operand union must be checked"
  grep -q '"holds": true' <<<"$out" || fail "$engine: acyclic po allows MP's outcome: $out"
done
expect_error "200,000 ^-1" "inv.cat:2:608: error: expression nested deeper than 200" run --model "$dir/inv.cat" "$mp"
expect_error "200,000 ~" "tilde.cat:2:208: error: expression nested deeper than 200" run --model "$dir/tilde.cat" "$mp"
timeout 20 "$bin" run -q --model "$dir/chain.cat" "$mp" || fail "40 files each including the next twice: $?"
# let rec r = ~r has no least fixed point: it iterated forever under enum and auto.
printf '"rec"\nlet rec r = po | ~r\nacyclic r\n' > "$dir/rec.cat"
for engine in auto enum; do
  expect_error "$engine: non-monotone let rec" "rec.cat:2:19: error: 'r' is defined by this 'let rec'" \
    run --engine $engine --model "$dir/rec.cat" "$mp"
done
# A model written when morally strong was a primitive reads `ms` unbound: a
# located error that says where its definition now is.
printf '"old"\nacyclic (rf & ms) | po as Old\n' >"$dir/old-ms.cat"
expect_error "ms unbound" "old-ms.cat:2:15: error: unknown name 'ms' (morally strong is defined in models/ptx.cat" \
  run --model "$dir/old-ms.cat" "$mp"
echo "user model without Atomicity loses an update; bad model located"
