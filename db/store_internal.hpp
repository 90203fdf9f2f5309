// What the store's files share, internal to db/: the connection behind a Store, the state of
// a run being written, the identity of the rows stored once, and small helpers.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "db/sqlite.hpp"
#include "db/store.hpp"
#include "db/tables.hpp"

namespace tilelens::db {

struct Store::Impl {
  Connection connection;
};

// store.cpp: new files are made under a name of their own beside `path` (".NAME.PURPOSE-PID")
// and linked in whole, never replacing: link_new_file says false when `target` was there
// already. use_write_ahead_log switches a connection's file to WAL, waiting out readers.
std::filesystem::path staging_path(const std::string& path, std::string_view purpose);
Result<bool> link_new_file(const std::filesystem::path& staging, const std::filesystem::path& target);
Status use_write_ahead_log(Connection& connection);

// How much of a merge's input SQLite may map (PRAGMA mmap_size), on the connection that checks
// it (Store::OpenMode::MergeInput) and where the copies attach it: it maps no more than the file.
inline constexpr std::int64_t kMergeInputMapBytes = std::int64_t{1} << 30;

struct RunWriter::State {
  Connection* connection = nullptr;
  std::optional<Transaction> transaction;
  std::int64_t platform_id = 0;
  RunInfo info;
  Statement insert_task, insert_load, insert_eviction, insert_writeback, insert_allocation;
  std::int64_t load_seq = 0, eviction_seq = 0, writeback_seq = 0, allocation_seq = 0;
  std::optional<Error> error;

  void keep(Status status) {
    if (!status && !error) error = status.error();
  }
};

// keys.cpp: a platform row's identity (every field). A workload's is its content hash
// (workload_content_hash, formats/workload_io.hpp): identical workloads are stored once.
std::string platform_key(const Platform& platform);

inline std::int64_t to_int(std::uint64_t value) { return static_cast<std::int64_t>(value); }
inline std::optional<std::int64_t> optional_id(std::uint32_t id) {
  if (id == kNoId) return std::nullopt;
  return static_cast<std::int64_t>(id);
}

// The schema's INSERT of every column of `table`, bound by name.
inline Result<Statement> prepare_insert(Connection& c, std::string_view table) { return c.prepare(insert_sql(schema_table(table))); }

// deletes.cpp: a run's row and every record of it, inside the caller's transaction.
Status erase_run(Connection& c, std::int64_t run_id);

// Runs `sql` with ?1 bound to `id` and hands each row to `read`.
template <class Read>
Status for_each_row(Connection& c, const std::string& sql, std::int64_t id, Read&& read) {
  auto query = c.prepare(sql);
  if (!query) return query.error();
  query->bind(1, id);
  while (true) {
    auto row = query->step();
    if (!row) return row.error();
    if (!*row) return Status::success();
    read(*query);
    if (auto read_all = query->check_columns(); !read_all) return read_all;
  }
}

// The id of the row whose unique `column` holds `key`, if any.
Result<std::optional<std::int64_t>> find_id(Connection& c, const std::string& table, const std::string& column, const std::string& key);

}  // namespace tilelens::db
