// Heteroprio and LAHeteroprio (lahp; REFERENCE.md "LAHeteroprio"): see heteroprio.hpp for
// the formulas. The scheduler keeps a grid of task lists, one per (bucket, memory node); the
// memory nodes are the host (node 0, where CPU workers compute and where the first ready
// tasks go) and each GPU memory (node g + 1). Plain Heteroprio is the grid with the host's
// column only: every worker walks its architecture's buckets in priority order.
//
// Departures, each also in docs/schedulers.md:
//   - within a list the last pushed task is taken first (StarPU pushes and pops at the front);
//     `fifo=1` takes the first pushed instead;
//   - the buckets and speedup factors come from the platform's rates per kind (lahp sets them
//     by hand per application);
//   - the releasing worker of a task is the one whose task ended last before its push, which
//     the executor's call order (on_task_done, then push of the successors) makes exact.
#include "schedulers/heteroprio.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <limits>
#include <numeric>

#include "schedulers/static_order.hpp"

namespace tilelens::heteroprio {

Buckets derive_buckets(const Workload& workload, const Platform& platform) {
  const std::size_t kinds = workload.kinds().size();
  Buckets buckets;
  buckets.fastest.assign(kinds, Arch::Gpu);
  buckets.slow_factor.assign(kinds, 1);
  std::vector<double> gpu(kinds), cpu(kinds), speedup(kinds);
  for (std::uint32_t k = 0; k < kinds; ++k) {
    gpu[k] = platform.gflops_of(workload.kinds()[k]);
    cpu[k] = platform.cpus > 0 ? platform.cpu_gflops_of(workload.kinds()[k]) : 0;
    speedup[k] = cpu[k] > 0 ? gpu[k] / cpu[k] : std::numeric_limits<double>::infinity();
    buckets.fastest[k] = gpu[k] >= cpu[k] ? Arch::Gpu : Arch::Cpu;
    const double slow = std::min(gpu[k], cpu[k]);
    buckets.slow_factor[k] = slow > 0 ? std::max(gpu[k], cpu[k]) / slow : 1;
    if (gpu[k] > 0) buckets.order[static_cast<int>(Arch::Gpu)].push_back(k);
    if (cpu[k] > 0) buckets.order[static_cast<int>(Arch::Cpu)].push_back(k);
  }
  auto& gpu_order = buckets.order[static_cast<int>(Arch::Gpu)];
  std::stable_sort(gpu_order.begin(), gpu_order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return speedup[a] != speedup[b] ? speedup[a] > speedup[b] : gpu[a] > gpu[b];
  });
  auto& cpu_order = buckets.order[static_cast<int>(Arch::Cpu)];
  std::stable_sort(cpu_order.begin(), cpu_order.end(), [&](std::uint32_t a, std::uint32_t b) { return speedup[a] < speedup[b]; });
  return buckets;
}

// At least N_fast x speedup: lahp's text says "more than", but its example ("six or more" for
// 3 GPUs twice faster) and StarPU's heteroprio.c (ntasks / nb_fast >= slow_factor) say at least.
bool slow_worker_may_take(std::size_t tasks_in_bucket, std::uint32_t fast_workers, double slow_factor) {
  if (fast_workers == 0) return true;
  return static_cast<double>(tasks_in_bucket) >= static_cast<double>(fast_workers) * slow_factor;
}

const char* to_string(Formula formula) {
  switch (formula) {
    case Formula::LsSdh: return "LS_SDH";
    case Formula::LsSdh2: return "LS_SDH2";
    case Formula::LsSdhb: return "LS_SDHB";
    case Formula::LcSmwb: return "LC_SMWB";
  }
  return "?";
}

