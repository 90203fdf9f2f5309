#!/bin/bash
# Measures how far replay is from a real StarPU (issue 18's baseline): an out-of-core tiled
# Cholesky (tests/starpu/tiled_apps.c) on 2 CPU workers sharing a limited RAM, under each
# StarPU scheduler and memory limit, imported with its transfers and replayed by `tilelens
# fidelity` under the same policy on the platform calibrated from it. Prints one line per
# setting: StarPU's loads (disk -> RAM reads) against the replay's. Needs a StarPU built with
# FxT (tests/starpu/build_starpu_fxt.sh) and a built tilelens; not run by CI.
#
# usage: tests/starpu/compare_replay.sh [STARPU_PREFIX] [TILELENS] [TILES] [LIMITS_MIB...]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
prefix=$(realpath "${1:-build/starpu-fxt}")
tilelens=$(realpath "${2:-build/release/app/cli/tilelens}")
tiles=${3:-8}
shift $(( $# < 3 ? $# : 3 ))
limits=("${@:-2 3}")
read -r -a limits <<<"${limits[*]}"
export PATH="$prefix/bin:$PATH" LD_LIBRARY_PATH="$prefix/lib" PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
gcc -O2 -o tiled_apps "$here/tiled_apps.c" $(pkg-config --cflags --libs starpu-1.3) -lm
export STARPU_HOME="$work/home" STARPU_NCPU=2 STARPU_SILENT=1
for _ in 1 2 3; do STARPU_SCHED=dmda STARPU_CALIBRATE=1 ./tiled_apps cholesky --tiles "$tiles" --tile 128; done

printf '%-8s %5s %8s %8s %7s %12s %12s\n' scheduler MiB starpu replay ratio "wb starpu" "wb replay"
for scheduler in eager lws dmda dmdar; do
  for limit in "${limits[@]}"; do
    run="$work/$scheduler-$limit"
    mkdir -p "$run/swap"
    (
      cd "$run"
      STARPU_SCHED=$scheduler STARPU_LIMIT_CPU_MEM=$limit STARPU_DISK_SWAP="$run/swap" STARPU_DISK_SWAP_BACKEND=unistd \
        STARPU_DISK_SWAP_SIZE=200 STARPU_FXT_TRACE=1 STARPU_FXT_PREFIX="$run/" "$work/tiled_apps" cholesky --tiles "$tiles" --tile 128
      starpu_fxt_tool -memory-states -i prof_file_* >/dev/null
      "$tilelens" import starpu tasks.rec --data data.rec --paje paje.trace --scheduler "$scheduler" --memory "${limit}MiB" \
        --db runs.db >/dev/null 2>&1
      "$tilelens" fidelity --run 1 --db runs.db --json >fidelity.json
    )
    python3 - "$run/fidelity.json" "$scheduler" "$limit" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))
loads, wb = f["loads"], f["write_backs"]
ratio = loads["replayed"] / loads["measured"] if loads["measured"] else float("nan")
print(f'{sys.argv[2]:<8} {sys.argv[3]:>5} {loads["measured"]:>8.0f} {loads["replayed"]:>8.0f} {ratio:>7.2f} {wb["measured"]:>12.0f} {wb["replayed"]:>12.0f}')
PY
  done
done
