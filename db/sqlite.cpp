// The SQLite layer; see sqlite.hpp.
#include "db/sqlite.hpp"

#include <sqlite3.h>

#include <cstdio>
#include <utility>

#include "util/quoted.hpp"

namespace tilelens::db {

Error damaged(const std::string& path, const std::string& what) {
  return make_error(path + ": the database is damaged or was edited by hand: " + what + "; restore it from a copy");
}

Connection::Connection(Connection&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)), path_(std::move(other.path_)) {}

Connection& Connection::operator=(Connection&& other) noexcept {
  if (this != &other) {
    if (handle_ != nullptr) sqlite3_close_v2(handle_);
    handle_ = std::exchange(other.handle_, nullptr);
    path_ = std::move(other.path_);
  }
  return *this;
}

Connection::~Connection() {
  if (handle_ != nullptr) sqlite3_close_v2(handle_);
}

namespace {

// "file:PATH?immutable=1" with the characters a URI path reserves escaped.
std::string immutable_uri(const std::string& path) {
  std::string uri = "file:";
  for (const char c : path) {
    if (c == '%' || c == '?' || c == '#') {
      char escaped[4];
      std::snprintf(escaped, sizeof escaped, "%%%02X", static_cast<unsigned char>(c));
      uri += escaped;
    } else {
      uri += c;
    }
  }
  return uri + "?immutable=1";
}

// tilelens_mistyped(TYPES, v1, ..., vn); see sqlite.hpp.
void mistyped(sqlite3_context* context, int argc, sqlite3_value** argv) {
  const auto* types = reinterpret_cast<const char*>(sqlite3_value_text(argv[0]));
  const int given = types != nullptr ? sqlite3_value_bytes(argv[0]) : 0;
  if (given != argc - 1) {
    sqlite3_result_error(context, "tilelens_mistyped: one type letter per value", -1);
    return;
  }
  for (int i = 1; i < argc; ++i) {
    const char admitted = types[i - 1];
    bool ok = false;
    switch (sqlite3_value_type(argv[i])) {
      case SQLITE_INTEGER: ok = admitted == 'i' || admitted == 'I' || admitted == 'r' || admitted == 'R'; break;
      case SQLITE_FLOAT: ok = admitted == 'r' || admitted == 'R'; break;
      case SQLITE_TEXT: ok = admitted == 't' || admitted == 'T'; break;
      case SQLITE_NULL: ok = admitted == 'I' || admitted == 'R' || admitted == 'T'; break;
      default: break;  // a blob: no column of the schema admits one
    }
    if (!ok) {
      sqlite3_result_int(context, i);
      return;
    }
  }
  sqlite3_result_int(context, 0);
}

}  // namespace

Result<Connection> Connection::open(const std::string& path, Access access, int busy_ms) {
  // SQLite counts every allocation under one process-wide mutex unless told not to: with a
  // merge's copies and its input checks on two threads, the two then wait on each other
  // (16,780 futex calls in one merge of eight files). tilelens never reads those counts. The
  // setting must come before SQLite's first use; a later call is refused and changes nothing.
  static const bool unmetered = sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) == SQLITE_OK;
  (void)unmetered;
  Connection connection;
  connection.path_ = path;
  int flags = SQLITE_OPEN_NOMUTEX;
  if (access == Access::ReadWrite) flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  else flags |= SQLITE_OPEN_READONLY;
  if (access == Access::Immutable) flags |= SQLITE_OPEN_URI;
  const std::string name = access == Access::Immutable ? immutable_uri(path) : path;
  const int rc = sqlite3_open_v2(name.c_str(), &connection.handle_, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = connection.handle_ != nullptr ? sqlite3_errmsg(connection.handle_) : sqlite3_errstr(rc);
    return make_error(path + ": cannot open: " + message);
  }
  sqlite3_extended_result_codes(connection.handle_, 1);
  sqlite3_busy_timeout(connection.handle_, busy_ms);
  if (sqlite3_create_function_v2(connection.handle_, kMistypedFunction, -1, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, nullptr,
                                 mistyped, nullptr, nullptr, nullptr) != SQLITE_OK) {
    return connection.error("cannot register " + std::string(kMistypedFunction));
  }
  return connection;
}

