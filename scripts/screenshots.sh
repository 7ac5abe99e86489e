#!/usr/bin/env bash
# Refreshes the playground's pictures in docs/ (playground.png, playground-explain.png,
# playground-error.png): runs the browser test (web/test/playground.test.mjs) with
# --screenshots docs on the page scripts/build-wasm.sh built.
set -euo pipefail
cd "$(dirname "$0")/.."
page=${REDSCOPE_WASM_WEB:-build-wasm/web}
./scripts/build-web.sh "$page" >/dev/null
node web/test/playground.test.mjs --page "$page" --redscope build/redscope --root . --screenshots docs
