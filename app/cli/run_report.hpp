// How the CLI prints a run, whether it was just replayed or read back from a database: the
// human summary, JSON, and CSV rows. One set of printers, so `tilelens replay` and
// `tilelens runs show` / `export csv` say the same things in the same words.
#pragma once

#include <iosfwd>
#include <string>

#include "app/cli/commands.hpp"
#include "store/store.hpp"

namespace tilelens::cli {

// A run about to be stored or printed: everything but its ids and times.
RunInfo run_info_of(const ReplaySetup& setup);
RunMetrics metrics_of(const ReplaySummary& summary, const ReferenceCurves& curves);

void print_summary(const RunInfo& run, const RunMetrics& metrics, std::ostream& out);
void print_json(const RunInfo& run, const RunMetrics& metrics, std::ostream& out);
void print_csv_header(std::ostream& out);
// A measured run's device, arena, check, CUPTI counts and wall time (tilelens execute).
void print_measurement(const Measurement& measurement, std::ostream& out);
void print_csv_row(const RunInfo& run, const RunMetrics& metrics, std::ostream& out);

// "hfp:flip=0/belady", with "+time" when its prepare() time was charged: a run's policy as
// sweeps write it, for column and series labels.
std::string policy_label(const RunInfo& run);

std::string fixed(double value, int digits = 2);
std::string csv_field(const std::string& text);  // quoted when it holds a comma, quote or newline

}  // namespace tilelens::cli
