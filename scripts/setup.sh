#!/usr/bin/env bash
# Installs redscope's Debian dependencies (only those missing), builds it in
# ./build, and checks a bundled example. Idempotent: a second run installs
# nothing and only rebuilds what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

# graphviz: SVG pictures (--dot); chromium: the HTML report's headless test.
packages=(build-essential cmake libboost-graph-dev libz3-dev libfmt-dev catch2 graphviz chromium)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)"
./build/redscope run litmus/classic/MP.litmus
