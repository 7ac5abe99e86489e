#!/usr/bin/env bash
# `redscope cuda-check` (issue 46, docs/cuda.md "Checking the compiler"):
# - litmus/cuda-check/verdicts.csv: each test's verdict (ok, racy) with
#   nvcc's own PTX, as argued there;
# - litmus/cuda-check/planted/verdicts.csv: each hand-edited lowering given
#   with --ptx is caught (miscompiled) or passes (a stronger lowering: ok);
# - exit status 1 with a miscompilation, 0 without, 2 on bad input (a file
#   that is not a CUDA test, --ptx with two tests, a bad --arch, a module
#   without the thread's kernel); JSON's fields; report --html's section.
# Skipped (77) without nvcc.
set -uo pipefail
bin=$1 src=$2 work=$3/cli_cuda_check
fail() { echo "FAIL: $*"; exit 1; }
nvcc=${CUDA_HOME:-/usr/local/cuda}/bin/nvcc
[ -x "$nvcc" ] || command -v nvcc >/dev/null || { echo "SKIP: no nvcc"; exit 77; }
rm -rf "$work"; mkdir -p "$work"
export XDG_CACHE_HOME=$work/cache
dir=$src/litmus/cuda-check

verdict_of() {  # JSON of one cuda-check run -> its verdict
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[0]["verdict"])' "$1"
}

# Unmodified tests, nvcc's lowering: one run (one nvcc call for them all).
files=()
while IFS=, read -r file _; do
  [ "$file" = file ] || files+=("$dir/$file")
done <"$dir/verdicts.csv"
"$bin" cuda-check --format json "${files[@]}" >"$work/all.json" 2>"$work/err"
status=$?
[ $status -eq 0 ] || fail "nvcc's lowering: exit $status: $(head -c 600 "$work/err")"
python3 - "$dir/verdicts.csv" "$work/all.json" <<'PY' || fail "nvcc's lowering: verdicts"
import csv, json, os, sys
want = {r["file"]: r["verdict"] for r in csv.DictReader(open(sys.argv[1]))}
got = {os.path.relpath(r["file"], os.path.dirname(sys.argv[1])): r["verdict"]
       for r in json.load(open(sys.argv[2]))}
bad = [f"{f}: {got.get(f)}, argued {v}" for f, v in want.items() if got.get(f) != v]
print("\n".join(bad) or f"nvcc's lowering: {len(want)} tests as argued")
sys.exit(1 if bad else 0)
PY

# Planted lowerings.
n=0
while IFS=, read -r file ptx want; do
  [ "$file" = file ] && continue
  "$bin" cuda-check --format json --ptx "$dir/planted/$ptx" "$dir/planted/$file" \
    >"$work/one.json" 2>"$work/err"
  status=$?
  got=$(verdict_of "$work/one.json" 2>/dev/null || echo "error: $(head -c 300 "$work/err")")
  [ "$got" = "$want" ] || fail "planted $ptx: $got, argued $want"
  if [ "$want" = miscompiled ]; then
    [ $status -eq 1 ] || fail "planted $ptx: exit $status, not 1"
    python3 - "$work/one.json" <<'PY' || fail "planted $ptx: JSON lacks the witness or the axioms"
import json, sys
m = json.load(open(sys.argv[1]))[0]["miscompilations"][0]
assert m["outcome"] and m["ptx_execution"]["rf"] and m["source_axioms"], m
PY
  else
    [ $status -eq 0 ] || fail "planted $ptx: exit $status, not 0"
  fi
  n=$((n + 1))
done <"$dir/planted/verdicts.csv"
echo "planted lowerings: $n as argued"

# Text: the three answers as printed.
out=$("$bin" cuda-check "$src/litmus/cuda/LU+atomicAdd_block-2cta.litmus") || fail "racy: exit $?"
grep -q "^Race: " <<<"$out" && grep -q "^Result racy" <<<"$out" || fail "racy text: $out"
p=$dir/planted/MP+rel-acq.dev-2cta+st.relaxed
out=$("$bin" cuda-check --ptx "$p.ptx" "$p.litmus")
[ $? -eq 1 ] || fail "planted text: exit not 1"
grep -q "^MISCOMPILED: the PTX reaches" <<<"$out" && grep -q "^Result MISCOMPILED" <<<"$out" \
  || fail "planted text: $out"

# Bad input: exit 2, located.
"$bin" cuda-check "$src/litmus/classic/MP.litmus" 2>"$work/err" >/dev/null
[ $? -eq 2 ] && grep -q "MP.litmus:1:1: error: not a CUDA test" "$work/err" || fail "PTX test: $(cat "$work/err")"
"$bin" cuda-check --arch sm_70 "$p.litmus" 2>"$work/err" >/dev/null
[ $? -eq 2 ] && grep -q "sm_NN with NN 75 or above" "$work/err" || fail "--arch sm_70: $(cat "$work/err")"
"$bin" cuda-check --ptx "$p.ptx" "$dir" 2>"$work/err" >/dev/null
[ $? -eq 2 ] || fail "--ptx with a folder: not exit 2"
sed 's/\.entry P1/.entry Q1/' "$p.ptx" >"$work/noP1.ptx"
"$bin" cuda-check --ptx "$work/noP1.ptx" "$p.litmus" 2>"$work/err" >/dev/null
[ $? -eq 2 ] && grep -q "error" "$work/err" || fail "module without P1: $(cat "$work/err")"
"$bin" cuda-check --arch sm_80 "$dir/MP+rel-acq.dev-2cta.litmus" >/dev/null \
  || fail "--arch sm_80: exit $?"

# report --html: a CUDA test's page says what cuda-check says.
"$bin" report --html "$work/html" --no-pictures "$src/litmus/cuda/LU+atomicAdd_block-2cta.litmus" \
  >/dev/null 2>&1
grep -q "cuda-check" "$work/html/tests/"*.html && grep -q "Result racy" "$work/html/tests/"*.html \
  || fail "report --html: no cuda-check section"
echo "cli.cuda-check: ok"
