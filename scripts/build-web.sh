#!/usr/bin/env bash
# Assembles the playground page (docs/playground.md) in OUT (default
# build-wasm/web, where scripts/build-wasm.sh puts redscope.js and
# redscope.wasm): web/'s static files, Graphviz in wasm from npm
# @viz-js/viz (vendored from web/node_modules, pinned by web/package-lock.json;
# the page never loads it from a CDN), the shipped models, and litmus/'s tests
# as the examples menu with its index. Runs `npm ci` in web/ when
# web/node_modules is missing or older than the lockfile. Incremental and
# quick (well under a second once node_modules is there).
#   scripts/build-web.sh [--stub] [OUT]
# --stub: when OUT has no redscope.js, put web/dev/redscope-stub.js there
# (canned answers, for working on the page without Emscripten).
set -euo pipefail
cd "$(dirname "$0")/.."
stub=0
if [ "${1:-}" = "--stub" ]; then stub=1; shift; fi
out=${1:-build-wasm/web}
mkdir -p "$out/vendor" "$out/models" "$out/examples"

if [ ! -d web/node_modules/@viz-js/viz ] || [ web/package-lock.json -nt web/node_modules/.package-lock.json ]; then
  command -v npm >/dev/null || { echo "build-web.sh: npm is needed (Debian: nodejs, npm)" >&2; exit 1; }
  (cd web && npm ci --no-audit --no-fund --loglevel=error)
fi

# The page: every top-level static file of web/ (its tests and npm files stay).
for f in web/*.html web/*.css web/*.js; do
  cp -p "$f" "$out/"
done
cp -p web/node_modules/@viz-js/viz/dist/viz.js "$out/vendor/viz.js"

rm -rf "$out/models" "$out/examples"
mkdir -p "$out/models" "$out/examples"
cp -p models/*.cat "$out/models/"
cp -a litmus/. "$out/examples/"
find "$out/examples" -type f ! -name '*.litmus' ! -name '*.test' ! -name expected.csv -delete

# CUDA examples: the browser has no nvcc, so their PTX is compiled here, ahead,
# by the native redscope (build/redscope, or REDSCOPE) with nvcc, into cache
# entries the page ships (examples/cuda-ptx.json) and its worker hands to the
# module (docs/cuda.md "In the playground"). Without either, the page says
# that CUDA examples need the command line.
native=${REDSCOPE:-build/redscope}
printf '{}\n' > "$out/examples/cuda-ptx.json"
# Every CUDA test of litmus/ (litmus/cuda, cuda-check, scoped-cpp, ...).
mapfile -t cuda_tests < <(grep -rlE --include='*.litmus' '^CUDA[[:space:]]' litmus | sort)
if [ -x "$native" ] && [ "${#cuda_tests[@]}" -gt 0 ]; then
  ptx=$(mktemp -d)
  if XDG_CACHE_HOME="$ptx" "$native" run -q "${cuda_tests[@]}" > /dev/null 2>&1 ||
     [ -d "$ptx/redscope/cuda" ]; then
    python3 - "$ptx/redscope/cuda" "$out/examples/cuda-ptx.json" <<'PY'
import json, pathlib, sys
d = pathlib.Path(sys.argv[1])
entries = {p.name: p.read_text() for p in sorted(d.glob("*.ptx"))} if d.is_dir() else {}
pathlib.Path(sys.argv[2]).write_text(json.dumps(entries, sort_keys=True) + "\n")
PY
  fi
  rm -rf "$ptx"
fi

python3 - "$out" <<'PY'
import hashlib, json, os, pathlib, sys
out = pathlib.Path(sys.argv[1])
ex = out / "examples"
# Each test's expected verdict (1: its condition holds) from the expected.csv
# beside it (Dat3M-style rows NAME,1|0, as `redscope run --expect` reads
# them): the page's campaign compares with it. The CSV files go.
expected = {}
for csv in ex.rglob("expected.csv"):
    for row in csv.read_text().splitlines():
        name, _, bit = row.strip().rpartition(",")
        if name and bit in ("0", "1"):
            expected[(csv.parent / name).relative_to(ex).as_posix()] = int(bit)
    csv.unlink()
def entry(f, group):
    e = {"path": f.relative_to(ex).as_posix(), "name": f.relative_to(group).with_suffix("").as_posix()}
    if e["path"] in expected:
        e["expected"] = expected[e["path"]]
    return e
groups = []
for group in sorted(p for p in ex.iterdir() if p.is_dir()):
    files = sorted(f for f in group.rglob("*") if f.suffix in (".litmus", ".test"))
    if files:
        groups.append({"name": group.name, "files": [entry(f, group) for f in files]})
(ex / "index.json").write_text(json.dumps({"groups": groups}, indent=1) + "\n")
models = sorted(p.name for p in (out / "models").glob("*.cat"))
(out / "models" / "index.json").write_text(json.dumps({"models": models}) + "\n")
# The service worker's cache name: a hash of every file it serves, so a new
# build replaces the offline copy.
h = hashlib.sha256()
for f in sorted(p for p in out.rglob("*") if p.is_file() and p.name != "sw.js"):
    h.update(f.relative_to(out).as_posix().encode()); h.update(f.read_bytes())
sw = (out / "sw.js").read_text().replace("const BUILD = 'dev';", f"const BUILD = '{h.hexdigest()[:16]}';")
(out / "sw.js").write_text(sw)
n = sum(len(g["files"]) for g in groups)
print(f"build-web.sh: page in {out} ({n} examples in {len(groups)} groups, {len(models)} models)")
PY
if [ $stub = 1 ] && [ ! -f "$out/redscope.js" ]; then
  cp web/dev/redscope-stub.js "$out/redscope.js"
  echo "build-web.sh: the stub engine (web/dev/redscope-stub.js) stands in for redscope.js" >&2
fi
[ -f "$out/redscope.js" ] || echo "build-web.sh: note: no $out/redscope.js yet (scripts/build-wasm.sh builds it)" >&2
