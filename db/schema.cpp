// Creating, recognising and upgrading the schema; see schema.hpp. The tables themselves are
// declared in tables.cpp.
#include "db/schema.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <vector>

#include "db/tables.hpp"

namespace tilelens::db {
namespace {

std::uint32_t big_endian(const unsigned char* bytes, int count) {
  std::uint32_t value = 0;
  for (int i = 0; i < count; ++i) value = (value << 8) | bytes[i];
  return value;
}

}  // namespace

Status check_database_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return Status::success();  // created on open
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) return make_error(path + ": cannot read: " + ec.message());
  if (size == 0) return Status::success();  // SQLite treats an empty file as a new database
  std::array<unsigned char, 100> header{};
  std::ifstream file(path, std::ios::binary);
  file.read(reinterpret_cast<char*>(header.data()), header.size());
  static constexpr char kMagic[] = "SQLite format 3";  // followed by a NUL byte
  if (file.gcount() < 100 || std::memcmp(header.data(), kMagic, sizeof kMagic) != 0) {
    return make_error(path + ": not a tilelens database (not an SQLite file: its first bytes are not 'SQLite format 3')");
  }
  std::uint64_t page_size = big_endian(header.data() + 16, 2);
  if (page_size == 1) page_size = 65536;
  const std::uint64_t pages = big_endian(header.data() + 28, 4);
  const bool pages_valid = big_endian(header.data() + 24, 4) == big_endian(header.data() + 92, 4);
  // A file in use may legitimately lag its header: with a write-ahead log beside it, or while
  // a checkpoint grows it (its size changed while the header was read).
  // A rollback journal beside it means SQLite will undo an interrupted transaction on the next
  // open, which may restore the size the header announces.
  const bool in_use = std::filesystem::exists(path + "-wal", ec) || std::filesystem::exists(path + "-shm", ec) ||
                      std::filesystem::exists(path + "-journal", ec) || std::filesystem::file_size(path, ec) != size;
  if (pages_valid && !in_use && pages * page_size > size) {
    return make_error(path + ": the file is truncated: its header announces " + std::to_string(pages) + " pages of " +
                      std::to_string(page_size) + " bytes (" + std::to_string(pages * page_size) + " bytes) but it holds " +
                      std::to_string(size) + " bytes; restore it from a copy");
  }
  return Status::success();
}

Status prepare_schema(Connection& connection, bool writable) {
  const std::string& path = connection.path();
  // One snapshot for the three reads: another process may be creating the schema right now,
  // and its tables seen without its application id would look like a foreign file.
  if (auto status = connection.exec("BEGIN"); !status) return make_error(path + ": not a tilelens database: " + status.error().message);
  // The first read is where SQLite notices a file that is not a database at all.
  auto application_id = connection.query_integer("PRAGMA application_id");
  auto version = connection.query_integer("PRAGMA user_version");
  auto tables = connection.query_integer("SELECT count(*) FROM sqlite_schema");
  (void)connection.exec("COMMIT");
  if (!application_id) return make_error(path + ": not a tilelens database: " + application_id.error().message);
  if (!version) return version.error();
  if (!tables) return tables.error();

  if (*tables == 0) {
    if (!writable) return make_error(path + ": the database is empty (no tilelens schema yet); write a run to it first");
    auto transaction = Transaction::begin(connection);
    if (!transaction) return transaction.error();
    // Another process may have created the schema while this one waited for the lock.
    auto created = connection.query_integer("SELECT count(*) FROM sqlite_schema");
    if (!created) return created.error();
    if (*created != 0) {
      if (auto status = transaction->commit(); !status) return status;
      return prepare_schema(connection, writable);
    }
    if (auto status = connection.exec(create_sql(kSchemaVersion)); !status) return status;
    if (auto status = connection.exec("PRAGMA application_id = " + std::to_string(kApplicationId) +
                                      "; PRAGMA user_version = " + std::to_string(kSchemaVersion));
        !status) {
      return status;
    }
    return transaction->commit();
  }
  if (*application_id != kApplicationId) {
    return make_error(path + ": not a tilelens database (it holds " + std::to_string(*tables) +
                      " schema objects of another application); give tilelens a new file name");
  }
  if (*version > kSchemaVersion) {
    return make_error(path + ": the database has schema version " + std::to_string(*version) +
                      ", newer than this tilelens reads (version " + std::to_string(kSchemaVersion) +
                      "); open it with a newer tilelens, or export what you need with that version");
  }
  if (*version < 1) return make_error(path + ": the database has no schema version; it was not written by tilelens");
  if (*version < kSchemaVersion) {
    if (!writable) {
      return make_error(path + ": the database has schema version " + std::to_string(*version) + "; open it read-write once to upgrade it to version " +
                        std::to_string(kSchemaVersion));
    }
    auto transaction = Transaction::begin(connection);
    if (!transaction) return transaction.error();
    for (std::int64_t v = *version; v < kSchemaVersion; ++v) {
      if (auto status = connection.exec(migration_sql(static_cast<int>(v))); !status) {
        return make_error(path + ": upgrading schema version " + std::to_string(v) + " failed (the file is unchanged): " +
                          status.error().message);
      }
    }
    if (auto status = connection.exec("PRAGMA user_version = " + std::to_string(kSchemaVersion)); !status) return status;
    return transaction->commit();
  }
  return Status::success();
}

