#!/usr/bin/env bash
# `redscope gen matrix SPEC --out DIR` (docs/matrix-spec.md, docs/cli.md): the
# shipped example generates the cells the PTX ISA allows, each a test that
# parses and runs, named and tagged by its labels; the skip counts are exact;
# the folder holds only the spec's cells; errors are located in the spec and
# leave the folder as it was; a 1024-cell spec streams out.
set -uo pipefail
bin=$1; src=$2; dir=$3/cli_gen_matrix
rm -rf "$dir"; mkdir -p "$dir"
fail() { echo "FAIL: $*"; exit 1; }
# gen CODE ARGS...: runs `redscope gen matrix ARGS...` (stdout in $dir/out,
# stderr in $dir/err) and fails unless it exits with CODE.
gen() {
  local code=$1; shift
  "$bin" gen matrix "$@" > "$dir/out" 2> "$dir/err"
  local got=$?
  [ $got -eq "$code" ] || fail "gen matrix $* exited $got, not $code: $(head -3 "$dir/err")"
}
spec=$src/litmus/matrix/mp-scopes.toml

# --help, usage errors.
# (to a file: grep -q closes the pipe at its first match, and a help text
# past one stdio buffer would then end in SIGPIPE)
"$bin" gen matrix --help > "$dir/help.txt" || fail "--help exits $?"
grep -q -- "--max-file-size MB" "$dir/help.txt" || fail "--help"
gen 2 "$spec"
gen 2 "$spec" --out "$dir/x" --frob

