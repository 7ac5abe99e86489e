#!/usr/bin/env bash
# Every file of tests/invalid is rejected with the located error that
# expected-errors.csv names (file,line:col,text; '~' stands for a comma), and
# the run exits 1.
set -uo pipefail
bin=$1; dir=$2
fail() { echo "FAIL: $*"; exit 1; }
n=0
while IFS=, read -r file at text; do
  case "$file" in ''|'#'*) continue ;; esac
  want="$dir/$file:$at: error: ${text//\~/,}"
  err=$("$bin" run "$dir/$file" 2>&1 >/dev/null); rc=$?
  [ $rc -eq 1 ] || fail "$file: exit status $rc, expected 1"
  grep -qF -- "$want" <<<"$err" || fail "$file: expected '$want', got: $err"
  n=$((n + 1))
done < "$dir/expected-errors.csv"
files=$(ls "$dir"/*.litmus | wc -l)
[ "$n" -eq "$files" ] || fail "$files files but $n rows in expected-errors.csv"
echo "$n invalid inputs rejected as expected"
