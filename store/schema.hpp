// The trace store's schema (docs/database.md): creating it in a new file, recognising a
// tilelens database, and upgrading an older schema version in place.
#pragma once

#include <string>

#include "store/sqlite.hpp"

namespace tilelens::db {

// Bumped whenever a table or column changes; tables.cpp marks what the new version adds, and
// the migration from the previous version comes from those marks.
inline constexpr int kSchemaVersion = 5;
// PRAGMA application_id of every tilelens database: "TLns".
inline constexpr std::int64_t kApplicationId = 0x544c6e73;

// Checks the file before SQLite touches it: an existing file must start with SQLite's magic
// string and hold as many pages as its header announces (a truncated copy is named as such).
Status check_database_file(const std::string& path);

// Makes `connection` hold the current schema: creates it in an empty database, migrates an
// older tilelens schema (read-write only), and refuses a newer version or a foreign database
// with a message that says what the file is and what to do.
Status prepare_schema(Connection& connection, bool writable);

}  // namespace tilelens::db
