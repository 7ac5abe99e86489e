#!/usr/bin/env bash
# herd7's own C litmus tests under herd7's C models (issue 46): every test of
# ../shared/conformance/herd7/herd/tests/instructions/C gives, under
# herd/libdir/rc11.cat (the model of that folder's ci.cfg), exactly the
# states of herd7's `.expected` output and its verdict line (Ok, No, or
# Undef for a racy test); a test herd7 refuses (`.expected-failure`) is a
# located error here too. c11_partialSC.cat (herd7's default for C) runs on
# every test.
set -u
bin=$1 shared=$2
dir_c=$shared/conformance/herd7/herd/tests/instructions/C
libdir=$shared/conformance/herd7/herd/libdir
[ -d "$dir_c" ] || { echo "SKIP: $dir_c not found (../shared is absent)"; exit 77; }
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
fail=0
for t in "$dir_c"/*.litmus; do
  name=$(basename "$t" .litmus)
  if [ -f "$t.expected-failure" ]; then
    if "$bin" run "$t" >"$out/o" 2>"$out/e"; then
      echo "FAIL $name: herd7 refuses it, redscope ran it"; fail=1
    elif ! grep -q "$(basename "$t"):[0-9]*:[0-9]*: error" "$out/e"; then
      echo "FAIL $name: no located error: $(head -c 300 "$out/e")"; fail=1
    fi
    continue
  fi
  for model in rc11 c11_partialSC; do
    if ! "$bin" run --engine enum --format json --model "$libdir/$model.cat" "$t" \
        >"$out/$name.$model.json" 2>"$out/e"; then
      echo "FAIL $name ($model): $(head -c 400 "$out/e") $(head -c 400 "$out/$name.$model.json")"
      fail=1
    fi
  done
  python3 - "$t.expected" "$out/$name.rc11.json" "$name" <<'PY' || fail=1
import json, re, sys
exp_path, got_path, name = sys.argv[1:4]
exp = open(exp_path).read().splitlines()
n = int(next(l for l in exp if l.startswith("States")).split()[1])
i = next(k for k, l in enumerate(exp) if l.startswith("States"))
def norm(key, val):
    key = key.strip()
    m = re.fullmatch(r"\[?([A-Za-z_]\w*)\]?", key)
    if m: key = m.group(1)
    key = re.sub(r"^P?(\d+):", r"\1:", key)
    return key, int(val, 0)
want = set()
for l in exp[i + 1:i + 1 + n]:
    want.add(frozenset(norm(*kv.split("=")) for kv in l.strip().rstrip(";").split(";") if kv.strip()))
verdict = next(l.strip() for l in exp[i + 1 + n:] if l.strip() in ("Ok", "No", "Undef"))
r = json.load(open(got_path))[0]
got = set()
for o in r["outcomes"]:
    got.add(frozenset(norm(k, str(v)) for k, v in o.items()))
holds = r["condition"]["holds"]
undef = any("undefined" in x for x in r.get("notes", []))
mine = "Undef" if undef else ("Ok" if holds else "No")
if got != want or mine != verdict:
    print(f"FAIL {name}: herd7 {sorted(map(sorted, want))} {verdict}; "
          f"redscope {sorted(map(sorted, got))} {mine}")
    sys.exit(1)
print(f"ok {name}: {len(got)} states, {mine}")
PY
done
[ "$fail" -eq 0 ] || { echo "FAIL: herd7's C tests"; exit 1; }
echo "herd7's C tests: all match herd7's expected output under rc11.cat"
