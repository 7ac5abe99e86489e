#!/usr/bin/env bash
# `redscope gen cycle` (docs/cycles.md):
# 1. regenerates the classic shapes of litmus/classic from the cycles of
#    tests/gen_cycle_classic.txt and requires each generated test's outcome
#    set (redscope run --format json) to equal the hand-written test's, up to
#    renaming threads, registers, locations and each observable's non-zero
#    values (2+2W writes 1 then 2 by hand, 2 then 1 by diy's rule);
# 2. `--size 4` over the default vocabulary gives MP, SB, LB, 2+2W, S and R
#    (diy7's default mode drops one-location cycles: CoRR comes with --mode
#    uni), the same files twice, each test with its Cycle=/Generator= lines,
#    and every one runs; its MP, SB, LB, CoRR (and, with --sem relaxed.gpu,
#    2+2W) have the outcome sets of litmus/classic's weak and relaxed-gpu
#    tests; `--size 6` adds WRC, ISA2 and IRIW (not run); over diy7's
#    classic edges (Pod**, Rfe, Fre, Coe) sizes 4, 5, 6 give diy7 7.58's 6, 12
#    and 26 tests, and the Cycle= lines of herdtools7's catalogue (R, S, WWC:
#    catalogue/aarch64/tests, x86_64/tests, Wse spelled Coe);
# 3. `--lang cuda`: the CUDA tests of `--size 6` (287, through nvcc) give
#    their PTX twins' outcome sets at relaxed.sys and relaxed.gpu (nvcc's
#    mapping of atomic_ref and atomic_thread_fence is exact, docs/cuda.md);
#    with plain (weak) accesses, the same sets wherever no thread accesses one
#    location twice, and a subset where one does (nvcc drops a store a later
#    one overwrites, forwards a store to a load, merges two loads);
# 4. bad cycles and command lines exit 2 naming the edge; --help exits 0.
set -uo pipefail
bin=$1; src=$2; dir=$3/cli_gen_cycle
rm -rf "$dir"; mkdir -p "$dir/gen" "$dir/hand"
fail() { echo "FAIL: $*"; exit 1; }
trim() { local s=$1; s=${s#"${s%%[![:space:]]*}"}; printf '%s' "${s%"${s##*[![:space:]]}"}"; }

# 1. The classic shapes.
n=0
while IFS='|' read -r file opts cycle; do
  file=$(trim "$file"); opts=$(trim "${opts:-}"); cycle=$(trim "${cycle:-}")
  [[ -z "$file" || "$file" == \#* ]] && continue
  # shellcheck disable=SC2086  # OPTIONS are words
  "$bin" gen cycle $opts "$cycle" > "$dir/gen/$file" 2> "$dir/err" ||
    fail "gen cycle $opts '$cycle' (for $file): $(cat "$dir/err")"
  cp "$src/litmus/classic/$file" "$dir/hand/$file" || fail "no litmus/classic/$file"
  n=$((n + 1))
done < "$src/tests/gen_cycle_classic.txt"
[[ $n -ge 60 ]] || fail "only $n rows in tests/gen_cycle_classic.txt"
"$bin" run -q --format json "$dir/hand" > "$dir/hand.json" || fail "run on the hand-written tests"
"$bin" run -q --format json "$dir/gen" > "$dir/gen.json" || fail "run on the generated tests"
# compare.py HAND.json GEN.json: every hand-written test's outcome set equals
# the generated test's of the same file name, up to renaming.
cat > "$dir/compare.py" <<'PY'
import itertools, json, os, sys

def load(path):
    return {os.path.basename(r["file"]): r for r in json.load(open(path))}

def split(key):  # "P1:r0" -> ("1", "r0"); "x" -> (None, "x")
    return tuple(key[1:].split(":", 1)) if ":" in key and key.startswith("P") else (None, key)

def key_maps(ka, kb):
    """Bijections ka -> kb that keep registers registers, locations locations,
    and map the registers of one thread to the registers of one thread."""
    for perm in itertools.permutations(kb):
        m, threads, ok = dict(zip(ka, perm)), {}, True
        for a, b in m.items():
            (ta, _), (tb, _) = split(a), split(b)
            if (ta is None) != (tb is None) or threads.setdefault(ta, tb) != tb:
                ok = False
                break
        if ok and len(set(threads.values())) == len(threads):
            yield m

def value_maps(values_a, values_b):
    """Per key, bijections of the non-zero values (0 is the initial value)."""
    a, b = sorted(v for v in values_a if v != "0"), sorted(v for v in values_b if v != "0")
    if len(a) != len(b) or ("0" in values_a) != ("0" in values_b):
        return []
    return [dict(zip(a, p), **{"0": "0"}) for p in itertools.permutations(b)]

def equal_up_to_renaming(oa, ob):
    if len(oa) != len(ob) or not oa:
        return len(oa) == len(ob)
    ka, kb = sorted(oa[0]), sorted(ob[0])
    if len(ka) != len(kb):
        return False
    target = {tuple(sorted(o.items())) for o in ob}
    for m in key_maps(ka, kb):
        choices = [value_maps({o[k] for o in oa}, {o[m[k]] for o in ob}) for k in ka]
        for vm in itertools.product(*choices):
            renamed = {tuple(sorted((m[k], vm[i][o[k]]) for i, k in enumerate(ka)))
                       for o in oa}
            if renamed == target:
                return True
    return False

hand, gen = load(sys.argv[1]), load(sys.argv[2])
# The comparison tells shapes apart: MP (release/acquire) is not MP+weak.
if "MP+weak.litmus" in gen and "MP.litmus" in hand:
    assert not equal_up_to_renaming(hand["MP.litmus"]["outcomes"],
                                    gen["MP+weak.litmus"]["outcomes"])
    assert not equal_up_to_renaming(hand["SB+fence.sc-gpu.litmus"]["outcomes"],
                                    gen["SB.litmus"]["outcomes"])
bad = 0
for f in sorted(hand):
    h, g = hand[f], gen.get(f)
    if g is None or h.get("error") or g.get("error"):
        print(f"{f}: missing or error: {g and g.get('error')} / {h.get('error')}")
        bad += 1
    elif not equal_up_to_renaming(h["outcomes"], g["outcomes"]):
        print(f"{f}: hand {h['outcomes']}\n  generated {g['outcomes']}")
        bad += 1
    elif h["condition"]["holds"] != g["condition"]["holds"]:
        print(f"{f}: condition holds {h['condition']['holds']} by hand, "
              f"{g['condition']['holds']} generated")
        bad += 1
print(f"{len(hand) - bad} of {len(hand)} classic tests regenerated with equal outcome sets")
sys.exit(1 if bad else 0)
PY
python3 "$dir/compare.py" "$dir/hand.json" "$dir/gen.json" || fail "outcome sets differ (above)"

# 2. Enumeration.
"$bin" gen cycle --size 4 --out "$dir/s4" > "$dir/s4.txt" || fail "--size 4"
"$bin" gen cycle --size 4 --out "$dir/s4-again" -q || fail "--size 4 again"
diff -r "$dir/s4" "$dir/s4-again" > /dev/null || fail "--size 4 differs between two runs"
for shape in MP SB LB 2+2W S R; do
  [[ -f "$dir/s4/$shape.litmus" ]] || fail "--size 4 has no $shape: $(ls "$dir/s4")"
done
[[ ! -e "$dir/s4/CoRR.litmus" ]] || fail "--size 4 (diy7's default mode) has CoRR"
"$bin" gen cycle --size 4 --mode uni --out "$dir/u4" -q || fail "--size 4 --mode uni"
"$bin" gen cycle --size 4 --mode uni --sem relaxed.gpu --out "$dir/u4-rlx" -q || fail "uni rlx"
count=$(ls "$dir/s4" | wc -l)
# diy7 7.58 -arch LISA -safe PodWW,PodWR,PodRW,PodRR,Rfe,Fre,Coe -size N.
classic="PodWW,PodWR,PodRW,PodRR,Rfe,Fre,Coe"
for want in 4:6 5:12 6:26; do
  "$bin" gen cycle --size "${want%:*}" --safe "$classic" --out "$dir/d${want%:*}" > "$dir/d.txt" ||
    fail "--size ${want%:*} --safe"
  grep -q "^${want#*:} tests in " "$dir/d.txt" || fail "diy7 makes ${want#*:}: $(cat "$dir/d.txt")"
done
"$bin" gen cycle --size 6 --keep-com-pairs --obs local --edges "$classic" --out "$dir/k6" \
  > "$dir/d.txt" ||
  fail "--keep-com-pairs"
grep -q "^71 tests in " "$dir/d.txt" || fail "--keep-com-pairs: $(cat "$dir/d.txt")"
grep -q '^Cycle=Fre PodWW Coe PodWR$' "$dir/d4/R.litmus" || fail "R's Cycle= line"
grep -q '^Cycle=Rfe PodRW Coe PodWW$' "$dir/d4/S.litmus" || fail "S's Cycle= line"
grep -q '^Cycle=Rfe PodRW Rfe PodRW Coe$' "$dir/d5/WWC.litmus" || fail "WWC's Cycle= line"
grep -q "^$count tests in " "$dir/s4.txt" || fail "summary: $(cat "$dir/s4.txt")"
for f in "$dir"/s4/*.litmus; do
  grep -q '^Cycle=' "$f" && grep -q '^Generator=redscope gen cycle$' "$f" || fail "metadata of $f"
done
grep -q '^Cycle=Rfe PodRR Fre PodWW$' "$dir/s4/MP.litmus" || fail "MP's Cycle= line"
"$bin" run -q --format json "$dir/s4" > "$dir/s4.json" || fail "run on --size 4's tests"
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); \
assert len(r) == $count and not any(x['error'] for x in r), r" "$dir/s4.json" ||
  fail "--size 4's tests do not all run"
start=$(date +%s%N)
"$bin" gen cycle --size 6 --out "$dir/s6" -q || fail "--size 6"
ms=$(( ($(date +%s%N) - start) / 1000000 ))
[[ $ms -lt 5000 ]] || fail "--size 6 took $ms ms"
for shape in IRIW WRC ISA2 MP; do
  [[ -f "$dir/s6/$shape.litmus" ]] || fail "--size 6 has no $shape"
done
[[ ! -e "$dir/s4/IRIW.litmus" ]] || fail "IRIW needs six edges"
# The classic shapes --size 4 makes (weak, and with --sem relaxed.gpu) have
# litmus/classic's outcome sets.
"$bin" gen cycle --size 4 --sem relaxed.gpu --out "$dir/s4-rlx" -q || fail "--size 4 --sem"
mkdir -p "$dir/s4-hand" "$dir/s4-gen"
while read -r hand made; do
  cp "$src/litmus/classic/$hand" "$dir/s4-hand/$hand" && cp "$dir/$made" "$dir/s4-gen/$hand" ||
    fail "no $made for $hand"
done <<'PAIRS'
MP+weak.litmus s4/MP.litmus
SB.litmus s4/SB.litmus
LB.litmus s4/LB.litmus
CoRR+weak.litmus u4/CoRR.litmus
MP+relaxed-gpu.litmus s4-rlx/MP+rlx.gpu.litmus
SB+relaxed-gpu.litmus s4-rlx/SB+rlx.gpu.litmus
LB+relaxed-gpu.litmus s4-rlx/LB+rlx.gpu.litmus
2+2W+relaxed-gpu.litmus s4-rlx/2+2W+rlx.gpu.litmus
CoRR+relaxed-gpu.litmus u4-rlx/CoRR+rlx.gpu.litmus
PAIRS
"$bin" run -q --format json "$dir/s4-hand" > "$dir/s4-hand.json" || fail "run s4-hand"
"$bin" run -q --format json "$dir/s4-gen" > "$dir/s4-gen.json" || fail "run s4-gen"
python3 "$dir/compare.py" "$dir/s4-hand.json" "$dir/s4-gen.json" ||
  fail "--size 4's classic shapes differ from litmus/classic (above)"
"$bin" gen cycle --size 4 --relax Fence.sc.gpu --out "$dir/relax" -q || fail "--relax"
[[ -f "$dir/relax/SB+fence.sc.gpus.litmus" && ! -e "$dir/relax/SB.litmus" ]] ||
  fail "--relax Fence.sc.gpu: $(ls "$dir/relax")"

# 3. CUDA twins.
cat > "$dir/twins.py" <<'PY'
import json, sys
cuda = {r["test"]: r for r in json.load(open(sys.argv[1]))}
ptx = {r["test"]: r for r in json.load(open(sys.argv[2]))}
weak = sys.argv[3] == "weak"
bad = 0
for name, p in sorted(ptx.items()):
    c = cuda.get(name)
    if c is None or c["error"]:
        print(f"{name}: no CUDA twin or an error: {c and c['error']}"); bad += 1; continue
    cs = {json.dumps(o, sort_keys=True) for o in c["outcomes"]}
    ps = {json.dumps(o, sort_keys=True) for o in p["outcomes"]}
    one_loc_twice = "pos" in name.split("+", 1)[-1]
    if cs == ps or (weak and one_loc_twice and cs < ps):
        continue
    print(f"{name}: CUDA {len(cs)} outcomes, PTX {len(ps)}"); bad += 1
print(f"{len(ptx) - bad} of {len(ptx)} CUDA tests as their PTX twins ({sys.argv[3]})")
sys.exit(1 if bad else 0)
PY
for sem in relaxed.sys relaxed.gpu weak; do
  "$bin" gen cycle --size 6 --lang cuda --sem "$sem" --out "$dir/cuda-$sem" -q || fail "cuda $sem"
  "$bin" gen cycle --size 6 --sem "$sem" --out "$dir/ptx-$sem" -q || fail "ptx $sem"
  "$bin" run -q --format json "$dir/cuda-$sem" > "$dir/cuda-$sem.json" || fail "run cuda $sem"
  "$bin" run -q --format json "$dir/ptx-$sem" > "$dir/ptx-$sem.json" || fail "run ptx $sem"
  python3 "$dir/twins.py" "$dir/cuda-$sem.json" "$dir/ptx-$sem.json" "$sem" ||
    fail "CUDA tests differ from their PTX twins ($sem, above)"
done
# Annotated words, fences, exchanges, placements; and shared memory.
words="Rfe,Fre,Coe,Rfe@cta,Fre@sys,PodWW[relaxed.gpu,release.gpu],PodRR[acquire.gpu,relaxed.gpu]"
words+=",PodWR[relaxed.sys],PodRW[relaxed.cta],Fence.sc.sys,Fence.acq_rel.cta,Rmw[acq_rel.gpu]"
words+=",PosWR[relaxed.gpu]"
for opts in "--edges $words --sem relaxed.sys" "--sem relaxed.cta --space shared --placement cta"
do
  # shellcheck disable=SC2086  # options are words
  "$bin" gen cycle --size 5 $opts --lang cuda --out "$dir/cuda-more" -q || fail "cuda $opts"
  # shellcheck disable=SC2086
  "$bin" gen cycle --size 5 $opts --out "$dir/ptx-more" -q || fail "ptx $opts"
  "$bin" run -q --format json "$dir/cuda-more" > "$dir/cuda-more.json" || fail "run cuda $opts"
  "$bin" run -q --format json "$dir/ptx-more" > "$dir/ptx-more.json" || fail "run ptx $opts"
  python3 "$dir/twins.py" "$dir/cuda-more.json" "$dir/ptx-more.json" "$opts" ||
    fail "CUDA tests differ from their PTX twins ($opts, above)"
  rm -rf "$dir/cuda-more" "$dir/ptx-more"
done
grep -q '^CUDA MP+rlx.sys$' "$dir/cuda-relaxed.sys/MP+rlx.sys.litmus" || fail "CUDA header"
grep -q '^Options=--sem relaxed.sys --lang cuda$' "$dir/cuda-relaxed.sys/MP+rlx.sys.litmus" ||
  fail "CUDA Options= line"

# 4. Errors and usage.
expect_error() {  # pattern args...
  local pattern=$1; shift
  "$bin" gen cycle "$@" > "$dir/out" 2> "$dir/err"
  local rc=$?
  [[ $rc -eq 2 ]] || fail "gen cycle $* exited $rc, not 2"
  grep -q -- "$pattern" "$dir/err" || fail "gen cycle $*: no '$pattern' in: $(cat "$dir/err")"
}
expect_error "cycle 1:1:7: error: edge 2 'PodXR'" "PodWW PodXR Fre"
expect_error "edge 1 'PodWW': starts at a write but edge 2 'Rfe' ends at a read" "PodWW Rfe"
expect_error "edge 3 'DpAddrdR': has no CUDA form: a dependency" --lang cuda "PodWW Rfe DpAddrdR Fre"
expect_error "cycle 2:1:21: error: edge 4 'Rfe@moon'" "PodWR Fre PodWR Fre" \
  "PodWW Rfe PodRR Rfe@moon" --out "$dir/bad"
expect_error "several tests need --out" "PodWR Fre PodWR Fre" "PodRW Rfe PodRW Rfe"
expect_error "needs a CYCLE" --sem relaxed.gpu
expect_error "edges:1:6: error: edge 2 'PodQQ'" --size 4 --edges "Rfe, PodQQ" --out "$dir/bad"
expect_error "unknown option" --frobnicate "PodWR Fre PodWR Fre"
expect_error "safe:1:6: error: edge 2 'PodQQ'" --size 4 --safe "Rfe, PodQQ" --out "$dir/bad"
expect_error "--mode is default, sc, critical" --size 4 --mode sloppy --out "$dir/bad"
expect_error "shape --size's enumeration" --mode uni "PodWR Fre PodWR Fre"
expect_error "--ins takes a whole number from 1 to 128" --size 4 --ins 0 --out "$dir/bad"
expect_error "ppo or transitive, not 'sloppy'" --size 4 --mode sloppy --out "$dir/bad"
expect_error "give --relax" --size 4 --mix --out "$dir/bad"
expect_error "need --mix" --size 4 --relax PodWR --maxrelax 2 --out "$dir/bad"
# diy's -mix true: cycles using both relaxations come in besides (18 + 2).
mixv=(--size 6 --safe Rfe,Fre,Coe,PodWW,PodRR --relax PodWR,PodRW)
"$bin" gen cycle "${mixv[@]}" --out "$dir/m1" > "$dir/d.txt" || fail "--relax"
grep -q "^18 tests in " "$dir/d.txt" || fail "--relax: $(cat "$dir/d.txt")"
"$bin" gen cycle "${mixv[@]}" --mix --minrelax 2 --out "$dir/m2" > "$dir/d.txt" || fail "--mix"
grep -q "^2 tests in " "$dir/d.txt" || fail "--mix --minrelax 2: $(cat "$dir/d.txt")"
# diy7's own spellings (one dash; -mix takes a boolean) mean the same.
"$bin" gen cycle -size 6 -safe Rfe,Fre,Coe,PodWW,PodRR -relax PodWR,PodRW -mix true \
  -minrelax 2 --out "$dir/m3" > "$dir/d.txt" || fail "diy's spellings"
grep -q "^2 tests in " "$dir/d.txt" || fail "-mix true -minrelax 2: $(cat "$dir/d.txt")"
expect_error "-mix takes true or false" -size 4 -mix maybe --out "$dir/bad"
expect_error "edge 2 'DpDatadW': has no CUDA form: a dependency" --lang cuda "Rfe DpDatadW Rfe PodRW"
expect_error "has no CUDA form: a cluster scope" --lang cuda "PodWR[relaxed.cluster] Fre PodWR Fre"
expect_error "--lang is ptx or cuda" --lang c "PodWR Fre PodWR Fre"
# diy7's -obs: three writes to x (P1's two and P0's); avoid (the default)
# makes no test, accept adds an observer loading x three times.
three="Coe PodWW Coe PodWW PosWW"
expect_error "x has 3 writes, whose coherence order its final value cannot show" "$three"
expect_error "--obs is avoid, accept, force or local" --obs maybe "$three"
"$bin" gen cycle --obs accept "$three" > "$dir/obs.litmus" || fail "--obs accept"
grep -q '^exists (x == 3 /\\ P2:r0 == 1 /\\ P2:r1 == 2 /\\ P2:r2 == 3 /\\ y == 2)$' \
  "$dir/obs.litmus" || fail "--obs accept: $(cat "$dir/obs.litmus")"
# Its CUDA twin (relaxed: nvcc merges plain loads of one location).
"$bin" gen cycle --obs accept --sem relaxed.gpu "$three" > "$dir/obs-rlx.litmus" || fail "obs rlx"
"$bin" gen cycle --obs accept --sem relaxed.gpu --lang cuda "$three" > "$dir/obs-cuda.litmus" ||
  fail "--obs accept --lang cuda"
"$bin" run -q --format json "$dir/obs-rlx.litmus" "$dir/obs-cuda.litmus" > "$dir/obs.json" ||
  fail "run the observed tests"
python3 - "$dir/obs.json" <<'PY' || fail "the observed test and its CUDA twin differ"
import json, sys
a, b = json.load(open(sys.argv[1]))
assert not a["error"] and not b["error"], (a["error"], b["error"])
assert sorted(map(str, a["outcomes"])) == sorted(map(str, b["outcomes"]))
PY
expect_error "in shared memory" "PodWR[,shared] Fre PodWR Fre"
# (to a file: grep -q leaves a pipe at its first match, and a help text over
# one stdio buffer then ends in SIGPIPE, which pipefail counts as a failure)
"$bin" gen cycle --help > "$dir/help.txt" || fail "--help exits $?"
grep -q -- "--size N" "$dir/help.txt" || fail "--help"
"$bin" gen cycle --out "$dir/two" "PodWR Fre PodWR Fre" "PodWR Fre PodWR Fre" "Rfe PosRR Fre" \
  > "$dir/two.txt" || fail "two cycles with --out"
[[ -f "$dir/two/SB.litmus" && -f "$dir/two/CoRR.litmus" ]] || fail "--out files: $(ls "$dir/two")"
grep -q "2 tests in .*(1 duplicate cycles skipped: cycle 2 is cycle 1.s test)" "$dir/two.txt" || fail "$(cat "$dir/two.txt")"
echo "PASS: $n classic tests regenerated; --size 4: $count tests; --size 6: $ms ms"
