// A complete run's metrics, declared once: each column of the metrics table with its SQL type,
// its meaning, the schema version that added it, and the RunMetrics member it holds. The
// metrics table's declaration (tables.cpp), the writer (run_writer.cpp), the reader
// (run_reader.cpp) and docs/database.md all come from this one list.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <variant>
#include <vector>

#include "db/tables.hpp"
#include "trace/run.hpp"

namespace tilelens::db {

struct MetricColumn {
  // A column's value: NULL (a transfer figure of a run that recorded no transfers), an
  // integer, a real or a text.
  using Value = std::variant<std::monostate, std::int64_t, double, std::string>;

  Column column;
  // NULL when the run's transfers were not recorded (runs.transfers_recorded = 0).
  bool transfer = false;
  std::function<Value(const RunMetrics&)> get;
  // Empty for a figure derived from the others (ratio_to_lower_bound): written, never read back.
  std::function<void(RunMetrics&, const Value&)> set;
};

// The metrics table's columns after run_id, in the table's order.
const std::vector<MetricColumn>& metric_columns();

}  // namespace tilelens::db
