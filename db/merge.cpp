// Merging databases (tilelens db merge): another file's runs copied into this one, each row
// once. The tables and columns come from the schema, so a table added later is merged too.
#include <algorithm>
#include <future>
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
// row in the temporary map `map` (old -> new), with the key replaced by its new value.
Status copy_children(Connection& c, const Table& table, std::string_view key_column, const std::string& map) {
  const std::string others = column_list(table, {key_column}, "s.");
  const std::string names = std::string(key_column) + (others.empty() ? "" : ", " + column_list(table, {key_column}));
  return c.exec("INSERT INTO main." + std::string(table.name) + " (" + names + ") SELECT m.new" + (others.empty() ? "" : ", " + others) +
                " FROM src." + std::string(table.name) + " s JOIN " + map + " m ON m.old = s." + std::string(key_column) + ";");
}

// Rows of a table stored once by a unique column (workloads by content hash, platforms by
// description, sweeps by spec): those missing are inserted, and `map` gets old -> new for all.
Status merge_unique(Connection& c, const std::string& table_name, const std::string& unique, const std::string& map,
                    const std::string& fresh = "") {
  const Table& table = schema_table(table_name);
  const std::string columns = column_list(table, {"id"});
  if (!fresh.empty()) {
    if (auto status = c.exec("CREATE TEMP TABLE " + fresh + " AS SELECT id AS old FROM src." + table_name + " WHERE " + unique +
                             " NOT IN (SELECT " + unique + " FROM main." + table_name + ");");
        !status) {
      return status;
    }
  }
  if (auto status = c.exec("INSERT INTO main." + table_name + " (" + columns + ") SELECT " + column_list(table, {"id"}, "s.") + " FROM src." +
                           table_name + " s WHERE s." + unique + " NOT IN (SELECT " + unique + " FROM main." + table_name + ");");
      !status) {
    return status;
  }
  return c.exec("CREATE TEMP TABLE " + map + " (old INTEGER PRIMARY KEY, new INTEGER NOT NULL); INSERT INTO " + map +
                " SELECT s.id, m.id FROM src." + table_name + " s JOIN main." + table_name + " m ON m." + unique + " = s." + unique + ";");
}

Result<Store::MergeReport> merge_attached(Connection& c) {
  Store::MergeReport report;
  auto before = c.query_integer("SELECT COUNT(*) FROM main.workloads");
  if (!before) return before.error();
  // Workloads by content, with their tasks, data and accesses when new.
  if (auto status = merge_unique(c, "workloads", "content_hash", "temp.map_workloads", "temp.new_workloads"); !status) return status.error();
  if (auto status = c.exec("CREATE TEMP TABLE map_new_workloads AS SELECT m.old, m.new FROM temp.map_workloads m "
                           "WHERE m.old IN (SELECT old FROM temp.new_workloads);");
      !status) {
    return status.error();
  }
  for (std::string_view table : workload_tables()) {
    if (table == "workloads") continue;
    if (auto status = copy_children(c, schema_table(table), "workload_id", "temp.map_new_workloads"); !status) return status.error();
  }
  auto after = c.query_integer("SELECT COUNT(*) FROM main.workloads");
  if (!after) return after.error();
  report.workloads_added = static_cast<std::size_t>(*after - *before);
  if (auto status = merge_unique(c, "platforms", "description", "temp.map_platforms"); !status) return status.error();
  if (auto status = merge_unique(c, "sweeps", "spec", "temp.map_sweeps"); !status) return status.error();

  // The runs to copy: one per (sweep, run key), a complete one first, none whose key the
  // same sweep (or no sweep) holds here already. Incomplete runs stay behind.
  const std::string same_place =
      "IFNULL((SELECT spec FROM src.sweeps WHERE id = a.sweep_id), '') = IFNULL((SELECT spec FROM src.sweeps WHERE id = b.sweep_id), '')";
  if (auto status = c.exec(
          "CREATE TEMP TABLE picked AS SELECT a.id AS old FROM src.runs a WHERE a.status <> 'incomplete' "
          "AND a.id = (SELECT b.id FROM src.runs b WHERE b.run_key = a.run_key AND b.status <> 'incomplete' AND " + same_place +
          " ORDER BY b.status = 'complete' DESC, b.id LIMIT 1) "
          "AND NOT EXISTS (SELECT 1 FROM main.runs m WHERE m.run_key = a.run_key AND "
          "IFNULL((SELECT spec FROM main.sweeps WHERE id = m.sweep_id), '') = IFNULL((SELECT spec FROM src.sweeps WHERE id = a.sweep_id), ''));");
      !status) {
    return status.error();
  }
  auto total = c.query_integer("SELECT COUNT(*) FROM src.runs");
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
                           " FROM src.runs s JOIN temp.map_runs r ON r.old = s.id ORDER BY r.new;");
      !status) {
    return status.error();
  }
  for (std::string_view table : run_tables()) {
    if (table == "run_claims") continue;  // a claim belongs to a process on the source's machine
    if (auto status = copy_children(c, schema_table(table), "run_id", "temp.map_runs"); !status) return status.error();
  }
  auto added = c.query_integer("SELECT COUNT(*) FROM temp.map_runs");
  if (!added) return added.error();
  report.runs_added = static_cast<std::size_t>(*added);
  report.runs_skipped = static_cast<std::size_t>(*total) - report.runs_added;
  return report;
}

