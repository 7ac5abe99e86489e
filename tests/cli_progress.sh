#!/usr/bin/env bash
# The progress line (docs/cli.md "The progress line"): on a terminal, run,
# xval, atomicity and report draw "[done/total] R tests/s, ETA T, N failed;
# checking TEST (S s)" on stderr; on a pipe, or with -q, nothing of it
# appears. The terminal is a pseudo-terminal from script(1) (util-linux).
# The run is a handful of quick tests and one test that keeps the solver busy
# until its --timeout (2 s), so the line (drawn once a run has taken a second)
# shows whatever the machine's speed.
set -uo pipefail
bin=$1; dir=$2/cli_progress
command -v script >/dev/null || { echo "SKIP: no script(1)"; exit 77; }
rm -rf "$dir"; mkdir -p "$dir/tests"
fail() { echo "FAIL: $*"; exit 1; }
add() {  # scope register: one thread's cell
  printf ' atom.relaxed.%s.global.add.u32 r%s, [x], 1 ' "$1" "$2"
}
for i in 01 02 03 04 05 06 07 08; do
  { printf 'PTX quick-%s\n{ global u32 x = 0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n' "$i"
    echo "$(add gpu 0)|$(add gpu 0);"
    echo 'exists (x == 1)'; } > "$dir/tests/a-quick-$i.litmus"
done
# Eight threads adding three times each to one location: 24 RMWs whose
# orders keep every engine and analysis busy far past --timeout.
{
  printf 'PTX z-slow\n{ global u32 x = 0; }\n'
  for t in 0 1 2 3 4 5 6; do printf ' P%s@cta %s,gpu 0 |' $t $t; done
  echo ' P7@cta 7,gpu 0 ;'
  for k in 0 1 2; do
    row=
    for t in 0 1 2 3 4 5 6 7; do
      row+=$(add "$([ $(((t + k) % 2)) = 1 ] && echo cta || echo gpu)" $k)
      row+=$([ $t = 7 ] && echo ';' || echo '|')
    done
    echo "$row"
  done
  echo 'exists (x == 1)'
} > "$dir/tests/z-slow.litmus"
opts=(-j1 --timeout 2)

# Runs "$@" with stderr on a pseudo-terminal and stdout in $dir/out; the
# terminal's bytes go to $dir/tty.
on_tty() {
  local cmd out
  printf -v cmd '%q ' "$@"
  printf -v out '%q' "$dir/out"
  script -q -e -c "$cmd >$out" "$dir/tty" >/dev/null 2>&1 </dev/null
}
progress_like() { grep -aE 'tests/s|ETA|failed;|checking ' "$1"; }

for command in run xval atomicity report; do
  extra=()
  [ "$command" = report ] && extra=(--html "$dir/html")
  on_tty "$bin" "$command" "${opts[@]}" "${extra[@]}" "$dir/tests"
  line='\[[0-9]+/9\] [0-9.]+ tests/s, ETA [0-9hms]+, [0-9]+ failed; checking z-slow \([0-9.]+ s\)'
  grep -aqE "$line" "$dir/tty" ||
    fail "$command on a terminal: no line with done/total, rate, ETA: $(cat -v "$dir/tty")"
  # Cleared before the output that follows: the last line drawn is blanked.
  grep -aqE $'\r {20,}\r' "$dir/tty" || fail "$command: the progress line is never cleared"
  progress_like "$dir/out" && fail "$command: progress on stdout"
done

# A pipe: nothing progress-like, no carriage return.
"$bin" run "${opts[@]}" "$dir/tests" 2>"$dir/pipe" >/dev/null
progress_like "$dir/pipe" && fail "run on a pipe drew a progress line"
grep -aq $'\r' "$dir/pipe" && fail "run on a pipe wrote a carriage return"
grep -aq 'z-slow.litmus: error: timeout' "$dir/pipe" || fail "the slow test did not time out"

# -q on a terminal: no line either.
on_tty "$bin" run -q "${opts[@]}" "$dir/tests"
progress_like "$dir/tty" && fail "run -q on a terminal drew a progress line: $(cat -v "$dir/tty")"
grep -aq 'z-slow.litmus: error: timeout' "$dir/tty" || fail "-q hid the slow test's error"
echo "progress line: on a terminal for run, xval, atomicity, report; none on a pipe or with -q"
