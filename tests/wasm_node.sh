#!/usr/bin/env bash
# ctest wasm.node: tests/wasm_node.js on the module scripts/build-wasm.sh
# built (scripts/test.sh builds it before ctest). Fails, saying what to run,
# when the module or Node is missing.
# Usage: tests/wasm_node.sh REPO_ROOT WASM_BUILD_DIR REDSCOPE
set -euo pipefail
root=$1 dir=$2 redscope=$3
module=$dir/web/redscope.js
if ! command -v node >/dev/null; then
  echo "wasm.node: node is missing (scripts/setup.sh installs emscripten, which brings it)" >&2
  exit 1
fi
if [[ ! -f $module || ! -f $dir/web/redscope.wasm ]]; then
  echo "wasm.node: no module at $module: run scripts/build-wasm.sh first (scripts/test.sh does)" >&2
  exit 1
fi
exec node "$root/tests/wasm_node.js" "$module" "$redscope" "$root/litmus"
