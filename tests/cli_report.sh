#!/usr/bin/env bash
# `redscope report --html`: the report of litmus/classic opens in headless
# Chromium with the summary table filled — one row per test (82), verdicts
# next to the expected ones from expected.csv, the machine column, and a link
# to each test's page, whose outcome table and explanation are there too.
set -uo pipefail
bin=$1; litmus=$2; dir=$3/cli_report
rm -rf "$dir"; mkdir -p "$dir"
fail() { echo "FAIL: $*"; exit 1; }
command -v chromium >/dev/null || fail "chromium is not installed (scripts/setup.sh installs it)"
out=$("$bin" report "$litmus/classic" --html "$dir/html" -j 2) || fail "report exit status $?: $out"
grep -q "82 tests, 0 errors, 0 verdicts differ" <<<"$out" || fail "report summary: $out"
browse() { chromium --headless --no-sandbox --disable-gpu --dump-dom "file://$1" 2>/dev/null; }
dom=$(browse "$dir/html/index.html")
[ -n "$dom" ] || fail "chromium rendered nothing"
rows=$(grep -o '<tr class="[a-z]*"><td><a href="tests/' <<<"$dom" | wc -l)
[ "$rows" -eq 82 ] || fail "summary table has $rows test rows, not 82"
grep -q 'id="summary">82 tests, 0 errors, 0 verdicts differ from the expected, 0 outcomes reached by the machine but forbidden' <<<"$dom" || fail "summary line"
grep -q '<a href="tests/MP+rel-acq-cta.html">MP+rel-acq-cta</a></td><td>ptx</td><td>No</td><td>No</td><td>3</td><td><span class="ok">agree</span>' <<<"$dom" \
  || fail "MP+rel-acq-cta row"
page=$(browse "$dir/html/tests/MP+rel-acq-cta.html")
grep -q 'id="outcomes"' <<<"$page" || fail "no outcome table on the test page"
grep -q 'Forbidden by: Causality' <<<"$page" || fail "no explanation on the test page"
grep -q '<img alt="Causality" src="../pictures/MP+rel-acq-cta-Causality' <<<"$page" || fail "no picture on the test page"
# One page per test even when names collide (issue 28): a/MP, b/MP and
# c/MP-2 get pages and pictures of their own, named by their relative path.
mkdir -p "$dir/same/a" "$dir/same/b" "$dir/same/c"
cp "$litmus/classic/MP.litmus" "$dir/same/a/MP.litmus"
cp "$litmus/classic/SB.litmus" "$dir/same/b/MP.litmus"
cp "$litmus/classic/LB.litmus" "$dir/same/c/MP-2.litmus"
"$bin" report "$dir/same" --html "$dir/same-html" >/dev/null || fail "same-name report exit $?"
[ "$(ls "$dir/same-html/tests" | wc -l)" -eq 3 ] || fail "three tests, $(ls "$dir/same-html/tests")"
grep -q 'Test SB' "$dir/same-html/tests/b__MP.html" || grep -q '>SB<\|PTX SB' "$dir/same-html/tests/b__MP.html" \
  || fail "b/MP's page holds another test"
"$bin" run --dot "$dir/same-dot" "$dir/same" >/dev/null || fail "run --dot exit $?"
[ "$(ls "$dir/same-dot" | grep -c '^b__MP-[0-9]*\.dot$')" -eq 4 ] || fail "b/MP's 4 pictures: $(ls "$dir/same-dot")"
[ "$(ls "$dir/same-dot" | grep -c '^a__MP-[0-9]*\.dot$')" -eq 3 ] || fail "a/MP's 3 pictures: $(ls "$dir/same-dot")"
# A machine that runs out of time is an error of the report, not "not run":
# IRIW with 7 readers observing x0 is instant for the model, not for the
# machine under --timeout 2.
mkdir -p "$dir/slow"
python3 - "$dir/slow/iriw7.litmus" <<'PY'
import sys
n, places = 7, [f"P{i}@cta {i},gpu 0" for i in range(9)]
code = [[f"st.relaxed.gpu x{i}, 1"] for i in range(2)]
code += [[f"ld.relaxed.gpu r0, x{r % 2}", f"ld.relaxed.gpu r1, x{(r + 1) % 2}"] for r in range(n)]
rows = [" | ".join(c[k] if k < len(c) else "" for c in code) for k in range(2)]
open(sys.argv[1], "w").write("PTX iriw7\n{ x0=0; x1=0; }\n " + " | ".join(places) + " ;\n"
                             + "".join(" " + r + " ;\n" for r in rows) + "exists (x0 == 1)\n")
PY
out=$("$bin" report --timeout 2 --no-pictures "$dir/slow" --html "$dir/slow-html"); rc=$?
[ $rc -eq 1 ] || fail "a machine timeout: exit $rc, expected 1"
grep -q "1 tests, 1 errors" <<<"$out" || fail "a machine timeout counts as an error: $out"
grep -q 'class=bad>error: timeout' "$dir/slow-html/index.html" || fail "the machine cell says timeout"
"$bin" report "$litmus/proxy" --no-pictures --html "$dir/proxy-html" | grep -q " 0 errors" \
  || fail "tests the machine does not model are not checked, not errors"
echo "report: all checks passed"
