// The tilelens subcommands: workload, replay, bench, schedulers, evictions.
#include "app/cli/commands.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "app/cli/args.hpp"
#include "schedulers/generators.hpp"
#include "schedulers/units.hpp"
#include "schedulers/workload_io.hpp"

namespace tilelens::cli {
namespace {

constexpr const char* kVersion = "0.1.0";

std::string json_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
      out += buffer;
      continue;
    }
    out += c;
  }
  return out;
}

std::string fixed(double value, int digits = 2) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
  return buffer;
}

int fail(std::ostream& err, const std::string& message) {
  err << "tilelens: " << message << "\n";
  return 2;
}

// One listing for both registries: name, summary, then the parameters with defaults.
template <class Registry>
std::string list_registry(const std::string& title, const Registry& registry) {
  std::string out = title + ":\n";
  for (const auto& info : registry) {
    out += "  " + info.name + std::string(info.name.size() < 10 ? 10 - info.name.size() : 1, ' ') + info.summary + "\n";
    out += describe_params(info.params);
  }
  return out;
}
std::string list_schedulers() { return list_registry("schedulers", scheduler_registry()); }
std::string list_evictions() { return list_registry("eviction policies", eviction_registry()); }

std::string list_generators() {
  std::string out = "workload generators (use NAME:key=value,...):\n";
  for (const auto& g : workload_generators()) {
    out += "  " + g.name + "\n      " + g.summary + "\n";
    out += describe_params(g.params);
  }
  return out;
}

std::string list_platforms() {
  std::string out = "platform presets:\n";
  for (const auto& preset : platform_presets()) out += "  " + preset.name + "  " + preset.summary + "\n";
  return out;
}

// ---------------------------------------------------------------- workload

const CommandSpec kWorkloadGenerate{
    "tilelens workload generate SPEC [--output FILE]",
    "Generate a seed workload and write it in the tilelens workload format (docs/workload-format.md).",
    {{"output", "FILE", "write to FILE instead of standard output", ""}},
    "SPEC is NAME:key=value,... ; run 'tilelens workload list' for the generators and their parameters.\n"
    "example: tilelens workload generate matmul2d:N=20 --output m20.workload"};

const CommandSpec kWorkloadShow{"tilelens workload show SPEC|FILE",
                                "Print a summary of a workload: tasks per kind, data, dependencies, working set.",
                                {{"tasks", "COUNT", "also list the first COUNT tasks in submission order", "0"}},
                                ""};

const CommandSpec kWorkloadValidate{"tilelens workload validate FILE",
                                    "Read a workload file and check it; prints 'valid' or the first error with file:line.",
                                    {},
                                    ""};

const CommandSpec kWorkloadList{"tilelens workload list", "List the workload generators and their parameters.", {}, ""};

void show_workload(const Workload& w, std::ostream& out, std::int64_t list_tasks) {
  out << "workload      " << w.name() << (w.generator().spec.empty() ? "" : "  (" + w.generator().spec + ")") << "\n";
  out << "tasks         " << format_count(static_cast<double>(w.task_count())) << "\n";
  std::vector<std::size_t> per_kind(w.kinds().size(), 0);
  for (const Task& t : w.tasks()) ++per_kind[t.kind];
  for (std::size_t k = 0; k < per_kind.size(); ++k) {
    out << "  " << w.kinds()[k] << std::string(w.kinds()[k].size() < 12 ? 12 - w.kinds()[k].size() : 1, ' ')
        << format_count(static_cast<double>(per_kind[k])) << "\n";
  }
  out << "data          " << format_count(static_cast<double>(w.data_count())) << " (largest "
      << format_bytes(static_cast<double>(w.largest_data_bytes())) << ")\n";
  out << "dependencies  " << format_count(static_cast<double>(w.dependency_count())) << "\n";
  out << "working set   " << format_bytes(static_cast<double>(w.working_set_bytes())) << " ("
      << fixed(static_cast<double>(w.working_set_bytes()) / 1048576.0, 1) << " MiB)\n";
  out << "total work    " << fixed(w.total_flops() / 1e12, 3) << " TFlop\n";
  for (std::int64_t i = 0; i < list_tasks && i < static_cast<std::int64_t>(w.task_count()); ++i) {
    const TaskId t = w.submission_order()[static_cast<std::size_t>(i)];
    out << "  " << w.task_label(t) << ":";
    for (const Access& a : w.accesses(t)) out << ' ' << to_string(a.mode) << ' ' << w.data()[a.data].name;
    out << "\n";
  }
}

