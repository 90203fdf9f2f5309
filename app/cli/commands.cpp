// The tilelens subcommands: workload, replay, bench, schedulers, evictions.
#include "app/cli/commands.hpp"

#include <cmath>
#include <filesystem>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "app/cli/args.hpp"
#include "app/cli/run_report.hpp"
#include "store/store.hpp"
#include "presets/seed_workloads.hpp"
#include "formats/platform_io.hpp"
#include "model/units.hpp"
#include "formats/workload_io.hpp"
#include "presets/platforms.hpp"

namespace tilelens::cli {

int fail(std::ostream& err, const std::string& message) {
  err << "tilelens: " << message << "\n";
  return 2;
}

namespace {

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
     {"platform", "PRESET|FILE", "start from a platform preset ('list' prints them) or a platform file (tilelens calibrate)", "v100-fgcs"},
     {"gpus", "K", "number of GPUs", ""},
     {"memory", "SIZE", "memory per GPU: 500MiB, 2GB, or a count of data items: 4items", ""},
     {"bandwidth", "RATE", "host bus bandwidth, each direction: 12GB/s", ""},
     {"gpu-link", "RATE", "GPU-to-GPU link bandwidth (0 for none)", ""},
     {"latency", "TIME", "latency added to each transfer: 10us", ""},
     {"pcie", "N:SWITCH:GPU", "PCIe tree: N GPUs per switch of SWITCH bandwidth, GPU's own link: 2:22GB/s:12GB/s (0:0:12GB/s: no switch)", ""},
     {"rate", "[KIND=]RATE,...", "compute rate, for all kinds or per kind: 13393GFlop/s or POTRF=2TFlop/s; 0 = no GPU kernel", ""},
     {"cpus", "N", "CPU workers computing from host memory (Heteroprio, LAHeteroprio and DMDA* use them)", ""},
     {"cpu-rate", "[KIND=]RATE,...", "compute rate of one CPU worker, as --rate; 0 = no CPU kernel", ""},
     {"workers-per-memory", "N", "GPU workers sharing one memory (the shared-memory multicore of darts 7.3)", ""},
     {"buffer", "DEPTH", "tasks a GPU holds (running one included); 1 = no prefetch window", "4"},
     {"charge-scheduling", "", "delay the start by the scheduler's prepare() wall time (fgcs \"HFP with sched. time\")", ""},
     {"json", "", "print the summary as JSON", ""},
     {"csv", "", "print the summary as one CSV row (with --csv-header, the header first)", ""},
     {"csv-header", "", "with --csv, print the header row too", ""},
     {"order-out", "FILE", "write the processing order with each task's loads as CSV", ""},
     {"trace-out", "FILE", "write the whole trace in tilelens' text form", ""},
     {"db", "FILE", "store the run, its trace and its metrics in this database (created if absent)", ""}},
    "Sizes: B, KB, MB, GB (powers of 1000) and KiB, MiB, GiB (powers of 1024). The papers' \"MB\" are MiB.\n"
    "examples:\n"
    "  tilelens replay --workload matmul2d:N=20 --scheduler rcm --eviction lru --memory 250MiB\n"
    "  tilelens replay --workload matmul2d:N=4 --memory 4items --buffer 1 --eviction belady --order-out o.csv\n"
    "  tilelens replay --workload cholesky:N=20 --scheduler eager --db runs.db   (then: tilelens runs list --db runs.db)"};

