#!/bin/sh
# slurm_local.sh start DIR | stop DIR — a single-node Slurm cluster on this machine for the sweep
# test (tests/cli/test_sweep_slurm.c): its own munged (socket, pid and key in DIR), slurmctld and
# slurmd on ports of their own, everything under DIR; `stop` ends exactly the daemons `start`
# began, by the pid files they wrote. Needs root and Debian's slurm-wlm and munge. `start`
# prints the SLURM_CONF to export.
set -eu
cmd=$1
D=$2
case $cmd in
start)
  mkdir -p "$D/spool" "$D/state" "$D/log" "$D/munge"
  H=$(hostname -s)
  CPUS=$(nproc)
  MEM=$(( $(awk '/MemTotal/{print $2}' /proc/meminfo) / 1024 - 1024 ))
  PORT=$(( 20000 + $$ % 20000 ))
  # munge: a key of its own, readable by the munge user only
  dd if=/dev/urandom of="$D/munge/munge.key" bs=1024 count=1 2>/dev/null
  chown -R munge:munge "$D/munge"
  chmod 755 "$D/munge"
  chmod 400 "$D/munge/munge.key"
  chmod 755 "$D"
  runuser -u munge -- /usr/sbin/munged --socket="$D/munge/socket" --key-file="$D/munge/munge.key" \
    --pid-file="$D/munge/munged.pid" --log-file="$D/munge/munged.log" --seed-file="$D/munge/seed"
  chmod 755 "$D/munge"
  cat > "$D/slurm.conf" <<CONF
ClusterName=cubesim
SlurmctldHost=$H
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$D/munge/socket
CredType=cred/munge
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmctldLogFile=$D/log/ctld.log
SlurmdLogFile=$D/log/d.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
NodeName=$H CPUs=$CPUS RealMemory=$MEM State=UNKNOWN
PartitionName=debug Nodes=$H Default=YES MaxTime=INFINITE State=UP
CONF
  export SLURM_CONF="$D/slurm.conf"
  /usr/sbin/slurmctld -f "$SLURM_CONF"
  /usr/sbin/slurmd -f "$SLURM_CONF"
  i=0
  until sinfo -h -o %t 2>/dev/null | grep -q idle; do
    i=$((i + 1))
    if [ $i -gt 60 ]; then echo "slurm did not come up (see $D/log)" >&2; exit 1; fi
    sleep 0.5
  done
  echo "$SLURM_CONF"
  ;;
stop)
  # each one, then wait until it has gone (a daemon writes its state while it stops)
  for f in "$D/slurmd.pid" "$D/slurmctld.pid" "$D/munge/munged.pid"; do
    [ -s "$f" ] || continue
    pid=$(cat "$f")
    kill "$pid" 2>/dev/null || continue
    i=0
    while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do
      i=$((i + 1))
      sleep 0.1
    done
  done
  ;;
*)
  echo "usage: slurm_local.sh start|stop DIR" >&2
  exit 2
  ;;
esac
