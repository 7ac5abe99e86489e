#!/usr/bin/env bash
# Builds the playground's WebAssembly module with Debian's emscripten
# (scripts/setup.sh installs it; CMake option REDSCOPE_WASM, cmake/wasm.cmake):
# build-wasm/web/redscope.js + redscope.wasm (src/wasm, the JS API in
# docs/architecture.md), and assembles the page around them (scripts/build-web.sh).
# Incremental (ccache when installed); prints its time.
# Usage: scripts/build-wasm.sh [BUILD_DIR]   (default: build-wasm)
#   WASM_OPT=-O1 (or another level) to compile and link at that level; the
#   default, -O3, is the page's: a smaller and faster module. scripts/test.sh
#   builds at -O1 (docs/performance.md "CI time, round 6"); a change of level
#   rebuilds the tree.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/build-wasm}
start=$(date +%s.%N)
command -v emcmake >/dev/null || {
  echo "build-wasm: emcmake not found (apt-get install emscripten; scripts/setup.sh)" >&2
  exit 1
}
# emcc runs its JS optimizer with node, which must find Debian's acorn
# (node-acorn, in /usr/share/nodejs: a node from elsewhere does not look there).
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
opt=${WASM_OPT:--O3}
if [[ ! $opt =~ ^-O[0-3sz]$ ]]; then
  echo "build-wasm: WASM_OPT=$opt is not an optimization level (-O0 to -O3, -Os, -Oz)" >&2
  exit 2
fi
# Configured when new or at another level (cmake --build re-runs the rest).
cached=$(sed -n 's/^CMAKE_CXX_FLAGS_RELEASE:STRING=//p' "$out/CMakeCache.txt" 2>/dev/null || true)
if [[ $cached != "$opt -DNDEBUG" ]]; then
  gen=(); [[ -f $out/CMakeCache.txt ]] || { command -v ninja >/dev/null && gen=(-G Ninja); }
  emcmake cmake -S "$root" -B "$out" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DREDSCOPE_WASM=ON \
    -DCMAKE_CXX_FLAGS_RELEASE="$opt -DNDEBUG" "${launcher[@]}" >/dev/null
fi
cmake --build "$out" -j"${JOBS:-2}" --target redscope_wasm
# The page around the module (web/'s files, vendored Graphviz, models,
# examples): scripts/build-web.sh, which owns the page's assembly.
if [[ -x $root/scripts/build-web.sh ]]; then
  "$root/scripts/build-web.sh" "$out/web"
fi
end=$(date +%s.%N)
printf 'build-wasm: %s/web/redscope.{js,wasm} (%s KiB wasm, %s) in %.1f s\n' "$out" \
  "$(( $(stat -c %s "$out/web/redscope.wasm") / 1024 ))" "$opt" "$(echo "$end - $start" | bc)"
