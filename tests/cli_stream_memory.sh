#!/usr/bin/env bash
# Streaming (docs/cli.md "Memory: results stream"): a run's peak resident
# size does not grow with the number of tests beyond their list of paths.
# 300 and 3,000 copies of a trivial test (--engine enum, -j2, --format jsonl
# so that every result is rendered): the peak grows by less than 8 MiB
# (before streaming it grew by 13 KiB a test: 37 MiB here). The peak is
# read with getrusage(RUSAGE_CHILDREN) from python3.
set -uo pipefail
bin=$1; dir=$2/cli_stream_memory
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
rm -rf "$dir"; mkdir -p "$dir"
fail() { echo "FAIL: $*"; exit 1; }
# Writes $2 tests into folder $1 with shell builtins only (no process a file).
make_tests() {
  local i sub
  for ((i = 0; i < $2; i++)); do
    sub=$1/d$((i / 500))
    [ -d "$sub" ] || mkdir -p "$sub"
    printf 'PTX MP-%s\n{ x=0; y=0; }\n' "$i" > "$sub/MP-$i.litmus"
    printf ' P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n' >> "$sub/MP-$i.litmus"
    printf ' st.weak x, 1 | ld.weak r0, y ;\n st.weak y, %s | ld.weak r1, x ;\n' \
      $((i % 7 + 1)) >> "$sub/MP-$i.litmus"
    printf 'exists (P1:r0 == %s /\\ P1:r1 == 0)\n' $((i % 7 + 1)) >> "$sub/MP-$i.litmus"
  done
}
make_tests "$dir/small" 300
make_tests "$dir/large" 3000
# Prints the peak resident size (KiB) of "$@" with stdout in $dir/out.
peak_kib() {
  python3 - "$dir/out" "$@" <<'EOF'
import resource, subprocess, sys
with open(sys.argv[1], "wb") as out:
    rc = subprocess.run(sys.argv[2:], stdout=out).returncode
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss if rc == 0 else -1)
EOF
}
for size in small large; do
  kib=$(peak_kib "$bin" run --engine enum -j2 --format jsonl "$dir/$size")
  [ "$kib" -gt 0 ] || fail "run over $size exited non-zero"
  n=$(grep -c '"holds": true' "$dir/out")
  want=$([ $size = small ] && echo 300 || echo 3000)
  [ "$n" = "$want" ] || fail "$size: $n tests hold, expected $want"
  eval "${size}_kib=$kib"
done
grow=$((large_kib - small_kib))
echo "peak resident size: 300 tests ${small_kib} KiB, 3000 tests ${large_kib} KiB (+${grow} KiB)"
[ "$grow" -lt 8192 ] || fail "peak memory grew by ${grow} KiB from 300 to 3000 tests"
