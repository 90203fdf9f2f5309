// `tilelens db schema`: the store's schema (store/tables.hpp) as SQL or as the markdown of
// docs/database.md.
#include <ostream>

#include "app/cli/commands.hpp"
#include "store/schema.hpp"
#include "store/tables.hpp"

namespace tilelens::cli {

const CommandSpec kDbSchema{"tilelens db schema [--markdown]",
                            "Print the database schema this tilelens writes: the SQL that creates a new file, or with\n"
                            "--markdown the schema section of docs/database.md (every table and column with its meaning).",
                            {{"markdown", "", "print the documentation's section instead of SQL", ""}},
                            ""};

int cmd_db_schema(const ParsedArgs& args, std::ostream& out, std::ostream&) {
  if (args.has("markdown")) {
    out << db::schema_markdown();
  } else {
    out << "-- tilelens database schema version " << db::kSchemaVersion << "\n" << db::create_sql(db::kSchemaVersion);
  }
  return 0;
}

}  // namespace tilelens::cli
