// The store's connection: opening a file (checking it, creating or upgrading its schema), and
// its path. What it writes and reads lives beside it: catalog.cpp (workloads, platforms,
// sweeps), run_writer.cpp, run_reader.cpp, deletes.cpp, keys.cpp; the schema in tables.cpp.
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <thread>

#include "db/schema.hpp"
#include "db/store_internal.hpp"

namespace tilelens::db {
namespace {

// How to read an existing file. SQLite reads a WAL database through a -shm file it creates
// beside it; in a directory this user cannot write, the file is opened immutable instead (no
// one can be writing it there), unless its -wal holds commits that only the log has.
Result<Connection::Access> read_access(const std::string& path) {
  const std::filesystem::path file(path);
  const std::filesystem::path directory = file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
  if (::access(directory.c_str(), W_OK) == 0) return Connection::Access::ReadOnly;
  std::error_code ec;
  const auto wal_size = std::filesystem::file_size(path + "-wal", ec);
  if (!ec && wal_size > 0) {
    return make_error(path + ": cannot read it here: its directory is read-only and " + path +
                      "-wal holds commits not yet in the file; copy both files to a writable directory");
  }
  return Connection::Access::Immutable;
}

}  // namespace

// Switches a new file to WAL mode. The switch needs the file to itself, and SQLite answers
// "locked" at once, without waiting, while another process reads the schema that this one
// just created: it is retried for as long as any lock is waited for.
Status use_write_ahead_log(Connection& connection) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (true) {
    {
      auto mode = connection.prepare("PRAGMA journal_mode");
      if (!mode) return mode.error();
      auto row = mode->step();
      if (row && *row && mode->text(0) == "wal") return Status::success();
    }  // the statement finalized: no read may be open while the mode changes
    auto status = connection.exec("PRAGMA journal_mode = WAL");
    if (status) return status;
    if (status.error().message.find("locked") == std::string::npos || std::chrono::steady_clock::now() > deadline) return status;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

std::filesystem::path staging_path(const std::string& path, std::string_view purpose) {
  const std::filesystem::path target(path);
  return target.parent_path() / ("." + target.filename().string() + "." + std::string(purpose) + "-" + std::to_string(::getpid()));
}

Result<bool> link_new_file(const std::filesystem::path& staging, const std::filesystem::path& target) {
  std::error_code ec;
  const int linked = ::link(staging.c_str(), target.c_str());
  const int link_error = errno;
  if (linked == 0) return true;
  if (link_error == EEXIST) return false;
  // A file system without hard links: the rename replaces, so check first (the window is
  // this process's own two calls).
  if (std::filesystem::exists(target, ec)) return false;
  std::filesystem::rename(staging, target, ec);
  if (ec) return make_error(target.string() + ": " + std::string(std::strerror(link_error)));
  return true;
}

namespace {

// A new database is born whole: its schema is made, in WAL mode, in a file of its own beside
// `path`, which is then linked in under `path` in one step that fails if another process got
// there first. A kill at any instant thus leaves no database, or a complete empty one (and at
// worst a stray ".path.new-PID" file), and a concurrent first open never sees a half-made
// schema. link() does not replace: when another process won, its file is the database.
Status create_whole(const std::string& path) {
  const std::filesystem::path staging = staging_path(path, "new");
  std::error_code ec;
  std::filesystem::remove(staging, ec);  // left by a killed process of the same id
  {
    auto connection = Connection::open(staging.string(), Connection::Access::ReadWrite);
    if (!connection) return make_error(path + ": cannot create the database: " + connection.error().message);
    Status made = use_write_ahead_log(*connection);
    if (made) made = prepare_schema(*connection, true);
    if (!made) {
      std::filesystem::remove(staging, ec);
      return make_error(path + ": cannot create the database: " + made.error().message);
    }
  }  // closed: the log is checkpointed into the file and removed
  auto linked = link_new_file(staging, path);
  std::filesystem::remove(staging, ec);
  if (!linked) return make_error(path + ": cannot create the database: " + linked.error().message);
  return Status::success();
}

}  // namespace

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
  if (!std::filesystem::exists(path, ec)) {
    if (!writable) return make_error(path + ": no such database (replay --db, sweep and import create one)");
    if (auto status = create_whole(path); !status) return status.error();
  }
  auto access = writable ? Result<Connection::Access>(Connection::Access::ReadWrite) : read_access(path);
  if (!access) return access.error();
  auto connection = Connection::open(path, *access);
  if (!connection) return connection.error();
  const bool merge_input = mode == OpenMode::MergeInput;
  if (merge_input) {
    if (auto status = connection->exec("PRAGMA mmap_size = " + std::to_string(kMergeInputMapBytes)); !status) return status.error();
  }
  if (auto status = prepare_schema(*connection, writable); !status) return status.error();
  if (auto status = check_schema_shape(*connection); !status) return status.error();
  if (auto status = check_integrity(*connection, merge_input ? IntegrityScope::IndexedTables : IntegrityScope::WholeFile); !status) {
    return status.error();
  }
  if (writable) {
    // WAL: readers never block the writer nor see a half-written run; NORMAL sync is
    // durable against a killed process (only a power loss may drop the last commits).
    if (auto status = use_write_ahead_log(*connection); !status) return status.error();
    if (auto status = connection->exec("PRAGMA synchronous = NORMAL"); !status) return status.error();
  }
  if (auto status = connection->exec("PRAGMA cache_size = -65536"); !status) return status.error();
  auto impl = std::make_unique<Impl>();
  impl->connection = std::move(*connection);
  return Store(std::move(impl));
}

}  // namespace tilelens::db
