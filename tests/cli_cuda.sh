#!/usr/bin/env bash
# CUDA C++ tests through the CLI (issue 44, docs/cuda.md): every command on a
# CUDA test, nvcc's errors located in the test, no nvcc an exit 2 that says
# so, the cache (--no-cache, a damaged entry compiled again), --show-ptx and
# JSON's "compiled", the HTML report's C++ beside the PTX, a CUDA matrix.
# Skipped (77) without nvcc.
# Usage: cli_cuda.sh REDSCOPE SOURCE_DIR WORK_DIR
set -uo pipefail
bin=$1 src=$2 work=$3/cli_cuda
fail() { echo "FAIL: $*"; exit 1; }
nvcc=${CUDA_HOME:-/usr/local/cuda}/bin/nvcc
[ -x "$nvcc" ] || command -v nvcc >/dev/null || { echo "SKIP: no nvcc"; exit 77; }
rm -rf "$work"; mkdir -p "$work"
export XDG_CACHE_HOME=$work/cache
mp=$src/litmus/cuda/MP+rel-acq.dev.litmus
lu=$src/litmus/cuda/LU+atomicAdd_block-2cta.litmus

# run, --verdict, --show-ptx, JSON.
out=$("$bin" run "$mp") || fail "run: exit $?"
grep -q "^Observation MP+rel-acq.dev Never 0 3" <<<"$out" || fail "run: $out"
"$bin" run --verdict -q "$mp" || fail "run --verdict: exit $?"
out=$("$bin" run --show-ptx "$mp") || fail "--show-ptx: exit $?"
grep -q "^PTX of P1 (nvcc):" <<<"$out" && grep -q "ld.acquire.gpu" <<<"$out" || fail "--show-ptx: $out"
"$bin" run --format json "$mp" > "$work/mp.json" || fail "json: exit $?"
python3 - "$work/mp.json" <<'PY' || fail "JSON: no compiled threads"
import json, sys
t = json.load(open(sys.argv[1]))[0]
c = t["compiled"]
assert [x["thread"] for x in c] == ["P0", "P1"], c
assert "store" in c[0]["source"] and ".entry" in c[0]["ptx"], c[0]
assert any(k == "P1:r0" for o in t["outcomes"] for k in o), t["outcomes"]
PY
# The cache: a second run starts no nvcc (an nvcc that fails would show it).
ls "$work/cache/redscope/cuda/"*.ptx >/dev/null 2>&1 || fail "no cache entry written"
"$bin" run -q --nvcc /bin/false "$mp" 2>/dev/null; [ $? -eq 2 ] || fail "--nvcc /bin/false: not exit 2"
for f in "$work/cache/redscope/cuda/"*.ptx; do printf 'garbage' >> "$f"; done
"$bin" run -q "$mp" || fail "a damaged cache entry: exit $?"
rm -rf "$work/nocache"; XDG_CACHE_HOME=$work/nocache "$bin" run -q --no-cache "$mp" ||
  fail "--no-cache: exit $?"
[ ! -e "$work/nocache" ] || fail "--no-cache wrote $work/nocache"
# No nvcc: exit 2, saying so; the other tests are not run.
err=$("$bin" run --nvcc /nonexistent/nvcc "$mp" "$src/litmus/classic/MP.litmus" 2>&1 >/dev/null)
[ $? -eq 2 ] || fail "no nvcc: not exit 2"
grep -q "'/nonexistent/nvcc' is not an nvcc that runs" <<<"$err" || fail "no nvcc: $err"
# An nvcc that hangs, and the children it started, are killed at --timeout.
cat > "$work/slow-nvcc" <<'SH'
#!/usr/bin/env bash
if [ "$1" = --version ]; then echo "Cuda compilation tools, release 13.0, V13.0.88"; exit 0; fi
sleep 300 & echo $! > "$(dirname "$0")/child.pid"; wait
SH
chmod +x "$work/slow-nvcc"
start=$(date +%s)
err=$("$bin" run --timeout 2 --no-cache --nvcc "$work/slow-nvcc" "$mp" 2>&1 >/dev/null)
[ $(( $(date +%s) - start )) -lt 20 ] || fail "a hanging nvcc was not stopped at --timeout"
grep -q "nvcc did not finish within 2 s (--timeout)" <<<"$err" || fail "hanging nvcc: $err"
alive() { local st; st=$(ps -o stat= -p "$1" 2>/dev/null) && [ "${st:0:1}" != Z ]; }
for _ in $(seq 50); do alive "$(cat "$work/child.pid")" || break; sleep 0.1; done
! alive "$(cat "$work/child.pid")" || fail "nvcc's child outlived the deadline"
# nvcc's error, located in the test; a body that would leave its kernel.
printf 'CUDA bad\n{ int x = 0; }\nP0@cta 0,gpu 0 {\n  *x = foo;\n}\nexists (x == 1)\n' \
  > "$work/bad.litmus"
