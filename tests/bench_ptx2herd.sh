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

"$bench" --only abjk --emit-only "$dir/fam" >/dev/null || fail "redscope_bench --emit-only"
files=("$dir"/fam/*.litmus)
[ ${#files[@]} -ge 30 ] || fail "the benchmark wrote ${#files[@]} tests"
while IFS= read -r f; do files+=("$f"); done < <(find "$root/litmus" -name '*.litmus' | sort)

declared='^(r\[(weak|(rlx|acq),(cta|gpu|sys))\]|w\[(weak|(rlx|rel),(cta|gpu|sys))\]|rmw\[(rlx|acq|rel|acq_rel),(cta|gpu|sys)\]|f\[(sc|acq_rel),(cta|gpu|sys)\])'
converted=0 refused=0
for f in "${files[@]}"; do
  head -1 "$f" | grep -q '^PTX ' || continue
  out="$dir/out/$(printf '%s' "${f#"$root"/}" | tr / _)"
  if python3 "$conv" "$f" >"$out" 2>"$out.err"; then
    converted=$((converted + 1))
    head -1 "$out" | grep -q '^LISA ' || fail "$f: no LISA header"
    threads=$(grep -c '@cta' <<<"$(sed -n '/^ P0@/p' "$f" | tr '|' '\n')")
    [ "$(grep -o '(cta [^()]*)' "$out" | grep -o 'P[0-9]*' | wc -l)" = "$threads" ] ||
      fail "$f: the scope tree does not place its $threads threads"
    # Every instruction cell carries a declared annotation.
    sed -n '/^ P0 /,/^scopes:/p' "$out" | sed '1d;$d' | tr '|;' '\n\n' | sed 's/^ *//;s/ *$//' |
      grep -v '^$' | grep -Ev "$declared" | grep -q . && fail "$f: an undeclared annotation"
  else
    rc=$?
    [ "$rc" = 2 ] || fail "$f: exit $rc"
    grep -q 'ptx2herd: ' "$out.err" || fail "$f: refused without a reason"
    [ -s "$out" ] && fail "$f: refused but wrote a test"
    refused=$((refused + 1))
  fi
done
[ "$converted" -ge 60 ] || fail "only $converted tests converted"
echo "converted $converted, refused $refused"

# The message-passing test, line by line.
python3 "$conv" "$root/litmus/classic/MP.litmus" >"$dir/mp" || fail "MP"
grep -qx ' w\[weak\] x 1    | r\[acq,gpu\] r0 y ;' "$dir/mp" || fail "MP row 1: $(cat "$dir/mp")"
grep -qx 'scopes: (sys (gpu (cta P0) (cta P1)))' "$dir/mp" || fail "MP scopes"
grep -qx '(1:r0 = 1 /\\ 1:r1 = 0)' "$dir/mp" || fail "MP condition"

if command -v herd7 >/dev/null; then
  # litmus/ only: the families' large sizes are bench/compare-herd.sh's.
  for src in $(find "$root/litmus" -name '*.litmus' | sort); do
    out="$dir/out/$(printf '%s' "${src#"$root"/}" | tr / _)"
    [ -s "$out" ] || continue
    h=$(timeout 60 herd7 -I "$root/bench/herd" -bell "$root/bench/herd/ptx.bell" \
        -model "$root/bench/herd/ptx.cat" "$out" 2>&1 | sed -n 's/^States //p')
    [ -z "$h" ] && continue  # herd7 timed out: too big for it
    r=$("$bin" run -q -v "$src" 2>&1 | sed -n 's/.*: \([0-9]*\) outcome(s).*/\1/p')
    [ "$h" = "$r" ] || fail "$src: herd7 lists $h outcomes, redscope $r"
  done
  echo "herd7 agrees"
fi
echo "ptx2herd: ok"
