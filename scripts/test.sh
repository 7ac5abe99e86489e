#!/usr/bin/env bash
# README's test command: builds the unit tests, the fuzz harness and the
# benchmark (set-up builds only the redscope binary), the ASan+UBSan tree
# once (incremental; the sanitizers.fuzz ctest only runs it), the
# WebAssembly module (incremental; ctest wasm.node runs it in Node), then
# runs every ctest on 2 cores.
# The three trees build at once, each with the cores' number of jobs: one
# tree's serial steps (its precompiled header, its links, wasm-opt) leave a
# core idle that another tree's compiles fill (docs/performance.md "CI time,
# round 5"). Each tree's lines are prefixed with its name.
set -euo pipefail
cd "$(dirname "$0")/.."
gen=(); [[ -f build/CMakeCache.txt ]] || gen=(-G Ninja)  # as scripts/setup.sh
cmake -S . -B build "${gen[@]}" -DCMAKE_BUILD_TYPE=Release >/dev/null
tagged() {  # tagged NAME COMMAND...: runs COMMAND, each output line after [NAME]
  local name=$1
  shift
  "$@" 2>&1 | sed -u "s/^/[$name] /"  # pipefail: COMMAND's status
}
tagged release cmake --build build -j "$(nproc)" &
release=$!
tagged sanitize ./scripts/build-sanitize.sh &
sanitize=$!
tagged wasm ./scripts/build-wasm.sh &
wasm=$!
failed=()
wait "$release" || failed+=("the Release tree (cmake --build build)")
wait "$sanitize" || failed+=("the ASan+UBSan tree (scripts/build-sanitize.sh)")
wait "$wasm" || failed+=("the WebAssembly module (scripts/build-wasm.sh)")
if ((${#failed[@]})); then
  printf 'test.sh: the build failed: %s\n' "${failed[@]}" >&2
  exit 1
fi
ctest --test-dir build --output-on-failure -j 2
