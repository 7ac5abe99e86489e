#!/usr/bin/env bash
# Installs redscope's Debian dependencies (only those missing), builds the
# redscope binary in ./build, puts it on the PATH (/usr/local/bin/redscope, a
# link to build/redscope) and checks a bundled example. Idempotent: a second
# run installs nothing and only rebuilds what changed. The tests are built by
# scripts/test.sh, not here.
set -euo pipefail
cd "$(dirname "$0")/.."

# graphviz: SVG pictures (--dot); chromium: the HTML report's and the playground's
# headless tests; nodejs, npm: the playground's packages and its test;
# python3: checks in the CLI tests; clang-format: the layout check (.clang-format);
# libtomlplusplus-dev: the TOML reader of `gen matrix` specs (docs/matrix-spec.md);
# slurm-wlm, munge: the single-node Slurm of ctest cli.slurm (scripts/slurm/);
# emscripten (brings node): the playground's WebAssembly module (scripts/build-wasm.sh);
# ninja-build: the build trees' generator; clang: the ASan+UBSan tree's compiler
# (scripts/build-sanitize.sh; both faster here, docs/performance.md "CI time, round 2").
packages=(build-essential cmake ninja-build libboost-graph-dev libz3-dev libfmt-dev catch2 graphviz
          chromium python3 clang clang-format libtomlplusplus-dev slurm-wlm munge emscripten nodejs)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# A new tree is generated for Ninja, which compiles a stage while the stages below
# it are still compiling (Make waits for each library); a tree keeps its generator.
gen=(); [[ -f build/CMakeCache.txt ]] || gen=(-G Ninja)
cmake -S . -B build "${gen[@]}" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)" --target redscope
$SUDO ln -sf "$PWD/build/redscope" /usr/local/bin/redscope
# The playground's npm packages (web/package-lock.json: @viz-js/viz, vendored
# into the page, and playwright-core, which drives /usr/bin/chromium in ctest
# browser.playground; it never downloads a browser).
if ! command -v npm >/dev/null; then   # Debian's nodejs ships npm apart; NodeSource's has it
  $SUDO apt-get install -y -qq npm >/dev/null
fi
if [ ! -d web/node_modules/@viz-js/viz ] || [ web/package-lock.json -nt web/node_modules/.package-lock.json ]; then
  (cd web && npm ci --no-audit --no-fund --loglevel=error)
fi
redscope run litmus/classic/MP.litmus
