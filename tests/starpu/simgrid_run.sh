#!/bin/bash
# Runs a folder written by `tilelens export starpu-simgrid` under one StarPU scheduler in
# StarPU 1.3.10's SimGrid mode, and prints the reference program's JSON line (simulated
# makespan, loads and write-backs as StarPU counted them). Uses the StarPU-SimGrid that
# build_starpu_simgrid.sh cached (scripts/setup.sh builds it), and builds the reference program
# (simgrid_dag.c) beside it on first use. Exit 77 (CTest's skip) when StarPU-SimGrid is absent.
#
# usage: tests/starpu/simgrid_run.sh FOLDER SCHEDULER [KEY=VALUE...]   (extra StarPU variables)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
folder=$(realpath "$1")
scheduler=$2
shift 2
cache=${TILELENS_CACHE:-$HOME/.cache/tilelens}
prefix=${TILELENS_STARPU_SIMGRID:-$cache/starpu-1.3-simgrid}
if [ ! -f "$prefix/lib/pkgconfig/starpu-1.3.pc" ]; then
  echo "simgrid_run: no StarPU-SimGrid in $prefix: run tests/starpu/build_starpu_simgrid.sh (scripts/setup.sh does)" >&2
  exit 77
fi
program="$prefix/bin/tilelens_simgrid_dag"
if [ ! -x "$program" ] || [ "$here/simgrid_dag.c" -nt "$program" ]; then
  cc -O2 -Wall -Wextra -o "$program.tmp" "$here/simgrid_dag.c" \
    $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs starpu-1.3) -Wl,-rpath,"$prefix/lib"
  mv "$program.tmp" "$program"
fi

# XDG_CACHE_HOME would take precedence over STARPU_HOME for the machine's files. StarPU's reclaim
# can spin for ever on a memory that holds only a few tasks' data: TILELENS_STARPU_TIMEOUT seconds
# (600) end it.
limit=${TILELENS_STARPU_TIMEOUT:-600}
status=0
timeout "$limit" env -u XDG_CACHE_HOME -u STARPU_BUS_STATS $(grep -v '^#' "$folder/env") STARPU_HOME="$folder" STARPU_SCHED="$scheduler" "$@" \
  "$program" "$folder/workload" "$folder/rates" 2> "$folder/starpu-$scheduler.log" || status=$?
if [ "$status" = 124 ]; then
  echo "simgrid_run: StarPU did not finish in $limit s (TILELENS_STARPU_TIMEOUT); its log: $folder/starpu-$scheduler.log" >&2
  exit 1
fi
exit "$status"
