#!/usr/bin/env bash
# bench/ptx2herd.py (bench/compare-herd.sh's converter to herd7's LISA form):
# every benchmark family and every PTX test of litmus/ it can port converts to
# a well-formed LISA test (the same threads, one scope-tree entry per thread,
# annotations bench/herd/ptx.bell declares); what it cannot port is refused
# with exit 2 and a reason, never written half. With a herd7 on the PATH
# (herd7 is not a dependency) herd7 must also list as many outcomes as
# redscope on the converted litmus/ tests.
set -u
bin=$1 bench=$2 root=$3 work=$4
fail() { echo "FAIL: $*"; exit 1; }
dir="$work/ptx2herd"
rm -rf "$dir" && mkdir -p "$dir/fam" "$dir/out"
conv="$root/bench/ptx2herd.py"

"$bench" --only abjnkw --emit-only "$dir/fam" >/dev/null || fail "redscope_bench --emit-only"
files=("$dir"/fam/*.litmus)
[ ${#files[@]} -ge 30 ] || fail "the benchmark wrote ${#files[@]} tests"
while IFS= read -r f; do files+=("$f"); done < <(find "$root/litmus" -name '*.litmus' | sort)

# One converter process for every PTX test and one checker (a Python
# start-up can cost a second, and a few processes per file add up to a
# minute): each IN becomes out/NAME, or out/NAME.refused with the reason.
ptx=()
for f in "${files[@]}"; do IFS= read -r first <"$f"; [[ $first == PTX* ]] && ptx+=("$f"); done
python3 "$conv" --out-dir "$dir/out" "${ptx[@]}" 2>"$dir/conv.err"
rc=$?
[ "$rc" = 0 ] || [ "$rc" = 2 ] || fail "ptx2herd.py --out-dir: exit $rc: $(tail -3 "$dir/conv.err")"
python3 - "$root/bench" "$dir/out" "${ptx[@]}" <<'PY' || exit 1
import os, re, sys
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, sys.argv[1])
from ptx2herd import out_name  # the converter's own naming rule
out_dir, paths = sys.argv[2], sys.argv[3:]
# The annotations bench/herd/ptx.bell declares.
declared = re.compile(r"^(r\[(weak|(rlx|acq),(cta|gpu|sys))\]|w\[(weak|(rlx|rel),(cta|gpu|sys))\]"
                      r"|rmw\[(rlx|acq|rel|acq_rel),(cta|gpu|sys)\]|f\[(sc|acq_rel),(cta|gpu|sys)\])")
def fail(msg):
    print("FAIL:", msg); sys.exit(1)
converted = refused = 0
for src in paths:
    out = out_name(out_dir, src)
    if os.path.exists(out + ".refused"):
        if "ptx2herd: " not in open(out + ".refused").read(): fail(f"{src}: refused without a reason")
        if os.path.exists(out): fail(f"{src}: refused but wrote a test")
        refused += 1
        continue
    if not os.path.exists(out) or os.path.getsize(out) == 0: fail(f"{src}: neither converted nor refused")
    converted += 1
    text = open(out).read().split("\n")
    if not text[0].startswith("LISA "): fail(f"{src}: no LISA header")
    header = [l for l in open(src).read().split("\n") if l.startswith(" P0@")]
    threads = sum(c.count("@cta") for c in header)
    placed = sum(len(re.findall(r"P\d+", m)) for l in text for m in re.findall(r"\(cta [^()]*\)", l))
    if placed != threads: fail(f"{src}: the scope tree does not place its {threads} threads")
    # Every instruction cell carries a declared annotation.
    start = next(i for i, l in enumerate(text) if l.startswith(" P0 "))
    stop = next(i for i, l in enumerate(text) if l.startswith("scopes:"))
    for row in text[start + 1:stop]:
        for cell in re.split(r"[|;]", row):
            if cell.strip() and not declared.match(cell.strip()):
                fail(f"{src}: an undeclared annotation: {cell.strip()}")
if converted < 60: fail(f"only {converted} tests converted")
print(f"converted {converted}, refused {refused}")
PY

# The one-file form: a refusal is exit 2, a reason and no output.
first=$(ls "$dir"/out/*.refused | head -1)
one=$(sed 's/: ptx2herd: .*//' "$first")
python3 "$conv" "$one" >"$dir/one" 2>"$dir/one.err"
[ $? = 2 ] && [ ! -s "$dir/one" ] && grep -q 'ptx2herd: ' "$dir/one.err" || fail "$one: one-file refusal"

# The message-passing test, line by line.
python3 "$conv" "$root/litmus/classic/MP.litmus" >"$dir/mp" || fail "MP"
grep -qx ' w\[weak\] x 1    | r\[acq,gpu\] r0 y ;' "$dir/mp" || fail "MP row 1: $(cat "$dir/mp")"
grep -qx 'scopes: (sys (gpu (cta P0) (cta P1)))' "$dir/mp" || fail "MP scopes"
grep -qx '(1:r0 = 1 /\\ 1:r1 = 0)' "$dir/mp" || fail "MP condition"

if command -v herd7 >/dev/null; then
  # litmus/ only: the families' large sizes are bench/compare-herd.sh's.
  for src in $(find "$root/litmus" -name '*.litmus' | sort); do
    out="$dir/out/$(printf '%s' "$src" | tr / _ | sed 's/^_*//')"
    [ -s "$out" ] || continue
    h=$(timeout 60 herd7 -I "$root/bench/herd" -bell "$root/bench/herd/ptx.bell" \
        -model "$root/bench/herd/ptx.cat" "$out" 2>&1 | sed -n 's/^States //p')
    [ -z "$h" ] && continue  # herd7 timed out: too big for it
    r=$("$bin" run -q -v "$src" 2>&1 | sed -n 's/.*: \([0-9]*\) outcome(s).*/\1/p')
    # herd7's coherence orders are total: where racing weak writes may stay
    # unordered (PTX's co is partial, docs/model.md), it lists fewer.
    case "$(basename "$src" .litmus)" in
      CoRR+two-weak-writers-synced)
        [ "$h" -lt "$r" ] || fail "$src: herd7 lists $h outcomes, redscope $r (partial co)"
        continue ;;
    esac
    [ "$h" = "$r" ] || fail "$src: herd7 lists $h outcomes, redscope $r"
  done
  echo "herd7 agrees"
fi
echo "ptx2herd: ok"