Result<ReplaySetup> resolve_replay(const ParsedArgs& args) {
  if (!args.positional.empty()) return make_error("unexpected argument '" + args.positional[0] + "'; see tilelens replay --help");
  ReplaySetup setup;
  if (!args.has("workload")) return make_error("--workload is required (a spec such as matmul2d:N=20, or a file)");
  setup.workload_spec = args.get("workload");
  auto workload = resolve_workload(setup.workload_spec);
  if (!workload) return make_error("--workload: " + workload.error().message);
  setup.workload = std::move(*workload);
  if (!setup.workload.generator().spec.empty()) setup.workload_spec = setup.workload.generator().spec;

  // A platform file (tilelens calibrate writes one) or a preset's name.
  std::error_code file_error;
  const std::string platform_arg = args.get("platform");
  auto platform = std::filesystem::is_regular_file(platform_arg, file_error) || platform_arg.ends_with(".json")
                      ? load_platform_file(platform_arg)
                      : find_platform_preset(platform_arg);
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
  if (args.has("pcie")) {
    const std::string text = args.get("pcie");
    const auto first = text.find(':'), second = text.find(':', first == std::string::npos ? 0 : first + 1);
    if (first == std::string::npos || second == std::string::npos) {
      return make_error("--pcie: expected GPUS_PER_SWITCH:SWITCH_RATE:GPU_RATE, as 2:22GB/s:12GB/s (got '" + text + "')");
    }
    auto per_switch = parse_integer(text.substr(0, first));
    const std::string switch_text = text.substr(first + 1, second - first - 1), gpu_text = text.substr(second + 1);
    auto switch_rate = switch_text == "0" ? Result<double>(0.0) : parse_bandwidth(switch_text);
    auto gpu_rate = gpu_text == "0" ? Result<double>(0.0) : parse_bandwidth(gpu_text);
    if (!per_switch || *per_switch < 0 || *per_switch > 1024) return make_error("--pcie: GPUs per switch must be 0 to 1024 (got '" + text + "')");
    if (!switch_rate) return make_error("--pcie: switch bandwidth: " + switch_rate.error().message);
    if (!gpu_rate) return make_error("--pcie: GPU link bandwidth: " + gpu_rate.error().message);
    if ((*per_switch > 0) != (*switch_rate > 0)) return make_error("--pcie: a switch needs both a GPU count and a bandwidth (got '" + text + "')");
    p.gpus_per_switch = static_cast<std::uint32_t>(*per_switch);
    p.switch_bandwidth = *switch_rate;
    p.gpu_bus_bandwidth = *gpu_rate;
  }
  if (args.has("latency")) {
    auto latency = parse_duration_ns(args.get("latency"));
    if (!latency) return make_error("--latency: " + latency.error().message);
    p.latency_ns = *latency;
  }
  const auto parse_rates = [&](const char* option, double& fallback, std::map<std::string, double>& per_kind) -> Status {
    std::stringstream list(args.get(option));
    std::string item;
    while (std::getline(list, item, ',')) {
      const auto equal = item.find('=');
      const std::string value = equal == std::string::npos ? item : item.substr(equal + 1);
      auto rate = value == "0" ? Result<double>(0.0) : parse_gflops(value);
      if (!rate) return make_error(std::string("--") + option + ": " + rate.error().message);
      if (equal == std::string::npos) fallback = *rate;
      else per_kind[item.substr(0, equal)] = *rate;
    }
    return Status::success();
  };
  if (args.has("rate")) {
    if (auto status = parse_rates("rate", p.default_gflops, p.kind_gflops); !status) return status.error();
  }
  if (args.has("cpus")) {
    auto cpus = parse_integer(args.get("cpus"));
    if (!cpus || *cpus < 0 || *cpus > 1024) return make_error("--cpus must be a whole number from 0 to 1024 (got '" + args.get("cpus") + "')");
    p.cpus = static_cast<std::uint32_t>(*cpus);
  }
  if (args.has("cpu-rate")) {
    if (auto status = parse_rates("cpu-rate", p.cpu_default_gflops, p.cpu_kind_gflops); !status) return status.error();
  }
  if (args.has("workers-per-memory")) {
    auto per = parse_integer(args.get("workers-per-memory"));
    if (!per || *per < 1 || *per > 1024) {
      return make_error("--workers-per-memory must be a whole number from 1 to 1024 (got '" + args.get("workers-per-memory") + "')");
    }
    p.workers_per_memory = static_cast<std::uint32_t>(*per);
  }
  if (p.cpus > 0 && !(p.cpu_default_gflops > 0) && p.cpu_kind_gflops.empty()) {
    return make_error("--cpus: the CPU workers need a compute rate (--cpu-rate, or a platform preset with CPUs)");
  }
  auto depth = parse_integer(args.get("buffer"));
  if (!depth || *depth < 1 || *depth > 100000) return make_error("--buffer must be a whole number of tasks, at least 1 (got '" + args.get("buffer") + "')");
  setup.options.buffer_depth = static_cast<std::uint32_t>(*depth);
  setup.options.charge_scheduling = args.has("charge-scheduling");
  setup.options.platform = p;
  setup.scheduler_spec = args.get("scheduler");
  setup.eviction_spec = args.get("eviction");
  return setup;
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
  auto setup = resolve_replay(*parsed);
  if (!setup) return fail(err, setup.error().message);
  auto scheduler = make_scheduler(setup->scheduler_spec);
  if (!scheduler) return fail(err, "--scheduler: " + scheduler.error().message);
  auto eviction = make_eviction(setup->eviction_spec);
  if (!eviction) return fail(err, "--eviction: " + eviction.error().message);
  setup->scheduler_spec = scheduler->spec;
  setup->eviction_spec = eviction->spec;

  std::optional<db::Store> store;
  RunInfo info = run_info_of(*setup);
  if (parsed->has("db")) {
    auto opened = db::Store::open(parsed->get("db"));
    if (!opened) return fail(err, "--db: " + opened.error().message);
    store.emplace(std::move(*opened));
    std::error_code ec;
    const bool from_file = std::filesystem::is_regular_file(parsed->get("workload"), ec);
    auto workload_id = store->put_workload(setup->workload, from_file ? "file " + parsed->get("workload") : "generated");
    if (!workload_id) return fail(err, "--db: " + workload_id.error().message);
    info.workload_id = *workload_id;
  }
  std::optional<db::RunWriter> writer;
  if (store) {
    auto begun = store->begin_run(info);
    if (!begun) return fail(err, "--db: " + begun.error().message);
    writer.emplace(std::move(*begun));
  }

  TraceRecorder recorder;
  ObserverList observers;
  if (parsed->has("order-out") || parsed->has("trace-out")) observers.add(&recorder);
  if (writer) observers.add(&*writer);
  auto summary = replay(setup->workload, *scheduler->scheduler, *eviction->policy, setup->options, observers.empty() ? nullptr : &observers);
  if (!summary) {
    if (writer) {
      if (auto id = writer->fail(summary.error().message)) err << "stored failed run " << *id << " in " << store->path() << "\n";
    }
    return fail(err, summary.error().message);
  }
  const RunMetrics metrics = metrics_of(*summary, reference_curves(setup->workload, setup->options.platform));
  if (writer) {
    auto id = writer->finish(metrics);
    if (!id) return fail(err, "--db: " + id.error().message);
    info.id = *id;
    info.status = RunStatus::Complete;
    err << "stored run " << *id << " in " << store->path() << "\n";
  }
  if (parsed->has("json")) print_json(info, metrics, out);
  else if (parsed->has("csv")) {
    if (parsed->has("csv-header")) print_csv_header(out);
    print_csv_row(info, metrics, out);
  } else print_summary(info, metrics, out);

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
         "  sweep                                  replay a grid of workloads x policies x platforms into a database\n"
         "  runs list|show|compare|delete          the runs stored in a database\n"
         "  export csv|paje|chrome                 a run (or a sweep's metrics) for other tools\n"
         "  import starpu                          a StarPU execution (tasks.rec, data.rec) as a workload and a run\n"
         "  execute                                run a workload on real GPUs (CUDA) under a scheduler, measured\n"
         "  calibrate                              a replay platform file from a measured run\n"
         "  fidelity                               replay a measured run on its calibrated platform, and compare\n"
         "  results                                the papers' tables from preset sweeps (docs/results.md)\n"
         "  bench replay|db|schedulers|gpu         measure the replay engine, the trace store, the schedulers, the executor\n"
         "  schedulers                             list the schedulers\n"
         "  evictions                              list the eviction policies\n"
         "  platforms                              list the platform presets\n"
         "  version                                print the version\n";
}

}  // namespace

Result<ReplaySetup> resolve_replay_args(const std::vector<std::string>& args) {
  auto parsed = parse_args(kReplay, args);
  if (!parsed) return parsed.error();
  return resolve_replay(*parsed);
}

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
  if (command == "runs") return cmd_runs(rest, out, err);
  if (command == "sweep") return cmd_sweep(rest, out, err);
  if (command == "results") return cmd_results(rest, out, err);
  if (command == "export") return cmd_export(rest, out, err);
  if (command == "import") return cmd_import(rest, out, err);
  if (command == "execute") return cmd_execute(rest, out, err);
  if (command == "calibrate") return cmd_calibrate(rest, out, err);
  if (command == "fidelity") return cmd_fidelity(rest, out, err);
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
  return fail(err, "unknown command '" + command +
                       "' (valid: workload, replay, sweep, results, runs, export, import, execute, calibrate, fidelity, bench, schedulers, "
                       "evictions, platforms, version)");
}

}  // namespace tilelens::cli
