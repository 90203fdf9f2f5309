#!/bin/bash
# Runs the real-StarPU comparison (starpu_vs_replay.sh) again and again, alternating an idle
# machine with one beside `stress-ng --cpu 2`, and keeps a one-line record per pass: the proof
# issue 32 asks for before that comparison may join the default test run (20 passes out of 20,
# 10 of them beside a CPU hog). Each pass's whole output is kept beside the record, so a pass can
# be read again later; the record is appended to, so passes can be added in later sittings.
#
# usage: repeat_under_load.sh TILELENS --log DIR [--passes N] [--first plain|stress]
#        [--first-pass K] -- [starpu_vs_replay.sh options]
# DIR/passes.txt gets one line per pass: its number, mode, start, seconds, exit status, the
# settings within the tolerance, and the lowest and highest ratio of replayed loads to StarPU's
# mean reads. DIR/pass-K.txt holds pass K's output. Touch DIR/STOP to end after the current pass.
# Exits 0 when every pass run here passed, 1 otherwise.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
tilelens=$(realpath "${1:?usage: repeat_under_load.sh TILELENS --log DIR [options] -- [comparison options]}")
shift
log="" passes=20 first=plain first_pass=1
while [ $# -gt 0 ]; do
  case "$1" in
    --log) log=$2 ;;
    --passes) passes=$2 ;;
    --first) first=$2 ;;
    --first-pass) first_pass=$2 ;;
    --) shift; break ;;
    *) echo "repeat_under_load.sh: unknown option $1" >&2; exit 1 ;;
  esac
  shift 2
done
[ -n "$log" ] || { echo "repeat_under_load.sh: --log DIR is required" >&2; exit 1; }
case "$first" in plain | stress) ;; *) echo "repeat_under_load.sh: --first takes plain or stress, not $first" >&2; exit 1 ;; esac
if ! command -v stress-ng > /dev/null; then
  echo "repeat_under_load.sh: stress-ng is not installed (apt-get install stress-ng)" >&2
  exit 1
fi
# The comparison's own tolerance (its default is 10%), to count the settings within it.
tolerance=10
args=("$@")
for ((i = 0; i + 1 < ${#args[@]}; i++)); do
  [ "${args[i]}" = --tolerance ] && tolerance=${args[i + 1]}
done
mkdir -p "$log"
record="$log/passes.txt"
[ -s "$record" ] || echo "# pass mode start seconds rc within lowest highest" > "$record"

hog=""
stop_hog() {
  if [ -n "$hog" ]; then
    kill -- "-$hog" 2> /dev/null || true
    wait "$hog" 2> /dev/null || true
    hog=""
  fi
}
trap stop_hog EXIT

failed=0
mode=$first
for ((k = first_pass; k < first_pass + passes; k++)); do
  [ -e "$log/STOP" ] && break
  if [ "$mode" = stress ]; then
    setsid stress-ng --cpu 2 --quiet > /dev/null 2>&1 &
    hog=$!
  fi
  start=$(date -u +%Y-%m-%dT%H:%M:%S)
  t0=$(date +%s)
  rc=0
  bash "$here/starpu_vs_replay.sh" "$tilelens" "$@" > "$log/pass-$k.txt" 2>&1 || rc=$?
  seconds=$(($(date +%s) - t0))
  stop_hog
  # A setting's line: its tile count, its home, ...; its ninth field is the loads' ratio.
  summary=$(awk -v tol="$tolerance" '
    $1 ~ /^[0-9]+$/ && $2 ~ /^(swap|disk)$/ && NF >= 9 { n++; r = $9; if (n == 1 || r < lo) lo = r; if (n == 1 || r > hi) hi = r
                                 if (r >= 1 - tol / 100 && r <= 1 + tol / 100) ok++ }
    END { printf "%d/%d %s %s", ok, n, (n ? lo : "-"), (n ? hi : "-") }' "$log/pass-$k.txt")
  echo "$k $mode $start $seconds $rc $summary" >> "$record"
  [ "$rc" -eq 0 ] || failed=1
  mode=$([ "$mode" = plain ] && echo stress || echo plain)
done
exit $failed
