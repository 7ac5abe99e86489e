#!/usr/bin/env bash
# Runs a redscope suite on Slurm: a job array of shards, then one job that
# re-runs the shards that did not finish and merges the rest.
#
#   scripts/slurm/submit-suite.sh [OPTIONS] [--] RUN-OPTIONS... PATH...
#
#   -n, --tasks N       shards, one array task each (default 4)
#   -j, --jobs J        CPUs of each task (--cpus-per-task) and its redscope -j (default 1)
#   -p, --partition P   the partition (default: the cluster's)
#   -t, --time T        time limit of each task and of the merge job (sbatch --time)
#   -o, --out DIR       output folder, on a filesystem every node shares
#                       (default ./redscope-suite; must not hold another suite)
#   -r, --retries R     re-submissions of the shards still missing (default 2)
#       --redscope BIN  the redscope of the jobs (default: redscope on the PATH, now)
#       --sbatch OPT    one more sbatch option for every job (--account=A, --qos=Q,
#                       --mem=M...); repeat it for more
#       --wait          return when the suite has ended, with its exit status
#
# Everything from the first other argument (or after --) goes to `redscope
# run`: its options (--model, --engine, --timeout, ...) and PATHs; not
# --format, --shard or -j, which each task sets. Paths are read from the
# current folder, which is the jobs' working folder (--chdir).
#
# What it submits: scripts/slurm/run-suite.sbatch as an array 1-N (task I
# writes OUT/shard-I.jsonl only once its redscope has ended on its own and
# `redscope merge` reads the output as `run`'s; with more tasks than tests,
# the extra shards are empty), and scripts/slurm/finish-suite.sbatch with
# --dependency=afterany on it, which re-submits the missing shards (a task
# that failed -- redscope missing or not executable on the node, killed,
# output merge refuses -- was cancelled, timed out or lost its node) at most
# R times, through this script's --resume, and then runs `redscope merge`
# into OUT/merged.json. OUT/result holds the outcome in one line ("exit=S
# merged ...", or "exit=E failed: ..." with the reasons, and then no
# merged.json), OUT/logs the jobs' output. docs/cli.md "Running a suite on
# Slurm".
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit "$1"; }
die() { echo "submit-suite.sh: $*" >&2; exit 2; }
number() {
  if ! [[ $2 =~ ^[0-9]{1,9}$ ]] || [ "$2" -lt "$3" ]; then
    die "$1 takes a whole number >= $3, not '$2'"
  fi
}

tasks=4 jobs=1 retries=2 out=redscope-suite partition='' time='' redscope='' wait=0
resume='' attempt=1
extra=()
while [ $# -gt 0 ]; do
  case $1 in
    -h | --help) usage 0 ;;
    --wait) wait=1; shift; continue ;;
    --) shift; break ;;
    -n | --tasks | -j | --jobs | -p | --partition | -t | --time | -o | --out | -r | --retries | \
      --redscope | --sbatch | --resume | --attempt)
      [ $# -ge 2 ] || die "$1 needs a value" ;;
    *) break ;;
  esac
  case $1 in
    -n | --tasks) number "$1" "$2" 1; tasks=$2 ;;
    -j | --jobs) number "$1" "$2" 1; jobs=$2 ;;
    -r | --retries) number "$1" "$2" 0; retries=$2 ;;
    -p | --partition) partition=$2 ;;
    -t | --time) time=$2 ;;
    -o | --out) out=$2 ;;
    --redscope) redscope=$2 ;;
    --sbatch) extra+=("$2") ;;
    --resume) resume=$2 ;;         # the finishing job's re-submission
    --attempt) attempt=$2 ;;
  esac
  shift 2
done
command -v sbatch > /dev/null || die "sbatch is not on the PATH (no Slurm client here)"

