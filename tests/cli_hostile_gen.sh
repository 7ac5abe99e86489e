#!/usr/bin/env bash
# Issue 43 ("hostile input, round 4"): the generators, the matrix report, JSON
# Lines cut by a signal and ptxas-check, each case a bug the audit found:
#  1. gen cycle --out D writes through a link D/MP.litmus (list and --size);
#     the HTML report and --dot pictures neither;
#  2. gen matrix labels holding '+' give two cells one file name;
#  3. report --matrix --html NEW over result files only: NEW never created;
#  4. run --format jsonl cut by SIGTERM/SIGINT leaves an invalid last line;
#  7. gen cycle's list mode keeps identical programs (MP, MP-v2, MP-v3);
#  9. report --matrix svg/html writes a result file's control characters raw;
# 14. ptxas-check's probes wait 20 s whatever --timeout; a hanging wrapper's
#     children survive it;
# 15. gen cycle --size and gen matrix have no budget (--max-tests, --timeout).
set -uo pipefail
bin=$1; src=$2; dir=$3/cli_hostile_gen
rm -rf "$dir"; mkdir -p "$dir"
fail() { echo "FAIL: $*"; exit 1; }
ms() { echo $(($(date +%s%N) / 1000000)); }

# 1. Links are replaced, never written through.
echo precious > "$dir/elsewhere"
mkdir -p "$dir/c1" "$dir/c1s"
ln -s "$dir/elsewhere" "$dir/c1/MP.litmus"
ln -s "$dir/elsewhere" "$dir/c1s/MP.litmus"
"$bin" gen cycle -q --out "$dir/c1" "PodWW Rfe PodRR Fre" || fail "1: gen cycle --out"
"$bin" gen cycle -q --size 4 --out "$dir/c1s" || fail "1: gen cycle --size 4"
[[ $(cat "$dir/elsewhere") == precious ]] || fail "1: gen cycle wrote through the link"
for d in c1 c1s; do
  [[ -f "$dir/$d/MP.litmus" && ! -L "$dir/$d/MP.litmus" ]] || fail "1: $d/MP.litmus not replaced"
  grep -q '^PTX MP$' "$dir/$d/MP.litmus" || fail "1: $d/MP.litmus is not MP"
done
ls -A "$dir/c1s" | grep -q '^\.gen-cycle' && fail "1: a staging folder was left in $dir/c1s"
mkdir -p "$dir/rep/tests" "$dir/dot"
ln -s "$dir/elsewhere" "$dir/rep/index.html"
ln -s "$dir/elsewhere" "$dir/rep/tests/MP.html"
ln -s "$dir/elsewhere" "$dir/dot/MP-1.dot"
"$bin" report -q "$src/litmus/classic/MP.litmus" --html "$dir/rep" > /dev/null ||
  fail "1: report --html"
"$bin" run -q --engine z3 --dot "$dir/dot" "$src/litmus/classic/MP.litmus" > /dev/null ||
  fail "1: run --dot"
[[ $(cat "$dir/elsewhere") == precious ]] || fail "1: report or --dot wrote through a link"
[[ ! -L "$dir/rep/index.html" && ! -L "$dir/rep/tests/MP.html" && ! -L "$dir/dot/MP-1.dot" ]] ||
  fail "1: a report file is still a link"

# 2. Two cells of one name are an error in the spec, at the label; DIR unchanged.
cat > "$dir/plus.toml" <<'TOML'
name = "plus"
template = '''
PTX plus
"cell ${a} ${b}"
{
global u32 x = 0;
}
 P0                 ;
 st.weak.u32 [x], 1 ;
exists (x == 1)
'''
[[axis]]
name = "a"
labels = ["x+y", "x"]
[[axis]]
name = "b"
labels = ["z", "y+z"]
TOML
"$bin" gen matrix -q "$dir/plus.toml" --out "$dir/plus" > "$dir/out" 2> "$dir/err"
rc=$?
[[ $rc -eq 2 ]] || fail "2: gen matrix with colliding names exited $rc: $(cat "$dir/out" "$dir/err")"
grep -q 'plus.toml:[0-9]*:[0-9]*: error: cells a=x+y,b=z and a=x,b=y+z have one name, plus+x+y+z' \
  "$dir/err" || fail "2: the error: $(cat "$dir/err")"
[[ -z $(ls -A "$dir/plus" 2> /dev/null) ]] || fail "2: files written: $(ls -A "$dir/plus")"

# 3. report --matrix --html NEW over result files only creates NEW.
mkdir -p "$dir/m"
cat > "$dir/m/c1.litmus" <<'LIT'
PTX c1
Matrix=m
Cell=r=a,c=b
{
global u32 x = 0;
}
 P0                 ;
 st.weak.u32 [x], 1 ;
exists (x == 1)
LIT
"$bin" run -q --format json "$dir/m" > "$dir/m.json" || fail "3: run"
"$bin" report -q --matrix r c --html "$dir/new/deeper" "$dir/m.json" > "$dir/out" 2>&1 ||
  fail "3: report --matrix --html into a new folder: $(cat "$dir/out")"
