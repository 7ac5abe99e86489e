#!/usr/bin/env bash
# scripts/slurm/ under a fake Slurm (tests/fake_slurm: sbatch runs each job on
# this machine, honouring --array, --dependency=afterany, --output, --chdir
# and --parsable; squeue and sacct answer from its state), driven through
# submit-suite.sh --wait over 5 tests in a folder with spaces, from a folder
# with spaces, into output folders with spaces. The jobs run a redscope
# wrapper that injects faults (tests/cli_slurm_fake.sh writes it: per shard
# and attempt, output that is not JSON, xval's JSON instead of run's, a
# redscope killed mid-shard, exit 126, 127 or 5). Checked:
#  - more array tasks than tests (issue 43 item 11): exit=0, the empty shards
#    are empty files, merged.json equal to a one-process run;
#  - a shard whose output merge refuses (item 5), caught by its task or, when
#    the file changes after the task (held finishing job), by finish-suite:
#    set aside in OUT/logs and re-run; past the retries the suite fails with
#    the reason and writes no merged.json;
#  - a redscope missing or not executable on the node (item 6): the task
#    fails (127, 126), is retried, and the suite fails with a result line
#    that says so, no shard file written;
#  - seeded random configurations (tasks, retries, faults per shard and
#    attempt; REDSCOPE_SLURM_FAKE_SEED, default 43; REDSCOPE_SLURM_FAKE_CONFIGS
#    of them, default 4): the suite ends exit=0 at
#    the attempt the faults allow with merged.json equal to the one-process
#    run (timings aside), or with "exit=1 failed: shard(s) S..." naming the
#    shards whose faults outlast the retries, and no merged.json;
#  - and, for all: every job has ended and no process of the suites is left.
set -uo pipefail
mkdir -p "$3"
bin=$(realpath "$1"); src=$(realpath "$2"); dir=$(realpath "$3")/cli_slurm_fake
seed=${REDSCOPE_SLURM_FAKE_SEED:-43} configs=${REDSCOPE_SLURM_FAKE_CONFIGS:-4}
fail() { echo "FAIL (seed $seed): $*"; exit 1; }
start=$(date +%s)
rm -rf "$dir"; mkdir -p "$dir/slurm" "$dir/faults" "$dir/logs" "$dir/runs" "$dir/bin dir"
for v in $(compgen -e); do case $v in SLURM_*) unset "$v" ;; esac; done
unset REDSCOPE_SUITE_FAULT
export FAKE_SLURM_DIR=$dir/slurm PATH=$src/tests/fake_slurm:$PATH
submit=$src/scripts/slurm/submit-suite.sh
# ours PID: is process PID one of the suites' (run by a fake job, its group
# one of theirs and FAKE_SLURM_DIR in its environment)? Sets args to its
# command line.
declare -A group
ours() {
  local stat fields env
  mapfile -d '' -t args 2> /dev/null < "/proc/$1/cmdline" || return 1
  read -r stat 2> /dev/null < "/proc/$1/stat" || return 1
  read -r -a fields <<< "${stat##*) }"  # after "PID (COMMAND) ": state ppid pgrp ...
  [ -n "${group[${fields[2]}]:-}" ] || return 1
  mapfile -d '' -t env 2> /dev/null < "/proc/$1/environ" || return 1
  [[ " ${env[*]} " == *" FAKE_SLURM_DIR=$FAKE_SLURM_DIR "* ]]
}
# Ends the processes of the fake jobs still alive, by their ids.
cleanup() {
  local p
  [ -f "$FAKE_SLURM_DIR/pids" ] || return 0
  while read -r p; do group[$p]=1; done < "$FAKE_SLURM_DIR/pids"
  for p in /proc/[0-9]*; do
    ! ours "${p#/proc/}" || kill -KILL "${p#/proc/}" 2> /dev/null
  done
  return 0
}
trap cleanup EXIT

# The suite: 5 tests, checked once in one process for reference.
work="$dir/work dir"
mkdir -p "$work/tests a"
for t in MP SB LB CoRR+weak 2+2W+relaxed-gpu; do
  cp "$src/litmus/classic/$t.litmus" "$work/tests a/" || fail "no litmus/classic/$t.litmus"
done
tests=5
cd "$work" || fail "cd $work"
"$bin" run --format json "tests a" > "$dir/one.json" || fail "one-process run"

# The redscope of the jobs: the real one, with the faults of the file
# $REDSCOPE_FAKE_FAULTS (lines "TASK ATTEMPT KIND") for `run` in an array task.
wrapper="$dir/bin dir/redscope"
cat > "$wrapper" <<EOF
#!/usr/bin/env bash
real='$bin'
kind=''
if [ "\${1:-}" = run ] && [ -n "\${SLURM_ARRAY_TASK_ID:-}" ] && [ -f "\${REDSCOPE_FAKE_FAULTS:-}" ]; then
  while read -r t a k; do
    [ "\$t \$a" != "\$SLURM_ARRAY_TASK_ID \${REDSCOPE_SUITE_ATTEMPT:-1}" ] || kind=\$k
  done < "\$REDSCOPE_FAKE_FAULTS"
