// Merging databases (tilelens db merge): another file's runs copied into this one, each row
// once. The tables and columns come from the schema, so a table added later is merged too.
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <set>
#include <thread>

#include "db/schema.hpp"
#include "db/store_internal.hpp"

namespace tilelens::db {
namespace {

// "a, b, c": a table's columns but `skip`, with `prefix` before each.
std::string column_list(const Table& table, const std::vector<std::string_view>& skip, const std::string& prefix = "") {
  std::string list;
  for (const Column& column : table.columns) {
    if (std::find(skip.begin(), skip.end(), column.name) != skip.end()) continue;
    list += (list.empty() ? "" : ", ") + prefix + std::string(column.name);
  }
  return list;
}

// Copies the rows of `table` keyed by `key_column` (workload_id or run_id) whose key has a
// row in the temporary map `map` (old -> new), with the key replaced by its new value. The map
// leads (CROSS JOIN fixes the order): one seek per key, then the key's rows in a stream, and
// the rows arrive in their new key order, so each insert lands at the end of its table.
Status copy_children(Connection& c, const std::string& src, const Table& table, std::string_view key_column, const std::string& map) {
  const std::string others = column_list(table, {key_column}, "s.");
  const std::string names = std::string(key_column) + (others.empty() ? "" : ", " + column_list(table, {key_column}));
  return c.exec("INSERT INTO main." + std::string(table.name) + " (" + names + ") SELECT m.new" + (others.empty() ? "" : ", " + others) +
                " FROM " + map + " m CROSS JOIN " + src + "." + std::string(table.name) + " s ON s." + std::string(key_column) + " = m.old;");
}

// Rows of a table stored once by a unique column (workloads by content hash, platforms by
// description, sweeps by spec): those missing are inserted, and `map` gets old -> new for all.
Status merge_unique(Connection& c, const std::string& src, const std::string& table_name, const std::string& unique, const std::string& map,
                    const std::string& fresh = "") {
  const Table& table = schema_table(table_name);
  const std::string columns = column_list(table, {"id"});
  if (!fresh.empty()) {
    if (auto status = c.exec("CREATE TEMP TABLE " + fresh + " AS SELECT id AS old FROM " + src + "." + table_name + " WHERE " + unique +
                             " NOT IN (SELECT " + unique + " FROM main." + table_name + ");");
        !status) {
      return status;
    }
  }
  if (auto status = c.exec("INSERT INTO main." + table_name + " (" + columns + ") SELECT " + column_list(table, {"id"}, "s.") + " FROM " + src + "." +
                           table_name + " s WHERE s." + unique + " NOT IN (SELECT " + unique + " FROM main." + table_name + ");");
      !status) {
    return status;
  }
  return c.exec("CREATE TEMP TABLE " + map + " (old INTEGER PRIMARY KEY, new INTEGER NOT NULL); INSERT INTO " + map +
                " SELECT s.id, m.id FROM " + src + "." + table_name + " s JOIN main." + table_name + " m ON m." + unique + " = s." + unique + ";");
}

Result<Store::MergeReport> merge_attached(Connection& c, const std::string& src) {
  Store::MergeReport report;
  auto before = c.query_integer("SELECT COUNT(*) FROM main.workloads");
  if (!before) return before.error();
  // Workloads by content, with their tasks, data and accesses when new.
  if (auto status = merge_unique(c, src, "workloads", "content_hash", "temp.map_workloads", "temp.new_workloads"); !status) return status.error();
  if (auto status = c.exec("CREATE TEMP TABLE map_new_workloads AS SELECT m.old, m.new FROM temp.map_workloads m "
                           "WHERE m.old IN (SELECT old FROM temp.new_workloads);");
      !status) {
    return status.error();
  }
  for (std::string_view table : workload_tables()) {
    if (table == "workloads") continue;
    if (auto status = copy_children(c, src, schema_table(table), "workload_id", "temp.map_new_workloads"); !status) return status.error();
  }
  auto after = c.query_integer("SELECT COUNT(*) FROM main.workloads");
  if (!after) return after.error();
  report.workloads_added = static_cast<std::size_t>(*after - *before);
  if (auto status = merge_unique(c, src, "platforms", "description", "temp.map_platforms"); !status) return status.error();
  if (auto status = merge_unique(c, src, "sweeps", "spec", "temp.map_sweeps"); !status) return status.error();

  // The runs to copy: one per (sweep, run key), a complete one first, none whose key the
  // same sweep (or no sweep) holds here already. Incomplete runs stay behind.
  const std::string same_place =
      "IFNULL((SELECT spec FROM " + src + ".sweeps WHERE id = a.sweep_id), '') = IFNULL((SELECT spec FROM " + src + ".sweeps WHERE id = b.sweep_id), '')";
  if (auto status = c.exec(
          "CREATE TEMP TABLE picked AS SELECT a.id AS old FROM " + src + ".runs a WHERE a.status <> 'incomplete' "
          "AND a.id = (SELECT b.id FROM " + src + ".runs b WHERE b.run_key = a.run_key AND b.status <> 'incomplete' AND " + same_place +
          " ORDER BY b.status = 'complete' DESC, b.id LIMIT 1) "
          "AND NOT EXISTS (SELECT 1 FROM main.runs m WHERE m.run_key = a.run_key AND "
          "IFNULL((SELECT spec FROM main.sweeps WHERE id = m.sweep_id), '') = IFNULL((SELECT spec FROM " + src + ".sweeps WHERE id = a.sweep_id), ''));");
      !status) {
    return status.error();
  }
  auto total = c.query_integer("SELECT COUNT(*) FROM " + src + ".runs");
  if (!total) return total.error();
  // Each picked run gets the next id here, in its old order, so the merged file lists the
  // runs as their sources did.
  auto first_id = c.query_integer("SELECT IFNULL(MAX(id), 0) FROM main.runs");
  if (!first_id) return first_id.error();
  if (auto status = c.exec("CREATE TEMP TABLE map_runs (old INTEGER PRIMARY KEY, new INTEGER NOT NULL); "
                           "INSERT INTO map_runs SELECT old, " + std::to_string(*first_id) +
                           " + ROW_NUMBER() OVER (ORDER BY old) FROM temp.picked;");
      !status) {
    return status.error();
  }
  const Table& runs = schema_table("runs");
  std::string values;
  for (const Column& column : runs.columns) {
    const std::string name(column.name);
    const std::string value = name == "id"            ? "r.new"
                              : name == "workload_id" ? "(SELECT new FROM temp.map_workloads WHERE old = s.workload_id)"
                              : name == "platform_id" ? "(SELECT new FROM temp.map_platforms WHERE old = s.platform_id)"
                              : name == "sweep_id"    ? "(SELECT new FROM temp.map_sweeps WHERE old = s.sweep_id)"
                                                      : "s." + name;
    values += (values.empty() ? "" : ", ") + value;
  }
  if (auto status = c.exec("INSERT INTO main.runs (" + column_list(runs, {}) + ") SELECT " + values +
                           " FROM " + src + ".runs s JOIN temp.map_runs r ON r.old = s.id ORDER BY r.new;");
      !status) {
    return status.error();
  }
  for (std::string_view table : run_tables()) {
    if (table == "run_claims") continue;  // a claim belongs to a process on the source's machine
    if (auto status = copy_children(c, src, schema_table(table), "run_id", "temp.map_runs"); !status) return status.error();
  }
  auto added = c.query_integer("SELECT COUNT(*) FROM temp.map_runs");
  if (!added) return added.error();
  report.runs_added = static_cast<std::size_t>(*added);
  report.runs_skipped = static_cast<std::size_t>(*total) - report.runs_added;
  return report;
}

// The source must be a tilelens database of this very schema version, whole (opened as such: an
// older one is refused, not upgraded, for merging must not write to its inputs), whose runs read
// back and whose values hold their types and references. Any thread.
Status check_source(const std::string& path) {
  auto source = Store::open(path, Store::OpenMode::MergeInput);
  if (!source) return make_error("cannot merge " + path + ": " + source.error().message);
  if (auto runs = source->load_runs({}); !runs) return make_error("cannot merge " + path + ": " + runs.error().message);
  if (auto checked = source->check_values(); !checked) return make_error("cannot merge " + path + ": " + checked.error().message);
  return Status::success();
}

// The temporary tables of one input's copy, dropped before the next input's.
Status drop_merge_tables(Connection& c) {
  return c.exec("DROP TABLE IF EXISTS temp.map_workloads; DROP TABLE IF EXISTS temp.new_workloads; DROP TABLE IF EXISTS temp.map_new_workloads; "
                "DROP TABLE IF EXISTS temp.map_platforms; DROP TABLE IF EXISTS temp.map_sweeps; DROP TABLE IF EXISTS temp.picked; "
                "DROP TABLE IF EXISTS temp.map_runs;");
}

constexpr std::size_t kAttachedAtOnce = 10;  // SQLite's SQLITE_MAX_ATTACHED, Debian's build included

}  // namespace

Status Store::check_values() { return check_stored_values(impl_->connection); }

Result<Store::MergeReport> Store::merge_all(const std::vector<std::string>& given, const MergeCallback& merged) {
  // SQLite's ATTACH creates a file that is not there: a missing input is refused before any is
  // attached, so that the merge leaves no empty file under its name. A file named twice (under
  // any name) is merged once, as merging it again would add nothing; SQLite answered "database
  // is locked" when one transaction attached it twice.
  std::vector<std::string> paths;
  std::set<std::pair<dev_t, ino_t>> seen;
  std::optional<std::pair<dev_t, ino_t>> self;
  if (struct stat file {}; ::stat(this->path().c_str(), &file) == 0) self.emplace(file.st_dev, file.st_ino);
  for (const std::string& path : given) {
    struct stat file {};
    if (::stat(path.c_str(), &file) != 0) {
      const bool absent = errno == ENOENT || errno == ENOTDIR;
      return make_error("cannot merge " + path + ": " + (absent ? std::string("no such file") : std::string(std::strerror(errno))));
    }
    if (!S_ISREG(file.st_mode)) return make_error("cannot merge " + path + ": not a regular file");
    if (self == std::pair<dev_t, ino_t>(file.st_dev, file.st_ino)) {
      return make_error("cannot merge " + path + ": it is the output, " + this->path() + ", under another name");
    }
    if (seen.emplace(file.st_dev, file.st_ino).second) paths.push_back(path);
  }
  // Every input is checked on one thread per core but the one the copies take here (at least
  // one), each on its own connection; the first transaction commits only once every check has
  // passed, so an input refused leaves this file as it was. The copies are the longer part:
  // a third thread on two cores made them wait (2.2 s against 1.5 s for 1,050 traced runs).
  const std::size_t threads = std::max<std::size_t>(2, std::thread::hardware_concurrency()) - 1;
  std::vector<Status> checked(paths.size(), Status::success());
  std::atomic<std::size_t> next{0};
  const auto check_some = [&] {
    for (std::size_t i = next++; i < paths.size(); i = next++) checked[i] = check_source(paths[i]);
  };
  struct Pool {
    std::vector<std::thread> threads;
    void join() {
      for (std::thread& thread : threads) {
        if (thread.joinable()) thread.join();
      }
    }
    ~Pool() { join(); }
  } pool;
  for (std::size_t t = 0; t < std::min(threads, paths.size()); ++t) pool.threads.emplace_back(check_some);
  const auto all_checked = [&]() -> Status {
    pool.join();
    for (const Status& status : checked) {
      if (!status) return status.error();  // the first refused input, in the order given
    }
    return Status::success();
  };
  MergeReport total;
  for (std::size_t first = 0; first < paths.size(); first += kAttachedAtOnce) {
    const std::vector<std::string> batch(paths.begin() + static_cast<std::ptrdiff_t>(first),
                                         paths.begin() + static_cast<std::ptrdiff_t>(std::min(paths.size(), first + kAttachedAtOnce)));
    auto reports = merge_checked(batch, all_checked);
    if (!reports) return reports.error();
    for (std::size_t i = 0; i < batch.size(); ++i) {
      const MergeReport& report = (*reports)[i];
      total.workloads_added += report.workloads_added;
      total.runs_added += report.runs_added;
      total.runs_skipped += report.runs_skipped;
      if (merged) merged(batch[i], report);
    }
  }
  return total;
}

Result<Store::MergeReport> Store::merge_into_new(const std::string& path, const std::vector<std::string>& paths, const MergeCallback& merged) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) return make_error(path + ": exists already (a new database was asked for)");
  const std::filesystem::path staging = staging_path(path, "merging");
  const auto remove_staging = [&] {
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) std::filesystem::remove(staging.string() + suffix, ec);
  };
  remove_staging();  // left by a killed process of the same id
  std::vector<std::pair<std::string, MergeReport>> heard;
  Result<MergeReport> total = MergeReport{};
  {
    auto connection = Connection::open(staging.string(), Connection::Access::ReadWrite);
    if (!connection) return make_error(path + ": cannot create the database: " + connection.error().message);
    // No journal: a failed merge deletes the file instead of rolling back. NORMAL still syncs
    // the file before the switch to WAL, so what is linked in is on the disk. An 8 MiB cache,
    // not the store's 64 MiB: the copies append, so a page once full is not touched again,
    // and a small cache reuses its buffers where a large one allocates a new one per page
    // (1,050 traced runs from 8 files: 1.10 s against 1.30 to 1.85 s). 16 KiB pages, not 4 KiB:
    // a quarter of the pages to fill, link and write (0.98 s to 0.82 s; 64 KiB gained no more,
    // and would cost later small commits more). The page size stays with the file.
    Status made = connection->exec("PRAGMA page_size = 16384; PRAGMA journal_mode = OFF; PRAGMA synchronous = NORMAL; PRAGMA cache_size = -8192");
    if (made) made = prepare_schema(*connection, true);
    if (!made) {
      remove_staging();
      return make_error(path + ": cannot create the database: " + made.error().message);
    }
    auto impl = std::make_unique<Impl>();
    impl->connection = std::move(*connection);
    Store store(std::move(impl));
    total = store.merge_all(paths, [&](const std::string& input, const MergeReport& report) { heard.emplace_back(input, report); });
    if (total) {
      if (auto status = use_write_ahead_log(store.impl_->connection); !status) total = status.error();
    }
  }  // closed
  if (!total) {
    remove_staging();
    return total.error();
  }
  auto linked = link_new_file(staging, path);
  remove_staging();
  if (!linked) return make_error(path + ": cannot create the database: " + linked.error().message);
  if (!*linked) return make_error(path + ": another process created it during the merge; nothing was merged into it");
  if (merged) {
    for (const auto& [input, report] : heard) merged(input, report);
  }
  return total;
}