[[ -s "$dir/new/deeper/index.html" ]] || fail "3: no index.html"

# 9. Control characters of a result file's metadata: valid XML, shown as \xNN.
python3 - "$dir/m.json" "$dir/ctl.json" <<'PY' || fail "9: could not write the hostile JSON"
import json, sys
r = json.load(open(sys.argv[1]))
r[0]["test"] = "c1\u0001\u001b[31m\ufffe"
r[0]["metadata"]["Matrix"] = "m\u0001\u0007\u007f"
json.dump(r, open(sys.argv[2], "w"))
PY
"$bin" report -q --matrix r c --format svg "$dir/ctl.json" > "$dir/ctl.svg" 2> "$dir/err" ||
  fail "9: report svg: $(cat "$dir/err")"
"$bin" report -q --matrix r c --html "$dir/ctlhtml" "$dir/ctl.json" > /dev/null 2> "$dir/err" ||
  fail "9: report html: $(cat "$dir/err")"
python3 - "$dir/ctl.svg" "$dir/ctlhtml/index.html" <<'PY' || fail "9: not well-formed"
import re, sys, xml.dom.minidom
svg = open(sys.argv[1], encoding="utf-8").read()
xml.dom.minidom.parseString(svg.encode())  # raises on a raw control character
for path in sys.argv[1:]:
    text = open(path, encoding="utf-8").read()
    bad = [c for c in text if (ord(c) < 0x20 and c not in "\t\n\r") or c in "\x7f\ufffe\uffff"]
    assert not bad, (path, bad)
assert "\\x01" in svg or "\\x1b" in svg, "the control characters are not shown"
PY

# 4. JSON Lines cut by a signal: every line is valid JSON. The output goes
# to a slow reader, so the line being written when the signal comes is held
# in the pipe: the signal arrives mid-line (before the fix: a cut line).
python3 - "$dir/big" <<'PY'
import os, sys
d = sys.argv[1]; os.makedirs(d)
readers = 5  # IRIW with 5 readers: 1024 outcomes, a line of about 600 KB
for k in range(4):
    cols = ["P0", "P1"] + [f"P{i + 2}" for i in range(readers)]
    rows = [["st.weak x, 1", "st.weak y, 1"] + ["ld.weak r0, x"] * readers,
            ["", ""] + ["ld.weak r1, y"] * readers]
    text = f"PTX big{k}\n{{\nx=0; y=0;\n}}\n"
    for row in [cols] + rows:
        text += " | ".join(row) + " ;\n"
    regs = [f"P{i + 2}:r{k} == {1 - k}" for i in range(readers) for k in range(2)]
    text += "exists (" + " /\\ ".join(regs) + ")\n"  # every register observed
    open(f"{d}/big{k}.litmus", "w").write(text)
PY
cat > "$dir/slow.py" <<'PY'
import sys, time
out = open(sys.argv[1], "wb")
while True:
    chunk = sys.stdin.buffer.read1(8192)
    if not chunk:
        break
    out.write(chunk)
    time.sleep(0.003)
PY
for sig in TERM INT; do
  for delay in 0.2 0.5; do
    rm -f "$dir/pid"
    (sh -c 'echo $$ > "$1"; exec "$2" run -q --engine enum --format jsonl "$3"' _ \
      "$dir/pid" "$bin" "$dir/big" 2> /dev/null | python3 "$dir/slow.py" "$dir/cut.jsonl") &
    pipeline=$!
    sleep "$delay"
    kill -s "$sig" "$(cat "$dir/pid")" 2> /dev/null
    wait "$pipeline"
    python3 - "$dir/cut.jsonl" <<'PY' || fail "4: SIG$sig after $delay s: an invalid line"
import json, sys
data = open(sys.argv[1], "rb").read()
assert data == b"" or data.endswith(b"\n"), "the last line is cut"
for line in data.splitlines():
    json.loads(line)
PY
  done
done

# 7. A list of cycles keeps each program once.
"$bin" gen cycle --out "$dir/c7" "PodWW Rfe PodRR Fre" "PodWW Rfe@gpu PodRR Fre" \
  "PodWW[weak,weak] Rfe PodRR Fre" "PodWR Fre PodWR Fre" > "$dir/out" || fail "7: gen cycle"
[[ $(ls "$dir/c7" | sort | tr '\n' ' ') == "MP.litmus SB.litmus " ]] ||
  fail "7: files: $(ls "$dir/c7")"
grep -q "2 tests in .* (2 duplicate cycles skipped: cycle 2 is cycle 1's test; cycle 3 is cycle 1's test)" \
  "$dir/out" || fail "7: summary: $(cat "$dir/out")"

