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
[ $((n1 + n2 + n3)) -eq 86 ] || fail "shards hold $n1+$n2+$n3 tests, not 86"
[ "$n1" -eq 29 ] && [ "$n2" -eq 29 ] && [ "$n3" -eq 28 ] || fail "round-robin shards are unbalanced: $n1 $n2 $n3"
"$bin" merge "$dir/s3.json" "$dir/s1.json" "$dir/s2.json" > "$dir/merged.json" 2> "$dir/merge.err" || fail "merge exit status"
grep -q "merged 86 tests from 3 files; 0 could not be checked" "$dir/merge.err" || fail "merge summary: $(cat "$dir/merge.err")"
diff <(grep -v '"seconds":' "$dir/all.json") <(grep -v '"seconds":' "$dir/merged.json") > "$dir/diff.txt" || fail "merged JSON differs from the unsharded run: $(head "$dir/diff.txt")"
"$bin" merge "$dir/s1.json" "$dir/s1.json" > /dev/null 2> "$dir/dup.err"; [ $? -eq 1 ] || fail "overlapping shards must fail"
grep -q "overlapping shards" "$dir/dup.err" || fail "overlap message"
printf '[{"file": "a"' > "$dir/bad.json"
"$bin" merge "$dir/bad.json" > /dev/null 2> "$dir/bad.err"; [ $? -eq 1 ] || fail "malformed JSON must fail"
grep -q "bad.json:1:14: error: expected '}'" "$dir/bad.err" || fail "malformed JSON diagnostic: $(cat "$dir/bad.err")"
"$bin" run "$litmus/classic" --shard 4/3 > /dev/null 2>&1; [ $? -eq 2 ] || fail "--shard 4/3 must be a usage error"
echo "shard: all checks passed"