int cmd_workload(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const std::string usage = "usage: tilelens workload generate|show|validate|list ... (each takes --help)";
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    out << usage << "\n\n" << list_generators();
    return args.empty() ? 2 : 0;
  }
  const std::string verb = args[0];
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  const CommandSpec* spec = verb == "generate" ? &kWorkloadGenerate
                            : verb == "show"   ? &kWorkloadShow
                            : verb == "validate" ? &kWorkloadValidate
                            : verb == "list"   ? &kWorkloadList
                                               : nullptr;
  if (spec == nullptr) return fail(err, "unknown workload command '" + verb + "' (valid: generate, show, validate, list)");
  auto parsed = parse_args(*spec, rest);
  if (!parsed) return fail(err, parsed.error().message);
  if (parsed->has("help")) {
    out << help_text(*spec);
    return 0;
  }
  if (verb == "list") {
    out << list_generators();
    return 0;
  }
  if (parsed->positional.size() != 1) return fail(err, "expected one argument; see --help:\n" + help_text(*spec));
  const std::string& target = parsed->positional[0];
  if (verb == "generate") {
    auto workload = generate_workload(target);
    if (!workload) return fail(err, workload.error().message);
    if (parsed->has("output")) {
      if (auto status = save_workload(*workload, parsed->get("output")); !status) return fail(err, status.error().message);
      err << "wrote " << parsed->get("output") << " (" << workload->task_count() << " tasks)\n";
    } else if (auto status = write_workload(*workload, out); !status) {
      return fail(err, status.error().message);
    }
    return 0;
  }
  if (verb == "validate") {
    auto workload = load_workload(target);
    if (!workload) {
      err << "invalid: " << workload.error().message << "\n";
      return 1;
    }
    out << "valid: " << target << " (" << workload->task_count() << " tasks, " << workload->data_count() << " data, "
        << workload->dependency_count() << " dependencies)\n";
    return 0;
  }
  auto workload = resolve_workload(target);
  if (!workload) return fail(err, workload.error().message);
  auto count = parse_integer(parsed->get("tasks"));
  if (!count || *count < 0) return fail(err, "--tasks must be a count of zero or more");
  show_workload(*workload, out, *count);
  return 0;
}

// ---------------------------------------------------------------- replay

const CommandSpec kReplay{
    "tilelens replay --workload SPEC|FILE [options]",
    "Replay a workload under a scheduler and an eviction policy on simulated GPUs (DESIGN section 3)\n"
    "and print what it cost: loads (fetch/prefetch), bytes, the lower bound and the ratio to it,\n"
    "makespan, GFlop/s, idle time and the scheduler's own time.",
    {{"workload", "SPEC|FILE", "a generator spec (matmul2d:N=20) or a workload file", ""},
     {"scheduler", "NAME[:k=v]", "scheduling policy; 'list' prints them", "eager"},
     {"eviction", "NAME", "eviction policy; 'list' prints them", "lru"},
     {"platform", "PRESET", "start from a platform preset; 'list' prints them", "v100-fgcs"},
     {"gpus", "K", "number of GPUs", ""},
     {"memory", "SIZE", "memory per GPU: 500MiB, 2GB, or a count of data items: 4items", ""},
     {"bandwidth", "RATE", "host bus bandwidth, each direction: 12GB/s", ""},
     {"gpu-link", "RATE", "GPU-to-GPU link bandwidth (0 for none)", ""},
     {"latency", "TIME", "latency added to each transfer: 10us", ""},
     {"rate", "[KIND=]RATE,...", "compute rate, for all kinds or per kind: 13393GFlop/s or POTRF=2TFlop/s", ""},
     {"buffer", "DEPTH", "tasks a GPU holds (running one included); 1 = no prefetch window", "4"},
     {"json", "", "print the summary as JSON", ""},
     {"csv", "", "print the summary as one CSV row (with --csv-header, the header first)", ""},
     {"csv-header", "", "with --csv, print the header row too", ""},
     {"order-out", "FILE", "write the processing order with each task's loads as CSV", ""},
     {"trace-out", "FILE", "write the whole trace in tilelens' text form", ""}},
    "Sizes: B, KB, MB, GB (powers of 1000) and KiB, MiB, GiB (powers of 1024). The papers' \"MB\" are MiB.\n"
    "examples:\n"
    "  tilelens replay --workload matmul2d:N=20 --scheduler rcm --eviction lru --memory 250MiB\n"
    "  tilelens replay --workload matmul2d:N=4 --memory 4items --buffer 1 --eviction belady --order-out o.csv"};

