# Sourced by the StarPU-SimGrid runners (simgrid_run.sh, starpu_replay_run.sh): where the cached
# build is (build_starpu_simgrid.sh), and how one StarPU program runs in an exported folder.
cache=${TILELENS_CACHE:-$HOME/.cache/tilelens}
prefix=${TILELENS_STARPU_SIMGRID:-$cache/starpu-1.3-simgrid}

# Exits 77 (CTest's skip), naming the runner, when the cached build lacks FILE.
require_simgrid() {
  if [ ! -e "$prefix/$2" ]; then
    echo "$1: no $2 in $prefix: run tests/starpu/build_starpu_simgrid.sh (scripts/setup.sh does)" >&2
    exit 77
  fi
}

# run_in_folder RUNNER FOLDER SCHEDULER LOG COMMAND...: COMMAND's standard output, with the
# folder's environment (its STARPU_HOME, the scheduler) and its standard error in LOG. XDG_CACHE_HOME
# would take precedence over STARPU_HOME for the machine's files. StarPU's reclaim can spin for
# ever on a memory that holds only a few tasks' data: TILELENS_STARPU_TIMEOUT seconds (600) end it,
# and the runner exits 1 saying so, as when the program fails.
run_in_folder() {
  local runner=$1 folder=$2 scheduler=$3 log=$4 limit=${TILELENS_STARPU_TIMEOUT:-600} status=0
  shift 4
  timeout "$limit" env -u XDG_CACHE_HOME $(grep -v '^#' "$folder/env") STARPU_HOME="$folder" STARPU_SCHED="$scheduler" "$@" 2> "$log" || status=$?
  if [ "$status" = 124 ]; then
    echo "$runner: StarPU did not finish in $limit s (TILELENS_STARPU_TIMEOUT); its log: $log" >&2
    exit 1
  elif [ "$status" != 0 ]; then
    echo "$runner: StarPU failed ($status); its log: $log" >&2
    tail -5 "$log" >&2
    exit 1
  fi
}
