#!/usr/bin/env bash
# Verdict-only runs (--verdict, docs/cli.md "Verdict-only runs") agree with the
# full enumeration's verdict on every test of every suite (litmus/, the Dat3M
# PTX conformance folder, NVIDIA's .test files), under the engines that offer
# one (auto, z3, enum): the same `holds`, an observation the full one allows,
# and a witness whose values are an outcome of the full run that decides the
# condition. PTO tests (their own semantics) are reduced from their listing
# and must say so. One full run and one verdict run per engine and suite.
set -u
bin=$1 src=$2 shared=$3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

suites=("$src/litmus")
for d in "$shared/conformance/dat3m-ptx" "$shared/conformance/nvlitmus"; do
  if [ -d "$d" ]; then suites+=("$d"); else echo "note: $d absent, not compared"; fi
done

k=0
for s in "${suites[@]}"; do
  k=$((k + 1))
  "$bin" run -q --format json -j 2 "$s" > "$tmp/full$k.json" 2>/dev/null
  for e in auto z3 enum; do
    # enum alone gets 3 s a test: where it gives up (its candidate limit, ~11 s on
    # the CUDA lock loops) it is not compared anyway.
    budget=(); [ $e = enum ] && budget=(--timeout 3)
    "$bin" run -q --verdict --engine $e "${budget[@]}" --format json -j 2 "$s" \
      > "$tmp/$e$k.json" 2>/dev/null
  done
done

python3 - "$tmp" "$k" <<'PY' || fail "verdicts differ (above)"
import json, sys
tmp, n = sys.argv[1], int(sys.argv[2])
bad, compared, skipped = [], 0, 0
for k in range(1, n + 1):
    full = {t["file"]: t for t in json.load(open(f"{tmp}/full{k}.json"))}
    for e in ("auto", "z3", "enum"):
        for v in json.load(open(f"{tmp}/{e}{k}.json")):
            f = full.get(v["file"])
            if f is None:
                bad.append(f"{e}: {v['file']} not in the full run"); continue
            if f["error"] is not None or v["error"] is not None:
                # Only an engine's own limit may differ (enum's candidate limit,
                # or the 3 s it is given here).
                own = "candidate executions" in v["error"] or (
                    e == "enum" and "over the 3 s budget" in v["error"])
                if f["error"] is None and not own:
                    bad.append(f"{e}: {v['file']}: {v['error']}")
                skipped += 1; continue
            compared += 1
            where = f"{e}: {v['file']}"
            if not v.get("verdict_only") or "outcomes" in v:
                bad.append(f"{where}: not a verdict-only result"); continue
            if v["condition"]["holds"] != f["condition"]["holds"]:
                bad.append(f"{where}: holds {v['condition']['holds']}, full run "
                           f"{f['condition']['holds']}")
            q = f["condition"]["quantifier"]
            seek_sat = q not in ("forall", "assert")
            w = v["witness"]
            if v["verdict_by"] == "witness":
                if w is None or v["proof"] is not None:
                    bad.append(f"{where}: a witness verdict without its witness"); continue
                if w["values"] not in f["outcomes"]:
                    bad.append(f"{where}: witness {w['values']} is no outcome of the full run")
                if w["satisfies"] != seek_sat or v["observation"] != "Sometimes":
                    bad.append(f"{where}: the witness does not decide {q}")
            else:
                if w is not None or not v["proof"]:
                    bad.append(f"{where}: a proof with a witness or without saying how")
                want = "Never" if seek_sat else "Always"
                if v["observation"] != want or f["observation"] not in (want, "Never"):
                    bad.append(f"{where}: proof observation {v['observation']}, full "
                               f"{f['observation']}")
                pto = v["model"] == "pto" or "pto" in v["file"]
                if pto and v["proof"] != "every outcome listed":
                    bad.append(f"{where}: a PTO test's proof is {v['proof']}")
