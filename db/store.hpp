// The trace store: every run, replayed or measured, in one SQLite file (docs/database.md).
//
// A Store is one connection (use one per thread). Writes go through RunWriter, which holds
// one transaction for the whole run: the run row, every trace record as the executor hands
// it over, and the metrics are committed together, so a process killed mid-run leaves the
// file readable, earlier runs intact and that run absent. The file is in WAL mode: readers
// (another process, the app) open it while a writer appends and see the runs committed so far.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "db/sqlite.hpp"
#include "trace/measurement.hpp"
#include "trace/run.hpp"
#include "trace/trace.hpp"

namespace tilelens::db {

struct RunFilter {
  std::optional<std::int64_t> sweep_id;
  std::string workload_contains;
  std::string scheduler_contains;
  std::optional<RunStatus> status;
  std::optional<std::int64_t> first_id, last_id;  // runs whose id lies in [first_id, last_id]
};

std::string utc_now();

class Store;

// Receives one run's records and writes them inside the run's transaction. Observer hooks
// cannot fail, so the first write error is kept and returned by finish(). Dropping a writer
// without finish() rolls the run back.
class RunWriter final : public ReplayObserver {
 public:
  RunWriter(RunWriter&&) noexcept;
  RunWriter& operator=(RunWriter&&) = delete;
  ~RunWriter() override;

  void on_task(const TaskRecord& r) override;
  void on_load(const LoadRecord& r) override;
  void on_eviction(const EvictionRecord& r) override;
  void on_writeback(const WritebackRecord& r) override;
  void on_allocation(const AllocationRecord& r) override;
  void write(const Trace& trace);  // all records of a kept trace, in order
  // A measured run's measurement and CUPTI records (the executor's).
  void write_measurement(const Measurement& measurement, const std::vector<CuptiRecord>& records);
  // An imported run's notes and warnings, as the import printed them.
  void write_import_report(const ImportReport& report);

  std::int64_t run_id() const;
  // Stores the metrics, marks the run complete and commits; returns the run id.
  Result<std::int64_t> finish(const RunMetrics& metrics);
  // Marks the run failed with the reason, drops its records, and commits the run row.
  Result<std::int64_t> fail(const std::string& reason);

