#!/usr/bin/env bash
# README's test command: builds the unit tests, the fuzz harness and the
# benchmark (set-up builds only the redscope binary), the ASan+UBSan tree
# once (incremental; the sanitizers.fuzz ctest only runs it), the
# WebAssembly module (incremental; ctest wasm.node runs it in Node), then
# runs every ctest on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
gen=(); [[ -f build/CMakeCache.txt ]] || gen=(-G Ninja)  # as scripts/setup.sh
cmake -S . -B build "${gen[@]}" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)"
./scripts/build-sanitize.sh
./scripts/build-wasm.sh
ctest --test-dir build --output-on-failure -j 2