# A new suite: OUT/suite.conf keeps what every later job needs.
new_suite() {
  [ $# -gt 0 ] || die "no PATH to check (usage: $0 --help)"
  mkdir -p "$out/logs"
  out=$(cd "$out" && pwd)
  [ ! -f "$out/suite.conf" ] || die "$out holds a suite already: give another --out"
  [ -n "$redscope" ] || redscope=$(command -v redscope) ||
    die "redscope is not on the PATH: give --redscope BIN"
  if [ ! -f "$redscope" ] || [ ! -x "$redscope" ]; then
    die "--redscope $redscope is not an executable file"
  fi
  case $redscope in /*) ;; *) redscope=$PWD/$redscope ;; esac
  local opts=(--chdir="$PWD")
  [ -z "$partition" ] || opts+=(--partition="$partition")
  [ -z "$time" ] || opts+=(--time="$time")
  opts+=("${extra[@]}")
  {
    echo "# A redscope suite on Slurm (scripts/slurm/submit-suite.sh), read by its jobs."
    printf 'tasks=%q\nretries=%q\njobs=%q\nredscope=%q\nscripts=%q\n' \
      "$tasks" "$retries" "$jobs" "$redscope" "$here"
    printf 'sbatch_opts=(%s)\n' "$(printf '%q ' "${opts[@]}")"
    printf 'run_args=(%s)\n' "$(printf '%q ' "$@")"
  } > "$out/suite.conf"
}

# Submits the shards of OUT that have no complete file, then the finishing job.
submit_round() {
  local missing=() i
  for i in $(seq "$tasks"); do [ -f "$out/shard-$i.jsonl" ] || missing+=("$i"); done
  local spec; spec=$(IFS=,; echo "${missing[*]}")
  [ ${#missing[@]} -ne "$tasks" ] || spec=1-$tasks
  local array fin
  array=$(REDSCOPE=$redscope REDSCOPE_SUITE_ATTEMPT=$attempt sbatch --parsable \
    "${sbatch_opts[@]}" --cpus-per-task="$jobs" --array="$spec" \
    --output="$out/logs/shard-%a.%A.out" \
    "$scripts/run-suite.sbatch" "$out" "$tasks" "${run_args[@]}")
  array=${array%%;*}
  fin=$(sbatch --parsable "${sbatch_opts[@]}" --dependency=afterany:"$array" \
    --output="$out/logs/merge.%j.out" \
    "$scripts/finish-suite.sbatch" "$out" "$attempt" "$array")
  fin=${fin%%;*}
  echo "$fin" > "$out/merge-job"
  echo "attempt $attempt: array job $array (shards $spec of $tasks), then job $fin" \
    "merges into $out/merged.json"
}

# Has job $1 ended? squeue lists a job while it is pending or running (a few
# Slurm versions also once it has ended), then nothing, and once Slurm has
# forgotten it (MinJobAge) fails with "Invalid job id"; any other failure
# (squeue could not reach slurmctld) counts as not ended.
job_ended() {
  local state rc=0
  state=$(squeue -h -j "$1" -o %T 2>&1) || rc=$?
  case $state in
    "") [ "$rc" -eq 0 ] ;;
    COMPLETED | FAILED | CANCELLED* | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY | PREEMPTED | \
      BOOT_FAIL | DEADLINE | *"Invalid job id"*) return 0 ;;
    *) return 1 ;;
  esac
}

# Waits for OUT/result; a finishing job that ended without writing it or
# submitting a successor (OUT/merge-job unchanged) is an error.
wait_result() {
  local job
  while [ ! -f "$out/result" ]; do
    job=$(cat "$out/merge-job")
    if job_ended "$job"; then
      sleep 1  # its successor's id or the result may be on the way
      [ -f "$out/result" ] || [ "$(cat "$out/merge-job")" != "$job" ] ||
        { echo "submit-suite.sh: job $job ended without a result; see $out/logs" >&2; exit 1; }
    fi
    sleep 1
  done
  cat "$out/result"
  local status; status=$(sed -n 's/^exit=\([0-9]*\) .*/\1/p' "$out/result")
  exit "${status:-1}"
}

if [ -n "$resume" ]; then
  out=$resume
  [ -f "$out/suite.conf" ] || die "--resume $out: no suite.conf there"
else
  new_suite "$@"
fi
sbatch_opts=() run_args=() scripts=''  # set by OUT/suite.conf
# shellcheck source=/dev/null
. "$out/suite.conf"
submit_round
[ "$wait" = 0 ] || wait_result
