#!/usr/bin/env bash
# README's test command: builds the unit tests, the fuzz harness and the
# benchmark (set-up builds only the redscope binary), the ASan+UBSan tree
# once (incremental; the sanitizers.fuzz ctest only runs it), the
# WebAssembly module (incremental, at -O1 unless WASM_OPT says otherwise: the
# tests' module; scripts/build-wasm.sh alone builds the page's, at -O3; ctest
# wasm.node runs it in Node), then
# runs every ctest on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
gen=(); [[ -f build/CMakeCache.txt ]] || gen=(-G Ninja)  # as scripts/setup.sh
cmake -S . -B build "${gen[@]}" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)"
./scripts/build-sanitize.sh
WASM_OPT=${WASM_OPT:--O1} ./scripts/build-wasm.sh
ctest --test-dir build --output-on-failure -j 2
