#!/usr/bin/env bash
# Fuzzes the readers of hostile input with libFuzzer (clang, from Debian's clang package):
#   scripts/fuzz.sh TARGET [SECONDS]
# TARGET is starpu (the StarPU importer), workload (workload files), platform (platform files)
# or all (each in turn, as CI runs it); each runs SECONDS (default 60) from its checked-in
# corpus, tests/fuzz/TARGET. Inputs that reach new code land in build/fuzz/new-corpus/TARGET:
# copy the interesting ones into tests/fuzz/TARGET. A crash, a hang (10 s on one input), a
# sanitizer report or a broken property (tests/fuzz/fuzz_check.hpp) makes the script fail,
# naming the input it saved under build/fuzz/artifacts/TARGET.
set -euo pipefail
cd "$(dirname "$0")/.."
all=(starpu workload platform)
target=${1:-}
seconds=${2:-60}
case "$target" in
  all) targets=("${all[@]}") ;;
  starpu | workload | platform) targets=("$target") ;;
  *) echo "usage: scripts/fuzz.sh starpu|workload|platform|all [SECONDS]" >&2; exit 2 ;;
esac
[[ "$seconds" =~ ^[1-9][0-9]*$ ]] || { echo "fuzz.sh: SECONDS must be a whole number above 0, not '$seconds'" >&2; exit 2; }
bash scripts/setup.sh
if ! command -v clang++ >/dev/null; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq clang >/dev/null
fi
CXX=clang++ cmake -S . -B build/fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTILELENS_FUZZ=ON >/dev/null
cmake --build build/fuzz -j "${FUZZ_JOBS:-2}" --target "${targets[@]/#/fuzz_}"
# Undefined behaviour is a finding like a crash, not a line in a log.
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
failed=0
for name in "${targets[@]}"; do
  mkdir -p "build/fuzz/new-corpus/$name" "build/fuzz/artifacts/$name"
  log="build/fuzz/$name.log"
  echo "fuzz.sh: $name for $seconds s (log: $log)"
  if "./build/fuzz/tests/fuzz_$name" -max_total_time="$seconds" -max_len=65536 -timeout=10 -print_final_stats=1 \
      -artifact_prefix="build/fuzz/artifacts/$name/" "build/fuzz/new-corpus/$name" "tests/fuzz/$name" >"$log" 2>&1; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    echo "fuzz.sh: $name passed: ${runs:-?} inputs run"
  else
    failed=1
    grep -v '^#[0-9]' "$log" | tail -n 40 >&2
    input=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
    echo "fuzz.sh: $name FAILED; the input: ${input:-none saved, see $log}" >&2
  fi
done
exit $failed