err=$("$bin" run "$work/bad.litmus" 2>&1 >/dev/null)
grep -q "bad.litmus:4:8: error: nvcc: identifier \"foo\" is undefined" <<<"$err" || fail "$err"
printf 'CUDA evil\n{ int x = 0; }\nP0@cta 0,gpu 0 {\n#include <stdio.h>\n}\nexists (x == 1)\n' \
  > "$work/evil.litmus"
err=$("$bin" run "$work/evil.litmus" 2>&1 >/dev/null)
grep -q "evil.litmus:4:1: error: preprocessor directives are not allowed" <<<"$err" || fail "$err"
# explain, atomicity, xval, report --html.
out=$("$bin" explain --condition "$mp") || fail "explain: exit $?"
grep -q "P0's st.release.gpu.b32 \[y\] (line 13) synchronizes with P1's ld.acquire.gpu.b32 \[y\]" \
  <<<"$out" || fail "explain: $out"
out=$("$bin" atomicity "$lu") || fail "atomicity: exit $?"
grep -q "lost update: POSSIBLE" <<<"$out" || fail "atomicity: $out"
out=$("$bin" xval "$mp" "$lu") || fail "xval: exit $?"
grep -q "reached-but-forbidden 0$" <<<"$(tail -1 <<<"$out")" || fail "xval: $out"
"$bin" report -q --no-xval "$mp" --html "$work/html" || fail "report: exit $?"
grep -rq "Compiled by nvcc" "$work/html" || fail "report --html: no C++ beside the PTX"
# A CUDA matrix: 36 cells written, then checked.
"$bin" gen matrix "$src/litmus/matrix/cuda-mp-orders.toml" --out "$work/matrix" > /dev/null ||
  fail "gen matrix: exit $?"
[ "$(ls "$work/matrix" | wc -l)" = 36 ] || fail "gen matrix: $(ls "$work/matrix" | wc -l) cells"
"$bin" run -q "$work/matrix" || fail "the CUDA matrix's cells: exit $?"
# The same spec checked in memory (report --from): its cells read as CUDA
# tests, compiled in one nvcc call, the table as `run` sees the files; and
# cuda-check's verdict per cell (the plain data races in every cell).
out=$("$bin" report --from "$src/litmus/matrix/cuda-mp-orders.toml" --format csv -q) ||
  fail "report --from a CUDA spec: exit $?"
[ "$(grep -c ',allowed,\|,forbidden,' <<<"$out")" -eq 36 ] || fail "report --from: $out"
grep -q '^release,acquire,device,forbidden,cuda-mp+release+acquire+device$' <<<"$out" &&
  grep -q '^release,acquire,block,allowed,' <<<"$out" || fail "report --from verdicts: $out"
out=$("$bin" report --from "$src/litmus/matrix/cuda-mp-orders.toml" --verdict mapping -q \
  --format csv) || fail "report --from --verdict mapping: exit $?"
[ "$(grep -c ',racy,' <<<"$out")" -eq 36 ] || fail "--verdict mapping: $out"
# An nvcc error in a cell names the cell, not the scratch folder it was compiled in.
sed 's/"acquire", "seq_cst"/"acqire"/' "$src/litmus/matrix/cuda-mp-orders.toml" > "$work/typo.toml"
out=$("$bin" report --from "$work/typo.toml" --format json -q)
[ $? -eq 1 ] && grep -q '"error": "cuda-mp+relaxed+acqire+thread.litmus:12:[0-9]*: error: nvcc: ' \
  <<<"$out" || fail "an nvcc error in a generated cell: $out"
echo "cli.cuda: run, verdict, show-ptx, JSON, cache, no nvcc, errors, explain, atomicity, xval," \
  "report, matrix, report --from"
