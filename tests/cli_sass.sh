#!/usr/bin/env bash
# `redscope sass encode|decode`, `redscope compile-check` and the SASS suite:
# calibration words, round trips through files and stdin, located errors,
# every pair of litmus/sass/compile/pairs.csv with its verdict, and the z3
# and enum engines agreeing outcome for outcome on litmus/sass.
set -u
bin=$1 root=$2 work=$3
fail() { echo "FAIL: $*"; exit 1; }
dir="$work/cli-sass"
rm -rf "$dir" && mkdir -p "$dir"

# Calibration (issue 16): cuobjdump's words.
[ "$(echo EXIT | "$bin" sass encode)" = 0x8000000000001de7 ] || fail "EXIT"
[ "$(echo MEMBAR.GL | "$bin" sass encode)" = 0xe000000000001c25 ] || fail "MEMBAR.GL"
[ "$(echo 0xa800000000001de7 | "$bin" sass decode)" = BRK ] || fail "BRK"

# A listing with labels: encode, decode, encode again gives the same words.
cat >"$dir/k.sass" <<'SASS'
SCHI 0x20, 0x2f, 0x4, 0x0, 0x0, 0x0, 0x0
  SSY DONE
TOP:
@P0 BRA.U TOP;
ATOM.E.ADD.F32.FTZ.RN R0, [R2+0x4], R4
RED.E.MIN.S32 [R2-0x8], R3
BAR.RED.POPC RZ, 0x0
VOTE.ANY R5, PT, !P1
MEMBAR.SYS
DONE:
NOP.S
EXIT
SASS
"$bin" sass encode "$dir/k.sass" >"$dir/k.words" || fail "encode k.sass"
[ "$(wc -l <"$dir/k.words")" -eq 10 ] || fail "one word per instruction"
grep -qvE '^0x[0-9a-f]{16}$' "$dir/k.words" && fail "words are 0x + 16 lowercase hex digits"
"$bin" sass decode "$dir/k.words" >"$dir/k.text" || fail "decode"
grep -qx 'SSY 0x30' "$dir/k.text" || fail "SSY DONE (0x40, from 0x10) is a relative 0x30: $(cat "$dir/k.text")"
grep -qx '@P0 BRA.U -0x8' "$dir/k.text" || fail "BRA.U TOP branches to itself"
"$bin" sass encode <"$dir/k.text" | cmp -s - "$dir/k.words" || fail "encode(decode(w)) != w"

# Errors: FILE:LINE:COL on stderr, nothing on stdout, exit 1.
printf 'NOP\nATOM.ADD R1, [R2], R64\nFROB\nBRA 0x800000\n' >"$dir/bad.sass"
out=$("$bin" sass encode "$dir/bad.sass" 2>"$dir/err"); rc=$?
[ "$rc" -eq 1 ] || fail "bad encode input: exit $rc"
[ -z "$out" ] || fail "bad encode input printed words"
grep -q "bad.sass:2:20: error: register R64 does not fit its 6-bit field" "$dir/err" || fail "R64: $(cat "$dir/err")"
grep -q "bad.sass:3:1: error: unknown opcode 'FROB'" "$dir/err" || fail "FROB: $(cat "$dir/err")"
grep -q "bad.sass:4:5: error: BRA: target 0x800000 does not fit a signed 24-bit field" "$dir/err" || fail "wide target: $(cat "$dir/err")"
printf '0xe000000000001c65\n0x12\n' | "$bin" sass decode 2>"$dir/err" && fail "bad words accepted"
grep -q "<stdin>:1:1: error: MEMBAR: .Lvl (bits 5-6) hold 3" "$dir/err" || fail "level 3: $(cat "$dir/err")"
grep -q "<stdin>:2:1: error: unknown opcode" "$dir/err" || fail "0x12: $(cat "$dir/err")"
"$bin" sass frob 2>/dev/null; [ $? -eq 2 ] || fail "unknown sass command must exit 2"

# compile-check: every pair with its verdict (0 ok, 1 miscompiled).
pairs="$root/litmus/sass/compile/pairs.csv"
n=0
while IFS=, read -r ptx sass verdict; do
  out=$("$bin" compile-check "$root/litmus/sass/compile/$ptx" "$root/litmus/sass/compile/$sass" 2>&1)
  rc=$?
  case $verdict in
    ok) [ "$rc" -eq 0 ] && grep -q '^Result OK' <<<"$out" || fail "$sass must keep $ptx: $out" ;;
    miscompiled)
      [ "$rc" -eq 1 ] && grep -q '^Miscompilation: ' <<<"$out" && grep -q '^Why the PTX model forbids it' <<<"$out" ||
        fail "$sass must be a miscompilation of $ptx: $out" ;;
    *) fail "pairs.csv: verdict '$verdict'" ;;
  esac
  n=$((n + 1))
done <"$pairs"
[ "$n" -ge 8 ] || fail "pairs.csv has $n pairs"
json=$("$bin" compile-check --format json "$root/litmus/sass/compile/ticket-atom.litmus" \
  "$root/litmus/sass/compile/ticket-atom.red.litmus")
python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert d["verdict"]=="miscompiled", d; assert d["miscompilations"][0]["ptx_axioms"], d' "$json" ||
  fail "compile-check JSON"
"$bin" compile-check "$root/litmus/sass/MP.litmus" "$root/litmus/sass/MP.litmus" 2>/dev/null
[ $? -eq 2 ] || fail "compile-check SASS SASS must be a usage error"

# z3 and enum give the same outcome sets on every SASS test (one run of each
# engine over the folder, one comparison: a process per file costs a minute).
"$bin" run --engine z3 --observe-all --format jsonl "$root/litmus/sass" >"$dir/z3.jsonl"
"$bin" run --engine enum --observe-all --format jsonl "$root/litmus/sass" >"$dir/enum.jsonl"
python3 - "$dir/z3.jsonl" "$dir/enum.jsonl" <<'PY' || fail "z3 and enum differ on litmus/sass"
import json, sys
def load(path):
    runs = {}
    for line in open(path):
        d = json.loads(line)
        runs[d["file"]] = sorted(map(str, d["outcomes"]))
    return runs
z3, enum = load(sys.argv[1]), load(sys.argv[2])
assert len(z3) >= 25, f"only {len(z3)} SASS tests ran"
bad = [f for f in z3 if z3[f] != enum.get(f) or not z3[f]]
for f in bad: print("differ:", f)
sys.exit(1 if bad or z3.keys() != enum.keys() else 0)
PY
echo "sass: ok ($n compile-check pairs)"