std::vector<std::uint32_t> best_nodes(Formula formula, std::span<const TaskDatum> data, std::uint32_t nodes, double theta) {
  const std::uint64_t every = nodes >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << nodes) - 1;
  double total_read = 0, total_write = 0, written = 0;
  for (const TaskDatum& d : data) {
    (d.write ? total_write : total_read) += d.bytes;
    written += d.write ? 1 : 0;
  }
  std::vector<double> score(nodes, 0);
  for (std::uint32_t m = 0; m < nodes; ++m) {
    double read_on = 0, write_on = 0, count_write_on = 0, write_bytes_on_sq = 0;
    for (const TaskDatum& d : data) {
      const bool on = (d.on_nodes >> m) & 1u;
      if (!on) continue;
      if (formula == Formula::LsSdhb && (d.on_nodes & every) == every) continue;  // everywhere: says nothing
      if (d.write) {
        write_on += d.bytes;
        write_bytes_on_sq += d.bytes * d.bytes;
        ++count_write_on;
      } else {
        read_on += d.bytes;
      }
    }
    switch (formula) {
      case Formula::LsSdh: score[m] = read_on + write_on; break;
      case Formula::LsSdh2: score[m] = read_on + write_bytes_on_sq; break;
      case Formula::LsSdhb: score[m] = read_on + theta * count_write_on * write_on; break;
      case Formula::LcSmwb: {
        // A cost: negated, so that the best is the largest as for the scores.
        const double weight = data.empty() ? 1 : 2 - written / static_cast<double>(data.size());
        score[m] = -((total_read - read_on) + (total_write - write_on) * weight);
        break;
      }
    }
  }
  std::vector<std::uint32_t> best;
  const double top = *std::max_element(score.begin(), score.end());
  for (std::uint32_t m = 0; m < nodes; ++m) {
    if (score[m] == top) best.push_back(m);
  }
  return best;
}

void AutoSelector::record(const std::array<std::uint32_t, 4>& at_push, const std::array<std::uint32_t, 4>& at_pop) {
  for (std::size_t f = 0; f < 4; ++f) differences_[f] += at_push[f] != at_pop[f] ? 1 : 0;
  const auto lowest = *std::min_element(differences_.begin(), differences_.end());
  if (differences_[current_] == lowest) return;
  current_ = static_cast<std::size_t>(std::find(differences_.begin(), differences_.end(), lowest) - differences_.begin());
}

double priority_difference(std::span<const std::uint32_t> a, std::span<const std::uint32_t> b) {
  const std::size_t longest = std::max(a.size(), b.size());
  double sum = 0;
  for (std::size_t r = 0; r < longest; ++r) {
    const double x = r < a.size() ? a[r] : 0, y = r < b.size() ? b[r] : 0;
    sum += std::abs(x - y);
  }
  const double p = static_cast<double>(longest);
  return sum / ((p + 1) * (p + 2) / 2);
}

std::vector<std::vector<double>> node_distances(const std::vector<std::vector<double>>& transfer,
                                                const std::vector<std::vector<std::uint32_t>>& node_priorities, double alpha) {
  const std::size_t n = transfer.size();
  double largest = 0;
  for (const auto& row : transfer) {
    for (double t : row) largest = std::max(largest, t);
  }
  std::vector<std::vector<double>> distance(n, std::vector<double>(n, 0));
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      const double difference = i == j ? 0 : priority_difference(node_priorities[i], node_priorities[j]);
      const double moved = largest > 0 ? transfer[i][j] / largest : 0;
      distance[i][j] = (1 - difference) * alpha + moved * (1 - alpha);
    }
  }
  return distance;
}

std::vector<AccessItem> access_order(std::uint32_t node, const std::vector<std::vector<double>>& distance, std::uint32_t ranks,
                                     std::uint32_t closest, std::uint32_t step) {
  const auto n = static_cast<std::uint32_t>(distance.size());
  std::vector<std::uint32_t> others;
  for (std::uint32_t m = 0; m < n; ++m) {
    if (m != node) others.push_back(m);
  }
  std::stable_sort(others.begin(), others.end(), [&](std::uint32_t a, std::uint32_t b) { return distance[node][a] < distance[node][b]; });
  const std::uint32_t near = std::min<std::uint32_t>(closest, static_cast<std::uint32_t>(others.size()));
  step = std::max<std::uint32_t>(step, 1);
  std::vector<AccessItem> order;
  for (std::uint32_t block = 0; block < ranks; block += step) {
    const std::uint32_t end = std::min(block + step, ranks);
    for (std::uint32_t r = block; r < end; ++r) order.push_back({r, node});
    for (std::uint32_t r = block; r < end; ++r) {
      for (std::uint32_t i = 0; i < near; ++i) order.push_back({r, others[i]});
    }
  }
  for (std::uint32_t r = 0; r < ranks; ++r) {
    for (std::uint32_t i = near; i < others.size(); ++i) order.push_back({r, others[i]});
  }
  return order;
}

namespace {

enum class Push : std::uint8_t { Worker, TransferCost, Formula, Auto };

struct Options {
  bool locality = true;
  Push push = Push::Auto;
  Formula formula = Formula::LsSdhb;
  std::int64_t cpu_closest = -1, gpu_closest = 1;  // -1: every other node (StarPU's CPU default)
  std::int64_t cpu_step = 1, gpu_step = -1;        // -1: all ranks at once (StarPU's GPU default)
  double alpha = 0.5;
  double theta = 1000;
  bool fifo = false;
};

class Scheduler final : public tilelens::Scheduler {
 public:
  explicit Scheduler(Options options) : options_(options) {}

