#!/usr/bin/env bash
# `redscope report --matrix ROWS COLS`: a folder of six hand-written tests
# that carry Matrix= and Cell= (two .red scopes x three placements) read as
# a table in every format, from the tests and from the JSON of `run` and
# `atomicity` (which carry the tests' "metadata"); the errors a user meets
# (unknown axis, two tests in one cell, a test without Cell=, bad JSON) are
# clear messages with their exit status; the HTML index opens in headless
# Chromium with each cell linking to its test's page.
set -uo pipefail
bin=$1; dir=$2/cli_matrix
rm -rf "$dir"; mkdir -p "$dir/red"
fail() { echo "FAIL: $*"; exit 1; }
cell() {  # cell FOLDER SCOPE PLACEMENT [NAME]: one test of the matrix `red`
  local a="P0@cta 0,gpu 0" b
  case $3 in
    same-cta) b="P1@cta 0,gpu 0" ;;
    two-ctas) b="P1@cta 1,gpu 0" ;;
    two-gpus) b="P1@cta 0,gpu 1" ;;
  esac
  cat >"$1/${4:-red+$2+$3}.litmus" <<EOF
PTX ${4:-red+$2+$3}
Matrix=red
Cell=scope=$2,placement=$3
{
global u32 x = 0;
}
 $a | $b ;
 red.relaxed.$2.global.add.u32 [x], 1 | red.relaxed.$2.global.add.u32 [x], 1 ;
exists (x == 1)
EOF
}
for s in cta gpu; do for p in same-cta two-ctas two-gpus; do cell "$dir/red" $s $p; done; done

# Contract 4: run's and atomicity's JSON carry each test's metadata.
"$bin" run --format json "$dir/red" >"$dir/run.json" || fail "run --format json exit $?"
"$bin" run --format jsonl "$dir/red" >"$dir/run.jsonl" || fail "run --format jsonl exit $?"
"$bin" atomicity --format json "$dir/red" >"$dir/atom.json" || fail "atomicity --format json"
grep -q '"metadata": {"Cell": "scope=cta,placement=two-ctas", "Matrix": "red"}' "$dir/run.jsonl" \
  || fail "run --format jsonl has no metadata object"
grep -A3 '"metadata": {' "$dir/atom.json" | grep -q '"Cell": "scope=gpu,placement=two-gpus"' \
  || fail "atomicity --format json has no metadata object"

# CSV: one row per test (axes, verdict, test), in the axes' order.
cond=$'scope,placement,verdict,test\ncta,same-cta,forbidden,red+cta+same-cta\ncta,two-ctas,allowed,red+cta+two-ctas\ncta,two-gpus,allowed,red+cta+two-gpus\ngpu,same-cta,forbidden,red+gpu+same-cta\ngpu,two-ctas,forbidden,red+gpu+two-ctas\ngpu,two-gpus,allowed,red+gpu+two-gpus'
atom=$'scope,placement,verdict,test\ncta,same-cta,safe,red+cta+same-cta\ncta,two-ctas,lost,red+cta+two-ctas\ncta,two-gpus,lost,red+cta+two-gpus\ngpu,same-cta,safe,red+gpu+same-cta\ngpu,two-ctas,safe,red+gpu+two-ctas\ngpu,two-gpus,lost,red+gpu+two-gpus'
out=$("$bin" report --matrix scope placement --format csv "$dir/red") || fail "csv exit $?"
[ "$out" = "$cond" ] || fail "condition CSV:"$'\n'"$out"
out=$("$bin" report --matrix scope placement --verdict atomicity --format csv -j 1 "$dir/red") \
  || fail "atomicity csv exit $?"
[ "$out" = "$atom" ] || fail "atomicity CSV:"$'\n'"$out"
# The same tables from result files: the kind of result says the verdict.
for f in run.json run.jsonl; do
  out=$("$bin" report --matrix scope placement --format csv "$dir/$f") || fail "$f exit $?"
  [ "$out" = "$cond" ] || fail "CSV from $f:"$'\n'"$out"
done
out=$("$bin" report --matrix placement scope --format csv "$dir/atom.json") || fail "atom.json"
[ "$out" = "$atom" ] || fail "CSV from atomicity's JSON:"$'\n'"$out"

# Text: the column axis's labels over the rows, a legend and the counts;
# two column axes are two header rows; an axis in neither splits the table.
out=$("$bin" report --matrix scope placement "$dir/red") || fail "text exit $?"
grep -q '^placement  same-cta   two-ctas   two-gpus$' <<<"$out" || fail "text header: $out"
grep -q '^gpu        forbidden  forbidden  allowed$' <<<"$out" || fail "text row: $out"
grep -q '^6 tests: 3 allowed, 3 forbidden, 0 error$' <<<"$out" || fail "text counts: $out"
out=$("$bin" report --matrix '' scope,placement --verdict atomicity "$dir/red") || fail "2 cols"
grep -q '^scope      cta                           gpu$' <<<"$out" || fail "spanning header: $out"
grep -q '^           safe      lost      lost      safe      safe      lost$' <<<"$out" \
  || fail "one row of six cells: $out"