for b in bad: print(b)
print(f"{compared} verdicts compared with the full runs ({skipped} not: an error)")
sys.exit(1 if bad or compared == 0 else 0)
PY
# atomicity --verdict: the lost-update question, answered as the full
# report answers it (some pair loses an update), the pair found among those
# the full report says lose one.
k=0
for s in "${suites[@]}"; do
  k=$((k + 1))
  "$bin" atomicity -q --format json -j 2 "$s" > "$tmp/afull$k.json" 2>/dev/null
  "$bin" atomicity -q --verdict --format json -j 2 "$s" > "$tmp/averdict$k.json" 2>/dev/null
done
python3 - "$tmp" "$k" <<'PY' || fail "atomicity verdicts differ (above)"
import json, sys
tmp, n = sys.argv[1], int(sys.argv[2])
bad, compared = [], 0
for k in range(1, n + 1):
    full = {t["file"]: t for t in json.load(open(f"{tmp}/afull{k}.json"))}
    for v in json.load(open(f"{tmp}/averdict{k}.json")):
        f = full[v["file"]]
        if f["error"] or v["error"]:
            if bool(f["error"]) != bool(v["error"]): bad.append(f"{v['file']}: {v['error']}")
            continue
        compared += 1
        lost = [p["location"] for p in f["pairs"] if p["lost_update"]]
        if not v.get("verdict_only") or v["lost_update"] != bool(lost):
            bad.append(f"{v['file']}: lost_update {v.get('lost_update')}, full report {lost}")
        elif lost and (v["verdict_by"] != "witness" or v["pairs"][0]["location"] not in lost):
            bad.append(f"{v['file']}: the witness pair is not one the full report finds")
        elif not lost and (v["verdict_by"] != "proof" or v["pairs"]):
            bad.append(f"{v['file']}: no lost update, yet not a proof")
for b in bad: print(b)
print(f"{compared} atomicity verdicts compared with the full reports")
sys.exit(1 if bad or compared == 0 else 0)
PY

# The text form (herd7 -speedcheck's): the deciding outcome as the only state.
t=$("$bin" run --verdict --engine z3 "$src/litmus/classic/IRIW+relaxed-gpu.litmus")
grep -q '^States 1$' <<<"$t" && grep -q '^Verdict witness (z3)$' <<<"$t" &&
  grep -q '^Observation IRIW+relaxed-gpu Sometimes 1 0$' <<<"$t" || fail "witness text: $t"
t=$("$bin" run --verdict --engine z3 "$src/litmus/classic/IRIW+fence.sc-gpu.litmus")
grep -q '^States 0$' <<<"$t" &&
  grep -q '^Verdict proof: one solver query per path (z3)$' <<<"$t" &&
  grep -q '^Observation IRIW+fence.sc-gpu Never 0 0$' <<<"$t" || fail "proof text: $t"
# Where it is not offered, a usage error says so.
"$bin" run --verdict --dot "$tmp/d" "$src/litmus/classic" >/dev/null 2>&1
[ $? -eq 2 ] || fail "--verdict --dot must be a usage error"
"$bin" xval --verdict "$src/litmus/classic" >/dev/null 2>&1
[ $? -eq 2 ] || fail "xval --verdict must be a usage error"
# report --matrix refuses a verdict-only forall result with a violating
# witness: it does not say whether any outcome satisfies the proposition.
printf '%s\n' 'PTX fa' 'Cell=place=a' '{ x=0; y=0; }' ' P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;' \
  ' st.relaxed.gpu x, 1 | ld.relaxed.gpu r0, y ;' ' st.relaxed.gpu y, 1 | ld.relaxed.gpu r1, x ;' \
  'forall (P1:r0 == 0 \/ P1:r1 == 1)' > "$tmp/fa.litmus"
"$bin" run --verdict --format json "$tmp/fa.litmus" > "$tmp/fa.json"
"$bin" report --matrix '' place "$tmp/fa.json" 2>&1 | grep -q 'verdict-only forall result' ||
  fail "report --matrix must refuse a verdict-only forall witness"
echo "PASS: --verdict agrees with the full runs"