# The example: 4 rel x 4 acq x 4 placements x 2 targets = 128 cells. At sm_70
# (PTX ISA §2.2.2: a cluster of several CTAs needs sm_90) the 1cluster
# placement is rejected first, whatever the scopes: 4 x 4 = 16 cells. At sm_70
# in the three other placements, ld/st's .cluster scope (PTX ISA §9.7.9.8 ld,
# §9.7.9.9 st: .cluster needs sm_90) rejects every cell whose rel or acq is
# cluster: 4 + 4 - 1 = 7 scope pairs x 3 = 21 cells. 128 - 37 = 91 written.
out=$dir/mp
gen 0 "$spec" --out "$out" -q
cp "$dir/out" "$dir/mp.txt"; cp "$dir/err" "$dir/mp.err"
expected="128 cells: 91 written to $out, 37 skipped:
  21   ld/st's .cluster scope needs sm_90 or later (PTX ISA §9.7.9.8 ld and §9.7.9.9 st, Target ISA notes)
  16   a cluster shared by CTAs (placement \`cluster N\`) needs sm_90 or later (PTX ISA §2.2.2 Cluster of Cooperative Thread Arrays; %clusterid, Target ISA notes)"
[ "$(cat "$dir/mp.txt")" = "$expected" ] || fail "example summary: $(cat "$dir/mp.txt")"
[ "$(ls "$out" | wc -l)" -eq 91 ] || fail "example: $(ls "$out" | wc -l) files, not 91"
[ ! -s "$dir/mp.err" ] || fail "example wrote to stderr: $(cat "$dir/mp.err")"
# Names encode cells: the stem is mp+LABEL+... in the order of the Cell= line.
for f in "$out"/*.litmus; do
  cell=$(sed -n 's/^Cell=//p' "$f")
  name=mp+$(echo "$cell" | sed 's/[^=,]*=//g; s/,/+/g')
  [ "$(basename "$f" .litmus)" = "$name" ] || fail "$f: name does not encode Cell=$cell"
  [ "$(sed -n 1p "$f")" = "PTX $name" ] || fail "$f: first line"
  grep -qx "Matrix=mp" "$f" && grep -qx "Generator=redscope gen matrix" "$f" || fail "$f: metadata"
done
[ -f "$out/mp+cta+gpu+2cta+sm_90.litmus" ] || fail "mp+cta+gpu+2cta+sm_90 missing"
[ ! -e "$out/mp+cluster+gpu+2cta+sm_70.litmus" ] || fail "an ISA-forbidden cell was written"
# Every written file parses and runs.
"$bin" run -q "$out" > "$dir/run.txt" 2>&1 || fail "run -q over the cells: $(head "$dir/run.txt")"
"$bin" run "$out/mp+cta+gpu+2cta+sm_90.litmus" |
  grep -q "Observation mp+cta+gpu+2cta+sm_90 Sometimes" ||
  fail "a release.cta across CTAs must let MP's stale read through"

# The docs' examples are the shipped specs, with their output as printed.
doc=$src/docs/matrix-spec.md
awk '/^```toml$/ {n++; on=1; next} /^```$/ {on=0} on {print > (d "/doc" n ".toml")}' d="$dir" "$doc"
cmp -s "$dir/doc1.toml" "$spec" || fail "docs/matrix-spec.md's first example differs from $spec"
cmp -s "$dir/doc2.toml" "$src/litmus/matrix/red-vector.toml" || fail "docs' second example differs"
grep -qF "  21   ld/st's .cluster scope needs sm_90 or later" "$doc" || fail "docs: mp output"
"$bin" gen matrix "$src/litmus/matrix/red-vector.toml" --out "$dir/red-vector" > "$dir/rv.txt" ||
  fail "red-vector: $(cat "$dir/rv.txt")"
sed "s|$dir|/tmp|" "$dir/rv.txt" > "$dir/rv-shown.txt"
grep -qxF -f "$dir/rv-shown.txt" "$doc" || fail "docs: red-vector output: $(cat "$dir/rv.txt")"
[ "$(grep -cxF -f "$dir/rv-shown.txt" "$doc")" -eq 3 ] || fail "docs: red-vector output lines"
"$bin" run -q "$dir/red-vector" > "$dir/rv-run.txt" 2>&1 ||
  fail "red-vector cells: $(head "$dir/rv-run.txt")"

# The folder: rerun with fewer cells (sm_90 only) replaces the spec's cells.
sed 's/labels = \["sm_70", "sm_90"\]/labels = ["sm_90"]/' "$spec" > "$dir/mp90.toml"
"$bin" gen matrix "$dir/mp90.toml" --out "$out" -q > "$dir/mp90.txt" || fail "rerun"
grep -q "^64 cells: 64 written" "$dir/mp90.txt" || fail "rerun summary: $(cat "$dir/mp90.txt")"
[ "$(ls "$out" | wc -l)" -eq 64 ] || fail "rerun left $(ls "$out" | wc -l) files, not 64"
# A file that is not this spec's cell: refused, nothing changes.
cp "$src/litmus/classic/MP.litmus" "$out/"
gen 2 "$spec" --out "$out" -q
grep -q "holds MP.litmus, which is not a cell of matrix 'mp'" "$dir/err" || fail "foreign: $(cat "$dir/err")"
[ "$(ls -A "$out" | wc -l)" -eq 65 ] || fail "refusal changed the folder"
rm "$out/MP.litmus"

# A spec error: located in the spec (the label's text), exit 2, folder unchanged.
sed 's/"gpu", "sys"\]$/"gpu", "sys", "gpux"]/' "$spec" > "$dir/bad.toml"
n=$(grep -n '"gpux"' "$dir/bad.toml" | tail -1 | cut -d: -f1)  # acq's labels
gen 2 "$dir/bad.toml" --out "$out" -q
cell="cell mp+cta+gpux+1cta+sm_70 is not a litmus test"
grep -q "^$dir/bad.toml:$n:[0-9]*: error: $cell: .*unknown qualifier '.gpux'" "$dir/err" ||
  fail "bad spec message: $(cat "$dir/err")"
[ "$(ls -A "$out" | wc -l)" -eq 64 ] || fail "a spec error changed the folder"
printf 'name = "x"\ntemplate = 3\n' > "$dir/notmpl.toml"
gen 2 "$dir/notmpl.toml" --out "$dir/n"
grep -q "notmpl.toml:2:12: error: \`template\` is a string" "$dir/err" || fail "$(cat "$dir/err")"
# --max-file-size bounds the spec.
{ cat "$spec"; head -c 1100000 /dev/zero | tr '\0' '#'; echo; } > "$dir/huge.toml"
gen 2 "$dir/huge.toml" --out "$dir/h" --max-file-size 1
grep -q "huge.toml" "$dir/err" || fail "huge: $(cat "$dir/err")"

# Every cell forbidden: exit 1, nothing written.
sed 's/labels = \["sm_70", "sm_90"\]/labels = ["sm_70"]/
     s/^labels = \["cta", "cluster", "gpu", "sys"\]$/labels = ["cluster"]/' "$spec" > "$dir/none.toml"
gen 1 "$dir/none.toml" --out "$dir/none" -q
grep -q "^4 cells: 0 written" "$dir/out" && grep -q "forbids every cell" "$dir/err" ||
  fail "all skipped output"
[ -z "$(ls -A "$dir/none")" ] || fail "all skipped wrote files"

# 1024 cells: 4 scopes for each of four accesses x 2 placements x 2 targets.
# At sm_70, .cluster (PTX ISA §9.7.9.8 ld, §9.7.9.9 st: needs sm_90) rejects
# every cell with a cluster scope: of the 4^4 = 256 scope tuples, 3^4 = 81 have
# none, so 2 placements x (256 - 81) = 350 cells are skipped, 674 written.
cat > "$dir/big.toml" <<'EOF'
name = "big"
template = '''
PTX big
Target=${target}
{
global u32 x = 0;
global u32 y = 0;
}
 P0@${p0}                           | P1@${p1}                             ;
 st.relaxed.${a}.global.u32 [x], 1  | ld.acquire.${c}.global.u32 r0, [y]   ;
 st.release.${b}.global.u32 [y], 1  | ld.relaxed.${d}.global.u32 r1, [x]   ;
exists (P1:r0 == 1 /\ P1:r1 == 0)
'''
[[axis]]
name = "a"
labels = ["cta", "cluster", "gpu", "sys"]
[[axis]]
name = "b"
labels = ["cta", "cluster", "gpu", "sys"]
[[axis]]
name = "c"
labels = ["cta", "cluster", "gpu", "sys"]
[[axis]]
name = "d"
labels = ["cta", "cluster", "gpu", "sys"]
[[axis]]
name = "place"
labels = [
  { label = "2cta", fill = { p0 = "cta 0,gpu 0", p1 = "cta 1,gpu 0" } },
  { label = "2gpu", fill = { p0 = "cta 0,gpu 0", p1 = "cta 0,gpu 1" } },
]
[[axis]]
name = "target"
labels = ["sm_70", "sm_90"]
EOF
gen 0 "$dir/big.toml" --out "$dir/big" -q
grep -q "^1024 cells: 674 written to $dir/big, 350 skipped:" "$dir/out" || fail "big: $(cat "$dir/out")"
[ "$(ls "$dir/big" | wc -l)" -eq 674 ] || fail "big: $(ls "$dir/big" | wc -l) files"
echo "gen matrix: all checks passed"
