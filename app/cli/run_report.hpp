// How the CLI prints a run, whether it was just replayed or read back from a database: the
// human summary, JSON, and CSV rows. One set of printers, so `tilelens replay` and
// `tilelens runs show` / `export csv` say the same things in the same words.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>

#include "core/store.hpp"

namespace tilelens::cli {

void print_summary(const RunInfo& run, const RunMetrics& metrics, std::ostream& out);
void print_json(const RunInfo& run, const RunMetrics& metrics, std::ostream& out);
void print_csv_header(std::ostream& out);
// A measured run's device, arena, check, CUPTI counts and wall time (tilelens execute).
void print_measurement(const Measurement& measurement, std::ostream& out);
// "1 kernel queued behind the running one": a launch-ahead depth, as the dry run and runs show say it.
std::string launch_ahead_words(std::uint32_t depth);
void print_csv_row(const RunInfo& run, const RunMetrics& metrics, std::ostream& out);

std::string csv_field(const std::string& text);  // quoted when it holds a comma, quote or newline

}  // namespace tilelens::cli
