#!/bin/bash
# ViTE itself reads tilelens' Paje export (issue 19): a replay with fetches, prefetches and
# write-backs on two GPUs is exported, ViTE (Debian's vite) parses it under Xvfb and exports it
# as SVG. The test fails when ViTE reports an error or a warning, or when the SVG does not draw
# each transfer kind the run has in its own colour (ViTE draws every link white: the transfer
# lanes' states are what tell the kinds apart).
#
# Exit status: 0 passed, 1 failed, 77 (CTest's skip) when ViTE or an X server is missing.
# usage: vite_opens_paje.sh TILELENS
set -uo pipefail
tilelens=$(realpath "${1:?usage: vite_opens_paje.sh TILELENS}")
command -v vite >/dev/null || { echo "skipped: ViTE is not installed (apt-get install vite)"; exit 77; }
runner=()
if command -v xvfb-run >/dev/null; then
  runner=(xvfb-run -a)
else
  export QT_QPA_PLATFORM=offscreen
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

"$tilelens" replay --workload cholesky:N=6 --scheduler dmdar --gpus 2 --memory 8items --db run.db >/dev/null 2>&1 || { echo "replay failed"; exit 1; }
"$tilelens" export paje --db run.db --run 1 --output run.paje 2>/dev/null || { echo "export failed"; exit 1; }
HOME="$work" XDG_RUNTIME_DIR="$work" timeout 120 "${runner[@]}" vite -e run.svg run.paje >vite.log 2>&1
status=$?
if [ ! -s run.svg ]; then
  if grep -qi "could not connect to display\|cannot open display\|xvfb-run: error" vite.log; then
    echo "skipped: no X server for ViTE"; cat vite.log; exit 77
  fi
  echo "ViTE wrote no SVG (exit $status):"; cat vite.log; exit 1
fi
failed=0
if ! grep -q "0 errors and 0 warnings" vite.log || grep -qi "EntityType\|warning:" vite.log; then
  echo "ViTE complained:"; grep -v "^Loading" vite.log; failed=1
fi
# Each kind of transfer in the run, drawn in its colour: ViTE scales a Paje colour by 256.
for kind in F PF WB; do
  read -r r g b < <(awk -v k="$kind" '$1 == "4" && $2 == k && $3 == "ST_Transfer" { gsub(/"/, ""); print $5, $6, $7 }' run.paje)
  [ -n "${r:-}" ] || { echo "no colour defined for transfer kind $kind"; failed=1; continue; }
  if ! grep -q "ST_Transfer [^ ]* $kind\$" run.paje; then
    echo "the run has no $kind transfer to draw"; failed=1; continue
  fi
  rgb=$(awk -v r="$r" -v g="$g" -v b="$b" 'BEGIN { printf "rgb(%d,%d,%d)", r * 256, g * 256, b * 256 }')
  count=$(grep -o "fill=\"$rgb\"" run.svg | wc -l)
  echo "$kind: $count boxes in $rgb"
  [ "$count" -gt 0 ] || { echo "ViTE drew no $kind transfer in its colour $rgb"; failed=1; }
done
exit $failed
