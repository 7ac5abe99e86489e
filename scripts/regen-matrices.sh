#!/usr/bin/env bash
# Refreshes the verdict table (NAME.csv) and the picture (NAME.svg) of every
# matrix spec in docs/matrices/ from its spec, NAME.toml: each cell generated
# in memory and checked (`redscope report --from`). The ctest cli.matrices
# regenerates them the same way and compares.
#   scripts/regen-matrices.sh [REDSCOPE]    (default: build/redscope)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/build/redscope}
for spec in "$root"/docs/matrices/*.toml; do
  base=${spec%.toml}
  "$bin" report --from "$spec" --format csv -q >"$base.csv"
  "$bin" report --from "$spec" --format svg -q >"$base.svg"
  echo "$(basename "$base"): $(($(wc -l <"$base.csv") - 1)) cells"
done
