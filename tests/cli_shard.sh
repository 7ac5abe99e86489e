#!/usr/bin/env bash
# --shard i/n splits a suite deterministically and `redscope merge` joins
# the shards' JSON into the unsharded run's JSON (same tests, same order,
# same results; only the timings differ); overlapping shards and malformed
# JSON are errors with file:line:col.
set -uo pipefail
bin=$1; litmus=$2; dir=$3/cli_shard
rm -rf "$dir"; mkdir -p "$dir"
fail() { echo "FAIL: $*"; exit 1; }
"$bin" run "$litmus/classic" "$litmus/red" --format json -j 2 > "$dir/all.json" || fail "unsharded run"
for i in 1 2 3; do
  "$bin" run "$litmus/classic" "$litmus/red" --format json -j 2 --shard $i/3 > "$dir/s$i.json" || fail "shard $i"
done
n1=$(grep -c '"test":' "$dir/s1.json"); n2=$(grep -c '"test":' "$dir/s2.json"); n3=$(grep -c '"test":' "$dir/s3.json")
[ $((n1 + n2 + n3)) -eq 98 ] || fail "shards hold $n1+$n2+$n3 tests, not 98"
[ "$n1" -eq 33 ] && [ "$n2" -eq 33 ] && [ "$n3" -eq 32 ] || fail "round-robin shards are unbalanced: $n1 $n2 $n3"
"$bin" merge "$dir/s3.json" "$dir/s1.json" "$dir/s2.json" > "$dir/merged.json" 2> "$dir/merge.err" || fail "merge exit status"
grep -q "merged 98 tests from 3 files; 0 could not be checked" "$dir/merge.err" || fail "merge summary: $(cat "$dir/merge.err")"
diff <(grep -v '"seconds":' "$dir/all.json") <(grep -v '"seconds":' "$dir/merged.json") > "$dir/diff.txt" || fail "merged JSON differs from the unsharded run: $(head "$dir/diff.txt")"
# An input merge cannot use is exit 2 with nothing on stdout (exit 1 is kept
# for a valid merge in which a test could not be checked).
"$bin" merge "$dir/s1.json" "$dir/s1.json" > "$dir/dup.out" 2> "$dir/dup.err"; [ $? -eq 2 ] || fail "overlapping shards must fail"
grep -q "s1.json:2:3: error: .* is also in .*s1.json: overlapping shards" "$dir/dup.err" || fail "overlap message: $(cat "$dir/dup.err")"
[ ! -s "$dir/dup.out" ] || fail "a refused merge printed JSON"
printf '[{"file": "a"' > "$dir/bad.json"
"$bin" merge "$dir/bad.json" > /dev/null 2> "$dir/bad.err"; [ $? -eq 2 ] || fail "malformed JSON must fail"
grep -q "bad.json:1:14: error: expected '}'" "$dir/bad.err" || fail "malformed JSON diagnostic: $(cat "$dir/bad.err")"
"$bin" run "$litmus/classic" --shard 4/3 > /dev/null 2>&1; [ $? -eq 2 ] || fail "--shard 4/3 must be a usage error"

# Issue 43 item 10: the JSON of xval, atomicity and report --matrix (objects
# with "file" too) is refused, located and named, as JSON and JSON Lines.
mp=$litmus/classic/MP.litmus
"$bin" xval --format json "$mp" > "$dir/xval.json" 2> /dev/null || fail "xval"
"$bin" atomicity --format json "$mp" > "$dir/atom.json" 2> /dev/null || fail "atomicity"
"$bin" report --from "$litmus/matrix/mp-scopes.toml" --format json > "$dir/matrix.json" 2> /dev/null ||
  fail "report --matrix"
