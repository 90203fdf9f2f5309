// `tilelens db schema`: the store's schema (db/tables.hpp) as SQL or as the markdown of
// docs/database.md. `tilelens db merge`: databases merged into one (db/merge.cpp).
#include <filesystem>
#include <ostream>

#include "app/cli/commands.hpp"
#include "core/store.hpp"

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

const CommandSpec kDbMerge{
    "tilelens db merge OUT.db IN.db [IN.db ...]",
    "Merge databases into OUT.db (created if absent): workloads by content hash, runs by run key within their\n"
    "sweep (sweeps by their grid), each stored once: merging twice, or shards that overlap, adds nothing new.\n"
    "All or nothing: every input is checked first (a database of this schema version, whole, every run and value\n"
    "reading back), and one refused leaves OUT.db unchanged. A new OUT.db is built under a name of its own and\n"
    "appears only once every input has merged; into an existing one, the copies go in one transaction per ten\n"
    "inputs. Inputs are only read. docs/cluster.md.",
    {},
    "example:\n"
    "  tilelens sweep --db shard-1.db --preset fgcs-fig5 --shard 1/2 && tilelens sweep --db shard-2.db --preset fgcs-fig5 --shard 2/2\n"
    "  tilelens db merge fgcs.db shard-1.db shard-2.db && tilelens runs compare --sweep 1 --db fgcs.db"};

int cmd_db_merge(const ParsedArgs& args, std::ostream& out, std::ostream& err) {
  if (args.positional.size() < 2) return fail(err, "give the output database and at least one input: tilelens db merge OUT.db IN.db...");
  const std::string& target = args.positional.front();
  for (std::size_t i = 1; i < args.positional.size(); ++i) {
    if (args.positional[i] == target) return fail(err, "'" + target + "' is both the output and an input");
  }
  std::error_code ec;
  const bool existed = std::filesystem::exists(target, ec);
  const std::vector<std::string> inputs(args.positional.begin() + 1, args.positional.end());
  std::size_t files = 0, runs = 0;
  const auto heard = [&](const std::string& path, const db::Store::MergeReport& report) {
    out << path << ": " << report.runs_added << " runs added, " << report.runs_skipped << " already there or incomplete, "
        << report.workloads_added << " new workloads\n";
    ++files;
    runs += report.runs_added;
  };
  Result<db::Store::MergeReport> total = db::Store::MergeReport{};
  if (existed) {
    auto store = db::Store::open(target);
    if (!store) return fail(err, describe(store.error()));
    total = store->merge_all(inputs, heard);
  } else {
    total = db::Store::merge_into_new(target, inputs, heard);
  }
  if (!total) {
    err << "tilelens: " << describe(total.error()) << "\n";
    if (files == 0) {
      err << "nothing was merged: " << target << (existed ? " is as it was" : " was not created") << "\n";
    } else {
      err << "merged before it: " << runs << " runs from " << files << " file" << (files == 1 ? "" : "s") << " (in transactions of ten inputs); "
          << target << " holds them\n";
    }
    return 2;
  }
  out << target << ": " << total->runs_added << " runs added, " << total->runs_skipped << " skipped, " << total->workloads_added
      << " new workloads\n";
  return 0;
}

}  // namespace tilelens::cli
