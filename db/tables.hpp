// The store's schema, declared once: every table with its columns, their SQL types and what
// they mean, and the schema version that added each. Everything else comes from this list:
// the DDL of a new file, the migration of an older one, the named-column INSERT and SELECT
// statements of the writer and the readers, the tables a delete visits, and the schema
// section of docs/database.md (`tilelens db schema --markdown`; a test compares the two).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tilelens::db {

struct Column {
  std::string_view name;
  std::string_view type;  // type and constraints, as in CREATE TABLE: "INTEGER NOT NULL REFERENCES runs(id)"
  std::string_view doc;
  int since = 1;          // the schema version that added it (added last, by ALTER TABLE ADD COLUMN)
};

// A secondary index: "runs_by_key ON runs(run_key)", UNIQUE ones with the word first.
struct Index {
  constexpr Index(const char* text, int version = 1) : sql(text), since(version) {}  // NOLINT(google-explicit-constructor)
  std::string_view sql;
  int since;  // the schema version that added it
};

struct Table {
  std::string_view name;
  std::string_view doc;
  std::vector<Column> columns;
  std::string_view key;                   // a table constraint: "PRIMARY KEY (run_id, seq)", or ""
  bool without_rowid = false;
  std::vector<Index> indexes;
  std::string_view rows;                  // a lookup table's fixed rows: "(0, 'R'), (1, 'W')"
  int since = 1;
};

// Every table, in the order they are created.
const std::vector<Table>& schema_tables();
const Table& schema_table(std::string_view name);

// The SQL that creates the tables and columns a file of `version` holds (a new file: the
// current version), and the SQL that upgrades a file of `from` to `from + 1` (with what a
// version must do to the rows before its new constraints hold: migration_preparation).
std::string create_sql(int version);
std::string migration_sql(int from);

// "INSERT INTO t (a, b) VALUES (:a, :b)", every column bound by its name (an unbound one is
// NULL: an INTEGER PRIMARY KEY then takes the next id).
std::string insert_sql(const Table& table);
// "a.x AS \"t.x\", a.y AS \"t.y\"": a table's columns in a SELECT, read back by "t.x".
std::string select_columns(const Table& table, std::string_view alias);

bool has_column(const Table& table, std::string_view name);

// The tables holding a run's records (a run_id column), and a workload's (a workload_id column).
std::vector<std::string_view> run_tables();
std::vector<std::string_view> workload_tables();

// The schema as the markdown of docs/database.md's "Schema" section.
std::string schema_markdown();

}  // namespace tilelens::db
