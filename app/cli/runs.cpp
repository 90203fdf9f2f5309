// `tilelens runs list|show|compare|delete`: the runs of a database, listed, shown, compared
// side by side or deleted.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "app/cli/commands.hpp"
#include "app/cli/run_report.hpp"
#include "core/runs.hpp"
#include "core/analysis.hpp"
#include "core/exports.hpp"
#include "core/units.hpp"
#include "core/policies.hpp"

namespace tilelens::cli {
namespace {

// Pads columns: column c is left-aligned where align[c] is 'L', right-aligned otherwise.
std::string format_table(const std::vector<std::vector<std::string>>& rows, const std::string& align) {
  std::vector<std::size_t> width;
  for (const auto& row : rows) {
    if (width.size() < row.size()) width.resize(row.size(), 0);
    for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c) {
      const std::string pad(width[c] - row[c].size(), ' ');
      if (c > 0) line += "  ";
      const bool left = c < align.size() && align[c] == 'L';
      line += left ? row[c] + (c + 1 == row.size() ? "" : pad) : pad + row[c];
    }
    out += line + "\n";
  }
  return out;
}

std::string memory_label(double bytes) { return format_fixed(bytes / 1048576.0, 0) + " MiB"; }

std::string ratio_text(const StoredRun& run) {
  if (!run.metrics || !run.info.transfers_recorded) return "-";
  return format_fixed(run.metrics->ratio_to_lower_bound(), 2) + "x";
}

// ---------------------------------------------------------------- runs

}  // namespace

const CommandSpec kRunsList{"tilelens runs list --db FILE [filters]",
                            "List the runs of a database: policies, platform, loads, ratio to the lower bound, GFlop/s.",
                            {kDbOption,
                             {"sweep", "ID", "only the runs of this sweep", ""},
                             {"workload", "TEXT", "only workloads whose spec contains TEXT", ""},
                             {"scheduler", "TEXT", "only schedulers whose spec contains TEXT", ""},
                             {"status", "STATUS", "only complete, failed or incomplete runs", ""}},
                            ""};

const CommandSpec kRunsShow{"tilelens runs show ID --db FILE",
                            "Print one run: how it was made, its metrics, per-GPU figures, where each worker's time went\n"
                            "(busy, waiting for data, no ready task, scheduler cost; from its trace, when stored), and\n"
                            "optionally its first tasks.",
                            {kDbOption,
                             {"tasks", "COUNT", "also print the first COUNT task executions with their loads", "0"},
                             {"records", "", "an imported run: list every record of its tasks file, kept, skipped or left out, and why", ""}},
                            ""};

const CommandSpec kRunsCompare{
    "tilelens runs compare A B [C ...] --db FILE | tilelens runs compare --sweep ID --db FILE [--metric M]",
    "Compare runs side by side. With run ids: one column per run, with each metric's ratio to the first run,\n"
    "then, for runs of the first one's workload with stored traces, the first task start where each parts\n"
    "from the first run, and the loads each makes from there.\n"
    "With --sweep: one row per workload and platform, one column per scheduler/eviction pair, and the\n"
    "lower bound beside them.",
    {kDbOption,
     {"sweep", "ID", "compare every complete run of this sweep", ""},
     {"metric", "NAME", "with --sweep: ratio (to the lower bound), loads, mib (data loaded), gflops, makespan", "ratio"}},
    ""};

const CommandSpec kRunsDelete{"tilelens runs delete ID [ID ...] --db FILE",
                              "Delete runs with everything recorded for them (one transaction: all or none), and the\n"
                              "workloads no remaining run uses.",
                              {kDbOption},
                              ""};

namespace {

Status parse_filter(const ParsedArgs& args, db::RunFilter& filter) {
  if (args.has("sweep")) {
    auto id = parse_run_id(args.get("sweep"), "--sweep");
    if (!id) return id.error();
    filter.sweep_id = *id;
  }
  filter.workload_contains = args.get("workload");
  filter.scheduler_contains = args.get("scheduler");
  if (args.has("status")) {
    filter.status = run_status_from(args.get("status"));
    if (!filter.status) return make_error("--status must be complete, failed or incomplete (got '" + args.get("status") + "')");
  }
  return Status::success();
}

}  // namespace

