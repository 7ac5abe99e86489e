#!/usr/bin/env bash
# A suite on a real Slurm (docs/cli.md "Running a suite on Slurm"): starts a
# single-node cluster on localhost (scripts/slurm/local-cluster.sh: munged,
# slurmctld, slurmd; 2 CPUs), submits litmus/classic and litmus/red as an
# array of 4 shards (scripts/slurm/submit-suite.sh), and checks that
#  1. the merged OUT/merged.json equals a one-process `run --format json`
#     (timings aside), although on the first attempt task 2 crashes (SIGKILL
#     after writing half its shard) and task 3 is cancelled while running
#     (scancel): the finishing job re-submits just shards 2 and 3 and merges;
#  2. with --retries 0, a crashed shard is reported missing (exit 1, no
#     merged.json), not merged away;
#  3. a command line redscope refuses (exit 2) fails the suite without retry;
#  4. without faults, every shard completes on the first attempt;
#  5. (issue 43 items 5, 6, 11) 6 tasks over 2 tests, where on the first
#     attempt task 1's redscope writes output that is not JSON and task 2's
#     exits 127 (as when the dynamic loader misses a library): both are
#     re-run, the 4 empty shards are no error, the suite ends exit=0 with the
#     2 tests merged equal to one process.
# The faults of 1-3 come from run-suite.sbatch's test hook,
# REDSCOPE_SUITE_FAULT; those of 5 from a wrapper given as --redscope.
# tests/cli_slurm_fake.sh (ctest cli.slurm-fake) runs many more cases under a
# fake sbatch.
# Skips (77) when Slurm or munge is not installed (scripts/setup.sh installs
# them) or when not root (slurmd launches jobs as root); the daemons are
# stopped on every exit.
set -uo pipefail
bin=$(realpath "$1"); src=$(realpath "$2"); dir=$3/cli_slurm
fail() { echo "FAIL: $*"; exit 1; }
for c in munged slurmctld slurmd sbatch squeue scancel sinfo; do
  command -v "$c" > /dev/null || { echo "SKIP: no $c (apt-get install slurm-wlm munge)"; exit 77; }
done
[ "$(id -u)" -eq 0 ] || { echo "SKIP: a local slurmd needs root"; exit 77; }
start=$(date +%s)
cluster=$src/scripts/slurm/local-cluster.sh submit=$src/scripts/slurm/submit-suite.sh
[ ! -f "$dir/cluster/slurmctld.pid" ] || "$cluster" stop "$dir/cluster"
rm -rf "$dir"; mkdir -p "$dir"
trap '"$cluster" stop "$dir/cluster"' EXIT
"$cluster" start "$dir/cluster" > "$dir/start.log" 2>&1 ||
  fail "the cluster did not start: $(cat "$dir/start.log"; tail -n 5 "$dir"/cluster/log/*.log)"
export SLURM_CONF=$dir/cluster/slurm.conf
unset REDSCOPE_SUITE_FAULT
cd "$src" || fail "cd $src"
paths=(litmus/classic litmus/red)
"$bin" run --format json -j 2 --timeout 120 "${paths[@]}" > "$dir/one.json" ||
  fail "one-process run"
same() {  # FILE [ONE]: the one-process run's JSON (ONE, default one.json), timings aside
  diff <(grep -v '"seconds":' "${2:-$dir/one.json}") <(grep -v '"seconds":' "$1") > "$dir/diff.txt"
}

# 1. Faults on the first attempt: task 2 crashes, task 3 hangs until cancelled.
REDSCOPE_SUITE_FAULT=crash:2,hang:3 timeout 45 "$submit" -n 4 -o "$dir/a" --redscope "$bin" \
  --wait --timeout 120 "${paths[@]}" > "$dir/a.log" 2>&1 &
waiter=$!
for _ in $(seq 100); do [ -f "$dir/a/.hanging-3" ] && break; sleep 0.2; done
[ -f "$dir/a/.hanging-3" ] || fail "task 3 did not start: $(cat "$dir/a.log")"
scancel "$(cat "$dir/a/.hanging-3")" || fail "scancel of task 3"
wait "$waiter"; rc=$?
[ "$rc" -eq 0 ] || fail "suite with faults: exit $rc: $(cat "$dir/a.log" "$dir"/a/logs/merge.*)"
grep -q "^exit=0 merged 98 tests from 4 files; 0 could not be checked .*(attempt 2)" \
  "$dir/a/result" || fail "result: $(cat "$dir/a/result")"
