// The one list of schedulers known to tilelens, by name.
#include <algorithm>

#include "schedulers/plugin_library.hpp"
#include "schedulers/plugin_scheduler.hpp"
#include "schedulers/static_order.hpp"

namespace tilelens {

const std::vector<SchedulerInfo>& scheduler_registry() {
  static const std::vector<SchedulerInfo> registry = {
      {"eager", "tasks in release order (the natural submission order without dependencies), darts 4.1", {}, make_eager},
      {"random", "the submission order shuffled with a seed", {{"seed", "0", "seed of the shuffle"}}, make_random_order},
      {"cm", "Cuthill-McKee order of the task graph (fgcs Algorithm 1, not reversed)", {}, make_cuthill_mckee},
      {"rcm", "Reverse Cuthill-McKee order of the task graph (fgcs Algorithm 1)", {}, make_reverse_cuthill_mckee},
      {"mst", "Maximum Spanning Tree order, Prim from the first task (fgcs Algorithm 2)", {}, make_maximum_spanning_tree},
      {"optimum",
       "the order of fewest loads, by exact search (one GPU, data of one size, at most 64 tasks and 64 data; with belady, "
       "the fgcs memory model and buffer 1: tilelens optimum --help)",
       {{"time_limit", "10", "seconds of search; then the best order found, with the bound proven (optimum_proven = 0)"},
        {"states", "4000000", "states the search may keep and queue (about 100 bytes each); then as for time_limit"}},
       make_optimum},
      {"dmda", "Deque Model Data Aware: each ready task to the GPU of earliest expected completion (fgcs Algorithm 3)", {{"estimate", "paper", "how a worker is weighed: paper (backlog + transfers + computation) or starpu (StarPU 1.3.10's dates and fitness, transfers at 2 x GPUs times their time)"}}, make_dmda},
      {"dmdar", "DMDA with Ready reordering of each GPU's queue (fgcs Algorithms 3 and 4)",
       {{"estimate", "paper", "how a worker is weighed: paper (backlog + transfers + computation) or starpu (StarPU 1.3.10's dates and fitness, transfers at 2 x GPUs times their time)"},
        {"loading_tiebreak", "1", "Ready breaks a tie on missing bytes by the bytes not even loading (0: the first, as StarPU 1.3.10)"}},
       make_dmdar},
      {"dmdas", "DMDA with queues sorted by priority and Ready among the highest (darts Algorithms 1 and 2)",
       {{"estimate", "paper", "how a worker is weighed: paper (backlog + transfers + computation) or starpu (StarPU 1.3.10's dates and fitness, transfers at 2 x GPUs times their time)"},
        {"loading_tiebreak", "1", "Ready breaks a tie on missing bytes by the bytes not even loading (0: the first, as StarPU 1.3.10)"}},
       make_dmdas},
      {"lws", "locality work stealing: released tasks on the releasing GPU's queue, steal from neighbours' tails (darts 4.3)",
       {{"prio", "1", "each queue in priority order, highest first, as StarPU's prio_deque (0: release order, as the paper)"},
        {"steal_head", "0", "steal the oldest task instead, as StarPU 1.3.10's lws does"},
        {"starpu", "0", "StarPU 1.3.10's lws as built without hwloc (StarPU-SimGrid): its ws, victims round robin (prio, steal_head ignored)"}},
       make_lws},
      {"fixed",
       "each worker runs the tasks a schedule file gives it, in its order: a runtime's own run (StarPU's, "
       "TILELENS_ORDER_OUT) or a replay's (--order-out), under tilelens's memory model",
       {{"file", "", "the schedule: CSV with task and worker (or gpu) columns, ordered by start_us, start_ns or gpu_order"},
        {"prefetch", "0", "announce each task's worker when it is pushed, so the memory model prefetches it there (StarPU's dmda family)"},
        {"workerorder", "0",
         "the order imposed as a sched.rec's Workerorder is: every task prefetched at its push (prefetch=1 implied), at priority "
         "INT_MAX - its place in its worker's order, above every other request (StarPU's coherency.c:973-978)"},
        {"digest", "", "the schedule file's content digest, which the run records; given, the file must still have it"}},
       make_fixed_order},
      {"ws", "StarPU 1.3.10's work stealing: lws's queues, pushes round robin from the second GPU, steals the head of a "
             "victim chosen round robin",
       {}, make_work_stealing},
      {"starpu-random",
       "StarPU 1.3.10's random: each ready task to a worker drawn by speed (drand48 from the seed), at the front of its list "
       "unless of the lowest priority",
       {{"seed", "0", "srand48's seed (StarPU's SimGrid mode: 0)"}}, make_starpu_random},
      {"ap", "PaRSEC's absolute priority: one priority queue, data reuse among equal priorities (darts 4.4)", {}, make_absolute_priority},
      {"darts",
       "DARTS: load the data that frees the most work, plan its free tasks (darts Algorithm 3); pair with --eviction luf",
       {{"one_from_free", "1", "when no data frees a task, plan the best 1-from-free task (the slides' 3inputs)"},
        {"scan_limit", "0", "look at the first N data of the set only (the slides' OPTI; 0: all)"},
        {"first_free", "0", "stop the scan at the first data that frees a task (OPTI)"},
        {"bypass", "1", "a newly ready task already free on a GPU goes straight into its plan"}},
       make_darts},
      {"partition",
       "the slides' partitioning: K parts of the task-data graph (METIS), one per GPU, then Ready and stealing",
       {{"seed", "0", "METIS's seed"},
        {"ready", "1", "Ready reordering inside each GPU's part"},
        {"steal", "1", "a GPU whose part has no ready task steals the last ready task of the part with the most"},
        {"ready_scan", "0", "Ready by scanning the part at each pop instead of the incremental index (same picks, slower)"}},
       make_partitioned},
      {"hfp",
       "Hierarchical Fair Packing (fgcs Algorithm 5); add --eviction belady for HFP's Belady",
       {{"flip", "1", "package flipping in phase 2 (fgcs Fig. 3)"},
        {"ready", "1", "Ready reordering inside each GPU's package"},
        {"fast_start", "0", "first round pairs tasks sharing any data without the maximum search"},
        {"weighted", "1", "shared weight in bytes (0: in data count, M in largest data)"},
        {"fitting_partner", "0", "phase 1 looks for partners among those whose union fits (0: the paper's lines 27-28, best partner then the fit test)"},
        {"flip_constituents", "0", "flipping splits a package that fits in M into the two packages that built it (the 2021 report's rule (c))"},
        {"steal", "1", "a GPU whose package has no ready task steals the last ready task of the package with the most (K > 1)"},
        {"ready_scan", "0", "Ready by scanning the package at each pop instead of the incremental index (same picks, slower)"}},
       make_hfp},
      {"heteroprio",
       "Heteroprio (lahp): one bucket per kind, each architecture takes buckets in its own priority order, speedup "
       "factors keep slow workers off; serves CPU workers too",
       {{"fifo", "0", "take the first pushed task of a bucket (default: the last, as StarPU)"}},
       make_heteroprio},
      {"laheteroprio",
       "locality-aware Heteroprio (lahp): a task list per bucket and memory node, pushed where its data are, walked "
       "by distance; serves CPU workers too",
       {{"push", "auto", "memory node of a ready task: worker (the releasing one's), mc (least transfer time), sdh, sdh2, "
                         "sdhb, smwb (lahp's formulas), auto (the formula of fewest push/pop differences)"},
        {"s_cpu", "default", "S for CPU workers: closest memory nodes in the first stage (default: all)"},
        {"s_gpu", "1", "S for GPU workers"},
        {"l_cpu", "1", "locality step l for CPU workers: buckets taken per node before the next"},
        {"l_gpu", "default", "l for GPU workers (default: all their buckets)"},
        {"alpha", "0.5", "weight a of the priority distance against the transfer distance (Eq. 12)"},
        {"theta", "1000", "LS_SDHB's weight of written data"},
        {"fifo", "0", "take the first pushed task of a list (default: the last, as StarPU)"}},
       make_laheteroprio},
  };
  return registry;
}

EmbeddedPolicies<MadeScheduler>& embedded_schedulers() {
  static EmbeddedPolicies<MadeScheduler> registry;
  return registry;
}

Result<MadeScheduler> make_scheduler(std::string_view text) {
  auto spec = parse_spec(text);
  if (!spec) return spec.error();
  if (is_plugin_path(spec->name)) return make_plugin_scheduler(*spec);
  if (is_embedded_name(spec->name)) return embedded_schedulers().make(*spec, "scheduler");
  std::string valid;
  for (const auto& info : scheduler_registry()) {
    if (info.name == spec->name) {
      auto params = Params::bind(*spec, info.params, "scheduler");
      if (!params) return params.error();
      for (const auto& param : info.params) {  // every declared parameter must parse
        if (param.key == "seed") {
          auto seed = params->integer("seed");
          if (!seed) return seed.error();
          if (*seed < 0) return make_error("scheduler '" + info.name + "': seed must not be negative");
        }
      }
      auto scheduler = info.make(*params);
      if (!scheduler) return scheduler.error();
      for (auto& [key, value] : (*scheduler)->recorded_params()) params->record(key, std::move(value));
      return MadeScheduler{std::move(*scheduler), params->canonical()};
    }
    valid += (valid.empty() ? "" : ", ") + info.name;
  }
  return make_error("unknown scheduler '" + spec->name + "' (valid: " + valid + ")");
}

std::string short_scheduler_spec(std::string_view text) {
  auto spec = parse_spec(text);
  if (!spec) return std::string(text);
  // by its own name, without path and identity
  if (is_plugin_path(spec->name) || is_embedded_name(spec->name)) return plugin_label(*spec);
  for (const auto& info : scheduler_registry()) {
    if (info.name != spec->name) continue;
    std::string out = spec->name;
    char separator = ':';
    for (const auto& [key, value] : spec->values) {
      const auto declared = std::find_if(info.params.begin(), info.params.end(), [&](const ParamSpec& p) { return p.key == key; });
      if (declared != info.params.end() && declared->default_value == value) continue;
      out += separator + key + "=" + value;
      separator = ',';
    }
    return out;
  }
  return std::string(text);
}

}  // namespace tilelens
