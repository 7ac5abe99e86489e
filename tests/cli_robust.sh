#!/usr/bin/env bash
# Hostile and empty input: every path problem stays with its path, runs that
# check nothing fail, output stays valid (UTF-8 JSON, short diagnostics), and
# the summary counts errors (issue: a run that survives anything).
set -uo pipefail
bin=$1; litmus=$2; dir=$3/cli_robust
rm -rf "$dir"; mkdir -p "$dir/ok" "$dir/empty" "$dir/bad" "$dir/slow"
fail() { echo "FAIL: $*"; exit 1; }
cp "$litmus/classic/MP.litmus" "$litmus/classic/SB.litmus" "$dir/ok/"
printf '\xef\xbb\xbfPTX bom\n' > "$dir/bad/bom.litmus"
printf '\xff\xfeP\0T\0X\0' > "$dir/bad/utf16.litmus"
printf 'PTX bin\n\0\0\n' > "$dir/bad/binary.litmus"
printf 'PTX bad\n{ x=0; }\n P0@cta 0,gpu 0 ;\n ld\xff\xfe r0, x ;\nexists (P0:r0 == 0)\n' > "$dir/bad/notutf8.litmus"
printf 'PTX long\n{ x=0; }\n P0@cta 0,gpu 0 ;\n %s r0, x ;\nexists (P0:r0 == 0)\n' "$(head -c 100000 /dev/zero | tr '\0' a)" > "$dir/bad/longtoken.litmus"
mkfifo "$dir/bad/fifo.litmus"
ln -s "$dir/nowhere.litmus" "$dir/bad/dangling.litmus"

# A missing path is an error for that path; the others still run (exit 1).
out=$(timeout 60 "$bin" run "$dir/ok" "$dir/missing" 2>"$dir/err"); rc=$?
[ $rc -eq 1 ] || fail "missing path: exit $rc, expected 1"
grep -q "^Test MP Allowed" <<<"$out" && grep -q "^Test SB Allowed" <<<"$out" || fail "the other paths did not run"
grep -q "missing: error: no such file or folder" "$dir/err" || fail "no diagnostic for the missing path"

# Bad files: each its own located error, within seconds, nothing hangs on the FIFO.
out=$(timeout 60 "$bin" run "$dir/bad" 2>"$dir/err"); rc=$?
[ $rc -eq 1 ] || fail "bad files: exit $rc, expected 1"
for want in "bom.litmus: error: starts with a UTF-8 byte-order mark" \
            "utf16.litmus: error: is UTF-16 text" \
            "binary.litmus: error: is not text (a NUL byte" \
            "fifo.litmus: error: not a regular file" \
            "dangling.litmus: error: dangling symbolic link" \
            "notutf8.litmus:4:4: error:"; do
  grep -qF -- "$want" "$dir/err" || { cat "$dir/err"; fail "missing: $want"; }
done
[ "$(awk 'length > 400' "$dir/err" | wc -l)" -eq 0 ] || fail "a diagnostic line is longer than 400 characters"
timeout 10 "$bin" run /dev/zero >/dev/null 2>"$dir/err"; [ $? -eq 1 ] || fail "/dev/zero must be an error"
grep -q "not a regular file" "$dir/err" || fail "/dev/zero: no diagnostic"

# JSON: valid UTF-8 and valid JSON, whatever the files hold; errors of files
# that never parsed claim no model or target.
timeout 60 "$bin" run --format json "$dir/bad" "$dir/ok" > "$dir/out.json" 2>/dev/null
python3 - "$dir/out.json" <<'PY' || fail "JSON is not valid UTF-8 JSON"
import json, sys
data = json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))
assert len(data) == 9, len(data)
for t in data:
    if t["error"] and t["file"].endswith(("bom.litmus", "binary.litmus", "fifo.litmus")):
        assert t["model"] is None and t["target"] is None, t
