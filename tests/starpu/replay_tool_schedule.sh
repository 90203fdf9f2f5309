#!/bin/bash
# A tilelens schedule run inside StarPU (docs/fidelity.md, "StarPU's replay tool"): replays a
# workload under a tilelens scheduler into a database, exports the run with its sched.rec
# (`tilelens export starpu-replay --run`), and runs it through starpu_replay under StarPU-SimGrid.
# Fails unless StarPU ran every task on the worker the run gave it (StarPU itself asserts the
# order each worker runs them in). Prints the loads, write-backs and makespan of both memory
# managers under that one schedule. Exit 77 (CTest's skip) when StarPU-SimGrid is not built.
#
# usage: tests/starpu/replay_tool_schedule.sh TILELENS FOLDER [WORKLOAD [SCHEDULER [GPUS [MEMORY]]]]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
tilelens=$1
folder=$2
workload=${3:-cholesky:N=8}
scheduler=${4:-hfp}
gpus=${5:-2}
memory=${6:-60MiB}
rm -rf "$folder"
mkdir -p "$folder"
db="$folder/runs.db"
"$tilelens" replay --workload "$workload" --scheduler "$scheduler" --gpus "$gpus" --memory "$memory" --buffer 2 --copy-engines 1 \
  --db "$db" > "$folder/replay.txt"
"$tilelens" export starpu-replay --db "$db" --run 1 --out "$folder/export" > /dev/null
status=0
for starpu_scheduler in eager dmda; do
  result=$("$here/starpu_replay_run.sh" "$folder/export" "$starpu_scheduler" --sched) || exit $?
  "$tilelens" export csv --db "$db" --run 1 --table order > "$folder/order.csv"
  python3 - "$result" "$folder/order.csv" "$folder/replay.txt" "$starpu_scheduler" "$scheduler" <<'EOF' || status=1
import collections, csv, json, re, sys
result, scheduler, policy = json.loads(sys.argv[1]), sys.argv[4], sys.argv[5]
per_gpu = collections.Counter(int(row["gpu"]) for row in csv.DictReader(open(sys.argv[2])))
expected = [per_gpu[g] for g in range(max(per_gpu) + 1)]
replay = open(sys.argv[3]).read()
loads = re.search(r"^loads\s+(\d+)", replay, re.M).group(1)
makespan = re.search(r"^makespan\s+(\S+ \S+)", replay, re.M).group(1)
print(f"{policy}'s schedule in StarPU (STARPU_SCHED={scheduler}): {result['loads'] + result['peer_loads']} loads, "
      f"{result['writebacks']} write-backs, {result['makespan_us'] / 1e3:.3f} ms; tilelens: {loads} loads, {makespan}; "
      f"tasks per worker {result['worker_tasks']} (the run's {expected})")
if result["worker_tasks"] != expected:
    sys.exit(f"FAIL: StarPU ran {result['worker_tasks']} tasks per worker, the run's schedule says {expected}")
EOF
done
exit $status