Result<ReplaySetup> resolve_replay(const ParsedArgs& args) {
  ReplaySetup setup;
  if (!args.has("workload")) return make_error("--workload is required (a spec such as matmul2d:N=20, or a file)");
  setup.workload_spec = args.get("workload");
  auto workload = resolve_workload(setup.workload_spec);
  if (!workload) return make_error("--workload: " + workload.error().message);
  setup.workload = std::move(*workload);
  if (!setup.workload.generator().spec.empty()) setup.workload_spec = setup.workload.generator().spec;

  auto platform = find_platform_preset(args.get("platform"));
  if (!platform) return make_error("--platform: " + platform.error().message);
  Platform& p = *platform;
  if (args.has("gpus")) {
    auto gpus = parse_integer(args.get("gpus"));
    if (!gpus || *gpus < 1 || *gpus > 1024) return make_error("--gpus must be a whole number from 1 to 1024 (got '" + args.get("gpus") + "')");
    p.gpus = static_cast<std::uint32_t>(*gpus);
  }
  if (args.has("memory")) {
    auto memory = parse_memory(args.get("memory"));
    if (!memory) return make_error("--memory: " + memory.error().message);
    p.memory_bytes = memory->items ? static_cast<double>(memory->items) * static_cast<double>(setup.workload.largest_data_bytes())
                                   : memory->bytes;
  }
  if (args.has("bandwidth")) {
    auto bandwidth = parse_bandwidth(args.get("bandwidth"));
    if (!bandwidth) return make_error("--bandwidth: " + bandwidth.error().message);
    p.bus_bandwidth = *bandwidth;
  }
  if (args.has("gpu-link")) {
    if (args.get("gpu-link") == "0") {
      p.gpu_link_bandwidth = 0;
    } else {
      auto link = parse_bandwidth(args.get("gpu-link"));
      if (!link) return make_error("--gpu-link: " + link.error().message);
      p.gpu_link_bandwidth = *link;
    }
  }
  if (args.has("latency")) {
    auto latency = parse_duration_ns(args.get("latency"));
    if (!latency) return make_error("--latency: " + latency.error().message);
    p.latency_ns = *latency;
  }
  if (args.has("rate")) {
    std::stringstream list(args.get("rate"));
    std::string item;
    while (std::getline(list, item, ',')) {
      const auto equal = item.find('=');
      auto rate = parse_gflops(equal == std::string::npos ? item : item.substr(equal + 1));
      if (!rate) return make_error("--rate: " + rate.error().message);
      if (equal == std::string::npos) p.default_gflops = *rate;
      else p.kind_gflops[item.substr(0, equal)] = *rate;
    }
  }
  auto depth = parse_integer(args.get("buffer"));
  if (!depth || *depth < 1 || *depth > 100000) return make_error("--buffer must be a whole number of tasks, at least 1 (got '" + args.get("buffer") + "')");
  setup.options.buffer_depth = static_cast<std::uint32_t>(*depth);
  setup.options.platform = p;
  setup.scheduler_spec = args.get("scheduler");
  setup.eviction_spec = args.get("eviction");
  return setup;
}

