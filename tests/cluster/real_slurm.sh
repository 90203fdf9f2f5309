#!/usr/bin/env bash
# A real Slurm on localhost (issue 21, point 5): munged, slurmctld and slurmd started in a
# scratch folder with a minimal slurm.conf (proctrack/linuxproc, task/none, no cgroups, one
# node with this machine's CPUs), a sweep submitted with `tilelens sweep --slurm-script
# --submit` as a 3-task array and its merge job, and the merged database compared with the same
# sweep run here, run for run (keys and loads). The daemons are stopped at the end. Exits 77
# (CTest's skip), with the reason, when Slurm or munge is not installed, when not root (slurmd
# needs root), or when the daemons do not come up.
set -uo pipefail
tilelens=$(realpath "$1")
skip() {
  echo "SKIP: $*"
  exit 77
}
for tool in munged slurmctld slurmd sbatch squeue sinfo scontrol sqlite3; do
  command -v "$tool" >/dev/null || skip "$tool is not installed (apt-get install slurm-wlm munge sqlite3)"
done
[ "$(id -u)" -eq 0 ] || skip "slurmd must run as root on this test's single node"
work=$(mktemp -d /tmp/tilelens-slurm.XXXXXX)
chmod 755 "$work"
munge_pid="" ctld_pid="" slurmd_pid=""
stop() {
  [ -n "$ctld_pid" ] && SLURM_CONF="$work/slurm.conf" scontrol shutdown >/dev/null 2>&1
  sleep 1
  for pid in $slurmd_pid $ctld_pid $munge_pid; do kill "$pid" 2>/dev/null; done
  sleep 0.5
  for pid in $slurmd_pid $ctld_pid $munge_pid; do kill -9 "$pid" 2>/dev/null; done
  rm -rf "$work"
}
trap stop EXIT
fail() {
  echo "FAILED: $*"
  for log in slurmctld.log slurmd.log munged.log; do [ -f "$work/$log" ] && { echo "--- $log"; tail -n 20 "$work/$log"; }; done
  exit 1
}

# munge: a key of our own, its socket in the scratch folder.
mkdir -p "$work/munge" "$work/state" "$work/spool" "$work/shared"
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 700 "$work/munge" && chmod 400 "$work/munge/munge.key"
munged --force --key-file="$work/munge/munge.key" --socket="$work/munge/socket" --pid-file="$work/munge/munged.pid" \
  --log-file="$work/munged.log" --seed-file="$work/munge/seed" >/dev/null 2>&1 ||
  skip "munged did not start: $(tail -n 2 "$work/munged.log" 2>/dev/null)"
munge_pid=$(cat "$work/munge/munged.pid" 2>/dev/null)

# Ports of our own, so that another Slurm on this machine is left alone.
base=$((20000 + $$ % 20000))
node=$(hostname -s)
cpus=$(nproc)
cat >"$work/slurm.conf" <<EOF
ClusterName=tilelens
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/munge/socket
SlurmctldPort=$base
SlurmdPort=$((base + 1))
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
SlurmdTimeout=30
InactiveLimit=0
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=tilelens Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$work/slurm.conf"
slurmctld -D -i >"$work/slurmctld.out" 2>&1 &
ctld_pid=$!
slurmd -D -N "$node" >"$work/slurmd.out" 2>&1 &
slurmd_pid=$!
up=""
for _ in $(seq 60); do
  state=$(sinfo -h -n "$node" -o %T 2>/dev/null | head -1)
  [ "$state" = "idle" ] && { up=1; break; }
  kill -0 "$ctld_pid" 2>/dev/null && kill -0 "$slurmd_pid" 2>/dev/null || break
  sleep 0.5
done
[ -n "$up" ] || skip "the Slurm daemons did not come up (node state '${state:-none}'): $(tail -n 3 "$work/slurmctld.log" "$work/slurmd.log" 2>/dev/null | tr '\n' ' ')"

grid=(--workload 'matmul2d:N=4..10:2;cholesky:N=4|6' --scheduler eager,dmdar,hfp/belady --memory 4items,8items)
cd "$work"
"$tilelens" sweep "${grid[@]}" --slurm-script "$work/sweep.sh" --output "$work/shared" --shards 3 --partition tilelens \
  --time 10:00 --submit >submit.txt 2>&1 || fail "submission: $(cat submit.txt)"
cat submit.txt
grep -q "submitted the array: job [0-9]* (3 of 3 shards)" submit.txt || fail "the array was not submitted"
merge_job=$(sed -n 's/^submitted the merge: job \([0-9]*\).*/\1/p' submit.txt)
[ -n "$merge_job" ] || fail "the merge job was not submitted"
# Wait for every job of ours to leave the queue (at most 90 s).
for _ in $(seq 180); do
  [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
  sleep 0.5
done
[ -z "$(squeue -h -o %i 2>/dev/null)" ] || fail "jobs still queued after 90 s: $(squeue 2>&1)"
[ -f "$work/shared/merged.db" ] || fail "no merged.db: $(cat "$work"/shared/slurm-*.out 2>/dev/null | tail -n 20)"
"$tilelens" sweep "${grid[@]}" --db "$work/whole.db" --quiet >/dev/null || fail "the local sweep"
keys() { sqlite3 "$1" "SELECT r.run_key || ' ' || m.loads FROM runs r JOIN metrics m ON m.run_id = r.id ORDER BY 1"; }
[ "$(keys "$work/shared/merged.db")" = "$(keys "$work/whole.db")" ] || fail "the merged database differs from the sweep run here"
"$tilelens" sweep --status "$work/shared" | tail -n 1
echo "real Slurm: 3 array tasks and the merge job ran; the merged database equals the sweep run here, run for run"