Status check_schema_shape(Connection& connection) {
  const std::string& path = connection.path();
  const auto damaged = [&](const std::string& what) {
    return db::damaged(path, what + " (schema version " + std::to_string(kSchemaVersion) + ", docs/database.md)");
  };
  auto type_query = connection.prepare("SELECT type FROM sqlite_schema WHERE name = ?1");
  if (!type_query) return type_query.error();
  for (const Table& table : schema_tables()) {
    type_query->bind(1, table.name);
    auto found = type_query->step();
    if (!found) return found.error();
    const std::string type = *found ? type_query->text(0) : "";
    type_query->reset();
    if (type.empty()) return damaged("table " + std::string(table.name) + " is missing");
    if (type != "table") return damaged(std::string(table.name) + " is a " + type + ", not a table");
    auto columns = connection.prepare("SELECT name FROM pragma_table_info(?1)");
    if (!columns) return columns.error();
    columns->bind(1, table.name);
    std::vector<std::string> present;
    while (true) {
      auto row = columns->step();
      if (!row) return row.error();
      if (!*row) break;
      present.push_back(columns->text(0));
    }
    for (const Column& column : table.columns) {
      if (std::find(present.begin(), present.end(), column.name) == present.end()) {
        return damaged("table " + std::string(table.name) + " has no column " + std::string(column.name));
      }
    }
  }
  return Status::success();
}

Status check_integrity(Connection& connection, IntegrityScope scope) {
  const std::string& path = connection.path();
  // integrity_check, not quick_check: SQLite 3.40's quick_check reports a false "NULL value"
  // in WITHOUT ROWID tables whose key order differs from their column order (dependencies),
  // and the two cost the same here (a full read; the tables have few secondary indexes).
  // Up to 3 problems are enough to show what is wrong.
  std::vector<std::string> pragmas;
  if (scope == IntegrityScope::WholeFile) {
    pragmas.push_back("PRAGMA integrity_check(3)");
  } else {
    for (const Table& table : schema_tables()) {
      const bool indexed = !table.indexes.empty() || std::any_of(table.columns.begin(), table.columns.end(), [](const Column& column) {
        return column.type.find("UNIQUE") != std::string_view::npos;
      });
      if (indexed) pragmas.push_back("PRAGMA integrity_check(" + std::string(table.name) + ")");
    }
  }
  std::string problems;
  for (const std::string& pragma : pragmas) {
    auto check = connection.prepare(pragma);
    if (!check) return make_error(path + ": the database is damaged: " + check.error().message);
    while (true) {
      auto row = check->step();
      if (!row) return make_error(path + ": the database is damaged: " + row.error().message);
      if (!*row) break;
      const std::string line = check->text(0);
      if (line != "ok") problems += (problems.empty() ? "" : "; ") + line;
    }
  }
  if (problems.empty()) return Status::success();
  return make_error(path + ": the database is damaged (SQLite's integrity_check: " + problems +
                    "); tilelens will not read it. Restore it from a copy, or save what SQLite can read with: sqlite3 " + path +
                    " .recover | sqlite3 recovered.db");
}

