#!/usr/bin/env bash
# End-to-end: start the real tilelens-gui with no database under Xvfb (it builds and opens the
# example), let it save a screenshot of its window, then export a figure headless. Exits 77
# (CTest's skip) when xvfb-run is not installed, saying so.
set -euo pipefail
gui=$1
out=$2
if ! command -v xvfb-run >/dev/null; then
  echo "SKIP: xvfb-run is not installed (apt-get install xvfb xauth)"
  exit 77
fi
rm -rf "$out"
mkdir -p "$out"
export XDG_CONFIG_HOME="$out/config" XDG_DATA_HOME="$out/data"
xvfb-run -a -s "-screen 0 1600x1000x24" "$gui" --example-db "$out/example.db" --screenshot "$out/window.png"
size=$(stat -c %s "$out/window.png")
[ "$size" -gt 20000 ] || { echo "screenshot too small ($size bytes): the window did not draw"; exit 1; }
QT_QPA_PLATFORM=offscreen "$gui" --db "$out/example.db" --export side-by-side --run 1,2,3 --out "$out/fig8-10.svg"
grep -q "<svg" "$out/fig8-10.svg"
# --export list names every view, each of which draws a run of the example.
QT_QPA_PLATFORM=offscreen "$gui" --export list >"$out/views.txt"
for view in tile-order side-by-side difference timeline time-split residency curves; do
  grep -q "^$view " "$out/views.txt" || { echo "--export list does not name $view"; cat "$out/views.txt"; exit 1; }
done
QT_QPA_PLATFORM=offscreen "$gui" --db "$out/example.db" --export time-split --run 2 --out "$out/time-split.png"
[ "$(stat -c %s "$out/time-split.png")" -gt 2000 ] || { echo "time-split export too small"; exit 1; }
if QT_QPA_PLATFORM=offscreen "$gui" --db "$out/example.db" --export tile-order --run 99 --out "$out/none.png" 2>"$out/err.txt"; then
  echo "exporting a run that does not exist should fail"; exit 1
fi
grep -q "run 99" "$out/err.txt" || { cat "$out/err.txt"; exit 1; }
# Without a display: --help answers (no abort in Qt's xcb plugin), the window refuses clearly.
env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM "$gui" --help >"$out/help.txt"
grep -q -- "--export" "$out/help.txt"
status=0
env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM "$gui" --example-db "$out/example.db" 2>"$out/err.txt" || status=$?
[ "$status" -eq 1 ] || { echo "with no display the window should exit 1, got $status"; exit 1; }
grep -q "no display" "$out/err.txt" || { cat "$out/err.txt"; exit 1; }
echo "screenshot $out/window.png ($size bytes), $out/fig8-10.svg"
