#!/bin/bash
# Runs a folder written by `tilelens export starpu-replay` through StarPU's own replay tool
# (starpu_replay, StarPU 1.3.10 in SimGrid mode) under one StarPU scheduler, and prints one JSON
# line in the reference program's shape (simgrid_run.sh): the simulated makespan, the loads,
# GPU-to-GPU loads and write-backs StarPU counted on its buses, and the tasks each worker ran.
# With --sched, the folder's sched.rec imposes the run's mapping and per-worker order. Uses the
# StarPU-SimGrid that build_starpu_simgrid.sh cached; exit 77 (CTest's skip) when it is absent.
#
# usage: tests/starpu/starpu_replay_run.sh FOLDER SCHEDULER [--sched] [KEY=VALUE...]   (extra StarPU variables)
set -euo pipefail

folder=$(realpath "$1")
scheduler=$2
shift 2
sched=()
if [ "${1:-}" = --sched ]; then
  [ -f "$folder/sched.rec" ] || { echo "starpu_replay_run: $folder has no sched.rec (export with --run)" >&2; exit 2; }
  sched=("$folder/sched.rec")
  shift
fi
here=$(cd "$(dirname "$0")" && pwd)
. "$here/simgrid_common.sh"
require_simgrid starpu_replay_run bin/starpu_replay
log="$folder/starpu_replay-$scheduler.log"
# Profiling feeds the bus and worker statistics StarPU prints at shutdown, after the data are
# unregistered (the last write-backs counted).
out=$(run_in_folder starpu_replay_run "$folder" "$scheduler" "$log" STARPU_PROFILING=1 STARPU_BUS_STATS=1 STARPU_WORKER_STATS=1 "$@" \
  "$prefix/bin/starpu_replay" "$folder/tasks.rec" "${sched[@]}")
python3 - "$out" "$log" <<'EOF'
import json, re, sys
out, log = sys.argv[1], open(sys.argv[2]).read()
makespan = re.search(r"([0-9.e+-]+) ms", out)
if not makespan:
    sys.exit("starpu_replay_run: no makespan in starpu_replay's output: " + out)
counts = {"loads": 0, "gpu_to_gpu_loads": 0, "writebacks": 0}
for source, target, n in re.findall(r"\t(\S+ \d+) -> (\S+ \d+)\t.*\(transfers : (\d+)", log):
    host_source, host_target = source.startswith("NUMA"), target.startswith("NUMA")
    key = "loads" if host_source and not host_target else "writebacks" if host_target and not host_source else "gpu_to_gpu_loads"
    counts[key] += int(n)
workers = [int(n) for n in re.findall(r"^\t(\d+) task\(s\)$", log, re.M)]
print(json.dumps({"makespan_ns": round(float(makespan.group(1)) * 1e6), **counts, "worker_tasks": workers}))
EOF