  void prepare(const Workload& workload, const Platform& platform, const SchedulerContext& context) override {
    w_ = &workload;
    platform_ = &platform;
    memory_ = context.memory;
    buckets_ = derive_buckets(workload, platform);
    nodes_ = options_.locality ? 1 + platform.memory_nodes() : 1;
    lists_.assign(workload.kinds().size() * nodes_, {});
    bucket_size_.assign(workload.kinds().size(), 0);
    workers_of_arch_ = {platform.cpus, platform.gpus};
    releaser_node_ = 0;
    at_push_.assign(options_.push == Push::Auto ? workload.task_count() : 0, {});
    node_at_push_.assign(options_.locality ? workload.task_count() : 0, 0);
    formula_at_push_.assign(options_.push == Push::Auto ? workload.task_count() : 0, 0);
    selector_ = AutoSelector{};
    differences_ = 0;
    auto_pushes_ = {};

    // Memory node distances (Eqs. 10-12): moving 1 GiB between the host and a GPU memory, or
    // between two GPU memories (over their link, else through the host).
    std::vector<std::vector<double>> transfer(nodes_, std::vector<double>(nodes_, 0));
    const double gib = 1024.0 * 1024 * 1024;
    for (std::uint32_t i = 0; i < nodes_; ++i) {
      for (std::uint32_t j = 0; j < nodes_; ++j) {
        if (i == j) continue;
        if (i == 0 || j == 0) transfer[i][j] = platform.transfer_seconds(gib);
        else transfer[i][j] = platform.gpu_link_bandwidth > 0 ? platform.transfer_seconds(gib, true) : 2 * platform.transfer_seconds(gib);
      }
    }
    std::vector<std::vector<std::uint32_t>> priorities(nodes_);
    for (std::uint32_t m = 0; m < nodes_; ++m) priorities[m] = buckets_.order[static_cast<int>(arch_of_node(m))];
    const auto distance = node_distances(transfer, priorities, options_.alpha);
    access_.assign(nodes_, {});
    for (std::uint32_t m = 0; m < nodes_; ++m) {
      const Arch arch = arch_of_node(m);
      const auto ranks = static_cast<std::uint32_t>(buckets_.order[static_cast<int>(arch)].size());
      const std::int64_t closest = arch == Arch::Cpu ? options_.cpu_closest : options_.gpu_closest;
      const std::int64_t step = arch == Arch::Cpu ? options_.cpu_step : options_.gpu_step;
      access_[m] = access_order(m, distance, ranks, closest < 0 ? nodes_ - 1 : static_cast<std::uint32_t>(closest),
                                step < 0 ? std::max<std::uint32_t>(ranks, 1) : static_cast<std::uint32_t>(step));
    }
    // Plain Heteroprio has the host column only, and every architecture walks it in its own
    // priority order (node 0's walk is the CPUs'; GPUs need theirs, with or without CPUs).
    for (int arch = 0; arch < 2; ++arch) {
      host_walk_[arch].clear();
      for (std::uint32_t r = 0; r < buckets_.order[arch].size(); ++r) host_walk_[arch].push_back({r, 0});
    }
  }

  void push(TaskId task) override {
    std::uint32_t node = 0;
    if (options_.locality) {
      if (options_.push == Push::Auto) {
        at_push_[task] = nodes_by_every_formula(task);
        const std::size_t in_use = selector_.current_index();
        node = at_push_[task][in_use];
        formula_at_push_[task] = static_cast<std::uint8_t>(in_use);
        ++auto_pushes_[in_use];
      } else {
        node = rule_node(task, releaser_node_);
      }
      node_at_push_[task] = node;
    }
    const KindId bucket = w_->tasks()[task].kind;
    lists_[slot(bucket, node)].push_back(task);
    ++bucket_size_[bucket];
  }

  std::optional<TaskId> pop(GpuId worker) override {
    const bool cpu = platform_->is_cpu_worker(worker);
    const Arch arch = cpu ? Arch::Cpu : Arch::Gpu;
    const auto& order = buckets_.order[static_cast<int>(arch)];
    for (const AccessItem& item : options_.locality ? access_[node_of(worker)] : host_walk_[static_cast<int>(arch)]) {
      const std::uint32_t bucket = order[item.rank];
      auto& list = lists_[slot(bucket, item.node)];
      if (list.empty()) continue;
      const Arch fastest = buckets_.fastest[bucket];
      if (fastest != arch &&
          !slow_worker_may_take(bucket_size_[bucket], workers_of_arch_[static_cast<int>(fastest)], buckets_.slow_factor[bucket])) {
        continue;
      }
      TaskId task = 0;
      if (options_.fifo) {
        task = list.front();
        list.erase(list.begin());
      } else {
        task = list.back();
        list.pop_back();
      }
      --bucket_size_[bucket];
      if (options_.locality) count_difference(task, worker);
      return task;
    }
    return std::nullopt;
  }