void print_summary(const ReplaySetup& setup, const ReplaySummary& s, const ReferenceCurves& curves, std::ostream& out) {
  const Workload& w = setup.workload;
  const double ratio = curves.lower_bound_bytes > 0 ? s.bytes_loaded / curves.lower_bound_bytes : 0;
  out << "workload     " << setup.workload_spec << ": " << format_count(static_cast<double>(w.task_count())) << " tasks, "
      << format_count(static_cast<double>(w.data_count())) << " data, working set "
      << format_bytes(static_cast<double>(w.working_set_bytes())) << "\n";
  out << "platform     " << setup.options.platform.describe() << "; task buffer " << setup.options.buffer_depth << "\n";
  out << "policy       scheduler " << setup.scheduler_spec << ", eviction " << setup.eviction_spec << "\n";
  out << "loads        " << format_count(static_cast<double>(s.loads)) << " = " << format_bytes(s.bytes_loaded) << "  (fetch "
      << s.fetches << ", prefetch " << s.prefetches << ", unused " << s.unused_loads << ")\n";
  if (s.loads_from_gpu) out << "             from GPUs " << s.loads_from_gpu << " = " << format_bytes(s.bytes_gpu_to_gpu) << "\n";
  out << "lower bound  " << format_bytes(curves.lower_bound_bytes) << "  " << curves.bound
      << (curves.asymptotic ? ", leading term only" : "") << "\n";
  out << "ratio        " << fixed(ratio, 3) << " x the lower bound\n";
  out << "bus limit    " << format_bytes(curves.bus_limit_bytes) << " (more cannot be hidden behind compute)\n";
  out << "evictions    " << s.evictions;
  if (s.invalidations) out << ", invalidations " << s.invalidations;
  if (s.writebacks) out << ", write-backs " << s.writebacks << " = " << format_bytes(s.bytes_written_back);
  out << "\n";
  out << "makespan     " << format_duration(s.makespan_ns) << "  (" << fixed(s.gflops, 0) << " GFlop/s, ideal "
      << format_duration(static_cast<std::int64_t>(curves.ideal_compute_ns)) << ")\n";
  out << "GPU idle     " << format_duration(s.idle_ns) << " summed over " << s.gpus.size() << " GPU"
      << (s.gpus.size() > 1 ? "s" : "") << "\n";
  out << "sched. time  " << format_duration(s.scheduling_ns) << " in the scheduler, " << format_duration(s.eviction_ns)
      << " in the eviction policy (wall clock, not simulated)\n";
}

void print_json(const ReplaySetup& setup, const ReplaySummary& s, const ReferenceCurves& curves, std::ostream& out) {
  const Workload& w = setup.workload;
  out << "{\"tilelens_version\":\"" << kVersion << "\",\"workload\":\"" << json_escape(setup.workload_spec)
      << "\",\"tasks\":" << w.task_count() << ",\"data\":" << w.data_count() << ",\"working_set_bytes\":" << w.working_set_bytes()
      << ",\"scheduler\":\"" << json_escape(setup.scheduler_spec) << "\",\"eviction\":\"" << json_escape(setup.eviction_spec)
      << "\",\"gpus\":" << setup.options.platform.gpus << ",\"memory_bytes\":" << fixed(setup.options.platform.memory_bytes, 0)
      << ",\"bus_bandwidth\":" << fixed(setup.options.platform.bus_bandwidth, 0) << ",\"buffer_depth\":" << setup.options.buffer_depth
      << ",\"loads\":" << s.loads << ",\"fetches\":" << s.fetches << ",\"prefetches\":" << s.prefetches
      << ",\"unused_loads\":" << s.unused_loads << ",\"bytes_loaded\":" << fixed(s.bytes_loaded, 0)
      << ",\"bytes_from_host\":" << fixed(s.bytes_from_host, 0) << ",\"bytes_gpu_to_gpu\":" << fixed(s.bytes_gpu_to_gpu, 0)
      << ",\"bytes_fetched\":" << fixed(s.bytes_fetched, 0) << ",\"bytes_prefetched\":" << fixed(s.bytes_prefetched, 0)
      << ",\"evictions\":" << s.evictions << ",\"invalidations\":" << s.invalidations << ",\"writebacks\":" << s.writebacks
      << ",\"bytes_written_back\":" << fixed(s.bytes_written_back, 0) << ",\"makespan_ns\":" << s.makespan_ns
      << ",\"gflops\":" << fixed(s.gflops, 3) << ",\"idle_ns\":" << s.idle_ns << ",\"scheduling_ns\":" << s.scheduling_ns
      << ",\"eviction_ns\":" << s.eviction_ns << ",\"lower_bound_bytes\":" << fixed(curves.lower_bound_bytes, 0)
      << ",\"lower_bound\":\"" << json_escape(curves.bound) << "\",\"ratio_to_lower_bound\":"
      << fixed(curves.lower_bound_bytes > 0 ? s.bytes_loaded / curves.lower_bound_bytes : 0, 6)
      << ",\"bus_limit_bytes\":" << fixed(curves.bus_limit_bytes, 0) << "}\n";
}

void print_csv(const ReplaySetup& setup, const ReplaySummary& s, const ReferenceCurves& curves, bool header, std::ostream& out) {
  if (header) {
    out << "workload,scheduler,eviction,gpus,memory_bytes,working_set_bytes,loads,fetches,prefetches,bytes_loaded,"
           "lower_bound_bytes,ratio,evictions,makespan_ns,gflops,scheduling_ns\n";
  }
  out << '"' << setup.workload_spec << "\"," << setup.scheduler_spec << ',' << setup.eviction_spec << ','
      << setup.options.platform.gpus << ',' << fixed(setup.options.platform.memory_bytes, 0) << ','
      << setup.workload.working_set_bytes() << ',' << s.loads << ',' << s.fetches << ',' << s.prefetches << ','
      << fixed(s.bytes_loaded, 0) << ',' << fixed(curves.lower_bound_bytes, 0) << ','
      << fixed(curves.lower_bound_bytes > 0 ? s.bytes_loaded / curves.lower_bound_bytes : 0, 4) << ',' << s.evictions << ','
      << s.makespan_ns << ',' << fixed(s.gflops, 1) << ',' << s.scheduling_ns << '\n';
}