// The source must be a tilelens database of this very schema version, whole: opened as such
// (an older one is refused, not upgraded: merging must not write to its inputs). Any thread.
Status check_source(const std::string& path) {
  auto source = Store::open(path, Store::OpenMode::ReadOnly);
  if (!source) return make_error("cannot merge " + path + ": " + source.error().message);
  return Status::success();
}

}  // namespace

Result<Store::MergeReport> Store::merge_all(const std::vector<std::string>& paths, const MergeCallback& merged) {
  // Checks run ahead on up to one thread per core (at least one besides this one), each on its
  // own connection; the copies stay on this connection, in order.
  const std::size_t ahead = std::max<std::size_t>(1, std::thread::hardware_concurrency());
  std::vector<std::future<Status>> checks(paths.size());
  const auto start_check = [&](std::size_t i) {
    if (i < paths.size()) checks[i] = std::async(std::launch::async, check_source, paths[i]);
  };
  for (std::size_t i = 0; i < std::min(ahead, paths.size()); ++i) start_check(i);
  // A failure returns before the later checks are waited for: wait for them anyway (their
  // futures' destructors), so no check outlives the call.
  struct Drain {
    std::vector<std::future<Status>>& checks;
    ~Drain() {
      for (auto& check : checks) {
        if (check.valid()) check.wait();
      }
    }
  } drain{checks};
  MergeReport total;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const Status checked = checks[i].get();
    start_check(i + ahead);
    if (!checked) return checked.error();
    auto report = merge_checked(paths[i]);
    if (!report) return report.error();
    total.workloads_added += report->workloads_added;
    total.runs_added += report->runs_added;
    total.runs_skipped += report->runs_skipped;
    if (merged) merged(paths[i], *report);
  }
  return total;
}

Result<Store::MergeReport> Store::merge_checked(const std::string& path) {
  Connection& c = impl_->connection;
  {
    auto attach = c.prepare("ATTACH DATABASE ?1 AS src");
    if (!attach) return attach.error();
    if (auto status = attach->bind(1, path).run(); !status) return make_error("cannot attach " + path + ": " + status.error().message);
  }
  struct Detach {
    Connection& c;
    ~Detach() {
      (void)c.exec("DROP TABLE IF EXISTS temp.map_workloads; DROP TABLE IF EXISTS temp.new_workloads; DROP TABLE IF EXISTS temp.map_new_workloads; "
                   "DROP TABLE IF EXISTS temp.map_platforms; DROP TABLE IF EXISTS temp.map_sweeps; DROP TABLE IF EXISTS temp.picked; "
                   "DROP TABLE IF EXISTS temp.map_runs;");
      (void)c.exec("DETACH DATABASE src;");
    }
  } detach{c};
  auto version = c.query_integer("PRAGMA src.user_version");
  if (!version) return version.error();
  if (*version != kSchemaVersion) {
    return make_error("cannot merge " + path + ": its schema version is " + std::to_string(*version) + ", this tilelens writes version " +
                      std::to_string(kSchemaVersion) + " (open it once with this tilelens, read-write, to upgrade it)");
  }
  // One transaction: an interrupted merge leaves this file as it was.
  auto transaction = Transaction::begin(c);
  if (!transaction) return transaction.error();
  auto report = merge_attached(c);
  if (!report) return make_error("merging " + path + ": " + report.error().message);
  // The copied runs read back as the readers read them (their rows, platforms, metrics and
  // per-worker figures checked), inside the transaction: a source whose rows are well formed
  // but whose values are not (a hostile or damaged file) is refused before it can make this
  // file's run list unreadable. They hold the ids after the ones this file had, so one
  // load_runs (four queries) reads them all.
  if (report->runs_added > 0) {
    auto first_new = c.query_integer("SELECT MIN(new) FROM temp.map_runs");
    if (!first_new) return first_new.error();
    RunFilter copied;
    copied.first_id = *first_new;
    if (auto runs = load_runs(copied); !runs) {
      // Name the source's run: the reader's message names its id in this file.
      auto ids = c.prepare("SELECT new, old FROM temp.map_runs ORDER BY new");
      if (!ids) return ids.error();
      std::vector<std::pair<std::int64_t, std::int64_t>> pairs;
      while (true) {
        auto row = ids->step();
        if (!row) return row.error();
        if (!*row) break;
        pairs.emplace_back(ids->integer(0), ids->integer(1));
      }
      for (const auto& [fresh, old] : pairs) {
        if (auto run = load_run(fresh); !run) {
          return make_error("cannot merge " + path + ": its run " + std::to_string(old) + " does not read back: " + run.error().message +
                            "; nothing of " + path + " was merged");
        }
      }
      return make_error("cannot merge " + path + ": its runs do not read back: " + runs.error().message + "; nothing of " + path + " was merged");
    }
  }
  if (auto status = transaction->commit(); !status) return status.error();
  return report;
}

}  // namespace tilelens::db
