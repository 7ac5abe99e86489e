#!/usr/bin/env bash
# Issue 43 item 12: the playground's JSON API natively (redscope-call, the
# module's code: src/wasm). Options are checked as the CLI checks its flags,
# refusals are located in the request, and the request is bounded as the CLI
# bounds a file: standard input at 2 x --max-file-size + 1 MiB (an endless
# stream stops there), each text at the request's options.max_file_size.
# Each case must end within seconds, without a signal.
set -uo pipefail
bin=$(realpath "$1"); dir=$(realpath "$2")/cli_call
root=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$dir"; mkdir -p "$dir"
fail() { echo "FAIL: $*"; exit 1; }
mp=$(python3 -c 'import json,sys; print(json.dumps(open(sys.argv[1]).read()))' \
  "$root/litmus/classic/MP.litmus")
# call WANTED_STDOUT_TEXT [ARGS...] < REQUEST: within 30 s, exit 0, that text
# in the answer (never in a pipeline: its fail would end a subshell only).
call() {
  local text=$1; shift
  timeout 30 "$bin" "$@" >"$dir/out" 2>"$dir/err"; local rc=$?
  [ $rc -eq 0 ] || fail "redscope-call $*: exit $rc: $(head -c 300 "$dir/err")"
  grep -qF -- "$text" "$dir/out" || fail "redscope-call $*: no '$text' in: $(head -c 400 "$dir/out")"
}
req() { printf '{"command": "run", "test": %s, "file": "MP.litmus", "options": %s}' "$mp" "$1"; }

# max_outcomes 0 is the CLI's no limit (it failed every test); a whole
# number within the CLI's range passes.
call '"outcomes": [' < <(req '{"max_outcomes": 0}')
call '"outcomes": [' < <(req '{"max_outcomes": 1e3, "timeout_ms": 60000, "unroll": 2}')
# 1e13 overflowed the deadline, 1e400 answered "stod", 2e19 wrapped to 0,
# a string was ignored: each is refused where it stands.
for bad in 1e13 1e400 2e19 -1 '"1"'; do
  call "options.timeout_ms takes a whole number from 0 to 86400000 (0: none), not ${bad//\"/\\\"}" \
    < <(req "{\"timeout_ms\": $bad}")
  grep -qF '"text": "request:1:' "$dir/out" || fail "timeout_ms $bad: not located: $(cat "$dir/out")"
done
call 'options.verdict takes true or false, not \"yes\"' < <(req '{"verdict": "yes"}')
call '\"options\" takes an object, not 5' < <(req '5')
call 'run takes no option \"max_outcome\" (its options: engine' < <(req '{"max_outcome": 5}')

# Standard input: an endless stream stops at the bound (33 MiB by default).
start=$(date +%s%N)
call '"text": "<stdin>: error: request is over the 34603008-byte input limit (--max-file-size)"' \
  </dev/zero
echo "redscope-call < /dev/zero: $(( ($(date +%s%N) - start) / 1000000 )) ms"
# A request holding a 200 MiB test (it ran) is refused at the standard
# input's bound; past a larger one (40 MiB, --max-file-size 64), by the
# request's own options.max_file_size.
big() {
  printf '{"command": "run", "file": "MP.litmus", "test": "'
  head -c $(($1 << 20)) /dev/zero | tr '\0' ' '
  printf '"}'
}
start=$(date +%s%N)
call 'request is over the 34603008-byte input limit' < <(big 200)
echo "a 200 MiB test: $(( ($(date +%s%N) - start) / 1000000 )) ms"
start=$(date +%s%N)
call '"test\" of 41943040 bytes is over the 16777216-byte input limit (options.max_file_size: 16 MiB, from 1 to 4096)' \
  --max-file-size 64 < <(big 40)
echo "a 40 MiB test, --max-file-size 64: $(( ($(date +%s%N) - start) / 1000000 )) ms"
# The program's own flag is the CLI's.
for bad in 0 4097 1.5 x; do
  timeout 10 "$bin" --max-file-size "$bad" </dev/null >/dev/null 2>"$dir/err"; rc=$?
  [ $rc -eq 2 ] || fail "--max-file-size $bad: exit $rc, expected 2"
  grep -qF "redscope-call: --max-file-size takes a whole number from 1 to 4096, not '$bad'" \
    "$dir/err" || fail "--max-file-size $bad: $(cat "$dir/err")"
done
echo "cli.call: ok"
