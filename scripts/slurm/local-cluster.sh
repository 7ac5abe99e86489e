#!/usr/bin/env bash
# A single-node Slurm on localhost, for tests (ctest cli.slurm) and trying
# scripts/slurm/ without a cluster:
#
#   scripts/slurm/local-cluster.sh start DIR   # then: export SLURM_CONF=DIR/slurm.conf
#   scripts/slurm/local-cluster.sh stop DIR
#
# `start` writes DIR/slurm.conf (NodeName=localhost, CPUs=2, one partition
# "debug"), a munge key, and state, spool and log folders under DIR; starts
# munged, slurmctld and slurmd as plain processes (no systemd: a container or
# CI machine has none) and returns once the node is idle. `stop` cancels the
# cluster's jobs and ends the three daemons by the pids in DIR. Needs Debian's
# slurm-wlm and munge (scripts/setup.sh installs them). Nothing outside DIR is
# touched: SLURM_CONF and munge's socket point the client commands at this
# cluster only. No accounting (no slurmdbd), so `sacct` has nothing to show.
set -euo pipefail

usage() { echo "usage: $0 start|stop DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
cmd=$1
mkdir -p "$2"
dir=$(cd "$2" && pwd)
conf=$dir/slurm.conf

# A TCP port nobody listens on (the kernel's pick), so that two clusters (two
# clones running their tests) do not meet.
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

# munge's socket path must fit a sockaddr_un (108 bytes): a deep DIR gets a
# short folder under /tmp, named in DIR/munge-socket-dir.
socket_dir() {
  if [ ${#dir} -lt 80 ]; then
    echo "$dir/munge"
  else
    mktemp -d /tmp/redscope-munge.XXXXXX
  fi
}

write_conf() {
  local user; user=$(id -un)
  cat > "$conf" <<CONF
# Written by scripts/slurm/local-cluster.sh: a one-node cluster on localhost.
ClusterName=redscope-local
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
# No systemd, no cgroups: processes tracked by their parent, no task binding.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
# One CPU a task: two array tasks at once on the node's two CPUs, whatever the
# machine has (config_overrides: the node is not drained for fewer).
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
SchedulerType=sched/builtin
SchedulerParameters=sched_interval=1
ReturnToService=2
MailProg=/bin/true
KillWait=2
InactiveLimit=0
MinJobAge=60
NodeName=localhost NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
}

start_munge() {
  mkdir -p "$sock_dir"
  chmod 700 "$dir/munge"
  chmod 711 "$sock_dir"
  [ -f "$dir/munge/munge.key" ] ||
    { dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none &&
      chmod 400 "$dir/munge/munge.key"; }
  munged --force --key-file="$dir/munge/munge.key" --socket="$sock" \
    --pid-file="$dir/munge/munged.pid" --log-file="$dir/log/munged.log" \
    --seed-file="$dir/munge/munged.seed"
}

# Waits (up to 30 s) until sinfo shows the node idle.
wait_idle() {
  local state=""
  for _ in $(seq 150); do
    state=$(SLURM_CONF=$conf sinfo -h -N -o %T 2>/dev/null || true)
    [ "$state" = idle ] && return 0
    sleep 0.2
  done
  echo "$0: the node is not idle after 30 s (state '$state'); logs in $dir/log" >&2
  return 1
}

start() {
  [ ! -f "$dir/slurmctld.pid" ] ||
    { echo "$0: $dir holds a running cluster; stop it" >&2; exit 1; }
  rm -rf "$dir/state" "$dir/spool"
  mkdir -p "$dir/state" "$dir/spool" "$dir/log" "$dir/munge"
  sock_dir=$(socket_dir)
  echo "$sock_dir" > "$dir/munge-socket-dir"
  sock=$sock_dir/munge.socket
  write_conf
  start_munge
  slurmctld -c -f "$conf"
  slurmd -f "$conf" -N localhost
  wait_idle
  echo "single-node Slurm up; export SLURM_CONF=$conf"
}

# Ends the processes in the pid files given (SIGTERM, all at once) and waits
# for them, up to 10 s; then SIGKILL.
end_pids() {
  local f pids=()
  for f in "$@"; do
    [ -f "$f" ] || continue
    pids+=("$(cat "$f")")
  done
  [ ${#pids[@]} -gt 0 ] || return 0
  kill "${pids[@]}" 2>/dev/null || true
  for _ in $(seq 50); do
    kill -0 "${pids[@]}" 2>/dev/null || break
    sleep 0.2
  done
  local p
  for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && kill -9 "$p" 2>/dev/null; done
  rm -f "$@"
}

stop() {
  if [ -f "$dir/slurmctld.pid" ]; then
    SLURM_CONF=$conf scancel --full --quiet --user="$(id -un)" 2>/dev/null || true
    for _ in $(seq 25); do
      [ -z "$(SLURM_CONF=$conf squeue -h 2>/dev/null)" ] && break
      sleep 0.2
    done
  fi
  end_pids "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munge/munged.pid"
  if [ -f "$dir/munge-socket-dir" ]; then
    local s; s=$(cat "$dir/munge-socket-dir")
    [ "$s" = "$dir/munge" ] || rm -rf "$s"
    rm -f "$dir/munge-socket-dir"
  fi
}

case $cmd in
  start) start ;;
  stop) stop ;;
  *) usage ;;
esac
