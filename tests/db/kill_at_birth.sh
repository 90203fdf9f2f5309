#!/usr/bin/env bash
# A database is born whole (issue 33): a writer killed with SIGKILL at any instant while it
# creates a new database leaves either no database or a valid one, never a file that tilelens
# then refuses; and sweeps started together on a new database all succeed. The kill instants
# come from a seeded sequence (0 to 12 ms after the start, when the file is being made), so a run repeats; the verdict holds
# at any instant, so it does not depend on the machine's load. Usage: kill_at_birth.sh TILELENS [KILLS]
set -uo pipefail
tilelens=$1
kills=${2:-150}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() {
  echo "FAIL $*"
  failures=$((failures + 1))
}
# Seeded delays in microseconds: a linear congruential sequence.
state=12345
absent=0 whole=0
for ((i = 1; i <= kills; i++)); do
  state=$(((state * 1103515245 + 12345) % 2147483648))
  delay=$((state % 12000))
  db=$work/born-$i.db
  "$tilelens" replay --workload matmul2d:N=4 --memory 4items --db "$db" >/dev/null 2>&1 &
  pid=$!
  sleep "$(printf '0.%06d' "$delay")"
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  if "$tilelens" runs list --db "$db" >"$work/list.out" 2>"$work/list.err"; then
    whole=$((whole + 1))
  elif grep -q "no such database" "$work/list.err"; then
    absent=$((absent + 1))
  else
    fail "kill $i after ${delay} us: the file is refused: $(head -c 300 "$work/list.err")"
    continue
  fi
  # Whatever the kill left, the next writer stores its run there.
  "$tilelens" replay --workload matmul2d:N=4 --memory 4items --db "$db" >/dev/null 2>"$work/again.err" ||
    fail "kill $i after ${delay} us: a writer afterwards fails: $(head -c 300 "$work/again.err")"
  rm -f "$db" "$db"-wal "$db"-shm "$work"/.born-"$i".db.new-*
done
echo "$kills kills: $absent left no database, $whole a readable one"

# Three sweeps started together on a new database: each succeeds, none sees a half-made file.
for round in 1 2 3 4 5 6 7 8 9 10; do
  db=$work/together-$round.db
  pids=()
  for who in a b c; do
    "$tilelens" sweep --db "$db" --workload matmul2d:N=4 --scheduler eager,rcm --memory 4items --quiet >"$work/$who.out" 2>&1 &
    pids+=($!)
  done
  for who in 0 1 2; do
    wait "${pids[$who]}" || fail "round $round: a sweep started together with two others failed: $(head -c 300 "$work/$(echo abc | cut -c$((who + 1))).out")"
  done
  [ "$("$tilelens" runs list --db "$db" 2>/dev/null | grep -c ' eager \| rcm ')" -eq 2 ] || fail "round $round: the grid's two runs are not stored once each"
done

[ $failures -eq 0 ] && echo "every kill left no database or a whole one" || exit 1
