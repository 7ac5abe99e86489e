#!/usr/bin/env bash
# The JSON report must be byte-identical (timings aside) for -j 1 and -j 2.
set -euo pipefail
bin=$1; shift
paths=()
for p in "$@"; do [ -e "$p" ] && paths+=("$p"); done
[ ${#paths[@]} -gt 0 ] || { echo "SKIP: no litmus folders"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$bin" run --format json -j 1 "${paths[@]}" 2>/dev/null | grep -v '"seconds"' > "$tmp/j1" || true
"$bin" run --format json -j 2 "${paths[@]}" 2>/dev/null | grep -v '"seconds"' > "$tmp/j2" || true
n=$(grep -c '"test"' "$tmp/j1")
[ "$n" -gt 0 ] || { echo "no tests in the report"; exit 1; }
diff -u "$tmp/j1" "$tmp/j2"
echo "identical JSON for -j 1 and -j 2 over $n tests"
