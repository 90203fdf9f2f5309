// `tilelens results`: the side-by-side tables of docs/results.md, generated from the sweeps of
// the presets (presets.hpp) stored in a database. For each preset it takes the latest sweep run
// with `--preset NAME`, and prints per size the GFlop/s and the data transferred of every
// policy (with the lower bound and the bus limit), then HFP's average GFlop/s improvement
// over each reference next to the paper's table (fgcs Tables 1-6). Only the part of the file
// between the two markers is rewritten; the discussion around it is kept.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <map>
#include <sstream>

#include "app/cli/commands.hpp"
#include "core/sweep.hpp"
#include "core/presets.hpp"
#include "core/store.hpp"
#include "core/policies.hpp"
#include "core/units.hpp"

namespace tilelens::cli {

const CommandSpec kResults{
    "tilelens results --db FILE [--output FILE]",
    "Print the tables of docs/results.md from the preset sweeps stored in FILE (tilelens sweep --preset ...):\n"
    "for each figure, GFlop/s and data transferred per policy and size, the lower bound, and HFP's average\n"
    "improvement over EAGER, MST, RCM and DMDAR next to the paper's. With --output, only the text between the\n"
    "markers '<!-- tilelens results: begin -->' and '<!-- tilelens results: end -->' of that file is\n"
    "replaced (the file is created if absent).",
    {{"db", "FILE", "the database holding the preset sweeps", ""},
     {"output", "FILE", "write into this markdown file instead of printing", ""}},
    "example:\n"
    "  tilelens sweep --db fgcs.db --preset fgcs-fig5 && tilelens results --db fgcs.db --output docs/results.md"};

namespace {

constexpr const char* kBegin = "<!-- tilelens results: begin -->";
constexpr const char* kEnd = "<!-- tilelens results: end -->";

struct Cell {
  double gflops = 0, bytes = 0, ratio = 0;
  std::uint64_t tasks = 0;
  std::map<std::string, std::uint64_t> counters;  // the scheduler's own (lahp's BMD, AUTO's choices)
};
struct Row {
  double working_set = 0, lower_bound = 0, bus_limit = 0, memory = 0;
  std::map<std::string, Cell> cells;  // by policy label
};

// lahp's speedup (SFA): the reference's time over each policy's, i.e. the policy's GFlop/s
// over the reference's on the same workload; replay is deterministic, so SFA and SFM agree.
std::string speedup_table(const SweepPreset& preset, const std::map<double, Row>& rows, const std::string& x_title) {
  std::ostringstream out;
  out << "\nSpeedup over " << preset.speedup_over << " (its time over the policy's; lahp's SFA and SFM, one deterministic replay each):\n\n| "
      << x_title << " |";
  std::size_t columns = 0;
  for (const auto& policy : preset.policies) {
    if (policy.label == preset.speedup_over) continue;
    out << " " << policy.label << " |";
    ++columns;
  }
  out << "\n|---:|";
  for (std::size_t i = 0; i < columns; ++i) out << "---:|";
  out << "\n";
  for (const auto& [x, row] : rows) {
    const auto reference = row.cells.find(preset.speedup_over);
    out << "| " << format_fixed(x, 0) << " |";
    for (const auto& policy : preset.policies) {
      if (policy.label == preset.speedup_over) continue;
      const auto cell = row.cells.find(policy.label);
      const bool known = cell != row.cells.end() && reference != row.cells.end() && reference->second.gflops > 0;
      out << " " << (known ? format_fixed(cell->second.gflops / reference->second.gflops, 3) : "-") << " |";
    }
    out << "\n";
  }
  return out.str();
}

// lahp Figs. 6-8 E-F: each policy's BMD (push/pop differences of its push rule, over its
// tasks), then AUTO's formulas: the pushes made under each and the BMD it compared them by.
std::string counters_tables(const SweepPreset& preset, const std::map<double, Row>& rows, const std::string& x_title) {
  std::ostringstream out;
  std::vector<std::string> counted;
  for (const auto& policy : preset.policies) {
    for (const auto& [x, row] : rows) {
      const auto cell = row.cells.find(policy.label);
      if (cell != row.cells.end() && cell->second.counters.count("bmd")) {
        counted.push_back(policy.label);
        break;
      }
    }
  }
  if (counted.empty()) return "";
  out << "\nBMD (lahp Figs. 6-8 E-F): the tasks whose push rule named another memory node at their pop than at their push, "
         "in % of the tasks:\n\n| " << x_title << " |";
  for (const auto& label : counted) out << " " << label << " |";
  out << "\n|---:|";
  for (std::size_t i = 0; i < counted.size(); ++i) out << "---:|";
  out << "\n";
  for (const auto& [x, row] : rows) {
    out << "| " << format_fixed(x, 0) << " |";
    for (const auto& label : counted) {
      const auto cell = row.cells.find(label);
      const bool known = cell != row.cells.end() && cell->second.counters.count("bmd") && cell->second.tasks > 0;
      out << " " << (known ? format_fixed(100.0 * static_cast<double>(cell->second.counters.at("bmd")) / static_cast<double>(cell->second.tasks), 1) : "-")
          << " |";
    }
    out << "\n";
  }
  const char* formulas[] = {"ls_sdh", "ls_sdh2", "ls_sdhb", "lc_smwb"};
  for (const auto& policy : preset.policies) {
    bool automatic = false;
    for (const auto& [x, row] : rows) {
      const auto cell = row.cells.find(policy.label);
      automatic = automatic || (cell != row.cells.end() && cell->second.counters.count("auto_pushes_ls_sdh"));
    }
    if (!automatic) continue;
    out << "\n" << policy.label << ": the pushes made under each formula (AUTO uses the one with the lowest BMD so far), "
        << "and each formula's BMD, in % of the tasks:\n\n| " << x_title
        << " | pushes LS_SDH | LS_SDH2 | LS_SDHB | LC_SMWB | BMD LS_SDH | LS_SDH2 | LS_SDHB | LC_SMWB |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
    for (const auto& [x, row] : rows) {
      const auto cell = row.cells.find(policy.label);
      if (cell == row.cells.end() || cell->second.tasks == 0) continue;
      const auto percent = [&](const std::string& name) {
        const auto it = cell->second.counters.find(name);
        return it == cell->second.counters.end() ? std::string("-")
                                                 : format_fixed(100.0 * static_cast<double>(it->second) / static_cast<double>(cell->second.tasks), 1);
      };
      out << "| " << format_fixed(x, 0) << " |";
      for (const char* formula : formulas) out << " " << percent(std::string("auto_pushes_") + formula) << " |";
      for (const char* formula : formulas) out << " " << percent(std::string("bmd_") + formula) << " |";
      out << "\n";
    }
  }
  return out.str();
}

// The optimum-gap preset's table: per workload and memory, in loads (tiles), the lower bound,
// the optimum (or, unproven, the best order found with the bound proven), and each heuristic
// with its gap to the optimum; then the mean gaps over the proven rows.
std::string optimum_gap_section(const SweepPreset& preset, const std::vector<core::PresetRun>& runs, std::int64_t sweep_id) {
  struct Gaps {
    double item = 0, memory = 0, lower_bound = 0;
    bool proven = false;
    std::uint64_t bound = 0;
    std::map<std::string, std::uint64_t> loads;  // by policy label
  };
  std::map<std::pair<std::string, double>, Gaps> rows;  // by (workload, memory)
  for (const auto& [policy, x, run] : runs) {
    if (!run.metrics || !run.info.transfers_recorded) continue;
    Gaps& row = rows[{run.info.workload_spec, run.info.platform.memory_bytes}];
    const RunMetrics& m = *run.metrics;
    const std::string& label = preset.policies[policy].label;
    row.loads[label] = m.summary.loads;
    row.memory = run.info.platform.memory_bytes;
    row.lower_bound = m.lower_bound_bytes;
    if (m.summary.loads > 0) row.item = m.summary.bytes_loaded / static_cast<double>(m.summary.loads);
    if (const auto proven = m.summary.scheduler_counter("optimum_proven")) row.proven = *proven == 1;
    if (const auto bound = m.summary.scheduler_counter("optimum_lower_bound")) row.bound = *bound;
  }
  std::ostringstream out;
  out << "## " << preset.figure << ": " << preset.title << "\n\n";
  out << "`tilelens sweep --preset " << preset.name << "` (sweep " << sweep_id << ", " << runs.size() << " runs), then `tilelens results`.\n\n";
  out << "**Why:** " << preset.paper_claims << "\n\n";
  out << "Loads, in tiles; each heuristic's gap above the optimum, and the bound's below it, in parentheses. An optimum not\n"
         "proven within the search's time limit shows the best order found and the bound proven (`<= best, >= bound`).\n\n";
  out << "| workload | M (tiles) | lower bound | optimum |";
  std::vector<std::string> heuristics;
  for (const auto& policy : preset.policies) {
    if (policy.label != "OPTIMUM") heuristics.push_back(policy.label);
  }
  for (const auto& label : heuristics) out << " " << label << " |";
  out << "\n|---|---:|---:|---:|";
  for (std::size_t i = 0; i < heuristics.size(); ++i) out << "---:|";
  out << "\n";
  std::map<std::string, std::pair<double, int>> mean_gap;  // over proven rows
  std::pair<double, int> bound_gap{0, 0};
  const auto gap = [](double above, double below) { return below > 0 ? 100.0 * (above - below) / below : 0.0; };
  for (const auto& [key, row] : rows) {
    const auto optimum = row.loads.find("OPTIMUM");
    const double bound_loads = row.item > 0 ? std::ceil(row.lower_bound / row.item - 1e-9) : 0;
    out << "| " << key.first.substr(0, key.first.find(',')) << " | " << format_fixed(row.item > 0 ? row.memory / row.item : 0, 0) << " | "
        << format_fixed(bound_loads, 0);
    if (optimum == row.loads.end()) {
      out << " | - |";
    } else if (row.proven) {
      // How far below the optimum the bound sits, as a share of the optimum.
      const double below = 100.0 * (static_cast<double>(optimum->second) - bound_loads) / static_cast<double>(std::max<std::uint64_t>(optimum->second, 1));
      out << " (-" << format_fixed(below, 0) << "%) | **" << optimum->second << "** |";
      bound_gap.first += below;
      ++bound_gap.second;
    } else {
      out << " | <= " << optimum->second << ", >= " << row.bound << " |";
    }
    for (const auto& label : heuristics) {
      const auto cell = row.loads.find(label);
      if (cell == row.loads.end()) {
        out << " - |";
        continue;
      }
      out << " " << cell->second;
      if (optimum != row.loads.end() && row.proven) {
        const double g = gap(static_cast<double>(cell->second), static_cast<double>(optimum->second));
        out << " (+" << format_fixed(g, 0) << "%)";
        mean_gap[label].first += g;
        ++mean_gap[label].second;
      }
      out << " |";
    }
    out << "\n";
  }
  out << "\nOver the " << bound_gap.second << " rows proven: the lower bound sits "
      << (bound_gap.second ? format_fixed(bound_gap.first / bound_gap.second, 1) : std::string("-")) << "% below the optimum on average;";
  for (const auto& label : heuristics) {
    const auto found = mean_gap.find(label);
    if (found != mean_gap.end() && found->second.second > 0) {
      out << " " << label << " " << format_fixed(found->second.first / found->second.second, 1) << "% above it;";
    }
  }
  out << "\n\n";
  return out.str();
}

Result<std::string> preset_section(db::Store& store, const SweepPreset& preset, std::int64_t sweep_id) {
  auto runs = core::preset_runs(store, preset, sweep_id);
  if (!runs) return runs.error();
  if (preset.optimum_gaps) return optimum_gap_section(preset, *runs, sweep_id);
  std::map<double, Row> rows;  // by the varied parameter
  std::size_t failed = 0;
  double peak = 0;  // all GPUs at the platform's best rate
  for (const auto& [policy, x, run] : *runs) {
    if (!run.metrics) {
      ++failed;
      continue;
    }
    Row& row = rows[x];
    const RunMetrics& m = *run.metrics;
    peak = std::max(peak, run.info.platform.total_peak_gflops());
    row.working_set = static_cast<double>(run.info.working_set_bytes);
    row.lower_bound = m.lower_bound_bytes;
    row.bus_limit = m.bus_limit_bytes;
    row.memory = run.info.platform.memory_bytes;
    row.cells[preset.policies[policy].label] = {m.summary.gflops, m.summary.bytes_loaded, m.ratio_to_lower_bound(), m.summary.tasks,
                                                {m.summary.scheduler_counters.begin(), m.summary.scheduler_counters.end()}};
  }

  std::ostringstream out;
  out << "## " << preset.figure << ": " << preset.title << "\n\n";
  out << "`tilelens sweep --preset " << preset.name << "` (sweep " << sweep_id << ", " << runs->size() << " runs"
      << (failed ? ", " + std::to_string(failed) + " failed" : "") << ").\n\n";
  out << "**The paper:** " << preset.paper_claims << "\n\n";
  if (rows.empty()) {
    out << "No run of this sweep matches the preset's policies.\n\n";
    return out.str();
  }
  const std::string x_title = preset.x_param == "N" ? "N" : "M (MiB)";

  out << "GFlop/s (peak " << format_fixed(peak, 0) << "):\n\n| " << x_title << " | working set (MB) |";
  for (const auto& policy : preset.policies) out << " " << policy.label << " |";
  out << "\n|---:|---:|";
  for (std::size_t i = 0; i < preset.policies.size(); ++i) out << "---:|";
  out << "\n";
  for (const auto& [x, row] : rows) {
    out << "| " << format_fixed(x, 0) << " | " << format_fixed(row.working_set / 1e6, 0) << " |";
    for (const auto& policy : preset.policies) {
      auto cell = row.cells.find(policy.label);
      out << " " << (cell == row.cells.end() ? "-" : format_fixed(cell->second.gflops, 0)) << " |";
    }
    out << "\n";
  }

  out << "\nData transferred in GB (ratio to the lower bound):\n\n| " << x_title << " | lower bound | bus limit |";
  for (const auto& policy : preset.policies) out << " " << policy.label << " |";
  out << "\n|---:|---:|---:|";
  for (std::size_t i = 0; i < preset.policies.size(); ++i) out << "---:|";
  out << "\n";
  for (const auto& [x, row] : rows) {
    out << "| " << format_fixed(x, 0) << " | " << format_fixed(row.lower_bound / 1e9, 2) << " | " << format_fixed(row.bus_limit / 1e9, 2) << " |";
    for (const auto& policy : preset.policies) {
      auto cell = row.cells.find(policy.label);
      out << " "
          << (cell == row.cells.end() ? "-" : format_fixed(cell->second.bytes / 1e9, 2) + " (" + format_fixed(cell->second.ratio, 1) + "x)")
          << " |";
    }
    out << "\n";
  }

  // The highlighted policy's average improvement (fgcs Tables 1-6: mean over the sizes of
  // HFP / ref - 1).
  out << "\n" << preset.highlight << "'s average GFlop/s improvement over each reference, over all sizes"
      << (preset.paper_improvement.empty() ? "" : " (fgcs Tables 1-6)") << ":\n\n| reference | replay | paper |\n|---|---:|---:|\n";
  for (const std::string& reference : preset.references) {
    double sum = 0;
    int count = 0;
    for (const auto& [x, row] : rows) {
      auto hfp = row.cells.find(preset.highlight);
      auto ref = row.cells.find(reference);
      if (hfp == row.cells.end() || ref == row.cells.end() || ref->second.gflops <= 0) continue;
      sum += hfp->second.gflops / ref->second.gflops - 1;
      ++count;
    }
    auto paper = preset.paper_improvement.find(reference);
    out << "| " << reference << " | " << (count ? format_fixed(100 * sum / count, 1) + " %" : "-") << " | "
        << (paper == preset.paper_improvement.end() ? "-" : format_fixed(paper->second, 1) + " %") << " |\n";
  }

  if (!preset.speedup_over.empty()) out << speedup_table(preset, rows, x_title);
  if (preset.counters) out << counters_tables(preset, rows, x_title);

  // Who loads least once the working set exceeds the memory.
  std::map<std::string, int> fewest;
  int tight = 0;
  for (const auto& [x, row] : rows) {
    if (row.working_set <= row.memory || row.cells.empty()) continue;
    ++tight;
    double least = -1;
    for (const auto& [label, cell] : row.cells) {
      if (least < 0 || cell.bytes < least) least = cell.bytes;
    }
    for (const auto& policy : preset.policies) {  // every policy within 0.5% of the least counts
      auto cell = row.cells.find(policy.label);
      if (cell != row.cells.end() && cell->second.bytes <= least * 1.005) ++fewest[policy.label];
    }
  }
  if (tight > 0) {
    out << "\nFewest transfers (within 0.5%) where the working set exceeds M, in how many of the " << tight << " sizes:";
    for (const auto& [who, count] : fewest) out << " " << who << " " << count << ";";
    out << "\n";
  }
  out << "\n";
  return out.str();
}

Result<std::string> results_text(db::Store& store) {
  std::ostringstream out;
  out << kBegin << "\n";
  out << "<!-- generated by `tilelens results --db FILE --output docs/results.md`; edit outside the markers -->\n\n";
  bool any = false;
  for (const auto& preset : sweep_presets()) {
    auto latest = core::latest_preset_sweep(store, preset.name);
    if (!latest) return latest.error();
    if (!*latest) continue;
    auto section = preset_section(store, preset, **latest);
    if (!section) return section.error();
    out << *section;
    any = true;
  }
  if (!any) return make_error("no preset sweep in " + store.path() + "; run tilelens sweep --preset NAME --db " + store.path() + " first");
  out << kEnd << "\n";
  return out.str();
}

}  // namespace

int cmd_results(const ParsedArgs& args, std::ostream& out, std::ostream& err) {
  const ParsedArgs* parsed = &args;
  if (!parsed->has("db")) return fail(err, "--db FILE is required; see tilelens results --help");
  auto store = db::Store::open(parsed->get("db"), db::Store::OpenMode::ReadOnlyUpgrading);
  if (!store) return fail(err, "--db: " + describe(store.error()));
  auto text = results_text(*store);
  if (!text) return fail(err, describe(text.error()));
  std::string document;
  if (parsed->has("output")) {
    if (std::ifstream in(parsed->get("output")); in) {
      std::stringstream buffer;
      buffer << in.rdbuf();
      document = buffer.str();
    }
  }
  const auto begin = document.find(kBegin);
  const auto end = document.find(kEnd);
  if (begin != std::string::npos && end != std::string::npos && end > begin) {
    std::string after = document.substr(end + std::string(kEnd).size());
    if (!after.empty() && after.front() == '\n') after.erase(0, 1);
    document = document.substr(0, begin) + *text + after;
  } else {
    document += (document.empty() ? "" : "\n") + *text;
  }
  return with_output(args, out, err, [&](std::ostream& stream) {
    stream << document;
    return Status::success();
  });
}

}  // namespace tilelens::cli
