// The trace store's schema (docs/database.md): creating it in a new file, recognising a
// tilelens database, and upgrading an older schema version in place.
#pragma once

#include <string>

#include "db/sqlite.hpp"

namespace tilelens::db {

// Bumped whenever a table or column changes; tables.cpp marks what the new version adds, and
// the migration from the previous version comes from those marks.
inline constexpr int kSchemaVersion = 15;
// PRAGMA application_id of every tilelens database: "TLns".
inline constexpr std::int64_t kApplicationId = 0x544c6e73;

// Checks the file before SQLite touches it: an existing file must start with SQLite's magic
// string and hold as many pages as its header announces (a truncated copy is named as such).
Status check_database_file(const std::string& path);

// Makes `connection` hold the current schema: creates it in an empty database, migrates an
// older tilelens schema (read-write only), and refuses a newer version or a foreign database
// with a message that says what the file is and what to do.
Status prepare_schema(Connection& connection, bool writable);

// Refuses a database whose tables are not the schema's: a table missing, replaced by a view,
// or lacking a column (a file edited by hand or damaged). Cheap: it reads the schema only.
Status check_schema_shape(Connection& connection);

// SQLite's PRAGMA integrity_check over the whole file: refuses a database whose pages, records or
// constraints are damaged (flipped bits, a bad copy), before anything is read from it.
// IntegrityScope::IndexedTables checks only the tables that have an index beside their rows
// (a UNIQUE column or a declared index), each with its indexes: for a merge's inputs, whose
// every row check_stored_values reads anyway (SQLite refuses a damaged page as it reads it),
// while the merge's queries may reach those tables through an index. What that leaves
// unchecked is the file's page accounting (a page counted twice, or never).
enum class IntegrityScope { WholeFile, IndexedTables };
Status check_integrity(Connection& connection, IntegrityScope scope = IntegrityScope::WholeFile);

// Every value against its column and what it refers to, in SQL over the whole file: each
// column holds its declared type (text in a count is refused, where a reader would see 0),
// and each record's data_id and task_id exist in its workload. A merge runs it on every input
// before it writes anything; the readers check the same as they read (Statement, TraceRowCheck).
Status check_stored_values(Connection& connection);

}  // namespace tilelens::db