out=$("$bin" report --matrix placement '' "$dir/red") || fail "sections exit $?"
[ "$(grep -c '^scope=\(cta\|gpu\):$' <<<"$out")" -eq 2 ] || fail "a section per scope: $out"

# JSON and SVG: valid, and the same whatever -j is.
"$bin" report --matrix scope placement --format json "$dir/red" -j 1 >"$dir/m1.json" || fail json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["counts"]=={"allowed":3,"forbidden":3,"error":0}, d["counts"]; assert len(d["cells"])==6' \
  "$dir/m1.json" || fail "matrix JSON"
"$bin" report --matrix scope placement --format svg "$dir/red" -j 1 >"$dir/m1.svg" || fail svg
"$bin" report --matrix scope placement --format svg "$dir/red" -j 2 >"$dir/m2.svg" || fail svg
cmp -s "$dir/m1.svg" "$dir/m2.svg" || fail "the SVG depends on -j"
python3 -c 'import sys,xml.etree.ElementTree as E; r=E.parse(sys.argv[1]).getroot(); assert r.tag.endswith("svg"); assert len(r.findall("{http://www.w3.org/2000/svg}rect")) >= 10' \
  "$dir/m1.svg" || fail "the SVG is not a picture of the table"

# Errors: each a message naming what is wrong, with its exit status.
expect_fail() {  # expect_fail STATUS PATTERN ARGS...
  local want=$1 pat=$2; shift 2
  err=$("$bin" "$@" 2>&1 >/dev/null); rc=$?
  [ $rc -eq "$want" ] || fail "$*: exit $rc, expected $want ($err)"
  grep -q -- "$pat" <<<"$err" || fail "$*: message '$err' lacks '$pat'"
}
expect_fail 2 "unknown axis 'scop' (the axes of red are scope,placement)" \
  report --matrix scop placement "$dir/red"
expect_fail 2 "axis 'scope' is named twice" report --matrix scope scope "$dir/red"
expect_fail 2 "needs --html DIR" report --matrix scope placement --format html "$dir/red"
expect_fail 2 "--format is text, csv, json, svg or html" report --matrix a b --format pdf "$dir/red"
expect_fail 2 "--verdict is condition or atomicity" report --matrix a b --verdict x "$dir/red"
expect_fail 2 "judged by the condition, not the atomicity" \
  report --matrix scope placement --verdict atomicity "$dir/run.json"
mkdir -p "$dir/dup" "$dir/plain"
cell "$dir/dup" cta same-cta; cell "$dir/dup" cta same-cta other
expect_fail 1 "two tests in one cell (scope=cta,placement=same-cta): .*other.litmus and .*red+cta+same-cta.litmus" \
  report --matrix scope placement "$dir/dup"
cp "$dir/red/red+cta+two-ctas.litmus" "$dir/plain/"
sed '/^Cell=/d' "$dir/red/red+gpu+two-ctas.litmus" >"$dir/plain/nocell.litmus"
expect_fail 1 "nocell.litmus (red+gpu+two-ctas): the test has no Cell= metadata line" \
  report --matrix scope placement "$dir/plain"
out=$("$bin" report --matrix scope placement "$dir/plain" 2>/dev/null)
grep -q '^1 tests: 1 allowed, 0 forbidden, 0 error$' <<<"$out" || fail "the placed test stays: $out"
sed 's/"Matrix": "red"/"Matrix": "red",/' "$dir/run.jsonl" >"$dir/bad.jsonl"
expect_fail 1 'bad.jsonl:1:[0-9]*: error: expected a member name' \
  report --matrix scope placement "$dir/bad.jsonl"
echo '[{"test": "x"}]' >"$dir/other.json"
expect_fail 1 'other.json:1:2: error: not a result of `redscope run' \
  report --matrix scope placement "$dir/other.json"
expect_fail 1 "no test with a Cell= line: no table" report --matrix scope placement "$dir/plain/nocell.litmus"

# HTML: the index's cells link to the tests' pages (the report's own).
command -v chromium >/dev/null || fail "chromium is not installed (scripts/setup.sh installs it)"
out=$("$bin" report --matrix scope placement --verdict atomicity --no-pictures --html \
  "$dir/html" "$dir/red") || fail "html exit $?: $out"
grep -q "6 tests, 0 could not be checked" <<<"$out" || fail "html summary: $out"
browse() { chromium --headless --no-sandbox --disable-gpu --dump-dom "file://$1" 2>/dev/null; }
dom=$(browse "$dir/html/index.html")
[ "$(grep -o '<td class="v [a-z]*" title="[^"]*"><a href="tests/' <<<"$dom" | wc -l)" -eq 6 ] \
  || fail "six linked cells: $dom"
grep -q '<td class="v lost" title="red+cta+two-ctas"><a href="tests/red+cta+two-ctas.html">lost' \
  <<<"$dom" || fail "the lost cell"
page=$(browse "$dir/html/tests/red+cta+two-ctas.html")
grep -q 'id="outcomes"' <<<"$page" || fail "no outcome table on the test page"
grep -q "Atomicity (the matrix's verdict)" <<<"$page" || fail "no atomicity on the test page"
grep -q 'lost update: POSSIBLE' <<<"$page" || fail "no lost update on the test page"
echo "matrix: all checks passed"
