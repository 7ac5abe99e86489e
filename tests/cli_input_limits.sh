#!/usr/bin/env bash
# Issue 28, input reading and the CLI surfaces: every file or stream the CLI
# reads goes through one bounded reader (a regular file, at most
# --max-file-size), flag values are checked, `merge` reads strict JSON with a
# nesting bound, a bad .test file or an over-long FILE#N address stays with
# its test. Each case must end within seconds, without a signal.
set -uo pipefail
bin=$(realpath "$1"); dir=$(realpath "$2")/cli_input_limits
rm -rf "$dir"; mkdir -p "$dir/folder" "$dir/tests" "$dir/long"
fail() { echo "FAIL: $*"; exit 1; }
# run EXPECTED_STATUS WANTED_STDERR_TEXT COMMAND...: within 20 s, that status,
# that text on stderr (a located error), never a signal (status > 128).
run() {
  local want=$1 text=$2; shift 2
  timeout 20 "$@" >"$dir/out" 2>"$dir/err" </dev/null; local rc=$?
  [ $rc -eq "$want" ] || fail "$*: exit $rc, expected $want: $(head -c 300 "$dir/err")"
  grep -qF -- "$text" "$dir/err" || fail "$*: no '$text' in: $(head -c 300 "$dir/err")"
}
good='.global x;\n\nd0.b0.t0 {\n  st.relaxed.gpu [x], $0;\n  ld.relaxed.gpu r0, [x];\n}\n\n'
good+='permit(r0 == $1) as r0;\n\n$$\n\n1 | 1\n2 | 2\n'
printf "$good" > "$dir/tests/good.test"

# --expect: a folder or a device is a bad command line (2), read by no one.
run 2 "folder: error: is a folder, not a expectation CSV file" \
  "$bin" run --expect "$dir/folder" "$dir/tests"
start=$(date +%s%N)
run 2 "/dev/zero: error: not a regular file" "$bin" run --expect /dev/zero "$dir/tests"
echo "--expect /dev/zero: $(( ($(date +%s%N) - start) / 1000000 )) ms"

# sass encode|decode: FILE a folder or device, or endless standard input.
run 2 "folder: error: is a folder" "$bin" sass encode "$dir/folder"
run 2 "/dev/zero: error: not a regular file" "$bin" sass encode /dev/zero
start=$(date +%s%N)
timeout 20 "$bin" sass decode </dev/zero >/dev/null 2>"$dir/err"; rc=$?
[ $rc -eq 2 ] || fail "sass decode < /dev/zero: exit $rc, expected 2"
grep -qF "<stdin>: error: standard input is over the 16777216-byte input limit" "$dir/err" ||
  fail "sass decode < /dev/zero: $(cat "$dir/err")"
echo "sass decode < /dev/zero: $(( ($(date +%s%N) - start) / 1000000 )) ms"
head -c 2000000 /dev/zero | tr '\0' '\n' > "$dir/big.txt"
run 2 "over the 1048576-byte input limit" "$bin" sass encode "$dir/big.txt" --max-file-size 1
run 2 "--max-file-size takes a whole number" "$bin" sass encode --max-file-size 99999999999999999999
echo EXIT > "$dir/exit.sass"
[ "$("$bin" sass encode "$dir/exit.sass")" = 0x8000000000001de7 ] || fail "sass encode FILE"

# merge: 100,000 nested arrays, invalid JSON, unreadable inputs: exit 2 (an
# input merge cannot use).
{ printf '[{"file": "a.litmus", "deep": '; head -c 100000 /dev/zero | tr '\0' '['; } > "$dir/deep.json"
start=$(date +%s%N)
run 2 "deep.json:1:285: error: arrays and objects nested deeper than 256" \
  "$bin" merge "$dir/deep.json"
