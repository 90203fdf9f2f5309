#!/usr/bin/env bash
# The scripted tour of tilelens-gui in a real X server (Xvfb), driven with xdotool as a user
# would drive it, with a screenshot at each step (ImageMagick's import):
#   1 the example (RCM, DMDAR, HFP side by side)     5 the timeline zoomed with W
#   2 the filter with two words                       6 the replay dialog on the open run
#   3 a run kept in its own tab (Down, Enter)         7 Ctrl+E from the filter: the export dialog
#   4 a tooltip on the timeline                       8 the window at 560 px wide
#   3b the tiles zoomed with the wheel (title, legend and an overview stay), then reset
#   5b the memory residency tab (Alt+M), then back to the timeline (Alt+T)
#   9 the curves of a sweep stored meanwhile by the CLI (F5, then the Sweeps menu)
#  10 two runs compared: Ctrl-click a second row; the metrics and the difference map
# It fails when the app dies at a step, when Ctrl+E from the filter opens no export dialog, or
# when the app does not quit cleanly. Usage: tour.sh TILELENS-GUI OUT [--docs DIR] (--docs also
# copies the screenshots to DIR, as docs/images). Exits 77 (CTest's skip) without Xvfb, xdotool
# or ImageMagick, saying which.
set -euo pipefail
gui=$1
out=$2
docs=""
[ "${3:-}" = "--docs" ] && docs=$4
for tool in Xvfb xdotool import; do
  if ! command -v "$tool" >/dev/null; then
    echo "SKIP: $tool is not installed (apt-get install xvfb xdotool imagemagick)"
    exit 77
  fi
done
rm -rf "$out"
mkdir -p "$out"
export XDG_CONFIG_HOME="$out/config" XDG_DATA_HOME="$out/data" XDG_RUNTIME_DIR="$out/runtime"
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
# Xvfb picks a free display itself (-displayfd) and writes its number once it accepts clients:
# a display number of our own choosing can be taken by another test or a stale lock file.
# -noreset: by default the server resets when its last client leaves (the xdotool probe
# below), and a client connecting during that reset is refused ("could not connect to
# display"), which failed one CI run.
xvfb=""
app=""
cleanup() {
  [ -n "$app" ] && kill "$app" 2>/dev/null || true
  [ -n "$xvfb" ] && kill "$xvfb" 2>/dev/null || true
}
trap cleanup EXIT
display=""
for attempt in 1 2 3; do
  : >"$out/display"
  Xvfb -displayfd 3 -screen 0 1600x1000x24 -nolisten tcp -noreset 3>"$out/display" >"$out/xvfb.log" 2>&1 &
  xvfb=$!
  for _ in $(seq 100); do
    display=$(tr -dc '0-9' <"$out/display")
    [ -n "$display" ] && break
    kill -0 "$xvfb" 2>/dev/null || break
    sleep 0.1
  done
  [ -n "$display" ] && break
  kill "$xvfb" 2>/dev/null || true
  xvfb=""
done
if [ -z "$display" ]; then
  echo "SKIP: Xvfb did not start after three attempts:"
  cat "$out/xvfb.log"
  exit 77
fi
export DISPLAY=":$display"
xdotool getmouselocation >/dev/null 2>&1 || { echo "xdotool cannot reach Xvfb on $DISPLAY"; exit 1; }

"$gui" --example-db "$out/example.db" >"$out/app.log" 2>&1 &
app=$!
window=""
for _ in $(seq 100); do
  window=$(xdotool search --onlyvisible --name "^tilelens" 2>/dev/null | head -1 || true)
  [ -n "$window" ] && break
  sleep 0.2
done
[ -n "$window" ] || { echo "the window never appeared"; cat "$out/app.log"; exit 1; }
xdotool windowsize "$window" 1400 900
xdotool windowfocus "$window" 2>/dev/null || true
sleep 1.5

wait_for() {  # wait_for TITLE-PATTERN: the id of a visible window with that title, within 15 s
  local id=""
  for _ in $(seq 75); do
    id=$(xdotool search --onlyvisible --name "$1" 2>/dev/null | head -1 || true)
    [ -n "$id" ] && break
    sleep 0.2
  done
  echo "$id"
}