int cmd_runs_list(const ParsedArgs& args, std::ostream& out, std::ostream& err) {
  db::RunFilter filter;
  if (auto status = parse_filter(args, filter); !status) return fail(err, describe(status.error()));
  auto store = open_store(args, db::Store::OpenMode::ReadOnlyUpgrading);
  if (!store) return fail(err, describe(store.error()));
  auto runs = store->load_runs(filter);
  if (!runs) return fail(err, describe(runs.error()));
  if (runs->empty()) {
    out << "no runs" << (filter.sweep_id || filter.status || !filter.workload_contains.empty() || !filter.scheduler_contains.empty() ? " match" : "")
        << " in " << store->path() << "\n";
    return 0;
  }
  std::vector<std::vector<std::string>> rows = {
      {"id", "status", "mode", "scheduler", "eviction", "GPUs", "memory", "loads", "LB ratio", "GFlop/s", "makespan", "workload"}};
  for (const StoredRun& run : *runs) {
    const bool metrics = run.metrics.has_value();
    rows.push_back({std::to_string(run.info.id), to_string(run.info.status), to_string(run.info.mode), run.info.scheduler,
                    run.info.eviction, std::to_string(run.info.platform.gpus), memory_label(run.info.platform.memory_bytes),
                    metrics && run.info.transfers_recorded ? format_count(static_cast<double>(run.metrics->summary.loads)) : "-",
                    ratio_text(run), metrics ? format_fixed(run.metrics->summary.gflops, 0) : "-",
                    metrics ? format_duration(run.metrics->summary.makespan_ns) : "-", run.info.workload_spec});
  }
  std::string table = format_table(rows, "LLLLLRRRRRRL");
  out << table << runs->size() << " run" << (runs->size() == 1 ? "" : "s") << " in " << store->path() << "\n";
  return 0;
}

namespace {

// Where each worker's time went (analysis/time_split.hpp), as durations and shares of the span.
void print_time_split(const RunInfo& info, const Trace& trace, const ReplaySummary& summary, std::ostream& out) {
  const TimeSplit split = split_worker_time(trace.tasks, static_cast<std::uint32_t>(summary.gpus.size()), summary.charged_ns);
  std::vector<std::vector<std::string>> rows = {{"worker"}};
  for (std::size_t s = 0; s < kWorkerStates; ++s) rows[0].push_back(to_string(static_cast<WorkerState>(s)));
  const auto cell = [&](std::int64_t ns) {
    const double share = split.span_ns > 0 ? 100.0 * static_cast<double>(ns) / static_cast<double>(split.span_ns) : 0;
    return format_duration(ns) + " (" + format_fixed(share, 1) + "%)";
  };
  for (GpuId w = 0; w < split.workers.size(); ++w) {
    std::vector<std::string> row = {info.platform.worker_name(w)};
    for (std::int64_t ns : split.workers[w].ns) row.push_back(cell(ns));
    rows.push_back(row);
  }
  out << "\nwhere time went, 0 to " << format_duration(split.span_ns) << " (from the trace):\n" << format_table(rows, "L");
}

}  // namespace

