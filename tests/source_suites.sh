#!/usr/bin/env bash
# The scoped C++ model on CUDA tests read as source (issue 46): every test of
# litmus/scoped-cpp/verdicts.csv, read with --source, gets its argued
# verdict (Racy: the model's flag `racy` is raised; else Allowed or
# Forbidden: whether some execution satisfies the condition) on each engine
# that reads the model (z3, enum, auto).
set -u
bin=$1 root=$2
dir=$root/litmus/scoped-cpp
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
fail=0
for engine in z3 enum auto; do
  grep -v '^#' "$dir/verdicts.csv" | cut -d, -f1 | sed "s|^|$dir/|" >"$out/files"
  # shellcheck disable=SC2046
  "$bin" run --source --engine "$engine" --format json -j 2 $(cat "$out/files") \
    >"$out/$engine.json" 2>"$out/err" || { echo "FAIL ($engine): $(head -c 600 "$out/err")"; fail=1; }
  python3 - "$dir/verdicts.csv" "$out/$engine.json" "$engine" <<'PY' || fail=1
import json, os, sys
csv, got, engine = sys.argv[1:4]
want = {}
for line in open(csv):
    line = line.strip()
    if line and not line.startswith("#"):
        f, v = line.split(",")[:2]
        want[f] = v
bad = 0
for r in json.load(open(got)):
    f = os.path.basename(r["file"])
    if r.get("error"):
        print(f"FAIL {f} ({engine}): {r['error'][:300]}"); bad += 1; continue
    mine = "Racy" if "racy" in r.get("flags", []) else (
        "Allowed" if r["condition"]["holds"] else "Forbidden")
    if mine != want.pop(f, None):
        print(f"FAIL {f} ({engine}): {mine}, expected {csv}'s verdict"); bad += 1
for f in want:
    print(f"FAIL {f} ({engine}): not run"); bad += 1
print(f"{engine}: {len(json.load(open(got))) - bad} of {len(json.load(open(got)))} as argued")
sys.exit(1 if bad else 0)
PY
done
[ "$fail" -eq 0 ] || { echo "FAIL: litmus/scoped-cpp"; exit 1; }
echo "litmus/scoped-cpp: every verdict as argued on z3, enum and auto"
