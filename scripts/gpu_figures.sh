#!/usr/bin/env bash
# The GPU figures of docs/executor.md in one command: every GPU test, then the GPU bench's
# sections (cupti, compute, logical, imported on the real StarPU LU trace) ROUNDS times, since a
# shared machine's noise is only seen across repeats. Logs go to OUT_DIR, one file per round.
#
#   scripts/gpu_figures.sh BUILD_DIR OUT_DIR [ROUNDS]     (ROUNDS defaults to 3)
#
# Exits 1 when a test or a bench section failed, 2 on bad usage, 77 without a GPU.
set -uo pipefail
if [ $# -lt 2 ]; then
  echo "usage: scripts/gpu_figures.sh BUILD_DIR OUT_DIR [ROUNDS]" >&2
  exit 2
fi
build=$(cd "$1" && pwd) || exit 2
out=$2
rounds=${3:-3}
source_dir=$(cd "$(dirname "$0")/.." && pwd)
tilelens=$build/app/cli/tilelens
mkdir -p "$out" || exit 2
if ! nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader >"$out/gpu.txt" 2>&1; then
  echo "gpu_figures: no NVIDIA GPU (nvidia-smi failed)" >&2
  exit 77
fi
cat "$out/gpu.txt"

failed=0
lu=$out/lu-imported.workload
fixture=$source_dir/tests/starpu/fixtures/lu
"$tilelens" import starpu "$fixture/tasks.rec" --data "$fixture/data.rec" --workload-out "$lu" >"$out/import.log" 2>&1 ||
  { echo "gpu_figures: the LU import failed (see $out/import.log)" >&2; failed=1; }

(cd "$build" && ctest -R GPU --output-on-failure) 2>&1 | tee "$out/ctest.log" || failed=1

for round in $(seq 1 "$rounds"); do
  for section in cupti compute logical imported; do
    echo "## round $round, section $section" | tee -a "$out/bench-$round.log"
    "$tilelens" bench gpu --section "$section" --workload "$lu" 2>&1 | tee -a "$out/bench-$round.log" || failed=1
  done
done
exit $failed
