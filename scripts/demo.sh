#!/usr/bin/env bash
# The quick start's main job. With a display: sets up, builds and opens tilelens-gui on its
# built-in example (matmul2d N=20, M = 250 MiB: RCM, DMDAR and HFP side by side, fgcs Figs.
# 8-10). Without one (or with --no-gui): sets up, builds, and replays fgcs section 5.2 (Figs. 5 and 7, Table 1): the 2D matrix product
# with M = 500 MiB on one V100-like GPU, N from 5 to 90, under EAGER, MST, RCM, DMDAR and the
# HFP variants. EAGER, MST and RCM (with LRU) turn pathological once memory cannot hold one
# input matrix (the red line); DMDAR's Ready holds better; HFP with Belady stays near twice the
# lower bound. The runs land in build/demo/fgcs.db; the tile orders of Figs. 8-10 in CSV.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release >/dev/null
tilelens=./build/release/app/cli/tilelens
gui=./build/release/app/gui/tilelens-gui
out=build/demo
mkdir -p "$out"
if [ "${1:-}" != "--no-gui" ] && [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ -x "$gui" ]; then
  exec "$gui"
fi

echo "fgcs section 5.2 in replay: matmul2d, n=4, 960x960 fp32 tiles, one GPU, M=500 MiB, 12 GB/s, 13,393 GFlop/s"
$tilelens sweep --db "$out/fgcs.db" --preset fgcs-fig5 --quiet
sweep=1  # the database's only sweep: rerunning the demo resumes it
echo
$tilelens runs compare --sweep "$sweep" --db "$out/fgcs.db" --metric gflops
echo
$tilelens runs compare --sweep "$sweep" --db "$out/fgcs.db" --metric ratio
echo
echo "The red line (M holds one input matrix, 14.06 MiB per block-row) is at N = 35.5 for M = 500 MiB; LRU on the row-major order already fails at N = 35, where B and one row of A exceed M (as the 2021 report notes)."
$tilelens results --db "$out/fgcs.db" --output "$out/results.md"
echo
echo "The tile orders behind fgcs Figs. 8, 9 and 10 (N=20, M=250 MiB):"
for policy in rcm:lru dmdar:lru hfp:belady; do
  $tilelens replay --workload matmul2d:N=20 --scheduler "${policy%%:*}" --eviction "${policy##*:}" --memory 250MiB \
    --order-out "$out/${policy%%:*}-n20.csv" | grep -E "^(policy|loads|ratio)"
done
echo "wrote $out/rcm-n20.csv, $out/dmdar-n20.csv, $out/hfp-n20.csv"
if [ -x "$gui" ]; then
  # The figures themselves, from their presets: the runs and PNG + PDF laid out as the paper's.
  for figure in fgcs-fig8 fgcs-fig9 fgcs-fig10; do
    QT_QPA_PLATFORM=offscreen $gui --db "$out/figs.db" --figure "$figure" --out "$out/$figure" 2>/dev/null
  done
  echo "and the figures themselves (RCM, DMDAR, HFP as fgcs Figs. 8-10): $out/fgcs-fig8.png, fgcs-fig9.png, fgcs-fig10.png (and .pdf)"
fi
