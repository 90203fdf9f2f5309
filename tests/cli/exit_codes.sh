#!/usr/bin/env bash
# Every command, given nothing, --help, an unknown option, and hostile values a careless or
# malicious user would try, ends within 10 s with status 0, 1 or 2, never a signal or a
# timeout, and says why whenever it does not succeed (the benchmarks run --quick). Usage:
# exit_codes.sh TILELENS [sanitized] (a sanitized build cannot run under an address-space cap).
set -uo pipefail
tilelens=$1
sanitized=${2:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
failures=0
tried=0

attempt() {
  tried=$((tried + 1))
  timeout -s KILL 10 "$tilelens" "$@" >"$work/out" 2>"$work/err" </dev/null
  local status=$?
  if [ $status -gt 2 ]; then
    echo "FAIL tilelens $*: status $status (a signal or a timeout): $(head -c 300 "$work/err")"
    failures=$((failures + 1))
  elif [ $status -ne 0 ] && [ ! -s "$work/err" ]; then
    echo "FAIL tilelens $*: status $status without a message"
    failures=$((failures + 1))
  fi
}

# Files a user might hand over by mistake or on purpose.
printf 'tilelens-workload 1\nname w\nkind K\ndata 18446744073709551615 - 0 0 d0\ntask K 1 0 0 0 0 R:0\n' >huge.workload
printf 'tilelens-workload 1\nname w\nkind K\ndata 100 - 0 0 d0\ntask K 1e300 0 0 0 0 R:0\n' >flops.workload
printf 'tilelens-workload 1\nname w\xff\nkind K\ndata 100 - 0 0 d0\ntask K 1 0 0 0 0 R:0\n' >utf8.workload
printf '{"format": 1, "bus_bandwidth": 1e-300, "gpus": 1}' >slow.json
printf '{"format": 1, "gpus": 1, "gpus": 2}' >twice.json
printf 'not a database at all' >junk.db
head -c 4096 /dev/urandom >random.db 2>/dev/null || printf 'x' >random.db
: >empty.db
mkdir -p directory.db

# The commands, from the top help ("  runs list|show|compare|delete   ...").
mapfile -t groups < <("$tilelens" --help | sed -n 's/^  \([a-z]*\) \{1,\}\([a-z|]*\) \{2,\}.*/\1 \2/p; s/^  \([a-z]*\) \{3,\}[a-z].*/\1/p')
commands=()
for entry in "${groups[@]}"; do
  group=${entry%% *}
  verbs=${entry#* }
  if [ "$verbs" = "$entry" ] || [ -z "$verbs" ]; then
    commands+=("$group")
  else
    IFS='|' read -ra list <<<"$verbs"
    for verb in "${list[@]}"; do commands+=("$group $verb"); done
  fi
done
[ ${#commands[@]} -ge 20 ] || { echo "setup: found only ${#commands[@]} commands in tilelens --help"; exit 1; }

hostile=(
  ""
  "--help"
  "--no-such-option"
  "--db"
  "--db junk.db"
  "--db random.db"
  "--db empty.db"
  "--db directory.db"
  "--db /nonexistent/dir/x.db"
  "--workload huge.workload --memory 1items"
  "--workload flops.workload"
  "--workload utf8.workload"
  "--workload /nonexistent.workload"
  "--workload matmul2d:N=-1"
  "--workload matmul2d:N=99999999999999999999"
  "--platform slow.json"
  "--platform twice.json"
  "--platform /dev/null"
  "--memory -1"
  "--memory 1e400MiB"
  "--memory 250MiB,,500MiB"
  "--bandwidth 1e-300GB/s"
  "--bandwidth 0"
  "--rate 1e-300GFlop/s"
  "--gpus 0"
  "--gpus 99999"
  "--buffer 0"
  "--buffer 18446744073709551617"
  "--latency -5us"
  "--run 0"
  "--run -1"
  "--run 99999999999999999999"
  "--sweep abc"
  "--seeds 1..99999999999"
  "--jobs -3"
  "--output /nonexistent/dir/out.txt"
  "--trace-out /dev/full"
  "--order-out /dev/full"
)
for command in "${commands[@]}"; do
  quick=""
  [[ $command == bench* ]] && quick="--quick"
  for values in "${hostile[@]}"; do
    # shellcheck disable=SC2086
    attempt $command $values $quick
  done
done
# Sizes that cannot fit under an 8 GiB address-space cap are refused before anything is
# allocated, with the estimate (not killed by the allocator).
if [ "$sanitized" != sanitized ]; then
  for workload in cholesky:N=600 matmul3d:N=368 lu:N=450; do
    tried=$((tried + 1))
    (ulimit -v 8388608; timeout -s KILL 10 "$tilelens" replay --workload $workload --memory 40items >"$work/out" 2>"$work/err")
    status=$?
    if [ $status -ne 2 ] || ! grep -q "of memory" "$work/err"; then
      echo "FAIL under an 8 GiB cap, replay --workload $workload: status $status: $(head -c 300 "$work/err")"
      failures=$((failures + 1))
    fi
  done
fi
# A few whole commands that once crashed or hung.
attempt replay --workload matmul2d:N=30 --memory 2items --bandwidth 1B/s
attempt replay --workload huge.workload --memory 1items
attempt replay --workload matmul2d:N=4 --json --rate 1e-3GFlop/s
attempt sweep --db sweep.db --workload "matmul2d:N=4" --memory "250MiB,,500MiB"
attempt workload show /dev/zero

if [ $failures -gt 0 ]; then
  echo "$failures of $tried commands failed"
  exit 1
fi
echo "$tried commands (${#commands[@]} commands x ${#hostile[@]} hostile argument sets, and more) ended with 0, 1 or 2"
