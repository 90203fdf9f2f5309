#!/bin/bash
# Records the real StarPU traces in tests/starpu/fixtures with tests/starpu/tiled_apps.c and a
# StarPU built with FxT (tests/starpu/build_starpu_fxt.sh, run first). Each fixture folder holds
# what a user would import (tasks.rec, data.rec, paje.trace from `starpu_fxt_tool
# -memory-states`, which adds the handle of each transfer), the program's manifest of what it
# submitted (manifest.txt, one per rank with MPI) and how it was recorded (recorded.txt).
# Not run by CI; a real run varies, so re-recording changes the times and transfers, not the
# task graph.
#
# usage: tests/starpu/record_fixtures.sh [STARPU_PREFIX]     (default: build/starpu-fxt)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
prefix=$(realpath "${1:-build/starpu-fxt}")
export PATH="$prefix/bin:$PATH" LD_LIBRARY_PATH="$prefix/lib" PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

gcc -O2 -Wall -Wextra -o "$work/tiled_apps" "$here/tiled_apps.c" $(pkg-config --cflags --libs starpu-1.3) -lm
mpicc -O2 -Wall -DTILED_APPS_MPI -o "$work/tiled_apps_mpi" "$here/tiled_apps.c" $(pkg-config --cflags --libs starpumpi-1.3) -lm

# History-based perfmodels (dmdar) need measurements first, per tile size. StarPU built with FxT
# writes trace files into the current folder even untraced: calibrate in the scratch folder.
export STARPU_HOME="$work/home" STARPU_NCPU=2 STARPU_SCHED=dmdar STARPU_SILENT=1
cd "$work"
for args in "cholesky --tiles 6 --tile 128 --then-lu 96" "lu --tiles 6 --tile 128"; do
  for _ in 1 2 3; do STARPU_CALIBRATE=1 "$work/tiled_apps" $args; done
done

# record NAME RANKS ENV... -- ARGS...
record() {
  local name=$1 ranks=$2
  shift 2
  local env=()
  while [ "$1" != "--" ]; do env+=("$1"); shift; done
  shift
  local run="$work/$name" out="$here/fixtures/$name"
  mkdir -p "$run/swap" "$out"
  (
    cd "$run"
    export STARPU_FXT_TRACE=1 STARPU_FXT_PREFIX="$run/" "${env[@]}"
    if [ "$ranks" = 1 ]; then
      "$work/tiled_apps" "$@" --manifest manifest.txt
    else
      mpirun --allow-run-as-root --oversubscribe -np "$ranks" -x STARPU_FXT_TRACE -x STARPU_FXT_PREFIX -x STARPU_HOME \
        -x STARPU_NCPU -x STARPU_SCHED -x STARPU_SILENT -x LD_LIBRARY_PATH "$work/tiled_apps_mpi" "$@" --manifest manifest.txt
    fi
    inputs=()
    for f in prof_file_*; do inputs+=(-i "$f"); done
    starpu_fxt_tool -memory-states "${inputs[@]}" >/dev/null
  )
  cp "$run/tasks.rec" "$run/data.rec" "$run/paje.trace" "$out/"
  cp "$run"/manifest.txt* "$out/"
  {
    echo "program: tests/starpu/tiled_apps.c $*"
    echo "ranks: $ranks"
    echo "scheduler: $STARPU_SCHED"
    echo "cpu workers per rank: $STARPU_NCPU"
    for e in "${env[@]}"; do echo "env: $e"; done
    echo "starpu: $(starpu_fxt_tool --version 2>&1 | head -n 1)"
    echo "recorded: $(date -u +%Y-%m-%d)"
  } >"$out/recorded.txt"
  echo "recorded $name: $(grep -c '^JobId' "$out/tasks.rec") task records, $(grep -c '^18' "$out/paje.trace") transfers"
}

ooc=(STARPU_LIMIT_CPU_MEM=2 STARPU_DISK_SWAP_BACKEND=unistd STARPU_DISK_SWAP_SIZE=200)
record cholesky 1 -- cholesky --tiles 6 --tile 128
record cholesky-out-of-core 1 "${ooc[@]}" STARPU_DISK_SWAP="$work/cholesky-out-of-core/swap" -- cholesky --tiles 6 --tile 128
record lu 1 -- lu --tiles 6 --tile 128
record lu-out-of-core 1 "${ooc[@]}" STARPU_DISK_SWAP="$work/lu-out-of-core/swap" -- lu --tiles 6 --tile 128
record cholesky-then-lu 1 -- cholesky --tiles 6 --tile 128 --then-lu 96
record cholesky-2-ranks 2 -- cholesky --tiles 6 --tile 128
