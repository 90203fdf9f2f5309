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
. "$here/simgrid_common.sh"
require_simgrid simgrid_run lib/pkgconfig/starpu-1.3.pc
program="$prefix/bin/tilelens_simgrid_dag"
if [ ! -x "$program" ] || [ "$here/simgrid_dag.c" -nt "$program" ]; then
  cc -O2 -Wall -Wextra -o "$program.tmp" "$here/simgrid_dag.c" \
    $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs starpu-1.3) -Wl,-rpath,"$prefix/lib"
  mv "$program.tmp" "$program"
fi

run_in_folder simgrid_run "$folder" "$scheduler" "$folder/starpu-$scheduler.log" STARPU_BUS_STATS=0 "$@" "$program" "$folder/workload" "$folder/rates"