namespace {

// The SQLite types a column's declared type admits: as SQL ("'integer', 'null'") for the
// description of a wrong value, and as tilelens_mistyped's letter (sqlite.hpp); "" and 0 for a
// type not checked.
struct Admitted {
  std::string sql;
  char letter = 0;
};
Admitted admitted_types(const Column& column) {
  const std::string_view type = column.type;
  Admitted admitted;
  if (type.starts_with("INTEGER")) admitted = {"'integer'", 'i'};
  else if (type.starts_with("REAL")) admitted = {"'real', 'integer'", 'r'};
  else if (type.starts_with("TEXT")) admitted = {"'text'", 't'};
  else return admitted;
  const bool nullable = type.find("NOT NULL") == std::string_view::npos && type.find("PRIMARY KEY") == std::string_view::npos;
  if (nullable) {
    admitted.sql += ", 'null'";
    admitted.letter = static_cast<char>(admitted.letter - 'a' + 'A');
  }
  return admitted;
}

}  // namespace

Status check_stored_values(Connection& connection) {
  const std::string& path = connection.path();
  const auto first_row = [&](const std::string& sql) -> Result<std::optional<std::string>> {
    auto query = connection.prepare(sql);
    if (!query) return query.error();
    auto row = query->step();
    if (!row) return row.error();
    if (!*row) return std::optional<std::string>();
    return std::optional<std::string>(query->text(0));
  };
  for (const Table& table : schema_tables()) {
    const std::string name(table.name);
    // Any value of a wrong type (one call per row, sqlite.hpp), and the first one, described.
    std::string letters, values, row_values, which;
    for (const Column& column : table.columns) {
      const Admitted admitted = admitted_types(column);
      if (admitted.letter == 0) continue;
      const std::string c(column.name);
      letters += admitted.letter;
      values += ", " + c;
      row_values += ", s." + c;
      which += " WHEN typeof(" + c + ") NOT IN (" + admitted.sql + ") THEN '" + c + " holds ' || typeof(" + c + ") || ' ' || substr(quote(" + c + "), 1, 40)";
    }
    if (letters.empty()) continue;
    // The test of one row's types, over its columns as named in the query at hand.
    const auto wrong_type_of = [&](const std::string& columns) { return std::string(kMistypedFunction) + "('" + letters + "'" + columns + ") > 0"; };
    const std::string wrong_type = wrong_type_of(values);
    // What the records refer to: their workload's data and tasks, numbered from 0 (through
    // their run for a trace), checked as each run's or workload's lowest and highest id
    // against its workload's counts, in the same pass as the types: the rows are stored in
    // key order, so the pass streams. Every table with a data_id or task_id column has a run_id
    // (a trace) or a workload_id.
    const bool of_run = has_column(table, "run_id");
    std::string ranges, out_of_range, described, row_out_of_range;
    for (const auto& [column, count] : {std::pair<std::string_view, std::string_view>{"data_id", "data_count"}, {"task_id", "task_count"}}) {
      if (!has_column(table, column)) continue;
      const std::string c(column), n(count);
      ranges += ", MIN(" + c + ") AS lo_" + c + ", MAX(" + c + ") AS hi_" + c;
      row_out_of_range += " OR s." + c + " < 0 OR s." + c + " >= w." + n;
      out_of_range += " OR a.lo_" + c + " < 0 OR a.hi_" + c + " >= w." + n;
      described += " WHEN a.lo_" + c + " < 0 OR a.hi_" + c + " >= w." + n + " THEN '" + c + " ' || CASE WHEN a.lo_" + c + " < 0 THEN a.lo_" + c +
                   " ELSE a.hi_" + c + " END || ' is not among the ' || w." + n + " || ' of its workload'";
    }
    Result<std::optional<std::string>> found = std::optional<std::string>();
    if (ranges.empty()) {
      found = first_row("SELECT '' FROM " + name + " WHERE " + wrong_type + " LIMIT 1");
    } else {
      const std::string key = of_run ? "run_id" : "workload_id";
      const std::string workload = of_run ? "(SELECT workload_id FROM runs r WHERE r.id = a.k)" : "a.k";
      // A first pass without aggregates, twice as fast (a merge reads every row of every
      // input): each parent (a run with its workload, or a workload) leads, and its rows are
      // tested one by one; then the rows of no such parent are sought in the gaps between the
      // parents' ids, one seek per gap. Only a finding pays for the pass below, which says what
      // it is.
      const std::string parents = of_run ? "runs p JOIN workloads w ON w.id = p.workload_id" : "workloads w";
      const std::string parent_id = of_run ? "p.id" : "w.id";
      auto flagged = first_row("SELECT '' FROM " + parents + " CROSS JOIN " + name + " s ON s." + key + " = " + parent_id + " WHERE " +
                               wrong_type_of(row_values) + row_out_of_range + " LIMIT 1");
      if (!flagged) return flagged.error();
      if (!*flagged) {
        // Keys are sought, never scanned: NULL sorts first; a key below the lowest parent, above
        // the highest (text and blobs sort above numbers), or between two; with no parent at
        // all, every integer is below the largest or above the smallest.
        const std::string lowest = "(SELECT IFNULL(MIN(" + parent_id + "), 9223372036854775807) FROM " + parents + ")";
        const std::string highest = "(SELECT IFNULL(MAX(" + parent_id + "), -9223372036854775808) FROM " + parents + ")";
        flagged = first_row("SELECT '' FROM (SELECT " + key + " AS k FROM " + name + " ORDER BY " + key + " LIMIT 1) WHERE k IS NULL UNION ALL SELECT '' FROM " +
                            name + " WHERE " + key + " < " + lowest + " UNION ALL SELECT '' FROM " + name + " WHERE " + key + " > " + highest +
                            " UNION ALL SELECT '' FROM (SELECT " + parent_id + " AS lo, LEAD(" + parent_id + ") OVER (ORDER BY " + parent_id + ") AS hi FROM " +
                            parents + ") g JOIN " + name + " s ON s." + key + " > g.lo AND s." + key + " < g.hi LIMIT 1");
        if (!flagged) return flagged.error();
        if (!*flagged) continue;
      }
      const std::string parent = of_run ? "run with a stored workload" : "workload";
      found = first_row("SELECT CASE WHEN a.bad THEN '' WHEN w.id IS NULL THEN '" + key + " ' || IFNULL(a.k, 'NULL') || ' names no " + parent +
                        "' ELSE '" + key + " ' || a.k || ', ' || CASE" + described + " END END FROM (SELECT " + key +
                        " AS k, MAX(" + wrong_type + ") AS bad" + ranges + " FROM " + name + " GROUP BY " + key + ") a LEFT JOIN workloads w ON w.id = " +
                        workload + " WHERE a.bad" + out_of_range + " OR w.id IS NULL LIMIT 1");
    }
    if (!found) return found.error();
    if (!*found) continue;
    std::string problem = **found;
    if (problem.empty()) {  // a value of a wrong type: name the first
      auto typed = first_row("SELECT p FROM (SELECT CASE" + which + " END AS p FROM " + name + ") WHERE p IS NOT NULL LIMIT 1");
      if (!typed) return typed.error();
      problem = typed->value_or("a value of the wrong type");
    }
    return damaged(path, "table " + name + ": " + problem);
  }
  return Status::success();
}

}  // namespace tilelens::db
