// The store's connection: opening a file (checking it, creating or upgrading its schema), and
// its path. What it writes and reads lives beside it: catalog.cpp (workloads, platforms,
// sweeps), run_writer.cpp, run_reader.cpp, deletes.cpp, keys.cpp; the schema in tables.cpp.
#include <filesystem>

#include "store/schema.hpp"
#include "store/store_internal.hpp"

namespace tilelens::db {

Store::Store(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Store::Store(Store&&) noexcept = default;
Store& Store::operator=(Store&&) noexcept = default;
Store::~Store() = default;

const std::string& Store::path() const { return impl_->connection.path(); }

Result<Store> Store::open(const std::string& path, OpenMode mode) {
  if (mode == OpenMode::ReadOnlyUpgrading) {
    auto reader = open(path, OpenMode::ReadOnly);
    if (reader) return reader;
    std::int64_t version = 0;
    if (auto connection = Connection::open(path, Connection::Access::ReadOnly)) {
      if (auto found = connection->query_integer("PRAGMA user_version")) version = *found;
    }
    if (version <= 0 || version >= kSchemaVersion) return reader;  // not an older tilelens file: that error stands
    if (auto upgraded = open(path, OpenMode::ReadWrite); !upgraded) return upgraded.error();
    return open(path, OpenMode::ReadOnly);
  }
  if (auto status = check_database_file(path); !status) return status.error();
  const bool writable = mode == OpenMode::ReadWrite;
  std::error_code ec;
  if (!writable && !std::filesystem::exists(path, ec)) {
    return make_error(path + ": no such database (replay --db, sweep and import create one)");
  }
  auto connection = Connection::open(path, writable ? Connection::Access::ReadWrite : Connection::Access::ReadOnly);
  if (!connection) return connection.error();
  if (auto status = prepare_schema(*connection, writable); !status) return status.error();
  if (writable) {
    // WAL: readers never block the writer nor see a half-written run; NORMAL sync is
    // durable against a killed process (only a power loss may drop the last commits).
    if (auto status = connection->exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL"); !status) {
      return status.error();
    }
  }
  if (auto status = connection->exec("PRAGMA cache_size = -65536"); !status) return status.error();
  auto impl = std::make_unique<Impl>();
  impl->connection = std::move(*connection);
  return Store(std::move(impl));
}

}  // namespace tilelens::db
