#!/usr/bin/env bash
# Refreshes the verdict table (NAME.csv) and the picture (NAME.svg) of every
# matrix spec in docs/matrices/ from its spec, NAME.toml: each cell generated
# in memory and checked (`redscope report --from`). The ctest cli.matrices
# regenerates them the same way and compares. The CUDA specs (mapping-*)
# need nvcc (CUDA 13, docs/cuda.md): without one they are left as they are.
#   scripts/regen-matrices.sh [REDSCOPE]    (default: build/redscope)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/build/redscope}
nvcc=${CUDA_HOME:-/usr/local/cuda}/bin/nvcc
have_nvcc=0
{ [ -x "$nvcc" ] || command -v nvcc >/dev/null; } && have_nvcc=1
for spec in "$root"/docs/matrices/*.toml; do
  base=${spec%.toml}
  if grep -q '^CUDA ' "$spec" && [ "$have_nvcc" = 0 ]; then
    echo "$(basename "$base"): left as it is (a CUDA spec, and no nvcc)"
    continue
  fi
  "$bin" report --from "$spec" --format csv -q >"$base.csv"
  "$bin" report --from "$spec" --format svg -q >"$base.svg"
  echo "$(basename "$base"): $(($(wc -l <"$base.csv") - 1)) cells"
done