Error Connection::error(std::string_view what) const {
  return make_error(path_ + ": " + std::string(what) + ": " + (handle_ != nullptr ? sqlite3_errmsg(handle_) : "not open"));
}

Status Connection::exec(std::string_view sql) {
  char* message = nullptr;
  const std::string text(sql);
  if (sqlite3_exec(handle_, text.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    std::string reason = message != nullptr ? message : "unknown error";
    sqlite3_free(message);
    return make_error(path_ + ": " + reason);
  }
  return Status::success();
}

Result<Statement> Connection::prepare(std::string_view sql) {
  sqlite3_stmt* handle = nullptr;
  if (sqlite3_prepare_v3(handle_, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT, &handle, nullptr) !=
      SQLITE_OK) {
    return error("cannot prepare '" + std::string(sql.substr(0, 60)) + "'");
  }
  return Statement(handle, this);
}

Result<std::int64_t> Connection::query_integer(std::string_view sql) {
  auto statement = prepare(sql);
  if (!statement) return statement.error();
  auto row = statement->step();
  if (!row) return row.error();
  if (!*row) return make_error(path_ + ": no result for '" + std::string(sql) + "'");
  const std::int64_t value = statement->integer(0);
  if (auto read = statement->check_columns(); !read) return read.error();
  return value;
}

std::int64_t Connection::last_insert_id() const { return sqlite3_last_insert_rowid(handle_); }

bool Connection::in_transaction() const { return handle_ != nullptr && sqlite3_get_autocommit(handle_) == 0; }

Statement::Statement(Statement&& other) noexcept { *this = std::move(other); }

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    if (handle_ != nullptr) sqlite3_finalize(handle_);
    handle_ = std::exchange(other.handle_, nullptr);
    connection_ = other.connection_;
    bind_error_ = other.bind_error_;
    unknown_parameter_ = std::move(other.unknown_parameter_);
    unknown_column_ = std::move(other.unknown_column_);
    parameter_names_ = std::move(other.parameter_names_);
    column_names_ = std::move(other.column_names_);
    next_parameter_ = other.next_parameter_;
    next_column_ = other.next_column_;
  }
  return *this;
}

namespace {

// The position of `name` in `names`, searched from `next` on and wrapping; -1 when absent.
int find_name(const std::vector<std::string>& names, std::string_view name, std::size_t& next) {
  for (std::size_t k = 0; k < names.size(); ++k) {
    const std::size_t i = (next + k) % names.size();
    if (names[i] == name) {
      next = i + 1;
      return static_cast<int>(i);
    }
  }
  return -1;
}

}  // namespace

int Statement::parameter(std::string_view name) {
  if (parameter_names_.empty()) {
    const int count = sqlite3_bind_parameter_count(handle_);
    for (int i = 1; i <= count; ++i) {
      const char* text = sqlite3_bind_parameter_name(handle_, i);
      parameter_names_.emplace_back(text == nullptr ? "" : text + 1);  // without the ':'
    }
  }
  const int index = find_name(parameter_names_, name, next_parameter_);
  if (index < 0 && unknown_parameter_.empty()) unknown_parameter_ = name;
  return index + 1;  // 0 when absent: SQLite refuses it, and step() names it
}

int Statement::column_index(std::string_view name) const {
  if (column_names_.empty()) {
    const int count = sqlite3_column_count(handle_);
    for (int i = 0; i < count; ++i) {
      const char* text = sqlite3_column_name(handle_, i);
      column_names_.emplace_back(text == nullptr ? "" : text);
    }
  }
  const int index = find_name(column_names_, name, next_column_);
  if (index < 0 && unknown_column_.empty()) unknown_column_ = name;
  return index;
}

Statement::~Statement() {
  if (handle_ != nullptr) sqlite3_finalize(handle_);
}

Statement& Statement::bind(int index, std::int64_t value) {
  if (const int rc = sqlite3_bind_int64(handle_, index, value); rc != SQLITE_OK) bind_error_ = rc;
  return *this;
}

Statement& Statement::bind(int index, double value) {
  if (const int rc = sqlite3_bind_double(handle_, index, value); rc != SQLITE_OK) bind_error_ = rc;
  return *this;
}

