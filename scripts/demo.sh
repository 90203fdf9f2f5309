#!/usr/bin/env bash
# Sets up, builds, and replays the story of fgcs section 5.2: the 2D matrix product with
# M = 500 MiB on one V100-like GPU, N from 5 to 90. EAGER and RCM (with LRU) turn
# pathological once memory cannot hold one input matrix (the red line, 1000 MiB of working
# set); Belady on the same orders shows how much of that is the eviction policy.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release >/dev/null
tilelens=./build/release/app/cli/tilelens

echo "fgcs section 5.2 in replay: matmul2d, n=4, 960x960 fp32 tiles, one GPU, M=500 MiB, 12 GB/s, 13,393 GFlop/s"
echo "columns: data loaded in MiB, ratio to the lower bound, GFlop/s (the paper's Figs. 5 and 7)"
printf "%4s %9s %9s |" N "WS MiB" "LB MiB"
for s in "eager+lru" "rcm+lru" "eager+belady" "rcm+belady"; do printf " %-25s|" "$s"; done
echo
for N in $(seq 5 5 90); do
  line=""
  for pair in eager:lru rcm:lru eager:belady rcm:belady; do
    row=$($tilelens replay --workload "matmul2d:N=$N" --platform v100-fgcs --scheduler "${pair%%:*}" --eviction "${pair##*:}" --csv | sed 's/^"[^"]*",//')
    IFS=, read -r _ _ _ _ ws loads _ _ bytes lb ratio _ _ gflops _ <<<"$row"
    line+=$(printf " %8.0f %6.2fx %7.0f  |" "$(echo "$bytes/1048576" | bc -l)" "$ratio" "$gflops")
  done
  printf "%4d %9.0f %9.0f |%s" "$N" "$(echo "$ws/1048576" | bc -l)" "$(echo "$lb/1048576" | bc -l)" "$line"
  [ "$N" -eq 35 ] && printf "  <- red line near here: M no longer holds one input matrix"
  echo
done
echo
echo "The tile order behind fgcs Fig. 8 (RCM, N=20, M=250 MiB) is in rcm-n20.csv:"
$tilelens replay --workload matmul2d:N=20 --scheduler rcm --eviction lru --memory 250MiB --order-out rcm-n20.csv
