#!/usr/bin/env bash
# Dat3M's PTX models run unmodified (issue 32 item 6): --model
# ../shared/conformance/dat3m-ptx/cat/ptx-v6.0.cat and ptx-v7.5.cat, read from
# ../shared as the conformance tests read their suite, allow exactly the
# outcomes models/ptx.cat allows on every test of the Dat3M suite, under both
# engines that read a model (so also the same verdicts). The two documented
# differences between the texts (docs/model.md "Dat3M's models") hold as
# stated, on tests/dat3m-cat/.
set -u
bin=$1 shared=$2 src=$3
suite=$shared/conformance/dat3m-ptx
[ -f "$suite/cat/ptx-v7.5.cat" ] || { echo "SKIP: $suite/cat not found (../shared is absent)"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# One line per test: file, observation, error and the sorted outcomes.
outcomes() {
  python3 -c '
import json, sys
for t in json.load(sys.stdin):
    outs = sorted(json.dumps(o, sort_keys=True) for o in t["outcomes"])
    print(t["file"], t["observation"], t["error"], " ".join(outs))'
}

for engine in enum z3; do
  "$bin" run --engine $engine --observe-all -j 2 --format json "$suite" 2>/dev/null |
    outcomes > "$tmp/ptx" || fail "$engine: models/ptx.cat run"
  n=$(wc -l < "$tmp/ptx")
  [ "$n" -ge 137 ] || fail "$engine: only $n tests in the suite"
  for v in 6.0 7.5; do
    "$bin" run --engine $engine --observe-all -j 2 --format json --model "$suite/cat/ptx-v$v.cat" \
      "$suite" 2>/dev/null | outcomes > "$tmp/v$v" || fail "$engine: ptx-v$v.cat run"
    diff "$tmp/ptx" "$tmp/v$v" > "$tmp/diff" ||
      fail "$engine: ptx-v$v.cat and models/ptx.cat allow different outcomes: $(cat "$tmp/diff")"
    echo "$engine: ptx-v$v.cat = models/ptx.cat on $n tests"
  done
done

# The documented differences, one test each.
observe() {  # observe MODEL TEST: the test's observation (Never, Sometimes, Always)
  "$bin" run ${1:+--model "$1"} "$2" | awk '/^Observation/ { print $3 }'
}
mp=$src/tests/dat3m-cat/MP+fence.sc-gpu+acquire-gpu.litmus
sc=$src/tests/dat3m-cat/FenceSC+cta-fences-2cta.litmus
[ "$(observe "" "$mp")" = Never ] || fail "models/ptx.cat must forbid $mp"
[ "$(observe "" "$sc")" = Sometimes ] || fail "models/ptx.cat must allow $sc"
for v in 6.0 7.5; do
  [ "$(observe "$suite/cat/ptx-v$v.cat" "$mp")" = Sometimes ] || fail "ptx-v$v.cat allows $mp"
done
[ "$(observe "$suite/cat/ptx-v7.5.cat" "$sc")" = Sometimes ] || fail "ptx-v7.5.cat allows $sc"
[ "$(observe "$suite/cat/ptx-v6.0.cat" "$sc")" = Never ] || fail "ptx-v6.0.cat forbids $sc"
echo "the documented differences hold"
