#!/usr/bin/env bash
# The Slurm scripts of `tilelens sweep --slurm-script --submit`, run as sbatch would run them,
# by a stand-in sbatch on PATH: it reads the script's #SBATCH --array list and runs the script
# once per array task with SLURM_ARRAY_TASK_ID set (the merge job once), printing a job id as
# --parsable does, and logs the arrays it got. Checked: the merged database equals the same
# sweep run whole (run keys and loads); --status counts every shard done; after a shard's
# database is lost, a re-submission sends only that shard. It tests what tilelens writes and
# submits, not Slurm itself (a real slurmctld and slurmd are issue 21's point 5).
set -euo pipefail
tilelens=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
command -v sqlite3 >/dev/null || { echo "SKIP: sqlite3 is not installed"; exit 77; }
mkdir -p "$work/bin"
cat >"$work/bin/sbatch" <<'SBATCH'
#!/usr/bin/env bash
set -euo pipefail
script="${@: -1}"
id=$(( $(cat "$SBATCH_LOG.count" 2>/dev/null || echo 100) + 1 ))
echo "$id" >"$SBATCH_LOG.count"
array=$(sed -n 's/^#SBATCH --array=//p' "$script")
echo "job $id: $* array=[$array]" >>"$SBATCH_LOG"
if [ -n "$array" ]; then
  for part in ${array//,/ }; do
    if [[ $part == *-* ]]; then tasks=$(seq "${part%-*}" "${part#*-}"); else tasks=$part; fi
    for task in $tasks; do SLURM_ARRAY_TASK_ID=$task SLURM_CPUS_PER_TASK=1 bash "$script" >/dev/null; done
  done
else
  bash "$script" >/dev/null
fi
echo "$id"
SBATCH
chmod +x "$work/bin/sbatch"
export PATH="$work/bin:$PATH" SBATCH_LOG="$work/sbatch.log"
grid=(--workload 'matmul2d:N=4..10:2;cholesky:N=4|6' --scheduler eager,dmdar,hfp/belady --memory 4items,8items)
cd "$work"
"$tilelens" sweep "${grid[@]}" --slurm-script sweep.sh --output shared --shards 3 --submit | tee submit.txt
grep -q "submitted the array: job 101 (3 of 3 shards)" submit.txt
grep -q "submitted the merge: job 102" submit.txt
grep -q "job 102: --parsable --dependency=afterok:101" sbatch.log
"$tilelens" sweep "${grid[@]}" --db whole.db --quiet >/dev/null
keys() { sqlite3 "$1" "SELECT r.run_key || ' ' || m.loads FROM runs r JOIN metrics m ON m.run_id = r.id ORDER BY 1"; }
[ "$(keys shared/merged.db)" = "$(keys whole.db)" ] || { echo "the merged shards differ from the sweep run whole"; exit 1; }
"$tilelens" sweep --status shared | tee status.txt
grep -q " 0 failed, 0 pending" status.txt
# A shard's database lost: the re-submission sends that shard only, then the merge.
rm -f shared/shard-2.db*
"$tilelens" sweep "${grid[@]}" --slurm-script sweep.sh --output shared --shards 3 --submit | tee resubmit.txt
grep -q "(1 of 3 shards)" resubmit.txt
grep -q "array=\[2\]" sbatch.log
[ "$(keys shared/merged.db)" = "$(keys whole.db)" ] || { echo "the merged database changed after the re-submission"; exit 1; }
echo "slurm scripts: 3 shards submitted, merged equal to the whole sweep, a lost shard resubmitted alone"