int cmd_replay(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  auto parsed = parse_args(kReplay, args);
  if (!parsed) return fail(err, parsed.error().message);
  if (parsed->has("help")) {
    out << help_text(kReplay);
    return 0;
  }
  if (parsed->get("scheduler") == "list") {
    out << list_schedulers();
    return 0;
  }
  if (parsed->get("eviction") == "list") {
    out << list_evictions();
    return 0;
  }
  if (parsed->get("platform") == "list") {
    out << list_platforms();
    return 0;
  }
  if (!parsed->positional.empty()) return fail(err, "unexpected argument '" + parsed->positional[0] + "'; see tilelens replay --help");
  auto setup = resolve_replay(*parsed);
  if (!setup) return fail(err, setup.error().message);
  auto scheduler = make_scheduler(setup->scheduler_spec);
  if (!scheduler) return fail(err, "--scheduler: " + scheduler.error().message);
  auto eviction = make_eviction(setup->eviction_spec);
  if (!eviction) return fail(err, "--eviction: " + eviction.error().message);
  setup->scheduler_spec = scheduler->spec;
  setup->eviction_spec = eviction->spec;

  TraceRecorder recorder;
  const bool keep_trace = parsed->has("order-out") || parsed->has("trace-out");
  auto summary = replay(setup->workload, *scheduler->scheduler, *eviction->policy, setup->options, keep_trace ? &recorder : nullptr);
  if (!summary) return fail(err, summary.error().message);
  const ReferenceCurves curves = reference_curves(setup->workload, setup->options.platform);
  if (parsed->has("json")) print_json(*setup, *summary, curves, out);
  else if (parsed->has("csv")) print_csv(*setup, *summary, curves, parsed->has("csv-header"), out);
  else print_summary(*setup, *summary, curves, out);

  if (parsed->has("order-out")) {
    std::ofstream file(parsed->get("order-out"));
    if (!file) return fail(err, "cannot write --order-out file '" + parsed->get("order-out") + "'");
    write_order_csv(setup->workload, recorder.trace, file);
  }
  if (parsed->has("trace-out")) {
    std::ofstream file(parsed->get("trace-out"));
    if (!file) return fail(err, "cannot write --trace-out file '" + parsed->get("trace-out") + "'");
    write_trace_text(recorder.trace, file);
  }
  return 0;
}

std::string top_help() {
  return std::string("tilelens ") + kVersion +
         ": replay task schedulers on GPUs with limited memory and see what they load.\n\n"
         "usage: tilelens COMMAND [options]   (every command takes --help)\n\n"
         "commands:\n"
         "  workload generate|show|validate|list   seed workloads and workload files\n"
         "  replay                                 replay a workload under a scheduler and an eviction policy\n"
         "  bench replay                           measure the replay engine's throughput and memory\n"
         "  schedulers                             list the schedulers\n"
         "  evictions                              list the eviction policies\n"
         "  platforms                              list the platform presets\n"
         "  version                                print the version\n";
}

}  // namespace

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (args.empty()) {
    err << top_help();
    return 2;
  }
  const std::string& command = args[0];
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (command == "--help" || command == "-h" || command == "help") {
    out << top_help();
    return 0;
  }
  if (command == "version" || command == "--version") {
    out << "tilelens " << kVersion << "\n";
    return 0;
  }
  if (command == "workload") return cmd_workload(rest, out, err);
  if (command == "replay") return cmd_replay(rest, out, err);
  if (command == "bench") return run_bench(rest, out, err);
  if (command == "schedulers") {
    out << list_schedulers();
    return 0;
  }
  if (command == "evictions") {
    out << list_evictions();
    return 0;
  }
  if (command == "platforms") {
    out << list_platforms();
    return 0;
  }
  return fail(err, "unknown command '" + command + "' (valid: workload, replay, bench, schedulers, evictions, platforms, version)");
}

}  // namespace tilelens::cli