step() {  # step NAME: the app must be alive; screenshot of the screen's top-left 1400x900
  kill -0 "$app" 2>/dev/null || { echo "the app died before step $1"; cat "$out/app.log"; exit 1; }
  import -window root -crop 1400x900+0+0 "$out/tour-$1.png"
  echo "step $1: $out/tour-$1.png"
}

step 1-example
xdotool key --window "$window" ctrl+f
sleep 0.3
xdotool type --delay 40 "cholesky darts"
sleep 0.8
step 2-filter
# Into the list, the first (only) row, Enter keeps it in a tab of its own.
xdotool mousemove 60 100 click 1
sleep 0.3
xdotool key Home Return
sleep 2
step 3-run
# The tiles zoomed with the wheel: the title and legend stay, the overview shows where we are.
xdotool mousemove 800 300
sleep 0.2
xdotool click 4 click 4 click 4 click 4 click 4
sleep 0.8
step 3b-zoomed-tiles
xdotool click --repeat 2 1
sleep 0.5
# The timeline: under the tiles, above "where time went". Hover GPU 0's fetch lane for a
# tooltip, then W.
xdotool mousemove 900 568
sleep 0.2
xdotool mousemove 903 570
sleep 1.5
step 4-tooltip
xdotool mousemove 640 640 click 1  # GPU 1's lanes, clear of the tooltip
xdotool key w w w
sleep 0.8
step 5-zoom
xdotool key alt+m
sleep 0.8
step 5b-residency
xdotool key alt+t
sleep 0.3
xdotool key --window "$window" ctrl+r
dialog=$(wait_for "^Replay into")
sleep 0.5
step 6-replay
[ -n "$dialog" ] || { echo "Ctrl+R opened no replay dialog"; exit 1; }
xdotool windowfocus "$dialog" 2>/dev/null || true  # no window manager: focus by hand
xdotool key Escape
sleep 0.5
# Ctrl+E while the filter has focus: the export dialog opens.
xdotool windowfocus "$window" 2>/dev/null || true
xdotool key ctrl+f
sleep 0.3
xdotool key ctrl+e
exported=$(wait_for "Export the figure")
sleep 0.5
step 7-export
[ -n "$exported" ] || { echo "Ctrl+E from the filter opened no export dialog"; exit 1; }
xdotool windowfocus "$exported" 2>/dev/null || true
xdotool key Escape
sleep 0.5
xdotool windowsize "$window" 560 700
sleep 1
step 8-narrow
# A sweep stored by the command line into the open database, then its curves in the app.
cli="$(dirname "$gui")/../cli/tilelens"
"$cli" sweep --db "$out/example.db" --workload 'matmul2d:N=5..40:5' --scheduler eager,rcm,dmdar,hfp/belady --memory 250MiB --quiet >/dev/null
xdotool windowsize "$window" 1400 900
xdotool windowfocus "$window" 2>/dev/null || true
sleep 0.5
xdotool key F5
sleep 0.5
xdotool key alt+s
sleep 0.5
xdotool key Return
sleep 2
step 9-curves
# Two runs side by side: the filter cleared, the first row, then Ctrl-click the second.
xdotool key ctrl+f
xdotool key ctrl+a BackSpace
sleep 0.5
xdotool mousemove 60 100 click 1
sleep 1
xdotool keydown ctrl mousemove 60 130 click 1 keyup ctrl
sleep 2
step 10-compare
xdotool windowfocus "$window" 2>/dev/null || true
xdotool key ctrl+q
for _ in $(seq 50); do kill -0 "$app" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$app" 2>/dev/null; then echo "the app did not quit on Ctrl+Q"; exit 1; fi
status=0
wait "$app" || status=$?
app=""
[ "$status" -eq 0 ] || { echo "the app exited with $status"; cat "$out/app.log"; exit 1; }
if [ -n "$docs" ]; then
  mkdir -p "$docs"
  cp "$out"/tour-*.png "$docs/"
  echo "copied the tour to $docs"
fi
echo "tour done: 12 steps, screenshots in $out"