  void on_task_done(GpuId worker, TaskId) override { releaser_node_ = node_of(worker); }
  bool uses_cpu_workers() const override { return true; }

  // lahp's BMD ("Automatic DLAF selection"): how often the push rule's node for a task
  // differs between its push and its pop. For AUTO, also each formula's own count (what it
  // compares) and the pushes made under each formula.
  std::vector<std::pair<std::string, std::uint64_t>> counters() const override {
    if (!options_.locality) return {};
    std::vector<std::pair<std::string, std::uint64_t>> out = {{"bmd", differences_}};
    if (options_.push != Push::Auto) return out;
    for (std::size_t f = 0; f < kAutoFormulas.size(); ++f) {
      std::string name = to_string(kAutoFormulas[f]);
      std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      out.emplace_back("bmd_" + name, selector_.differences()[f]);
      out.emplace_back("auto_pushes_" + name, auto_pushes_[f]);
    }
    return out;
  }

 private:
  std::size_t slot(std::uint32_t bucket, std::uint32_t node) const { return static_cast<std::size_t>(bucket) * nodes_ + node; }
  Arch arch_of_node(std::uint32_t m) const { return m == 0 ? Arch::Cpu : Arch::Gpu; }
  std::uint32_t node_of(GpuId worker) const {
    if (!options_.locality || platform_->is_cpu_worker(worker)) return 0;
    return platform_->memory_node_of(worker) + 1;
  }

  void describe(TaskId task) {
    data_.clear();
    for (const Access& access : w_->accesses(task)) {
      TaskDatum datum;
      datum.bytes = static_cast<double>(w_->data()[access.data].bytes);
      datum.write = writes(access.mode);
      if (memory_->host_state(access.data) == ReplicaState::Resident) datum.on_nodes |= 1;
      for (std::uint32_t m = 1; m < nodes_; ++m) {
        if (memory_->state(platform_->first_worker_of(m - 1), access.data) == ReplicaState::Resident) datum.on_nodes |= std::uint64_t{1} << m;
      }
      data_.push_back(datum);
    }
  }
  // Among equally good nodes, the releasing worker's, else the first (StarPU's tie rule).
  std::uint32_t pick(const std::vector<std::uint32_t>& best) const {
    return std::find(best.begin(), best.end(), releaser_node_) != best.end() ? releaser_node_ : best.front();
  }
  std::uint32_t node_by(Formula formula, TaskId task) {
    describe(task);
    return pick(best_nodes(formula, data_, nodes_, options_.theta));
  }
  // AUTO's four nodes, from one look at where the task's data are.
  std::array<std::uint32_t, 4> nodes_by_every_formula(TaskId task) {
    describe(task);
    std::array<std::uint32_t, 4> nodes{};
    for (std::size_t f = 0; f < 4; ++f) nodes[f] = pick(best_nodes(kAutoFormulas[f], data_, nodes_, options_.theta));
    return nodes;
  }
  // The push rule's node for a task (all but AUTO); `worker_node` is LaRU's: the releasing
  // worker's node at push, the popping worker's at pop (lahp: "the memory node of the worker
  // that pop the task").
  std::uint32_t rule_node(TaskId task, std::uint32_t worker_node) {
    switch (options_.push) {
      case Push::Worker: return worker_node;
      case Push::TransferCost: return cheapest_node(task);
      case Push::Formula: return node_by(options_.formula, task);
      case Push::Auto: break;
    }
    return 0;
  }
  void count_difference(TaskId task, GpuId worker) {
    if (options_.push == Push::Auto) {
      const auto at_pop = nodes_by_every_formula(task);
      differences_ += at_pop[formula_at_push_[task]] != node_at_push_[task] ? 1 : 0;
      selector_.record(at_push_[task], at_pop);
      return;
    }
    differences_ += rule_node(task, node_of(worker)) != node_at_push_[task] ? 1 : 0;
  }
  // MC: the least expected transfer time of the data missing on the node.
  std::uint32_t cheapest_node(TaskId task) {
    describe(task);
    std::vector<double> cost(nodes_, 0);
    for (const TaskDatum& d : data_) {
      const bool on_a_gpu = (d.on_nodes >> 1) != 0;
      for (std::uint32_t m = 0; m < nodes_; ++m) {
        if ((d.on_nodes >> m) & 1u) continue;
        cost[m] += platform_->transfer_seconds(d.bytes, m != 0 && on_a_gpu && !(d.on_nodes & 1u) && platform_->gpu_link_bandwidth > 0);
      }
    }
    const double least = *std::min_element(cost.begin(), cost.end());
    std::vector<std::uint32_t> best;
    for (std::uint32_t m = 0; m < nodes_; ++m) {
      if (cost[m] == least) best.push_back(m);
    }
    return pick(best);
  }