grep -q "attempt 2: array job .* (shards 2,3 of 4)" "$dir/a.log" "$dir"/a/logs/merge.* ||
  fail "only shards 2 and 3 are re-submitted: $(cat "$dir"/a/logs/merge.*)"
grep -q "fault injected: task 2 crashes" "$dir"/a/logs/shard-2.*.out || fail "task 2's crash"
grep -q "CANCELLED" "$dir"/a/logs/shard-3.*.out || fail "task 3's cancellation"
same "$dir/a/merged.json" ||
  fail "merged JSON differs from the one-process run: $(head "$dir/diff.txt")"
echo "faults re-run and merged: $(cat "$dir/a/result")"

# 2. No retries left: the crashed shard is missing, the suite fails.
REDSCOPE_SUITE_FAULT=crash:1 timeout 30 "$submit" -n 4 -r 0 -o "$dir/b" --redscope "$bin" \
  --wait "${paths[@]}" > "$dir/b.log" 2>&1; rc=$?
[ "$rc" -eq 1 ] || fail "a suite with a missing shard must exit 1, not $rc: $(cat "$dir/b.log")"
grep -q "^exit=1 failed: shard(s) 1 still incomplete after 0 re-run(s)" "$dir/b/result" ||
  fail "result: $(cat "$dir/b/result")"
[ ! -f "$dir/b/merged.json" ] || fail "a suite with a missing shard was merged"

# 3. A command line redscope refuses: exit 2, no retry.
timeout 30 "$submit" -n 2 -o "$dir/c" --redscope "$bin" --wait --engine nosuch \
  "${paths[@]}" > "$dir/c.log" 2>&1; rc=$?
[ "$rc" -eq 2 ] || fail "a refused command line must exit 2, not $rc: $(cat "$dir/c.log")"
grep -q "^exit=2 failed: redscope refused the command line" "$dir/c/result" ||
  fail "result: $(cat "$dir/c/result")"
"$submit" -o "$dir/c" --redscope "$bin" litmus > /dev/null 2>&1 && fail "OUT reused"
# 4. No fault: every shard completes on its first attempt (the fault hook is
# off when REDSCOPE_SUITE_FAULT is unset, as on a real cluster).
timeout 30 "$submit" -n 3 -o "$dir/d" --redscope "$bin" --wait "${paths[@]}" > "$dir/d.log" 2>&1 \
  || fail "a suite without faults failed: $(cat "$dir/d.log")"
grep -q "^exit=0 merged .*(attempt 1)$" "$dir/d/result" ||
  fail "a suite without faults must finish on attempt 1: $(cat "$dir/d/result")"
# 5. Output that is not JSON, exit 127, and more tasks than tests.
two=(litmus/classic/MP.litmus litmus/classic/SB.litmus)
"$bin" run --format json "${two[@]}" > "$dir/two.json" || fail "one-process run of two tests"
cat > "$dir/faulty" <<WRAPPER
#!/usr/bin/env bash
if [ "\$1" = run ] && [ "\${REDSCOPE_SUITE_ATTEMPT:-1}" = 1 ]; then
  case \${SLURM_ARRAY_TASK_ID:-} in
    1) echo "fault injected: output that is not JSON" >&2; echo 'not JSON'; exit 0 ;;
    2) echo "fault injected: exit 127" >&2; exit 127 ;;
  esac
fi
exec '$bin' "\$@"
WRAPPER
chmod +x "$dir/faulty"
timeout 45 "$submit" -n 6 -o "$dir/e" --redscope "$dir/faulty" --wait "${two[@]}" \
  > "$dir/e.log" 2>&1 || fail "faulty shards: exit $?: $(cat "$dir/e.log" "$dir"/e/logs/*)"
grep -q "^exit=0 merged 2 tests from 6 files; 0 could not be checked .*(attempt 2)$" \
  "$dir/e/result" || fail "faulty shards: result $(cat "$dir/e/result")"
grep -q "attempt 2: array job .* (shards 1,2 of 6)" "$dir/e.log" "$dir"/e/logs/merge.* ||
  fail "only shards 1 and 2 are re-submitted: $(cat "$dir"/e/logs/merge.*)"
grep -q "not the JSON Lines of .redscope run" "$dir"/e/logs/shard-1.*.out || fail "shard 1's log"
grep -q "could not be started (exit 127" "$dir"/e/logs/shard-2.*.out || fail "shard 2's log"
same "$dir/e/merged.json" "$dir/two.json" || fail "faulty shards: merged JSON differs: $(head "$dir/diff.txt")"
echo "slurm: all checks passed in $(( $(date +%s) - start )) s"