int cmd_runs_show(const ParsedArgs& args, std::ostream& out, std::ostream& err) {
  if (args.positional.size() != 1) return fail(err, "expected one run id; see tilelens runs show --help");
  auto id = parse_run_id(args.positional[0], "the run");
  if (!id) return fail(err, describe(id.error()));
  auto count = parse_integer(args.get("tasks"));
  if (!count || *count < 0) return fail(err, "--tasks must be a count of zero or more");
  auto store = open_store(args, db::Store::OpenMode::ReadOnlyUpgrading);
  if (!store) return fail(err, describe(store.error()));
  // Everything is read before anything is printed: a damaged row stops the command with its
  // error, not halfway through the report.
  auto run = store->load_run(*id);
  if (!run) return fail(err, describe(run.error()));
  auto measurement = store->load_measurement(*id);
  if (!measurement) return fail(err, describe(measurement.error()));
  std::optional<Trace> trace;
  if (run->metrics) {
    auto stored = store->load_trace(*run);
    if (!stored) return fail(err, describe(stored.error()));
    if (!stored->tasks.empty()) trace = std::move(*stored);
  }
  std::optional<core::LoadedRun> loaded;
  if (*count > 0 && run->metrics) {
    auto whole = core::load_run(*store, *id);
    if (!whole) return fail(err, describe(whole.error()));
    loaded = std::move(*whole);
  }
  const RunInfo& info = run->info;
  out << "run          " << info.id << " (" << to_string(info.status) << ", " << to_string(info.mode) << ", tilelens "
      << info.tilelens_version << ")\n";
  out << "time         " << info.started_at << " .. " << (info.finished_at.empty() ? "?" : info.finished_at) << "\n";
  if (info.seed) out << "seed         " << *info.seed << "\n";
  if (info.sweep_id) out << "sweep        " << *info.sweep_id << "\n";
  if (!info.host.empty() || !info.gpu_name.empty()) out << "measured on  " << info.host << " " << info.gpu_name << "\n";
  if (!info.error.empty()) out << "error        " << info.error << "\n";
  // What the import said, as it said it (tilelens import prints the same lines).
  for (const auto& warning : run->import_report.warnings) out << "warning      " << warning << "\n";
  for (const auto& note : run->import_report.notes) out << "note         " << note << "\n";
  if (!run->import_report.records.empty()) {
    out << "records      " << records_summary(run->import_report) << (args.has("records") ? "" : " (--records lists each, with why)") << "\n";
    if (args.has("records")) {
      for (const auto& record : run->import_report.records) out << "record       " << record_line(record) << "\n";
    }
  }
  if (!run->metrics) return 0;
  print_summary(info, *run->metrics, out);
  if (*measurement) print_measurement(**measurement, out);
  const ReplaySummary& s = run->metrics->summary;
  std::vector<std::vector<std::string>> rows = {{"GPU", "tasks", "loads", "allocations", "evictions", "invalidations", "busy", "peak memory"}};
  for (std::size_t g = 0; g < s.gpus.size(); ++g) {
    const GpuSummary& gpu = s.gpus[g];
    rows.push_back({std::to_string(g), std::to_string(gpu.tasks), std::to_string(gpu.loads), std::to_string(gpu.allocations),
                    std::to_string(gpu.evictions), std::to_string(gpu.invalidations), format_duration(gpu.busy_ns),
                    format_bytes(gpu.peak_bytes)});
  }
  out << "\n" << format_table(rows, "");
  if (trace) print_time_split(info, *trace, s, out);
  if (loaded) {
    Trace& first = loaded->trace;
    if (first.tasks.size() > static_cast<std::size_t>(*count)) first.tasks.resize(static_cast<std::size_t>(*count));
    out << "\n";
    write_order_csv(loaded->workload, first, out);
  }
  return 0;
}

