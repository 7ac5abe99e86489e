#!/usr/bin/env bash
# docs/matrices/: each shipped spec, regenerated and checked in memory
# (`redscope report --from SPEC`), gives the checked-in verdict table
# (NAME.csv) and picture (NAME.svg) byte for byte; scripts/regen-matrices.sh
# refreshes them after a deliberate change. The CUDA specs (mapping-*, judged
# by cuda-check) need nvcc: without one they are skipped, and so are their
# checks below.
set -uo pipefail
bin=$1; root=$2; dir=$3/cli_matrices
rm -rf "$dir"; mkdir -p "$dir"
fail() { echo "FAIL: $*"; exit 1; }
export XDG_CACHE_HOME=$dir/cache  # nvcc's output: compiled once, by the first run
nvcc=${CUDA_HOME:-/usr/local/cuda}/bin/nvcc
have_nvcc=0
{ [ -x "$nvcc" ] || command -v nvcc >/dev/null; } && have_nvcc=1
n=0 skipped=0
for spec in "$root"/docs/matrices/*.toml; do
  name=$(basename "$spec" .toml)
  if grep -q '^CUDA ' "$spec" && [ "$have_nvcc" = 0 ]; then
    skipped=$((skipped + 1))
    continue
  fi
  "$bin" report --from "$spec" --format csv -q -j 2 >"$dir/$name.csv" \
    || fail "$name: report --from exit $?"
  diff -u "$root/docs/matrices/$name.csv" "$dir/$name.csv" \
    || fail "$name: the verdict table differs from docs/matrices/$name.csv (scripts/regen-matrices.sh)"
  "$bin" report --from "$spec" --format svg -q -j 2 >"$dir/$name.svg" || fail "$name: svg"
  cmp -s "$root/docs/matrices/$name.svg" "$dir/$name.svg" \
    || fail "$name: the picture differs from docs/matrices/$name.svg (scripts/regen-matrices.sh)"
  grep -q "($name.svg)" "$root/docs/matrices/README.md" || fail "README.md does not show $name.svg"
  n=$((n + 1))
done
[ $((n + skipped)) -eq 6 ] || fail "$((n + skipped)) specs in docs/matrices, expected 6"
# The spec's verdict, rows and cols apply; --matrix and --verdict override them.
out=$("$bin" report --from "$root/docs/matrices/mp-scopes.toml" -q) || fail "text exit $?"
grep -q '^rel      acq$' <<<"$out" || fail "the spec's rows: $out"
out=$("$bin" report --from "$root/docs/matrices/mp-scopes.toml" --matrix place rel -q) \
  || fail "--matrix with --from"
grep -q '^rel       cta        cluster    gpu        sys$' <<<"$out" || fail "--matrix place rel: $out"
out=$("$bin" report --from "$root/docs/matrices/mp-scopes.toml" --verdict atomicity -q \
  --format csv) || fail "--verdict atomicity"
[ "$(grep -c ',safe,' <<<"$out")" -eq 80 ] || fail "MP has no RMW: every cell is safe"
err=$("$bin" report --from "$root/docs/matrices/mp-scopes.toml" --matrix rel,nope acq 2>&1)
[ $? -eq 2 ] && grep -q "unknown axis 'nope' (the axes of mp-scopes are rel,acq,place)" <<<"$err" \
  || fail "unknown axis with --from: $err"
err=$("$bin" report --from "$root/docs/matrices/mp-scopes.toml" "$root/litmus/classic" 2>&1)
[ $? -eq 2 ] && grep -q "takes no INPUT" <<<"$err" || fail "--from with INPUT: $err"
# --html with --from: a page per generated cell, from its text in memory.
out=$("$bin" report --from "$root/docs/matrices/sured-bulk.toml" --html "$dir/html" \
  --no-pictures --no-xval -q) || fail "--from --html exit $?: $out"
grep -q "24 tests, 0 could not be checked" <<<"$out" || fail "--from --html: $out"
[ "$(grep -o '<a href="tests/[^"]*">' "$dir/html/index.html" | wc -l)" -eq 24 ] \
  || fail "24 linked cells in the index"
page="$dir/html/tests/sured-bulk+sured-red.gpu+2gpu+sm_90.html"
grep -q "Cell=ops=sured-red.gpu,place=2gpu,target=sm_90" "$page" || fail "the cell's source"
grep -q "lost update: POSSIBLE" "$page" || fail "the cell's atomicity"
# --verdict mapping: cuda-check's answer per cell; a PTX cell is an error.
out=$("$bin" report --from "$root/docs/matrices/sured-bulk.toml" --verdict mapping -q \
  --format csv 2>&1)
[ $? -eq 1 ] && [ "$(grep -c ',error,' <<<"$out")" -eq 24 ] || fail "mapping of PTX cells: $out"
if [ "$have_nvcc" = 0 ]; then
  echo "matrices: all checks passed ($skipped CUDA specs skipped: no nvcc)"
  exit 0
fi
mp=$root/docs/matrices/mapping-mp.toml
out=$("$bin" report --from "$mp" --format json -q) || fail "mapping json exit $?"
grep -q '"verdict": "mapping"' <<<"$out" && grep -q '"racy": 27' <<<"$out" ||
  fail "mapping json: $out"
# The same CUDA cells judged by their condition: nvcc's PTX run, as `run` runs it.
out=$("$bin" report --from "$mp" --verdict condition --format csv -q) || fail "condition exit $?"
grep -q '^release,acquire,device,2cta,forbidden,' <<<"$out" &&
  grep -q '^relaxed,relaxed,device,2cta,allowed,' <<<"$out" || fail "CUDA condition: $out"
out=$("$bin" report --from "$root/docs/matrices/mapping-lu.toml" --html "$dir/lu" --no-xval \
  --no-pictures -q) || fail "mapping --html exit $?: $out"
[ "$(grep -o '<td class="v racy"' "$dir/lu/index.html" | wc -l)" -eq 13 ] || fail "13 racy cells"
grep -q "The compiler's mapping (cuda-check)" "$dir/lu/tests/mapping-lu+block+device+2cta.html" ||
  fail "the cell's page has no cuda-check answer"
echo "matrices: all checks passed"