fi
[ -z "\$kind" ] || echo "fault injected: \$kind" >&2
case \$kind in
  badjson) "\$real" "\$@"; rc=\$?; echo '{"test": "cut'; exit "\$rc" ;;
  xval) shift; exec "\$real" xval "\$@" ;;
  killed) out=\$("\$real" "\$@"); printf '%s' "\${out:0:\${#out}/2}"; kill -KILL \$\$ ;;
  e127) echo "\$0: error while loading shared libraries: libz3.so.4: cannot open" >&2; exit 127 ;;
  e126) echo "\$0: Permission denied" >&2; exit 126 ;;
  e5) exit 5 ;;
esac
exec "\$real" "\$@"
EOF
chmod +x "$wrapper"

# launch NAME FAULTS SUBMIT-OPTIONS...: a suite into "runs/NAME out" in the
# background; its --wait output in logs/NAME.log, its status in logs/NAME.rc.
launch() {
  local name=$1
  printf '%b\n' "$2" > "$dir/faults/$name"
  shift 2
  (
    REDSCOPE_FAKE_FAULTS="$dir/faults/$name" timeout 60 "$submit" -o "$dir/runs/$name out" \
      --redscope "${REDSCOPE_OF_SUITE:-$wrapper}" --wait "$@" -- "tests a" \
      > "$dir/logs/$name.log" 2>&1
    echo $? > "$dir/logs/$name.rc"
  ) &
}
same() {  # FILE: the one-process run's JSON, timings aside
  diff <(grep -v '"seconds":' "$dir/one.json") <(grep -v '"seconds":' "$1") > "$dir/diff.txt"
}
about() { cat "$dir/logs/$1.log" "$dir/runs/$1 out/result" "$dir/runs/$1 out"/logs/* 2> /dev/null; }
# ok NAME FILES ATTEMPT: ended exit=0 on that attempt, merged equal to one process.
ok() {
  local out="$dir/runs/$1 out" rc
  rc=$(cat "$dir/logs/$1.rc")
  [ "$rc" = 0 ] || fail "$1: exit $rc, expected 0: $(about "$1")"
  grep -q "^exit=0 merged $tests tests from $2 files; 0 could not be checked into .* (attempt $3)$" \
    "$out/result" || fail "$1: result $(cat "$out/result"), expected attempt $3: $(about "$1")"
  same "$out/merged.json" || fail "$1: merged.json differs from one process: $(head "$dir/diff.txt")"
}
# failed NAME SHARDS RETRIES REASON: ended exit=1 naming those shards and the
# reason, without merged.json.
failed() {
  local out="$dir/runs/$1 out" rc
  rc=$(cat "$dir/logs/$1.rc")
  [ "$rc" = 1 ] || fail "$1: exit $rc, expected 1: $(about "$1")"
  grep -qF "exit=1 failed: shard(s) $2 still incomplete after $3 re-run(s): $4" "$out/result" ||
    fail "$1: result $(cat "$out/result"), expected shard(s) $2 ... $4"
  if [ -e "$out/merged.json" ] || [ -e "$out/.merged.json.tmp" ]; then
    fail "$1: a failed suite has a merged.json"
  fi
}

# The fixed cases and the random ones, all at once.
launch many '' -n 8                                       # item 11
launch badjson '2 1 badjson' -n 3 -r 1                    # item 5
launch badjson-twice '2 1 badjson\n2 2 badjson' -n 3 -r 1
launch xval '1 1 xval' -n 2 -r 1                          # item 10 in a suite
launch killed '3 1 killed\n3 2 killed' -n 3 -r 2
launch loader '1 1 e127\n2 1 e126' -n 2 -r 1              # item 6, once started
# finish-suite's own check: shard 2 changes after its task checked it (the
# finishing job held until then), is set aside, kept and re-run.
mkdir -p "$dir/holds"
touch "$dir/holds/corrupt"
FAKE_SLURM_HOLD=$dir/holds/corrupt FAKE_SLURM_HOLD_SCRIPT=finish-suite.sbatch \
  launch corrupt '' -n 3 -r 1
# A redscope missing, or not executable, on the node (item 6): gone between
# the submission (which checks it) and the tasks (held until then).
for how in missing noexec; do
  cp "$wrapper" "$dir/bin dir/$how"
  touch "$dir/holds/$how"
  FAKE_SLURM_HOLD=$dir/holds/$how FAKE_SLURM_HOLD_SCRIPT=run-suite.sbatch \
    REDSCOPE_OF_SUITE="$dir/bin dir/$how" launch "$how" '' -n 2 -r 1
done

# Seeded random configurations: tasks 1-8, retries 0-2; a shard has faults
# on its first 1-3 attempts (kinds at random; xval, which an empty shard
# passes, only where the shard holds a test) with probability 1/3.
RANDOM=$seed
kinds=(badjson xval killed e127 e126 e5)
declare -A want
for c in $(seq "$configs"); do
  n=$((RANDOM % 8 + 1)) r=$((RANDOM % 3)) faults='' worst=0 over=''
  for ((s = 1; s <= n; s++)); do
    [ $((RANDOM % 3)) -eq 0 ] || continue
    f=$((RANDOM % 3 + 1))
    for ((a = 1; a <= f; a++)); do
      k=${kinds[RANDOM % 6]}
      [ "$s" -le "$tests" ] || [ "$k" != xval ] || k=badjson
      faults+="$s $a $k\n"
    done
    [ "$f" -le "$worst" ] || worst=$f
    [ "$f" -le "$r" ] || over+="${over:+ }$s"
  done
  want[random-$c]="$n $r $((worst + 1)) $over"
  launch "random-$c" "$faults" -n "$n" -r "$r"
done

# until SECONDS TEST...: waits (at most that long) for the test to hold.
until_true() {
  local t=$(($1 * 10))
  shift
  while ! "$@"; do
    t=$((t - 1))
    [ "$t" -gt 0 ] || return 1
    sleep 0.1
  done
}
all_shards() { for i in 1 2 3; do [ -f "$dir/runs/corrupt out/shard-$i.jsonl" ] || return 1; done; }
until_true 30 all_shards || fail "corrupt: the shards did not appear: $(about corrupt)"
echo '{"test": "cut' >> "$dir/runs/corrupt out/shard-2.jsonl"
rm "$dir/holds/corrupt"
for how in missing noexec; do
  until_true 30 test -f "$dir/runs/$how out/merge-job" || fail "$how: not submitted: $(about "$how")"
  if [ "$how" = missing ]; then rm "$dir/bin dir/$how"; else chmod -x "$dir/bin dir/$how"; fi
  rm "$dir/holds/$how"
done
wait

ok many 8 1
for i in 6 7 8; do
  f="$dir/runs/many out/shard-$i.jsonl"
  if [ ! -f "$f" ] || [ -s "$f" ]; then fail "many: shard $i (no test) is not an empty file"; fi
done
ok badjson 3 2
ls "$dir/runs/badjson out/logs"/shard-2.invalid.*.jsonl > /dev/null 2>&1 ||
  fail "badjson: the invalid shard is not kept in logs/"
failed badjson-twice 2 1 "shard 2: redscope's output is not the JSON Lines of \`redscope run\`"
ok xval 2 2
ok killed 3 3
grep -q "killed by signal 9" "$dir/runs/killed out"/logs/shard-3.*.out || fail "killed: the log"
ok loader 2 2
ok corrupt 3 2
[ -f "$dir/runs/corrupt out/logs/shard-2.invalid.1.jsonl" ] ||
  fail "corrupt: the shard merge refused is not kept: $(about corrupt)"
failed missing "1 2" 1 "shard 1: redscope $dir/bin dir/missing does not exist on this node"
failed noexec "1 2" 1 "shard 1: redscope $dir/bin dir/noexec is not an executable file"
[ -z "$(ls "$dir/runs/missing out"/shard-*.jsonl 2> /dev/null)" ] || fail "missing: a shard file"
logs=("$dir/runs/noexec out"/logs/shard-1.*.out)
[ ${#logs[@]} -eq 2 ] || fail "noexec: shard 1 ran ${#logs[@]} times, not twice"
for c in $(seq "$configs"); do
  read -r n r attempt over <<< "${want[random-$c]}"
  if [ -z "$over" ]; then
    ok "random-$c" "$n" "$attempt"
  else
    failed "random-$c" "$over" "$r" "shard ${over%% *}: "
  fi
  echo "random-$c: $n task(s), $r retries, faults $(grep . "$dir/faults/random-$c" | paste -sd,):" \
    "$(cut -c1-60 "$dir/runs/random-$c out/result")"
done

# Every job has ended, and no process of the suites is left.
for _ in $(seq 100); do
  left=0
  for f in "$FAKE_SLURM_DIR"/jobs/*.submitted; do [ -f "${f%.submitted}.done" ] || left=1; done
  [ "$left" = 0 ] && break
  sleep 0.1
done
[ "$left" = 0 ] || fail "fake jobs still running after the suites ended"
# A process is the suites' when its command line names a path of this test,
# or it is in the process group of a fake job (each its own group: the
# redscope a task runs is in its job's group).
while read -r p; do group[$p]=1; done < "$FAKE_SLURM_DIR/pids"
for p in /proc/[0-9]*; do
  ! ours "${p#/proc/}" || fail "a process of a fake job is left: ${p#/proc/} ${args[*]}"
  mapfile -d '' -t args 2> /dev/null < "$p/cmdline" || continue
  [[ "${args[*]}" != *"$dir/"* ]] || fail "a process is left: ${p#/proc/} ${args[*]}"
done
jobs=("$FAKE_SLURM_DIR"/jobs/*.submitted)
echo "slurm-fake: all checks passed in $(($(date +%s) - start)) s (${#jobs[@]} fake jobs)"