lines() {  # JSON -> JSON Lines: each element of the array (or the object) on one line
  python3 -c 'import json, sys
v = json.load(open(sys.argv[1]))
for o in v if isinstance(v, list) else [v]: print(json.dumps(o))' "$1"
}
refused() {  # FILE WHAT: merge exits 2 naming WHAT at FILE's first object, prints nothing
  "$bin" merge "$1" > "$dir/r.out" 2> "$dir/r.err"; local rc=$?
  [ $rc -eq 2 ] || fail "merge $1: exit $rc, expected 2: $(cat "$dir/r.err")"
  grep -qF "$(basename "$1"):$3: error: this is not a result of \`redscope run\` (it is $2" "$dir/r.err" ||
    fail "merge $1: $(cat "$dir/r.err")"
  [ ! -s "$dir/r.out" ] || fail "merge $1 printed JSON"
}
for k in xval atom matrix; do lines "$dir/$k.json" > "$dir/$k.jsonl"; done
refused "$dir/xval.json" "an xval result, from \`redscope xval --format json\`" 2:3
refused "$dir/xval.jsonl" "an xval result" 1:1
refused "$dir/atom.json" "an atomicity result, from \`redscope atomicity --format json\`" 2:3
refused "$dir/atom.jsonl" "an atomicity result" 1:1
refused "$dir/matrix.json" "a matrix, from \`redscope report --matrix ... --format json\`" 1:1
refused "$dir/matrix.jsonl" "a matrix" 1:1
python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1]))["cells"]))' \
  "$dir/matrix.json" > "$dir/cells.json"
refused "$dir/cells.json" "a matrix cell" 1:2

# Issue 43 item 11: more shards than tests. A shard without tests exits 0
# with an empty result ([] in JSON, nothing in JSON Lines); the merge of all
# shards is the unsharded run; paths without any test stay an error.
"$bin" run --format json "$mp" "$litmus/classic/SB.litmus" > "$dir/two.json" || fail "two tests"
for i in 1 2 3 4 5; do
  "$bin" run --format json --shard $i/5 "$mp" "$litmus/classic/SB.litmus" > "$dir/e$i.json" \
    2> "$dir/e$i.err" || fail "shard $i/5 of 2 tests: exit $?: $(cat "$dir/e$i.err")"
done
[ "$(cat "$dir/e3.json")" = "[]" ] || fail "an empty shard in JSON: $(cat "$dir/e3.json")"
grep -q "shard 3/5 holds none of the 2 test files" "$dir/e3.err" || fail "empty shard note: $(cat "$dir/e3.err")"
"$bin" run --format jsonl --shard 5/5 "$mp" > "$dir/e.jsonl" 2> /dev/null || fail "empty JSON Lines shard: exit $?"
[ ! -s "$dir/e.jsonl" ] || fail "an empty shard in JSON Lines: $(cat "$dir/e.jsonl")"
"$bin" run --shard 2/3 -q "$mp" > "$dir/e.txt" 2> "$dir/e.txt.err" || fail "empty text shard: exit $?"
[ ! -s "$dir/e.txt" ] && [ ! -s "$dir/e.txt.err" ] || fail "an empty shard with -q printed something"
"$bin" merge "$dir"/e[1-5].json "$dir/e.jsonl" > "$dir/e-merged.json" 2> /dev/null || fail "merge of empty shards"
diff <(grep -v '"seconds":' "$dir/two.json") <(grep -v '"seconds":' "$dir/e-merged.json") > /dev/null ||
  fail "merged empty shards differ from the unsharded run"
mkdir -p "$dir/none"
"$bin" run --shard 2/3 "$dir/none" > /dev/null 2>&1; [ $? -eq 1 ] || fail "a shard of paths without tests must exit 1"
# A missing PATH is shard 1's error result alone: the shards still merge.
for i in 1 2; do "$bin" run --format jsonl --shard $i/2 "$mp" "$dir/nosuch" > "$dir/m$i.jsonl" 2> /dev/null; done
"$bin" merge "$dir/m1.jsonl" "$dir/m2.jsonl" > /dev/null 2> "$dir/m.err"; [ $? -eq 1 ] ||
  fail "shards with a missing path: $(cat "$dir/m.err")"
grep -q "merged 2 tests from 2 files; 1 could not be checked" "$dir/m.err" || fail "$(cat "$dir/m.err")"
echo "shard: all checks passed"
