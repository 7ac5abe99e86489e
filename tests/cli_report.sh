#!/usr/bin/env bash
# `redscope report --html`: the report of litmus/classic opens in headless
# Chromium with the summary table filled — one row per test (68), verdicts
# next to the expected ones from expected.csv, the machine column, and a link
# to each test's page, whose outcome table and explanation are there too.
set -uo pipefail
bin=$1; litmus=$2; dir=$3/cli_report
rm -rf "$dir"; mkdir -p "$dir"
fail() { echo "FAIL: $*"; exit 1; }
command -v chromium >/dev/null || fail "chromium is not installed (scripts/setup.sh installs it)"
out=$("$bin" report "$litmus/classic" --html "$dir/html" -j 2) || fail "report exit status $?: $out"
grep -q "68 tests, 0 errors, 0 verdicts differ" <<<"$out" || fail "report summary: $out"
browse() { chromium --headless --no-sandbox --disable-gpu --dump-dom "file://$1" 2>/dev/null; }
dom=$(browse "$dir/html/index.html")
[ -n "$dom" ] || fail "chromium rendered nothing"
rows=$(grep -o '<tr class="[a-z]*"><td><a href="tests/' <<<"$dom" | wc -l)
[ "$rows" -eq 68 ] || fail "summary table has $rows test rows, not 68"
grep -q 'id="summary">68 tests, 0 errors, 0 verdicts differ from the expected, 0 outcomes reached by the machine but forbidden' <<<"$dom" || fail "summary line"
grep -q '<a href="tests/MP+rel-acq-cta.html">MP+rel-acq-cta</a></td><td>ptx</td><td>No</td><td>No</td><td>3</td><td><span class="ok">agree</span>' <<<"$dom" \
  || fail "MP+rel-acq-cta row"
page=$(browse "$dir/html/tests/MP+rel-acq-cta.html")
grep -q 'id="outcomes"' <<<"$page" || fail "no outcome table on the test page"
grep -q 'Forbidden by: Causality' <<<"$page" || fail "no explanation on the test page"
grep -q '<img alt="Causality" src="../pictures/MP+rel-acq-cta-Causality' <<<"$page" || fail "no picture on the test page"
echo "report: all checks passed"
