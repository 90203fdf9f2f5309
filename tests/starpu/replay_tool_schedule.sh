#!/bin/bash
# A tilelens schedule run inside StarPU (docs/fidelity.md, "StarPU's replay tool"): replays a
# workload under a tilelens scheduler into a database, exports the run with its sched.rec
# (`tilelens export starpu-replay --run`), and runs it through starpu_replay and through the
# native reference program (TILELENS_SCHED_REC) under StarPU-SimGrid. Fails unless StarPU ran
# every task on the worker the run gave it and, in the native program, in the run's order on each
# worker. Prints the loads, write-backs and makespan of both memory managers under that schedule;
# with TILELENS_SCHEDULE_TOLERANCE=T (0.05: 5%) it also fails when tilelens's loads or write-backs
# under the schedule stand further than T from StarPU's. Exit 77 (CTest's skip) when StarPU-SimGrid is not built.
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
"$tilelens" export csv --db "$db" --run 1 --table order > "$folder/order.csv"
status=0
for starpu_scheduler in eager dmda; do
  result=$("$here/starpu_replay_run.sh" "$folder/export" "$starpu_scheduler" --sched) || exit $?
  python3 - "$result" "$folder/order.csv" "$folder/replay.txt" "$starpu_scheduler" "$scheduler" <<'EOF' || status=1
import collections, csv, json, re, sys
result, scheduler, policy = json.loads(sys.argv[1]), sys.argv[4], sys.argv[5]
per_gpu = collections.Counter(int(row["gpu"]) for row in csv.DictReader(open(sys.argv[2])))
expected = [per_gpu[g] for g in range(max(per_gpu) + 1)]
replay = open(sys.argv[3]).read()
loads = re.search(r"^loads\s+(\d+)", replay, re.M).group(1)
makespan = re.search(r"^makespan\s+(\S+ \S+)", replay, re.M).group(1)
print(f"{policy}'s schedule in StarPU (STARPU_SCHED={scheduler}): {result['loads'] + result['gpu_to_gpu_loads']} loads, "
      f"{result['writebacks']} write-backs, {result['makespan_ns'] / 1e6:.3f} ms; tilelens: {loads} loads, {makespan}; "
      f"tasks per worker {result['worker_tasks']} (the run's {expected})")
if result["worker_tasks"] != expected:
    sys.exit(f"FAIL: StarPU ran {result['worker_tasks']} tasks per worker, the run's schedule says {expected}")
EOF
done
# The native program under the same schedule (TILELENS_SCHED_REC), its kernels asynchronous:
# StarPU's memory manager against tilelens's with no replay-tool departure in between, and the
# order each worker ran checked task by task.
native=$(TILELENS_SCHED_REC="$folder/export/sched.rec" TILELENS_ORDER_OUT="$folder/native-order.csv" \
  "$here/simgrid_run.sh" "$folder/export" eager) || exit $?
# StarPU prefetches a task for its specific worker as soon as it is ready (sched_policy.c:540-545),
# at INT_MAX - Workerorder (coherency.c:973-978): tilelens's replay of the run's order with
# `workerorder=1` does the same.
"$tilelens" replay --workload "$folder/export/workload" --scheduler "fixed:file=$folder/order.csv,workerorder=1" --gpus "$gpus" \
  --memory "$memory" --buffer 2 --copy-engines 1 > "$folder/replay-prefetched.txt"
python3 - "$native" "$folder/native-order.csv" "$folder/order.csv" "$folder/replay-prefetched.txt" "$scheduler" \
  "${TILELENS_SCHEDULE_TOLERANCE:-}" <<'EOF' || status=1
import collections, csv, json, re, sys
native, policy = json.loads(sys.argv[1]), sys.argv[5]
ran, planned = collections.defaultdict(list), collections.defaultdict(list)
for row in sorted(csv.DictReader(open(sys.argv[2])), key=lambda r: float(r["start_us"])):
    ran[int(row["worker"])].append(int(row["task"]))
for row in sorted(csv.DictReader(open(sys.argv[3])), key=lambda r: (int(r["gpu"]), int(r["gpu_order"]))):
    planned[int(row["gpu"])].append(int(row["task"]))
prefetched = open(sys.argv[4]).read()
loads = re.search(r"^loads\s+(\d+)", prefetched, re.M).group(1)
writebacks = re.search(r"write-backs (\d+)", prefetched).group(1)
makespan = re.search(r"^makespan\s+(\S+ \S+)", prefetched, re.M).group(1)
print(f"{policy}'s schedule in the native program: {native['loads'] + native['gpu_to_gpu_loads']} loads, {native['writebacks']} write-backs, "
      f"{native['makespan_ns'] / 1e6:.3f} ms; tilelens, its order imposed as StarPU does (fixed:workerorder=1): "
      f"{loads} loads, {writebacks} write-backs, {makespan}")
if dict(ran) != dict(planned):
    worker = next(g for g in planned if ran.get(g) != planned[g])
    sys.exit(f"FAIL: worker {worker} ran {ran.get(worker, [])[:12]}..., the run's schedule says {planned[worker][:12]}...")
tolerance = float(sys.argv[6]) if sys.argv[6] else None
for name, mine, theirs in (("loads", int(loads), native["loads"] + native["gpu_to_gpu_loads"]),
                           ("write-backs", int(writebacks), native["writebacks"])):
    if tolerance is not None and abs(mine / theirs - 1) > tolerance:
        sys.exit(f"FAIL: under one schedule tilelens's {name} are {mine / theirs:.3f}x StarPU's ({mine} against {theirs}), "
                 f"outside {tolerance:.0%}")
EOF
exit $status