# 15. Budgets of the generators: an error in seconds, nothing written.
start=$(ms)
"$bin" gen cycle -q --size 6 --max-tests 50 --out "$dir/c15" > "$dir/out" 2> "$dir/err"
rc=$?
[[ $rc -eq 1 ]] || fail "15: --max-tests exited $rc"
grep -q "stopped: more than 50 tests (--max-tests); nothing written" "$dir/err" ||
  fail "15: $(cat "$dir/err")"
[[ -z $(ls -A "$dir/c15") ]] || fail "15: files left: $(ls -A "$dir/c15" | head -3)"
# 28 annotated words: --size 6 already makes 10,292 tests; --size 8 far more.
words=""
for e in Rfe Fre Coe; do for l in cta gpu sys cluster; do words+="$e@$l "; done; done
for p in PodWW PodWR PodRW PodRR; do
  for a in "weak,weak" "relaxed.gpu,relaxed.gpu" "release.gpu,acquire.gpu" "relaxed.sys,relaxed.cta"
  do words+="$p[$a] "; done
done
"$bin" gen cycle -q --size 8 --max-tests 0 --timeout 2 --edges "$words" --out "$dir/c15b" \
  > "$dir/out" 2> "$dir/err"
rc=$?
[[ $rc -eq 1 ]] && grep -q "over 2 s (--timeout)" "$dir/err" || fail "15: --timeout: $rc $(cat "$dir/err")"
t=$(($(ms) - start))
[[ $t -le 12000 ]] || fail "15: took $t ms"
[[ -z $(ls -A "$dir/c15b") ]] || fail "15: files left after --timeout"
"$bin" gen cycle -q --size 4 --max-tests 0 --out "$dir/c15c" || fail "15: --max-tests 0"
# gen matrix: 10^9 cells is refused before any work; the default bound too.
python3 - "$dir/huge.toml" <<'PY'
import sys
labels = ", ".join('"l%d"' % i for i in range(10))
axes = "".join('[[axis]]\nname = "a%d"\nlabels = [%s]\n' % (k, labels) for k in range(9))
holes = " ".join("${a%d}" % k for k in range(9))
open(sys.argv[1], "w").write('name = "huge"\ntemplate = \'\'\'\nPTX huge\n"' + holes + '"\n{\nglobal u32 x = 0;\n}\n P0 ;\n st.weak.u32 [x], 1 ;\nexists (x == 1)\n\'\'\'\n' + axes)
PY
start=$(ms)
"$bin" gen matrix -q "$dir/huge.toml" --out "$dir/huge" > "$dir/out" 2> "$dir/err"
rc=$?
[[ $rc -eq 2 ]] && grep -q "1000000000 cells, over --max-tests 10000" "$dir/err" ||
  fail "15: gen matrix of 10^9 cells: $rc $(cat "$dir/err")"
"$bin" gen matrix -q "$dir/huge.toml" --max-tests 0 --timeout 1 --out "$dir/huge" \
  > "$dir/out" 2> "$dir/err"
rc=$?
[[ $rc -eq 1 ]] && grep -q "over 1 s (--timeout); nothing written" "$dir/err" ||
  fail "15: gen matrix --timeout: $rc $(cat "$dir/err")"
[[ -z $(ls "$dir/huge" 2> /dev/null) ]] || fail "15: gen matrix left files"
t=$(($(ms) - start))
[[ $t -le 8000 ]] || fail "15: gen matrix took $t ms"

# 14. ptxas-check: probes bounded by --timeout; a hanging wrapper's children die.
cat > "$dir/hang-ptxas" <<SH
#!/usr/bin/env bash
# A ptxas that never answers, through a child of its own.
sleep 300 &
echo \$! >> "$dir/children"
wait
SH
chmod +x "$dir/hang-ptxas"
: > "$dir/children"
start=$(ms)
"$bin" ptxas-check --ptxas "$dir/hang-ptxas" --timeout 1 "$src/litmus/classic/MP.litmus" \
  > "$dir/out" 2> "$dir/err"
rc=$?
t=$(($(ms) - start))
[[ $rc -eq 2 ]] || fail "14: exit $rc: $(cat "$dir/err")"
grep -q "no answer within 1 s" "$dir/err" || fail "14: $(cat "$dir/err")"
[[ $t -le 5000 ]] || fail "14: took $t ms"
# Alive: a process that is neither gone nor a zombie (a killed orphan may
# wait a moment for whoever reaps orphans here).
alive() { [[ -r /proc/$1/stat ]] && [[ $(cut -d' ' -f3 "/proc/$1/stat" 2> /dev/null) != Z ]]; }
while read -r p; do
  for _ in 1 2 3 4 5 6 7 8 9 10; do alive "$p" || break; sleep 0.1; done
  alive "$p" && { kill "$p"; fail "14: the wrapper's child $p survived"; }
done < "$dir/children"
echo "PASS: links replaced, name collisions refused, report folder made, JSON Lines whole" \
  "under signals, duplicate cycles skipped, XML escaped, generator and ptxas budgets"