namespace {

// The parameters whose values differ among these specs, as "N=20,n=4": a short row label.
std::map<std::string, std::string> varying_params(const std::vector<std::string>& specs, std::set<std::string>& varying) {
  std::map<std::string, std::set<std::string>> seen;
  for (const auto& text : specs) {
    if (auto spec = parse_spec(text)) {
      seen["(name)"].insert(spec->name);
      for (const auto& [key, value] : spec->values) seen[key].insert(value);
    }
  }
  for (const auto& [key, values] : seen) {
    if (values.size() > 1) varying.insert(key);
  }
  std::map<std::string, std::string> labels;
  for (const auto& text : specs) {
    auto spec = parse_spec(text);
    if (!spec) {
      labels[text] = text;
      continue;
    }
    std::string label = varying.count("(name)") ? spec->name : "";
    for (const auto& [key, value] : spec->values) {
      if (varying.count(key)) label += (label.empty() ? "" : ",") + key + "=" + value;
    }
    labels[text] = label.empty() ? text : label;
  }
  return labels;
}

// Where each run parts from the first (analysis/divergence.hpp), for runs of its workload
// whose traces are stored.
int print_divergences(db::Store& store, const std::vector<StoredRun>& runs, std::ostream& out, std::ostream& err) {
  std::optional<Trace> first;
  std::optional<Workload> workload;
  for (std::size_t i = 1; i < runs.size(); ++i) {
    if (runs[i].info.workload_id != runs[0].info.workload_id) continue;
    if (!first) {
      auto trace = store.load_trace(runs[0]);
      if (!trace) return fail(err, describe(trace.error()));
      if (trace->tasks.empty()) return 0;  // no trace stored: nothing to say where they part
      first = std::move(*trace);
      auto loaded = store.load_workload(runs[0].info.workload_id);
      if (!loaded) return fail(err, describe(loaded.error()));
      workload = std::move(*loaded);
    }
    auto trace = store.load_trace(runs[i]);
    if (!trace) return fail(err, describe(trace.error()));
    if (trace->tasks.empty()) continue;
    const Divergence part = find_divergence(*first, *trace);
    const std::string a = "run " + std::to_string(runs[0].info.id), b = "run " + std::to_string(runs[i].info.id);
    out << "\n";
    if (part.identical) {
      out << b << " starts the same tasks as " << a << " on the same workers in the same order\n";
      continue;
    }
    const auto started = [&](const DivergenceSide& side, const StoredRun& run) {
      if (side.task == kNoId) return std::string("no more task");
      return workload->task_label(side.task) + " on " + run.info.platform.worker_name(side.worker) + " at " + format_duration(side.start_ns);
    };
    out << b << " parts from " << a << " at task start " << part.rank + 1 << " (the first " << part.rank << " agree): " << a << " starts "
        << started(part.first, runs[0]) << ", " << b << " " << started(part.second, runs[i]) << "\n";
    out << "  loads from there: " << format_count(static_cast<double>(part.first.loads_after)) << " (" << format_bytes(static_cast<double>(part.first.bytes_after))
        << ") in " << a << ", " << format_count(static_cast<double>(part.second.loads_after)) << " (" << format_bytes(static_cast<double>(part.second.bytes_after))
        << ") in " << b << "; before it: " << part.first.loads_before << " and " << part.second.loads_before << "\n";
  }
  return 0;
}

int compare_sweep(db::Store& store, std::int64_t sweep, const std::string& metric, std::ostream& out, std::ostream& err) {
  db::RunFilter filter;
  filter.sweep_id = sweep;
  filter.status = RunStatus::Complete;
  auto runs = store.load_runs(filter);
  if (!runs) return fail(err, describe(runs.error()));
  if (runs->empty()) return fail(err, "sweep " + std::to_string(sweep) + " has no complete runs in " + store.path());
  const std::map<std::string, std::string> metric_names = {
      {"ratio", "data loaded / lower bound"}, {"loads", "loads"}, {"mib", "data loaded (MiB)"}, {"gflops", "GFlop/s"}, {"makespan", "makespan"}};
  if (!metric_names.count(metric)) return fail(err, "--metric must be ratio, loads, mib, gflops or makespan (got '" + metric + "')");

  std::vector<std::string> specs;
  for (const auto& run : *runs) specs.push_back(run.info.workload_spec);
  std::set<std::string> varying;
  const auto labels = varying_params(specs, varying);
  std::set<double> memories;
  std::set<std::uint32_t> gpu_counts;
  for (const auto& run : *runs) {
    memories.insert(run.info.platform.memory_bytes);
    gpu_counts.insert(run.info.platform.gpus);
  }
  // Rows: workload x platform in the order the sweep stored them; columns: policy pairs.
  std::vector<std::string> row_keys, column_keys;
  std::map<std::string, std::string> row_bound;
  std::set<std::string> bounds;
  std::map<std::pair<std::string, std::string>, std::string> cell;
  for (const auto& run : *runs) {
    std::string row = labels.at(run.info.workload_spec);
    if (memories.size() > 1) row += "  M=" + memory_label(run.info.platform.memory_bytes);
    if (gpu_counts.size() > 1) row += "  K=" + std::to_string(run.info.platform.gpus);
    const std::string column = core::policy_label(run.info);
    if (std::find(row_keys.begin(), row_keys.end(), row) == row_keys.end()) row_keys.push_back(row);
    if (std::find(column_keys.begin(), column_keys.end(), column) == column_keys.end()) column_keys.push_back(column);
    const RunMetrics& m = *run.metrics;
    row_bound[row] = format_fixed(m.lower_bound_bytes / 1048576.0, 0);
    bounds.insert(m.lower_bound);
    std::string value;
    if (metric == "ratio") value = ratio_text(run);
    else if (metric == "loads") value = std::to_string(m.summary.loads);
    else if (metric == "mib") value = format_fixed(m.summary.bytes_loaded / 1048576.0, 0);
    else if (metric == "gflops") value = format_fixed(m.summary.gflops, 0);
    else value = format_duration(m.summary.makespan_ns);
    cell[{row, column}] = value;
  }
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header = {"workload", "LB MiB"};
  header.insert(header.end(), column_keys.begin(), column_keys.end());
  rows.push_back(header);
  for (const auto& row : row_keys) {
    std::vector<std::string> line = {row, row_bound[row]};
    for (const auto& column : column_keys) {
      auto it = cell.find({row, column});
      line.push_back(it == cell.end() ? "-" : it->second);
    }
    rows.push_back(line);
  }
  out << "sweep " << sweep << ": " << metric_names.at(metric) << "\n";
  out << format_table(rows, "L");
  std::string bound_names;
  for (const auto& bound : bounds) bound_names += (bound_names.empty() ? "" : "; ") + bound;
  out << "LB: the lower bound on the data loaded (" << bound_names << ")\n";
  return 0;
}

}  // namespace