Statement& Statement::bind(int index, std::string_view value) {
  if (const int rc = sqlite3_bind_text(handle_, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
      rc != SQLITE_OK) {
    bind_error_ = rc;
  }
  return *this;
}

Statement& Statement::bind_null(int index) {
  if (const int rc = sqlite3_bind_null(handle_, index); rc != SQLITE_OK) bind_error_ = rc;
  return *this;
}

Result<bool> Statement::step() {
  if (const Status read = check_columns(); !read) return read.error();
  if (!unknown_parameter_.empty()) {
    bind_error_ = 0;
    return make_error(connection_->path() + ": internal: the statement has no parameter :" + std::exchange(unknown_parameter_, ""));
  }
  if (bind_error_ != 0) {
    const int rc = std::exchange(bind_error_, 0);
    return make_error(connection_->path() + ": cannot bind a value: " + sqlite3_errstr(rc));
  }
  const int rc = sqlite3_step(handle_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return connection_->error("query failed");
}

Status Statement::check_columns() const {
  if (!mistyped_.empty()) return damaged(connection_->path(), std::exchange(mistyped_, ""));
  if (unknown_column_.empty()) return Status::success();
  return make_error(connection_->path() + ": internal: a read of column '" + std::exchange(unknown_column_, "") +
                    "', which the query does not select");
}

void Statement::note_mistyped(int column, const char* wanted) const {
  if (!mistyped_.empty()) return;
  const char* name = sqlite3_column_name(handle_, column);
  const int type = sqlite3_column_type(handle_, column);
  const char* found = type == SQLITE_TEXT ? "text" : type == SQLITE_BLOB ? "a blob" : type == SQLITE_FLOAT ? "a real" : "a value";
  std::string value;
  if (type == SQLITE_TEXT || type == SQLITE_FLOAT) {
    const auto* data = sqlite3_column_text(handle_, column);
    const std::string_view text = data == nullptr ? "" : std::string_view(reinterpret_cast<const char*>(data), static_cast<std::size_t>(sqlite3_column_bytes(handle_, column)));
    value = " " + quote_input(text, 40);
  }
  mistyped_ = std::string("column ") + (name == nullptr ? "?" : name) + " holds " + found + value + " where " + wanted + " belongs";
}

Status Statement::run() {
  auto row = step();
  reset();
  sqlite3_clear_bindings(handle_);
  if (!row) return row.error();
  return Status::success();
}

void Statement::reset() { sqlite3_reset(handle_); }

// A column index of -1 (an unknown name) reads as NULL.
// A NULL reads as 0: nullable columns are asked with is_null() first.
std::int64_t Statement::integer(int column) const {
  if (column < 0) return 0;
  const int type = sqlite3_column_type(handle_, column);
  if (type != SQLITE_INTEGER && type != SQLITE_NULL) note_mistyped(column, "an integer");
  return sqlite3_column_int64(handle_, column);
}
double Statement::real(int column) const {
  if (column < 0) return 0;
  const int type = sqlite3_column_type(handle_, column);
  if (type != SQLITE_FLOAT && type != SQLITE_INTEGER && type != SQLITE_NULL) note_mistyped(column, "a number");
  return sqlite3_column_double(handle_, column);
}
bool Statement::is_null(int column) const { return column < 0 || sqlite3_column_type(handle_, column) == SQLITE_NULL; }
std::string Statement::text(int column) const {
  if (column < 0) return {};
  const auto* data = sqlite3_column_text(handle_, column);
  return data == nullptr ? std::string() : std::string(reinterpret_cast<const char*>(data), static_cast<std::size_t>(sqlite3_column_bytes(handle_, column)));
}

Result<Transaction> Transaction::begin(Connection& connection) {
  if (auto status = connection.exec("BEGIN IMMEDIATE"); !status) return status.error();
  return Transaction(&connection);
}

Transaction::~Transaction() {
  if (connection_ != nullptr && connection_->in_transaction()) (void)connection_->exec("ROLLBACK");
}

Status Transaction::commit() {
  if (connection_ == nullptr) return make_error("commit of a finished transaction");
  auto status = connection_->exec("COMMIT");
  if (status) connection_ = nullptr;
  return status;
}

}  // namespace tilelens::db