PY
timeout 60 "$bin" run --format jsonl "$dir/ok" > "$dir/out.jsonl"
python3 -c "import json,sys; [json.loads(l) for l in open(sys.argv[1])]" "$dir/out.jsonl" || fail "jsonl lines are not JSON"
[ "$(wc -l < "$dir/out.jsonl")" -eq 2 ] || fail "jsonl: one line per test"

# Nothing to check is a failure, not a silent success.
"$bin" run "$dir/empty" >/dev/null 2>"$dir/err"; [ $? -eq 1 ] || fail "an empty folder must exit 1"
grep -q "no .litmus or .test file found" "$dir/err" || fail "empty folder: no message"
"$bin" xval "$dir/empty" >/dev/null 2>&1; [ $? -eq 1 ] || fail "xval of an empty folder must exit 1"
"$bin" atomicity "$dir/empty" >/dev/null 2>&1; [ $? -eq 1 ] || fail "atomicity of an empty folder must exit 1"
printf 'elsewhere.litmus,1\n' > "$dir/none.csv"
"$bin" run --expect "$dir/none.csv" "$dir/ok" >/dev/null 2>"$dir/err"; [ $? -eq 3 ] || fail "--expect matching nothing must exit 3"
grep -q "names a file of this run" "$dir/err" || fail "--expect matching nothing: no message"

# The summary counts errors, and agrees with the exit status.
printf 'MP.litmus,0\nSB.litmus,1\n' > "$dir/ok/expected.csv"
cp "$dir/bad/bom.litmus" "$dir/ok/zz.litmus"; printf 'zz.litmus,1\n' >> "$dir/ok/expected.csv"
out=$("$bin" run -q --expect "$dir/ok/expected.csv" "$dir/ok" 2>/dev/null); rc=$?
grep -q "^2 passed, 0 failed, 1 errors$" <<<"$out" || fail "summary: $out"
[ $rc -eq 1 ] || fail "a run with an error must exit 1, not $rc"

# A test past its --timeout is reported as a timeout for that test alone.
# (Eight atom.add keeping the old value: 8! = 40,320 outcomes, each found
# by its own solver check: minutes, far past a 1 s budget.)
{ printf 'PTX atoms8\n{ x=0; }\n'
  for i in $(seq 0 7); do printf '%sP%d@cta %d,gpu 0' "$([ "$i" = 0 ] && echo ' ' || echo ' | ')" "$i" "$i"; done
  printf ' ;\n'
  for i in $(seq 0 7); do printf '%satom.relaxed.gpu.add.u32 r0, [x], 1' "$([ "$i" = 0 ] && echo ' ' || echo ' | ')"; done
  printf ' ;\nexists (x == 8)\n'; } > "$dir/slow/atoms8.litmus"
cp "$litmus/classic/MP.litmus" "$dir/slow/"
start=$(date +%s)
timeout 120 "$bin" run --timeout 1 --format json -j 1 "$dir/slow" > "$dir/slow.json" 2>/dev/null; rc=$?
[ $rc -eq 1 ] || fail "a timed-out test must exit 1, not $rc"
python3 - "$dir/slow.json" <<'PY' || fail "timeout not reported as its own error kind"
import json, sys
d = {t["test"]: t for t in json.load(open(sys.argv[1]))}
assert d["atoms8"]["error_kind"] == "timeout", d["atoms8"]
assert d["MP"]["error"] is None
PY
echo "timeout reported after $(( $(date +%s) - start )) s (budget 1 s, plus releasing the solver)"

# -q and -v on every command.
[ -z "$("$bin" run -q "$dir/ok/MP.litmus" 2>/dev/null)" ] || fail "run -q prints per-test blocks"
"$bin" run -v "$dir/ok/MP.litmus" 2>&1 >/dev/null | grep -q "checked .*MP.litmus with enum (auto: " || fail "run -v: no timing line naming the engine auto chose"
"$bin" xval -q "$dir/ok/MP.litmus" | grep -q "^Total" || fail "xval -q: no summary"
echo "hostile and empty inputs handled"
