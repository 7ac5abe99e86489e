#!/usr/bin/env bash
# ctest browser.playground: the playground page (web/, docs/playground.md) in
# Debian's headless Chromium, driven by playwright-core (web/test/
# playground.test.mjs says what it checks). The page is the one
# scripts/build-wasm.sh built (build-wasm/web, PAGE_DIR, or $REDSCOPE_WASM_WEB); its
# static files are refreshed from web/ first (scripts/build-web.sh, < 1 s).
# Skipped (77) only when the wasm module was not built.
#   browser_playground.sh REDSCOPE REPO_ROOT [PAGE_DIR]
set -euo pipefail
redscope=$1
root=$2
page=${REDSCOPE_WASM_WEB:-${3:-$root/build-wasm/web}}
if [ ! -f "$page/redscope.wasm" ] || [ ! -f "$page/redscope.js" ]; then
  echo "SKIP: the wasm module was not built ($page/redscope.wasm; scripts/build-wasm.sh builds it)"
  exit 77
fi
fail() { echo "FAILED: $*"; exit 1; }
command -v node >/dev/null || fail "node is not installed (scripts/setup.sh installs it)"
[ -x /usr/bin/chromium ] || fail "/usr/bin/chromium is not installed (scripts/setup.sh installs it)"
"$root/scripts/build-web.sh" "$page" >/dev/null
exec node "$root/web/test/playground.test.mjs" --page "$page" --redscope "$redscope" --root "$root"