  Options options_;
  const Workload* w_ = nullptr;
  const Platform* platform_ = nullptr;
  const MemoryView* memory_ = nullptr;
  Buckets buckets_;
  std::uint32_t nodes_ = 1;
  std::vector<std::vector<TaskId>> lists_;  // per (bucket, node)
  std::vector<std::size_t> bucket_size_;
  std::array<std::uint32_t, 2> workers_of_arch_{};
  std::vector<std::vector<AccessItem>> access_;  // per node: the walk of its workers
  std::vector<AccessItem> host_walk_[2];         // plain Heteroprio: per architecture, its buckets on the host column
  std::uint32_t releaser_node_ = 0;
  std::vector<std::array<std::uint32_t, 4>> at_push_;  // AUTO: each formula's node at push
  std::vector<std::uint8_t> formula_at_push_;          // AUTO: the formula in use at each task's push
  std::vector<std::uint32_t> node_at_push_;            // the node each task was pushed to
  AutoSelector selector_;
  std::uint64_t differences_ = 0;                      // BMD of the push rule in use
  std::array<std::uint64_t, 4> auto_pushes_{};         // AUTO: pushes under each formula
  std::vector<TaskDatum> data_;
};

Result<std::int64_t> count_or_default(const Params& params, const char* key) {
  if (params.text(key) == "default") return std::int64_t{-1};
  auto value = params.integer(key);
  if (!value) return value.error();
  if (*value < 1) return make_error(std::string("scheduler 'laheteroprio': ") + key + " must be 1 or more, or 'default'");
  return *value;
}

}  // namespace
}  // namespace tilelens::heteroprio

namespace tilelens {

Result<std::unique_ptr<Scheduler>> make_heteroprio(const Params& params) {
  heteroprio::Options options;
  options.locality = false;
  if (auto status = params.flags({{"fifo", &options.fifo}}); !status) return status.error();
  return std::unique_ptr<Scheduler>(std::make_unique<heteroprio::Scheduler>(options));
}

Result<std::unique_ptr<Scheduler>> make_laheteroprio(const Params& params) {
  using heteroprio::Formula;
  using heteroprio::Push;
  heteroprio::Options options;
  const std::string push = params.text("push");
  const auto by_formula = [&](Formula formula) {
    options.push = Push::Formula;
    options.formula = formula;
  };
  if (push == "auto") options.push = Push::Auto;
  else if (push == "worker") options.push = Push::Worker;
  else if (push == "mc") options.push = Push::TransferCost;
  else if (push == "sdh") by_formula(Formula::LsSdh);
  else if (push == "sdh2") by_formula(Formula::LsSdh2);
  else if (push == "sdhb") by_formula(Formula::LsSdhb);
  else if (push == "smwb") by_formula(Formula::LcSmwb);
  else return make_error("scheduler 'laheteroprio': push must be auto, worker, mc, sdh, sdh2, sdhb or smwb (got '" + push + "')");
  for (auto [key, target] : {std::pair{"s_cpu", &options.cpu_closest}, std::pair{"s_gpu", &options.gpu_closest},
                             std::pair{"l_cpu", &options.cpu_step}, std::pair{"l_gpu", &options.gpu_step}}) {
    auto value = heteroprio::count_or_default(params, key);
    if (!value) return value.error();
    *target = *value;
  }
  auto alpha = params.real("alpha");
  if (!alpha) return alpha.error();
  if (!(*alpha >= 0 && *alpha <= 1)) return make_error("scheduler 'laheteroprio': alpha must be from 0 to 1");
  options.alpha = *alpha;
  auto theta = params.real("theta");
  if (!theta) return theta.error();
  options.theta = *theta;
  if (auto status = params.flags({{"fifo", &options.fifo}}); !status) return status.error();
  return std::unique_ptr<Scheduler>(std::make_unique<heteroprio::Scheduler>(options));
}

}  // namespace tilelens