 private:
  friend class Store;
  struct State;
  explicit RunWriter(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

class Store {
 public:
  // ReadOnlyUpgrading reads like ReadOnly, but upgrades a file of an older schema version in
  // place first (one read-write open), as the app and the CLI's reading commands do.
  // MergeInput reads like ReadOnly, for a merge (merge_all), which reads every row of the
  // file: through a memory map instead of a read() per page (half the system time), and with
  // SQLite's integrity check over the tables with indexes only, since the merge's value check
  // reads every row of every table (check_integrity, schema.hpp). A file that another process
  // truncates while it is mapped would end this one with SIGBUS, so the map is kept to merges.
  enum class OpenMode { ReadOnly, ReadWrite, ReadOnlyUpgrading, MergeInput };
  // Opens or creates the database, checks that it is a tilelens database of a version this
  // build reads, and upgrades an older schema (read-write only).
  static Result<Store> open(const std::string& path, OpenMode mode = OpenMode::ReadWrite);

  Store(Store&&) noexcept;
  Store& operator=(Store&&) noexcept;
  ~Store();

  const std::string& path() const;

  // Stores the workload once: an identical workload (same content hash) returns its id.
  Result<std::int64_t> put_workload(const Workload& workload, const std::string& source);
  Result<std::int64_t> put_platform(const Platform& platform);
  Result<std::int64_t> put_sweep(const std::string& spec);
  struct SweepInfo {
    std::int64_t id = 0;
    std::string spec, created_at;
  };
  Result<std::vector<SweepInfo>> list_sweeps();

  // Starts a run; `info.workload_id` must come from put_workload. The writer holds the
  // database's write lock until it finishes.
  Result<RunWriter> begin_run(RunInfo info);

  Result<std::vector<RunInfo>> list_runs(const RunFilter& filter = {});
  Result<StoredRun> load_run(std::int64_t run_id);
  Result<std::vector<StoredRun>> load_runs(const RunFilter& filter);
  Result<Trace> load_trace(std::int64_t run_id);
  // The trace of a run read already (load_run), each record checked against its workload and
  // platform: the run row is not read again.
  Result<Trace> load_trace(const StoredRun& run);
  // How a measured run was measured; nothing for a replayed or imported run.
  Result<std::optional<Measurement>> load_measurement(std::int64_t run_id);
  // What the import of a run said (empty for a replay, a measurement, or an import stored
  // before version 12); load_run reads it into StoredRun::import_report.
  Result<ImportReport> load_import_report(std::int64_t run_id);
  Result<Workload> load_workload(std::int64_t workload_id);
  // The keys of the complete runs of a sweep (or of runs outside any sweep).
  Result<std::set<std::string>> complete_run_keys(std::optional<std::int64_t> sweep_id);
  // Deletes the runs and everything recorded for them, in one transaction.
  Status delete_runs(const std::vector<std::int64_t>& run_ids);

  // Sweeps run by several processes at once (docs/database.md, "Concurrent use"). Before it
  // replays a run, a sweep claims the run's key: Stored when the sweep holds it complete
  // already, Running when a live sweep (another process, or another sweep in this one)
  // claimed it, Duplicate when this owner claimed it already (a grid naming one run twice),
  // Claimed otherwise. A claim ends with its run's commit (RunWriter::finish or
  // fail) or with release_claims; one left by a killed process is taken over.
  struct Claim {
    enum class Outcome { Claimed, Stored, Running, Duplicate } outcome = Outcome::Claimed;
    std::string holder;  // Running: "process 1234 on HOST"
  };
  Result<Claim> claim_run(std::int64_t sweep_id, const std::string& run_key, const std::string& owner);
  Status release_claims(std::int64_t sweep_id, const std::string& owner);
  // A name for one claiming sweep: host, process id and a counter, unique among live sweeps.
  static std::string new_claim_owner();

  // Copies other databases' runs into this one (tilelens db merge), file by file in order:
  // workloads by content hash, platforms by their fields, sweeps by their spec, runs by run key
  // within their sweep (a complete one before a failed one; incomplete runs and claims stay
  // behind), each with everything recorded for it. Idempotent: merging a file twice, or shards
  // that overlap, stores each run once; a file named twice (under any name) is read once, and
  // this file under another name is refused. All or nothing: every input is checked before
  // anything is written (opened as a database of this schema version, SQLite's integrity
  // check, every run read back, every value checked against its column and its references:
  // check_stored_values), on up to one thread per core; an input refused leaves this file
  // byte for byte as it was, and the error names the input. The copies go on meanwhile, in
  // one transaction per ten inputs (SQLite attaches ten files at most), the first committed
  // only once every check has passed; so up to ten inputs merge whole or not at all even if
  // the disk fills. `merged` hears of each file once its transaction is committed.
  struct MergeReport {
    std::size_t workloads_added = 0, runs_added = 0, runs_skipped = 0;
  };
  using MergeCallback = std::function<void(const std::string& path, const MergeReport& report)>;
  Result<MergeReport> merge_all(const std::vector<std::string>& paths, const MergeCallback& merged = {});
  // merge_all into a database that does not exist yet: it is built under a name of its own,
  // without a rollback journal or a write-ahead log (nobody reads it before it is whole, so
  // each page is written once, not to the log and then to the file), switched to WAL, and
  // linked in under `path` only when every input has merged. Any refusal, at any input, leaves
  // no file under `path`. Refused if `path` exists, before or when linking. `merged` hears of
  // each file once the whole has been linked in.
  static Result<MergeReport> merge_into_new(const std::string& path, const std::vector<std::string>& paths, const MergeCallback& merged = {});
  // Every stored value against its column's type and its references (check_stored_values,
  // schema.hpp): what a merge asks of each input before it writes anything.
  Status check_values();

  // A second connection to this file for another thread, without checking the file again;
  // it waits up to `busy_ms` for the write lock.
  Result<Store> reopen(int busy_ms) const;

 private:
  struct Impl;
  explicit Store(std::unique_ptr<Impl> impl);
  // The copies of merge_all: `paths` (ten at most) in one transaction, committed only if
  // `checks_passed` (which waits for every input's check) says so.
  Result<std::vector<MergeReport>> merge_checked(const std::vector<std::string>& paths, const std::function<Status()>& checks_passed);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tilelens::db