echo "merge of 100,000 nested '[': $(( ($(date +%s%N) - start) / 1000000 )) ms"
head -c 100000 /dev/zero | tr '\0' '[' > "$dir/deep2.json"
run 2 "deep2.json:1:2: error: expected '{'" "$bin" merge "$dir/deep2.json"
printf '[{"file": "a\tb"}]' > "$dir/ctl.json"
run 2 "ctl.json:1:13: error: a raw control character" "$bin" merge "$dir/ctl.json"
printf '[\n {"file": "a\xff"}]' > "$dir/ff.json"
run 2 "ff.json:2:13: error: byte 0xff is not UTF-8" "$bin" merge "$dir/ff.json"
printf '[{"file": "\\uZZZZ"}]' > "$dir/esc.json"
run 2 "esc.json:1:14: error: \\u takes four hexadecimal digits" "$bin" merge "$dir/esc.json"
run 2 "folder: error: is a folder, not a JSON file" "$bin" merge "$dir/folder"
run 2 "/dev/zero: error: not a regular file" "$bin" merge /dev/zero
run 2 "missing.json: error: cannot read JSON file" "$bin" merge "$dir/missing.json"
# The smallest result `run --format json` writes (merge takes only these).
ok='[{"test": "a", "file": "a\u00e9.litmus", "model": "ptx", "engine": "enum",'
ok+=' "engine_reason": null, "condition": null, "observation": null, "outcomes": [],'
ok+=' "witnesses": [], "incomplete_paths": 0, "seconds": 0, "error": null, "error_kind": null}]'
printf '%s' "$ok" > "$dir/ok.json"
timeout 20 "$bin" merge - < "$dir/ok.json" > "$dir/merged.json" 2>/dev/null ||
  fail "merge - (stdin)"
python3 -c "import json,sys; assert json.load(open(sys.argv[1]))[0]['file'] == 'a\u00e9.litmus'" \
  "$dir/merged.json" || fail "merge of valid JSON"

# report --html "" and --dot "" name no folder: bad command line, nothing written.
cd "$dir/folder" || fail "cd"
run 2 "--html needs a folder name" "$bin" report --html "" "$dir/tests"
cd - >/dev/null || fail "cd -"
[ -z "$(ls -A "$dir/folder")" ] || fail "report --html \"\" wrote into the current folder"
run 2 "--dot needs a folder name" "$bin" run --dot "" "$dir/tests"
run 2 "--html $dir/exit.sass: exists and is not a folder" \
  "$bin" report --html "$dir/exit.sass" "$dir/tests"

# Numbers of flags: checked, never an abort.
for flag in --timeout --max-memory --max-file-size -j --unroll --max-outcomes; do
  run 2 "$flag takes a whole number" "$bin" run "$flag" 99999999999999999999 "$dir/tests"
  run 2 "$flag takes a whole number" "$bin" run "$flag" -1x "$dir/tests"
done
run 2 "--shard n takes a whole number" "$bin" run --shard 1/99999999999999999999 "$dir/tests"
run 2 "--shard i takes a whole number" "$bin" run --shard x/2 "$dir/tests"
run 2 "--max-file-size takes a whole number" "$bin" merge --max-file-size 0 "$dir/ok.json"

# One bad .test file (a 23-digit number in a row) does not stop the run:
# the good tests run, the JSON stays valid, the bad file is its own error.
printf "$good" | sed 's/^1 | 1$/99999999999999999999999 | 1/' > "$dir/tests/bad.test"
timeout 60 "$bin" run --format json "$dir/tests" > "$dir/run.json" 2>"$dir/err"; rc=$?
[ $rc -eq 1 ] || fail "a bad .test in a folder: exit $rc, expected 1: $(head -c 300 "$dir/err")"
python3 - "$dir/run.json" <<'PY' || fail "a bad .test in a folder: JSON"
import json, sys
d = json.load(open(sys.argv[1]))
files = sorted(t["file"].rsplit("/", 1)[1] for t in d)
assert files == ["bad.test", "good.test#1", "good.test#2"], files
assert [t["error"] is not None for t in d] == [True, False, False], d
PY
rm "$dir/tests/bad.test"

# A FILE#N address past NAME_MAX (a 255-byte file name plus #1): the run,
# --expect and the claims summary keep their result and exit status.
name=$(head -c 250 /dev/zero | tr '\0' a)
printf "$good" > "$dir/long/$name.test"
printf '%s.test#1,1\n' "$name" > "$dir/long/exp.csv"
timeout 60 "$bin" run "$dir/long" > "$dir/out" 2>"$dir/err"; rc=$?
[ $rc -eq 0 ] || fail "a FILE#N address past NAME_MAX: exit $rc: $(tail -c 300 "$dir/err")"
grep -q "^2 passed, 0 failed, 0 errors$" "$dir/out" || fail "NAME_MAX: no summary"
timeout 60 "$bin" run --expect "$dir/long/exp.csv" "$dir/long" > "$dir/out" 2>"$dir/err"; rc=$?
[ $rc -eq 0 ] || fail "--expect with a FILE#N past NAME_MAX: exit $rc: $(tail -c 300 "$dir/err")"
grep -q "^2 passed, 0 failed, 0 errors$" "$dir/out" || fail "NAME_MAX --expect: no summary"
echo "input limits and CLI surfaces hold"