int cmd_runs_compare(const ParsedArgs& args, std::ostream& out, std::ostream& err) {
  auto store = open_store(args, db::Store::OpenMode::ReadOnlyUpgrading);
  if (!store) return fail(err, describe(store.error()));
  if (args.has("sweep")) {
    auto sweep = parse_run_id(args.get("sweep"), "--sweep");
    if (!sweep) return fail(err, describe(sweep.error()));
    return compare_sweep(*store, *sweep, args.get("metric"), out, err);
  }
  if (args.positional.size() < 2) return fail(err, "expected two or more run ids (or --sweep ID); see tilelens runs compare --help");
  std::vector<StoredRun> runs;
  for (const auto& text : args.positional) {
    auto id = parse_run_id(text, "a run");
    if (!id) return fail(err, describe(id.error()));
    auto run = store->load_run(*id);
    if (!run) return fail(err, describe(run.error()));
    if (!run->metrics) return fail(err, "run " + text + " is " + to_string(run->info.status) + " and has no metrics to compare");
    runs.push_back(std::move(*run));
  }
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header = {""};
  for (const auto& run : runs) header.push_back("run " + std::to_string(run.info.id));
  for (std::size_t i = 1; i < runs.size(); ++i) header.push_back(std::to_string(runs[i].info.id) + " / " + std::to_string(runs[0].info.id));
  rows.push_back(header);
  auto text_row = [&](const std::string& name, auto&& get) {
    std::vector<std::string> row = {name};
    for (const auto& run : runs) row.push_back(get(run));
    rows.push_back(row);
  };
  auto number_row = [&](const std::string& name, auto&& value, auto&& show) {
    std::vector<std::string> row = {name};
    for (const auto& run : runs) row.push_back(show(value(run)));
    const double base = value(runs[0]);
    for (std::size_t i = 1; i < runs.size(); ++i) row.push_back(base != 0 ? format_fixed(value(runs[i]) / base, 3) + "x" : "-");
    rows.push_back(row);
  };
  auto count = [](double v) { return format_count(v); };
  auto bytes = [](double v) { return format_bytes(v); };
  auto duration = [](double v) { return format_duration(static_cast<std::int64_t>(v)); };
  text_row("workload", [](const StoredRun& r) { return r.info.workload_spec; });
  text_row("scheduler", [](const StoredRun& r) { return r.info.scheduler; });
  text_row("eviction", [](const StoredRun& r) { return r.info.eviction; });
  text_row("mode", [](const StoredRun& r) { return std::string(to_string(r.info.mode)); });
  text_row("GPUs x memory", [](const StoredRun& r) {
    return std::to_string(r.info.platform.gpus) + " x " + memory_label(r.info.platform.memory_bytes);
  });
  text_row("task buffer", [](const StoredRun& r) { return std::to_string(r.info.buffer_depth); });
  text_row("memory model", [](const StoredRun& r) {
    return r.info.memory_model.empty() ? std::string("measured") : short_memory_model_spec(r.info.memory_model);
  });
  number_row("loads", [](const StoredRun& r) { return static_cast<double>(r.metrics->summary.loads); }, count);
  number_row("  fetches", [](const StoredRun& r) { return static_cast<double>(r.metrics->summary.fetches); }, count);
  number_row("  prefetches", [](const StoredRun& r) { return static_cast<double>(r.metrics->summary.prefetches); }, count);
  number_row("data loaded", [](const StoredRun& r) { return r.metrics->summary.bytes_loaded; }, bytes);
  number_row("lower bound", [](const StoredRun& r) { return r.metrics->lower_bound_bytes; }, bytes);
  number_row("ratio to LB", [](const StoredRun& r) { return r.metrics->ratio_to_lower_bound(); },
             [](double v) { return format_fixed(v, 3) + "x"; });
  number_row("evictions", [](const StoredRun& r) { return static_cast<double>(r.metrics->summary.evictions); }, count);
  number_row("written back", [](const StoredRun& r) { return r.metrics->summary.bytes_written_back; }, bytes);
  number_row("makespan", [](const StoredRun& r) { return static_cast<double>(r.metrics->summary.makespan_ns); }, duration);
  number_row("GFlop/s", [](const StoredRun& r) { return r.metrics->summary.gflops; }, [](double v) { return format_fixed(v, 0); });
  number_row("GPU idle", [](const StoredRun& r) { return static_cast<double>(r.metrics->summary.idle_ns); }, duration);
  number_row("sched. time", [](const StoredRun& r) { return static_cast<double>(r.metrics->summary.scheduling_ns); }, duration);
  out << format_table(rows, "L");
  for (const auto& run : runs) {
    if (!run.info.transfers_recorded) out << "run " << run.info.id << " recorded no transfers: its load figures are not known\n";
  }
  out << "lower bound: " << runs[0].metrics->lower_bound << "\n";
  return print_divergences(*store, runs, out, err);
}

int cmd_runs_delete(const ParsedArgs& args, std::ostream& out, std::ostream& err) {
  if (args.positional.empty()) return fail(err, "expected one or more run ids; see tilelens runs delete --help");
  std::vector<std::int64_t> ids;
  for (const auto& text : args.positional) {
    auto id = parse_run_id(text, "a run");
    if (!id) return fail(err, describe(id.error()));
    ids.push_back(*id);
  }
  auto store = open_store(args, db::Store::OpenMode::ReadWrite);
  if (!store) return fail(err, describe(store.error()));
  if (auto status = store->delete_runs(ids); !status) return fail(err, describe(status.error()));
  out << "deleted " << ids.size() << " run" << (ids.size() == 1 ? "" : "s") << " from " << store->path() << "\n";
  return 0;
}

}  // namespace tilelens::cli
