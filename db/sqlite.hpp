// A thin RAII layer over the SQLite C API for the trace store: a connection, prepared
// statements with typed binds and columns, and transactions that roll back unless committed.
// Every error carries the database's file name and SQLite's own message, so a caller can
// pass it to the user as is.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace tilelens::db {

// "FILE: the database is damaged or was edited by hand: WHAT; restore it from a copy": how
// every reader, down to a statement's typed reads, reports rows or tables that cannot have
// been written by tilelens.
Error damaged(const std::string& path, const std::string& what);

// Every connection has the SQL function tilelens_mistyped(TYPES, v1, ..., vn): the position (from
// 1) of the first value whose SQLite type TYPES does not admit, or 0. TYPES holds one letter per
// value: 'i' an integer, 'r' a real or an integer, 't' a text; in capitals a NULL too. One call
// per row tests a whole row in C, where typeof(c) NOT IN (...) for each column costs about
// three times a plain read of the row (the values check of every input of a merge).
inline constexpr const char* kMistypedFunction = "tilelens_mistyped";

class Statement;

class Connection {
 public:
  // Immutable: read-only, without locks or the write-ahead log, for a file no one can be
  // writing (its directory is read-only, so SQLite could not create its -shm file).
  enum class Access { ReadOnly, ReadWrite, Immutable };

  Connection() = default;
  Connection(Connection&& other) noexcept;
  Connection& operator=(Connection&& other) noexcept;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection();

  // Opens (and with ReadWrite, creates) the file; waits up to `busy_ms` for a lock held by
  // another connection before reporting it busy.
  static Result<Connection> open(const std::string& path, Access access, int busy_ms = 10000);

  Status exec(std::string_view sql);
  Result<Statement> prepare(std::string_view sql);
  // The single integer a query such as "PRAGMA user_version" returns.
  Result<std::int64_t> query_integer(std::string_view sql);
  std::int64_t last_insert_id() const;
  const std::string& path() const { return path_; }
  bool in_transaction() const;

  // "FILE: what: SQLite's message" for the last error on this connection.
  Error error(std::string_view what) const;

 private:
  sqlite3* handle_ = nullptr;
  std::string path_;
};

class Statement {
 public:
  Statement() = default;
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  // Binds are 1-based, as in SQL; they return *this so a row can be bound in one expression.
  Statement& bind(int index, std::int64_t value);
  Statement& bind(int index, double value);
  Statement& bind(int index, std::string_view value);
  Statement& bind_null(int index);
  template <class T>
  Statement& bind(int index, const std::optional<T>& value) {
    return value ? bind(index, *value) : bind_null(index);
  }
  // By the parameter's name, ":name" in the SQL (the schema's INSERTs, db/tables.hpp). A
  // name the statement lacks makes the next step fail, naming it.
  Statement& bind(std::string_view name, std::int64_t value) { return bind(parameter(name), value); }
  Statement& bind(std::string_view name, double value) { return bind(parameter(name), value); }
  Statement& bind(std::string_view name, std::string_view value) { return bind(parameter(name), value); }
  template <class T>
  Statement& bind(std::string_view name, const std::optional<T>& value) {
    return bind(parameter(name), value);
  }

  // One step: true while a row is available, false when done; errors name the database.
  Result<bool> step();
  // Runs a statement that returns no rows, then resets it and clears its binds (a parameter
  // left unbound next time is NULL, never the last row's value).
  Status run();
  void reset();

  std::int64_t integer(int column) const;
  double real(int column) const;
  std::string text(int column) const;
  bool is_null(int column) const;
  // By the column's name in the result ("t.x" for the schema's select_columns). An unknown
  // name reads as NULL, and the statement's next step() fails, naming it (check_columns).
  std::int64_t integer(std::string_view column) const { return integer(column_index(column)); }
  double real(std::string_view column) const { return real(column_index(column)); }
  std::string text(std::string_view column) const { return text(column_index(column)); }
  bool is_null(std::string_view column) const { return is_null(column_index(column)); }
  // Fails, naming it, when a column was read by a name the query does not select (a mistyped
  // name would otherwise read as NULL), or when a value read as an integer or a real held
  // something else (text where a count belongs: SQLite would read it as 0). step() checks it
  // first, so a loop over rows stops at the next step; a single-row read calls it itself.
  Status check_columns() const;

 private:
  friend class Connection;
  Statement(sqlite3_stmt* handle, const Connection* connection) : handle_(handle), connection_(connection) {}
  // Names are looked up where the last one was found, then around: callers go in order.
  int parameter(std::string_view name);
  int column_index(std::string_view name) const;
  // Notes a value of column `column` that is not of the type read (`wanted`).
  void note_mistyped(int column, const char* wanted) const;
  sqlite3_stmt* handle_ = nullptr;
  const Connection* connection_ = nullptr;
  int bind_error_ = 0;
  std::string unknown_parameter_;
  mutable std::string unknown_column_;
  mutable std::string mistyped_;  // the first value read with the wrong type, described
  mutable std::vector<std::string> parameter_names_, column_names_;  // filled on first use
  mutable std::size_t next_parameter_ = 0, next_column_ = 0;
};

// BEGIN on construction (IMMEDIATE: take the write lock now rather than fail later), ROLLBACK
// on destruction unless commit() succeeded.
class Transaction {
 public:
  static Result<Transaction> begin(Connection& connection);
  Transaction(Transaction&& other) noexcept : connection_(other.connection_) { other.connection_ = nullptr; }
  Transaction& operator=(Transaction&&) = delete;
  Transaction(const Transaction&) = delete;
  ~Transaction();
  Status commit();

 private:
  explicit Transaction(Connection* connection) : connection_(connection) {}
  Connection* connection_ = nullptr;
};

}  // namespace tilelens::db