Result<std::vector<Store::MergeReport>> Store::merge_checked(const std::vector<std::string>& paths, const std::function<Status()>& checks_passed) {
  Connection& c = impl_->connection;
  // A copy that fails may fail because its input is damaged: the check says why, better.
  const auto failed = [&](Error error) -> Error {
    if (auto status = checks_passed(); !status) return status.error();
    return error;
  };
  // Attached before the transaction, detached after it: SQLite detaches nothing inside one.
  std::vector<std::string> aliases;
  struct Detach {
    Connection& c;
    std::vector<std::string>& aliases;
    ~Detach() {
      (void)drop_merge_tables(c);
      for (const std::string& alias : aliases) (void)c.exec("DETACH DATABASE " + alias + ";");
    }
  } detach{c, aliases};
  for (const std::string& path : paths) {
    const std::string alias = "src" + std::to_string(aliases.size());
    auto attach = c.prepare("ATTACH DATABASE ?1 AS " + alias);
    if (!attach) return attach.error();
    if (auto status = attach->bind(1, path).run(); !status) return failed(make_error("cannot attach " + path + ": " + status.error().message));
    aliases.push_back(alias);
    // An input is read through a memory map, not a read() per page: the copies then cost half
    // the system time. Inputs are only read, and a map is dropped with its file's detach.
    if (auto status = c.exec("PRAGMA " + alias + ".mmap_size = " + std::to_string(kMergeInputMapBytes)); !status) return failed(status.error());
    auto version = c.query_integer("PRAGMA " + alias + ".user_version");
    if (!version) return failed(version.error());
    if (*version != kSchemaVersion) {
      return failed(make_error("cannot merge " + path + ": its schema version is " + std::to_string(*version) + ", this tilelens writes version " +
                               std::to_string(kSchemaVersion) + " (open it once with this tilelens, read-write, to upgrade it)"));
    }
  }
  // One transaction: an interrupted merge leaves this file as it was.
  auto transaction = Transaction::begin(c);
  if (!transaction) return transaction.error();
  std::vector<MergeReport> reports;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    auto report = merge_attached(c, aliases[i]);
    if (!report) return failed(make_error("merging " + paths[i] + ": " + report.error().message));
    reports.push_back(*report);
    if (auto status = drop_merge_tables(c); !status) return status.error();
  }
  if (auto status = checks_passed(); !status) return status.error();
  if (auto status = transaction->commit(); !status) return status.error();
  return reports;
}

}  // namespace tilelens::db
