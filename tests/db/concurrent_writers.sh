#!/usr/bin/env bash
# The concurrency test: two writers on one database. Two identical sweeps started together must
# store each run of the grid once (both exit 0, their stored counts add up to the grid), a
# reader listing the file while they write must succeed, and a sweep killed with SIGKILL must
# leave the file readable and its claims to the next sweep, which completes the grid without a
# duplicate. Usage: concurrent_writers.sh TILELENS
set -uo pipefail
tilelens=$1
command -v sqlite3 >/dev/null || { echo "skipped: the sqlite3 program is missing (scripts/setup.sh installs it)"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() {
  echo "FAIL $*"
  failures=$((failures + 1))
}
grid=(--workload "cholesky:N=6|8|10;matmul2d:N=6|8" --scheduler eager,dmdar,lws,mst --eviction lru,fifo --memory 6items,12items --jobs 2 --quiet)
runs=$(("$tilelens" sweep --db "$work/dry.db" "${grid[@]}" --dry-run 2>/dev/null || true) | grep -c " buffer=")
[ "$runs" -gt 20 ] || { echo "setup: the grid has $runs runs"; exit 1; }

for attempt in 1 2 3; do
  db=$work/together-$attempt.db
  "$tilelens" sweep --db "$db" "${grid[@]}" >"$work/a.out" 2>&1 &
  a=$!
  "$tilelens" sweep --db "$db" "${grid[@]}" >"$work/b.out" 2>&1 &
  b=$!
  readers_ok=1
  while kill -0 $a 2>/dev/null || kill -0 $b 2>/dev/null; do
    # Before the first writer has made the file, a reader is told there is no database yet.
    if ! "$tilelens" runs list --db "$db" >/dev/null 2>"$work/r.err" && ! grep -q "no such database\|is empty" "$work/r.err"; then
      readers_ok=0
      cp "$work/r.err" "$work/r.failed"
    fi
  done
  wait $a; status_a=$?
  wait $b; status_b=$?
  [ $status_a -eq 0 ] || fail "attempt $attempt: the first sweep exited $status_a: $(tail -2 "$work/a.out")"
  [ $status_b -eq 0 ] || fail "attempt $attempt: the second sweep exited $status_b: $(tail -2 "$work/b.out")"
  [ $readers_ok -eq 1 ] || fail "attempt $attempt: a reader failed while they wrote: $(cat "$work/r.failed")"
  stored=$(sqlite3 "$db" "SELECT count(*) FROM runs")
  keys=$(sqlite3 "$db" "SELECT count(DISTINCT run_key) FROM runs")
  [ "$stored" -eq "$runs" ] && [ "$keys" -eq "$runs" ] || fail "attempt $attempt: $stored runs stored for $keys keys, the grid has $runs"
  claims=$(sqlite3 "$db" "SELECT count(*) FROM run_claims")
  [ "$claims" -eq 0 ] || fail "attempt $attempt: $claims claims left behind"
  total=0
  for out in "$work/a.out" "$work/b.out"; do
    count=$(sed -n 's/.* runs: \([0-9]*\) stored.*/\1/p' "$out")
    total=$((total + ${count:-0}))
  done
  [ $total -eq "$runs" ] || fail "attempt $attempt: the two sweeps report $total runs stored, the grid has $runs"
done

# Killed mid-sweep: the file stays readable, and the next sweep finishes the grid, taking over
# the claims of the dead process.
db=$work/killed.db
"$tilelens" sweep --db "$db" "${grid[@]}" >/dev/null 2>&1 &
victim=$!
for _ in $(seq 1 200); do
  [ -f "$db" ] && [ "$(sqlite3 "$db" "SELECT count(*) FROM runs" 2>/dev/null || echo 0)" -ge 3 ] && break
  sleep 0.02
done
kill -9 $victim 2>/dev/null
wait $victim 2>/dev/null
"$tilelens" runs list --db "$db" >/dev/null 2>"$work/r.err" || fail "after kill -9, runs list failed: $(cat "$work/r.err")"
"$tilelens" sweep --db "$db" "${grid[@]}" >"$work/resume.out" 2>&1 || fail "the resumed sweep failed: $(tail -2 "$work/resume.out")"
stored=$(sqlite3 "$db" "SELECT count(*) FROM runs")
keys=$(sqlite3 "$db" "SELECT count(DISTINCT run_key) FROM runs")
[ "$stored" -eq "$runs" ] && [ "$keys" -eq "$runs" ] || fail "after kill -9 and resume: $stored runs for $keys keys, the grid has $runs"
[ "$(sqlite3 "$db" "SELECT count(*) FROM run_claims")" -eq 0 ] || fail "after resume, claims are left"

if [ $failures -gt 0 ]; then
  echo "$failures failures"
  exit 1
fi
echo "two sweeps at once stored each of the $runs runs once, three times; a killed sweep was resumed without a duplicate"
