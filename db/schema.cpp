// Creating, recognising and upgrading the schema; see schema.hpp. The tables themselves are
// declared in tables.cpp.
#include "db/schema.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
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

Error damaged(const std::string& path, const std::string& what) {
  return make_error(path + ": the database is damaged or was edited by hand: " + what + "; restore it from a copy");
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

Status check_integrity(Connection& connection) {
  const std::string& path = connection.path();
  // integrity_check, not quick_check: SQLite 3.40's quick_check reports a false "NULL value"
  // in WITHOUT ROWID tables whose key order differs from their column order (dependencies),
  // and the two cost the same here (a full read; the tables have few secondary indexes).
  // Up to 3 problems are enough to show what is wrong.
  auto check = connection.prepare("PRAGMA integrity_check(3)");
  if (!check) return make_error(path + ": the database is damaged: " + check.error().message);
  std::string problems;
  while (true) {
    auto row = check->step();
    if (!row) return make_error(path + ": the database is damaged: " + row.error().message);
    if (!*row) break;
    const std::string line = check->text(0);
    if (line == "ok") return Status::success();
    problems += (problems.empty() ? "" : "; ") + line;
  }
  return make_error(path + ": the database is damaged (SQLite's integrity_check: " + problems +
                    "); tilelens will not read it. Restore it from a copy, or save what SQLite can read with: sqlite3 " + path +
                    " .recover | sqlite3 recovered.db");
}

}  // namespace tilelens::db
