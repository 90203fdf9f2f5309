#!/usr/bin/env bash
# The corrupt-database test: every command that reads a database runs on systematically damaged
# copies of one (deleted rows, dangling ids, negative and huge values, text where numbers
# belong, out-of-range enumerations, a dropped column, a view in place of a table, a missing table, a truncated
# file, flipped bits). Each must end within 10 s with status 0, 1 or 2, never a signal. Where
# the damage lies in what a command reads, it must refuse with a message naming the file
# instead of printing other values; a file SQLite's integrity_check finds damaged is refused
# by every command. Usage: corrupt_db.sh TILELENS RESOURCES
set -uo pipefail
tilelens=$1
resources=$2
command -v sqlite3 >/dev/null || { echo "skipped: the sqlite3 program is missing (scripts/setup.sh installs it)"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
base=$work/base.db
failures=0

# The pristine database: a sweep with complete and failed runs, and an imported run.
"$tilelens" sweep --db "$base" --workload "cholesky:N=4;matmul2d:N=4" --scheduler eager,dmdar/belady --memory 6items \
  --quiet >/dev/null 2>&1
"$tilelens" import starpu "$resources/starpu/tasks.rec" --data "$resources/starpu/data.rec" --db "$base" >/dev/null 2>&1
[ "$(sqlite3 "$base" "SELECT count(*) FROM runs WHERE status = 'complete'")" -ge 3 ] || { echo "setup: no complete runs"; exit 1; }
[ "$(sqlite3 "$base" "SELECT count(*) FROM runs WHERE status = 'failed'")" -ge 1 ] || { echo "setup: no failed run"; exit 1; }
failed_run=$(sqlite3 "$base" "SELECT min(id) FROM runs WHERE status = 'failed'")
imported_run=$(sqlite3 "$base" "SELECT max(id) FROM runs WHERE mode = 'starpu'")
second_run=$(sqlite3 "$base" "SELECT min(id) FROM runs WHERE status = 'complete' AND id > 1")
[ "$(sqlite3 "$base" "SELECT status FROM runs WHERE id = 1")" = complete ] || { echo "setup: run 1 is not complete"; exit 1; }

# Each command with what it reads: L the list of runs, R run 1's row and metrics, T run 1's
# trace and workload, I the imported run, A the whole file (every command opens it).
commands=(
  "L|runs list"
  "-|runs list --status failed"
  "R|runs show 1"
  "RT|runs show 1 --tasks 3"
  "-|runs show $failed_run"
  "R|runs compare 1 $second_run"
  "LR|runs compare --sweep 1"
  "LR|runs compare --sweep 1 --metric gflops"
  "RT|export csv --run 1"
  "RT|export csv --run 1 --table loads"
  "LR|export csv --sweep 1"
  "LR|export csv --all"
  "RT|export paje --run 1"
  "RT|export chrome --run 1"
  "-|results"
  "I|calibrate --run $imported_run"
)

# Runs one command on FILE; echoes "STATUS" and leaves its standard error in $work/err.
run() {
  local file=$1
  shift
  timeout -s KILL 10 "$tilelens" "$@" --db "$file" >"$work/out" 2>"$work/err"
  echo $?
}

# check NAME FILE TAGS: every command on FILE; those reading a part named in TAGS must refuse.
check() {
  local name=$1 file=$2 tags=$3 entry reads command status
  for entry in "${commands[@]}"; do
    reads=${entry%%|*}
    command=${entry#*|}
    cp "$file" "$work/copy.db"
    rm -f "$work/copy.db-wal" "$work/copy.db-shm"
    # shellcheck disable=SC2086
    status=$(run "$work/copy.db" $command)
    if [ "$status" -gt 2 ]; then
      echo "FAIL [$name] tilelens $command: status $status (a signal or a timeout); $(head -c 300 "$work/err")"
      failures=$((failures + 1))
      continue
    fi
    if [ "$status" -ne 0 ] && [ ! -s "$work/err" ]; then
      echo "FAIL [$name] tilelens $command: status $status without a message"
      failures=$((failures + 1))
    fi
    local must_refuse=0
    [[ $tags == *A* ]] && must_refuse=1
    for ((i = 0; i < ${#tags}; i++)); do [[ $reads == *"${tags:i:1}"* ]] && must_refuse=1; done
    if [ $must_refuse -eq 1 ]; then
      if [ "$status" -eq 0 ]; then
        echo "FAIL [$name] tilelens $command: status 0 on a damaged part it reads; printed: $(head -c 200 "$work/out")"
        failures=$((failures + 1))
      elif ! grep -q "copy.db" "$work/err"; then
        echo "FAIL [$name] tilelens $command: the message does not name the file: $(head -c 300 "$work/err")"
        failures=$((failures + 1))
      fi
    fi
  done
}

# The pristine file: every command but those that cannot apply succeeds.
check "pristine" "$base" ""
for entry in "${commands[@]}"; do
  command=${entry#*|}
  cp "$base" "$work/copy.db"
  # shellcheck disable=SC2086
  status=$(run "$work/copy.db" $command)
  if [ "$status" -ne 0 ] && [[ $command != results* ]]; then
    echo "FAIL [pristine] tilelens $command: status $status: $(head -c 300 "$work/err")"
    failures=$((failures + 1))
  fi
done

# Damage by SQL: "TAGS|SQL" (the tags say what the damage touches).
damages=(
  "R|DELETE FROM metrics WHERE run_id = 1"
  "A|DROP TABLE metrics; CREATE VIEW metrics AS SELECT 1 AS run_id"
  "A|DROP TABLE gpu_metrics"
  "A|ALTER TABLE metrics DROP COLUMN gflops"
  "A|ALTER TABLE runs RENAME COLUMN scheduler TO policy"
  "T|UPDATE loads SET data_id = 99999 WHERE run_id = 1"
  "T|UPDATE loads SET data_id = -1 WHERE run_id = 1"
  "T|UPDATE loads SET gpu = -5 WHERE run_id = 1"
  "T|UPDATE loads SET gpu = 4000000000 WHERE run_id = 1"
  "T|UPDATE loads SET source = 5000 WHERE run_id = 1"
  "T|UPDATE loads SET kind = 7 WHERE run_id = 1"
  "T|UPDATE loads SET bytes = -1 WHERE run_id = 1"
  "T|UPDATE loads SET end_ns = issue_ns - 10 WHERE run_id = 1"
  "T|UPDATE loads SET task_id = 99999 WHERE run_id = 1"
  "T|UPDATE task_executions SET task_id = 99999 WHERE run_id = 1"
  "T|UPDATE task_executions SET gpu = 70000 WHERE run_id = 1"
  "T|UPDATE task_executions SET start_ns = -100 WHERE run_id = 1"
  "T|UPDATE evictions SET cause = 9 WHERE run_id = 1"
  "T|UPDATE evictions SET data_id = 99999 WHERE run_id = 1"
  "T|UPDATE writebacks SET cause = 9 WHERE run_id = 1"
  "T|UPDATE writebacks SET gpu = -1 WHERE run_id = 1"
  "R|UPDATE metrics SET loads = -3 WHERE run_id = 1"
  "R|UPDATE metrics SET tasks = -1 WHERE run_id = 1"
  "R|UPDATE metrics SET bytes_loaded = -5 WHERE run_id = 1"
  "R|UPDATE metrics SET gflops = 1e308 * 10 WHERE run_id = 1"
  "R|UPDATE gpu_metrics SET busy_ns = -1 WHERE run_id = 1"
  "R|UPDATE metrics SET loads = 'many' WHERE run_id = 1"
  "R|UPDATE metrics SET makespan_ns = '12 ms' WHERE run_id = 1"
  "R|UPDATE metrics SET gflops = 'fast' WHERE run_id = 1"
  "R|UPDATE gpu_metrics SET tasks = x'00' WHERE run_id = 1"
  "T|UPDATE loads SET bytes = 'big' WHERE run_id = 1"
  "LRT|PRAGMA ignore_check_constraints = 1; UPDATE runs SET status = 'weird' WHERE id = 1"
  "LRT|PRAGMA ignore_check_constraints = 1; UPDATE runs SET mode = 'bogus' WHERE id = 1"
  "LRT|DELETE FROM workloads WHERE id = (SELECT workload_id FROM runs WHERE id = 1)"
  "LRT|DELETE FROM platforms WHERE id = (SELECT platform_id FROM runs WHERE id = 1)"
  "LRT|UPDATE runs SET workload_id = 999 WHERE id = 1"
  "LRT|UPDATE platforms SET gpus = -1"
  "LRT|UPDATE platforms SET gpus = 100000"
  "L|UPDATE runs SET status = 'complete' WHERE status = 'failed'"
  "T|UPDATE workloads SET task_count = 1, data_count = 1 WHERE id = (SELECT workload_id FROM runs WHERE id = 1)"
  "T|DELETE FROM tasks WHERE id = 0 AND workload_id = (SELECT workload_id FROM runs WHERE id = 1)"
  "T|UPDATE accesses SET data_id = 99999 WHERE workload_id = (SELECT workload_id FROM runs WHERE id = 1)"
  "T|UPDATE accesses SET mode = 5 WHERE workload_id = (SELECT workload_id FROM runs WHERE id = 1)"
  "T|UPDATE tasks SET kind_id = 55 WHERE workload_id = (SELECT workload_id FROM runs WHERE id = 1)"
  "T|UPDATE data SET bytes = -4 WHERE workload_id = (SELECT workload_id FROM runs WHERE id = 1)"
  "T|INSERT INTO dependencies SELECT workload_id, 3, 3 FROM runs WHERE id = 1"
  "A|PRAGMA user_version = 99"
  "A|PRAGMA application_id = 7"
)
for entry in "${damages[@]}"; do
  tags=${entry%%|*}
  sql=${entry#*|}
  cp "$base" "$work/damaged.db"
  if ! sqlite3 "$work/damaged.db" "$sql" 2>"$work/sqlerr"; then
    echo "FAIL setup: sqlite3 refused: $sql: $(cat "$work/sqlerr")"
    failures=$((failures + 1))
    continue
  fi
  check "$sql" "$work/damaged.db" "$tags"
done

# A truncated copy, and copies with 20 flipped bits each (seeded: the same bits every run).
size=$(stat -c %s "$base")
head -c $((size / 2)) "$base" >"$work/truncated.db"
check "truncated" "$work/truncated.db" "A"
RANDOM=16
detected=0
for copy in $(seq 1 12); do
  cp "$base" "$work/flipped.db"
  for _ in $(seq 1 20); do
    offset=$(((RANDOM * 32768 + RANDOM) % size))
    bit=$((RANDOM % 8))
    byte=$(od -An -tu1 -j "$offset" -N1 "$work/flipped.db" | tr -d ' ')
    printf "$(printf '\\%03o' $((byte ^ (1 << bit))))" | dd of="$work/flipped.db" bs=1 seek="$offset" conv=notrunc status=none
  done
  verdict=$(sqlite3 "$work/flipped.db" "PRAGMA integrity_check" 2>&1 | head -1)
  if [ "$verdict" = "ok" ]; then
    check "flipped bits, copy $copy (integrity_check passes)" "$work/flipped.db" ""
  else
    detected=$((detected + 1))
    check "flipped bits, copy $copy ($verdict)" "$work/flipped.db" "A"
  fi
done

if [ $failures -gt 0 ]; then
  echo "$failures failures"
  exit 1
fi
echo "every command ended with 0, 1 or 2 on ${#damages[@]} damaged copies, a truncated one and 12 with flipped bits ($detected of them found damaged by integrity_check, and refused)"
