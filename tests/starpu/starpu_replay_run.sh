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
cache=${TILELENS_CACHE:-$HOME/.cache/tilelens}
prefix=${TILELENS_STARPU_SIMGRID:-$cache/starpu-1.3-simgrid}
if [ ! -x "$prefix/bin/starpu_replay" ]; then
  echo "starpu_replay_run: no starpu_replay in $prefix/bin: run tests/starpu/build_starpu_simgrid.sh (scripts/setup.sh does)" >&2
  exit 77
fi
log="$folder/starpu_replay-$scheduler.log"
# XDG_CACHE_HOME would take precedence over STARPU_HOME for the machine's files. Profiling feeds the
# bus and worker statistics StarPU prints at shutdown, after the data are unregistered (the last
# write-backs counted).
# StarPU's reclaim can spin for ever on a memory that holds only a few tasks' data (so does the
# native program there): TILELENS_STARPU_TIMEOUT seconds (600) end it.
limit=${TILELENS_STARPU_TIMEOUT:-600}
status=0
out=$(timeout "$limit" env -u XDG_CACHE_HOME $(grep -v '^#' "$folder/env") STARPU_HOME="$folder" STARPU_SCHED="$scheduler" \
  STARPU_PROFILING=1 STARPU_BUS_STATS=1 STARPU_WORKER_STATS=1 "$@" \
  "$prefix/bin/starpu_replay" "$folder/tasks.rec" "${sched[@]}" 2> "$log") || status=$?
if [ "$status" = 124 ]; then
  echo "starpu_replay_run: starpu_replay did not finish in $limit s (TILELENS_STARPU_TIMEOUT); its log: $log" >&2
  exit 1
elif [ "$status" != 0 ]; then
  echo "starpu_replay_run: starpu_replay failed ($status); its log: $log" >&2
  tail -5 "$log" >&2
  exit 1
fi
python3 - "$out" "$log" <<'EOF'
import json, re, sys
out, log = sys.argv[1], open(sys.argv[2]).read()
makespan = re.search(r"([0-9.e+-]+) ms", out)
if not makespan:
    sys.exit("starpu_replay_run: no makespan in starpu_replay's output: " + out)
counts = {"loads": 0, "peer_loads": 0, "writebacks": 0}
for source, target, n in re.findall(r"\t(\S+ \d+) -> (\S+ \d+)\t.*\(transfers : (\d+)", log):
    host_source, host_target = source.startswith("NUMA"), target.startswith("NUMA")
    key = "loads" if host_source and not host_target else "writebacks" if host_target and not host_source else "peer_loads"
    counts[key] += int(n)
workers = [int(n) for n in re.findall(r"^\t(\d+) task\(s\)$", log, re.M)]
print(json.dumps({"makespan_us": float(makespan.group(1)) * 1000, **counts, "worker_tasks": workers}))
EOF
