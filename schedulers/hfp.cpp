// HFP: the packing (see hfp.hpp) and the scheduler that serves it.
//
// The scheduler gives package g to GPU g. Options, each on its own as in the paper's variants:
// flip (package flipping), ready (Ready reordering inside the GPU's package, fgcs section 4.3),
// fast_start, weighted, steal. "HFP with Belady" is `--eviction belady`: this scheduler
// exposes each GPU's remaining package as its known future, which is the per-GPU list of next
// uses REFERENCE.md describes. On K GPUs a GPU whose package has no ready task steals the last
// ready task of the package with the most ready tasks (issue 4: "load balancing by task
// stealing at the end"). On a DAG only pushed (ready) tasks are served, in package order.
//
// Departures from the paper, written in docs/schedulers.md: flipping is applied to phase-2
// merges only (the paper: "a concern appears in the second step"; in phase 1 both packages
// fit in M, so their head and tail sub-packages are the whole packages and every flip ties);
// the partner search in a round excludes packages already merged in that round, which is
// what Algorithm 5's line 27 does with the SharedData values of the round's start.
#include "schedulers/hfp.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "schedulers/queue_server.hpp"
#include "schedulers/static_order.hpp"

namespace tilelens {
namespace {

using PackageId = std::uint32_t;

class Packer {
 public:
  Packer(const Workload& workload, const HfpOptions& options) : w_(workload), options_(options) {}

  HfpPacking run() {
    init();
    while (!packed()) round();
    return finish();
  }

 private:
  struct Package {
    std::vector<TaskId> tasks;
    std::vector<DataId> data;  // distinct inputs, sorted
    double weight = 0;
    bool alive = true;
    // tasks[0, split) and tasks[split, end) are the two packages merged last to build this
    // one (0 for a single task): flipping's rule (c).
    std::size_t split = 0;
  };
  struct Best {
    double weight = 0;            // shared with `partner`, the first that shares the most
    PackageId partner = kNoId;
    double fitting_weight = 0;    // the most shared with a partner whose union fits in M
    bool valid = false;
  };

  bool packed() const { return alive_ <= std::max<std::uint32_t>(options_.packages, 1); }  // K packages left

  double weight_of(DataId d) const { return options_.weighted ? static_cast<double>(w_.data()[d].bytes) : 1.0; }

  void init() {
    const auto& order = w_.submission_order();
    const std::size_t m = order.size();
    packages_.resize(m);
    holders_.assign(w_.data_count(), {});
    best_.assign(m, {});
    acc_.assign(m, 0);
    taken_.assign(m, 0);
    mark_.assign(w_.data_count(), 0);
    limit_ = options_.weighted ? options_.memory_bytes
                               : std::max(1.0, std::floor(options_.memory_bytes /
                                                          static_cast<double>(std::max<std::uint64_t>(w_.largest_data_bytes(), 1))));
    for (PackageId p = 0; p < m; ++p) {
      Package& package = packages_[p];
      package.tasks = {order[p]};
      for (const Access& access : w_.accesses(order[p])) {
        if (reads(access.mode)) package.data.push_back(access.data);
      }
      std::sort(package.data.begin(), package.data.end());
      package.data.erase(std::unique(package.data.begin(), package.data.end()), package.data.end());
      for (DataId d : package.data) {
        package.weight += weight_of(d);
        holders_[d].push_back(p);
      }
      by_size_.insert({1, p});
    }
    alive_ = static_cast<std::uint32_t>(m);
  }

  // acc_[p] = weight shared by `i` and p, for every p in touched_.
  void gather(PackageId i) {
    touched_.clear();
    for (DataId d : packages_[i].data) {
      const double weight = weight_of(d);
      for (PackageId p : holders_[d]) {
        if (p == i) continue;
        if (acc_[p] == 0) touched_.push_back(p);
        acc_[p] += weight;
      }
    }
  }

  bool fits(PackageId i, PackageId j, double shared) const {
    return !phase1_ || packages_[i].weight + packages_[j].weight - shared <= limit_;
  }

  // The partner sharing the most with `i` (first on ties), skipping packages merged this
  // round when `exclude_taken`; with fitting_partner, in phase 1 only partners whose union
  // with `i` fits. Also the most `i` shares with a partner whose union fits (line 11's max).
  Best best_partner(PackageId i, bool exclude_taken) {
    ++result_.partner_searches;
    gather(i);
    Best best;
    for (PackageId p : touched_) {
      const double shared = acc_[p];
      acc_[p] = 0;
      if (exclude_taken && taken_[p]) continue;
      const bool fitting = fits(i, p, shared);
      if (fitting) best.fitting_weight = std::max(best.fitting_weight, shared);
      if (options_.fitting_partner && !fitting) continue;
      if (shared > best.weight || (shared == best.weight && p < best.partner)) {
        best.weight = shared;
        best.partner = p;
      }
    }
    best.valid = true;
    return best;
  }

  const Best& cached_best(PackageId i) {
    if (!best_[i].valid) best_[i] = best_partner(i, false);
    return best_[i];
  }

  void round() {
    ++result_.rounds;
    const std::size_t smallest = by_size_.begin()->first;
    round_.clear();
    for (auto it = by_size_.begin(); it != by_size_.end() && it->first == smallest; ++it) round_.push_back(it->second);
    // Fast start replaces the first round's search for each package's best partner, the
    // search it exists to save (fgcs 5.2): it runs before any of it.
    if (options_.fast_start && result_.rounds == 1 && phase1_) {
      fast_start_round();
      return;
    }

    // Line 11: in phase 1, the most shared by a pair whose union fits; line 17: by any pair.
    const auto round_max = [&] {
      double max_shared = 0;
      for (PackageId i : round_) max_shared = std::max(max_shared, phase1_ ? cached_best(i).fitting_weight : cached_best(i).weight);
      return max_shared;
    };
    double max_shared = round_max();
    if (phase1_ && max_shared == 0) {
      end_phase1();
      max_shared = round_max();
    }
    if (!phase1_ && max_shared == 0) {
      for (PackageId i : round_) drop_non_connected(i);
      return;
    }
    std::vector<PackageId> merged;
    for (PackageId i : round_) {
      if (packed()) break;
      if (taken_[i]) continue;
      // Lines 27-28: the partner sharing the most among those not merged this round, merged
      // only if it reaches the round's maximum and, in phase 1, their union fits.
      Best best = cached_best(i);
      if (best.weight < max_shared) continue;
      if (best.partner == kNoId || taken_[best.partner]) best = best_partner(i, true);
      if (best.partner == kNoId || best.weight != max_shared || !fits(i, best.partner, best.weight)) continue;
      taken_[i] = taken_[best.partner] = 1;
      merged.push_back(i);
      merged.push_back(best.partner);
      merge(i, best.partner);
    }
    for (PackageId p : merged) taken_[p] = 0;
    // Departure: under the paper's rule a phase-1 round can merge nothing (every smallest
    // package's best partner shares more than the round's maximum and does not fit), and
    // Algorithm 5 would then repeat that round forever. No merge within M is left to make
    // by that rule, so phase 1 ends there.
    if (merged.empty() && phase1_) end_phase1();
  }

  // fgcs "fast start": on the first round, each task pairs with the first task sharing any
  // input that is still free, without searching the maximum.
  void fast_start_round() {
    std::vector<PackageId> merged;
    for (PackageId i : round_) {
      if (packed()) break;
      if (taken_[i]) continue;
      PackageId partner = kNoId;
      for (DataId d : packages_[i].data) {
        for (PackageId p : holders_[d]) {
          if (p == i || taken_[p] || !fits(i, p, shared_weight(packages_[i].data, packages_[p].data))) continue;
          partner = p;
          break;
        }
        if (partner != kNoId) break;
      }
      if (partner == kNoId) continue;
      taken_[i] = taken_[partner] = 1;
      merged.push_back(i);
      merged.push_back(partner);
      merge(i, partner);
    }
    for (PackageId p : merged) taken_[p] = 0;
  }

  double shared_weight(const std::vector<DataId>& a, const std::vector<DataId>& b) const {
    double shared = 0;
    for (std::size_t x = 0, y = 0; x < a.size() && y < b.size();) {
      if (a[x] < b[y]) {
        ++x;
      } else if (b[y] < a[x]) {
        ++y;
      } else {
        shared += weight_of(a[x]);
        ++x;
        ++y;
      }
    }
    return shared;
  }

  // The alive packages in package order (the index of their first task).
  std::vector<PackageId> alive_in_order() const {
    std::vector<PackageId> alive;
    for (const auto& [size, p] : by_size_) {
      (void)size;
      alive.push_back(p);
    }
    std::sort(alive.begin(), alive.end());
    return alive;
  }

  void end_phase1() {
    phase1_ = false;
    for (PackageId p : alive_in_order()) result_.phase1_packages.push_back(packages_[p].tasks);
    for (Best& best : best_) best.valid = false;
  }

  void remove_holder(DataId d, PackageId p) {
    auto& list = holders_[d];
    list.erase(std::find(list.begin(), list.end(), p));
  }

  void drop_non_connected(PackageId i) {
    Package& package = packages_[i];
    non_connected_.insert(non_connected_.end(), package.tasks.begin(), package.tasks.end());
    for (DataId d : package.data) remove_holder(d, i);
    by_size_.erase({package.tasks.size(), i});
    package = Package{};
    package.alive = false;
    --alive_;
  }

  void merge(PackageId i, PackageId j) {
    ++result_.merges;
    if (options_.flip && !phase1_ && packages_[i].tasks.size() > 1 && packages_[j].tasks.size() > 1) flip(i, j);
    Package& a = packages_[i];
    Package& b = packages_[j];
    by_size_.erase({a.tasks.size(), i});
    by_size_.erase({b.tasks.size(), j});

    std::vector<DataId> data;
    data.reserve(a.data.size() + b.data.size());
    std::size_t x = 0, y = 0;
    while (x < a.data.size() || y < b.data.size()) {
      if (y == b.data.size() || (x < a.data.size() && a.data[x] < b.data[y])) {
        data.push_back(a.data[x++]);
      } else if (x == a.data.size() || b.data[y] < a.data[x]) {
        const DataId d = b.data[y++];
        *std::find(holders_[d].begin(), holders_[d].end(), j) = i;
        data.push_back(d);
        a.weight += weight_of(d);
      } else {
        remove_holder(b.data[y], j);
        data.push_back(a.data[x]);
        ++x;
        ++y;
      }
    }
    a.data = std::move(data);
    a.split = a.tasks.size();
    a.tasks.insert(a.tasks.end(), b.tasks.begin(), b.tasks.end());
    b = Package{};
    b.alive = false;
    --alive_;
    by_size_.insert({a.tasks.size(), i});
    best_[i].valid = false;
    for (DataId d : a.data) {
      for (PackageId p : holders_[d]) best_[p].valid = false;
    }
  }

  // The distinct inputs of the longest head (or tail) of `tasks` whose inputs fit in M
  // (at least one task).
  std::vector<DataId> sub_package(const std::vector<TaskId>& tasks, bool from_head) {
    ++stamp_;
    std::vector<DataId> data;
    double weight = 0;
    for (std::size_t n = 0; n < tasks.size(); ++n) {
      const TaskId task = tasks[from_head ? n : tasks.size() - 1 - n];
      double added = 0;
      const std::size_t before = data.size();
      for (const Access& access : w_.accesses(task)) {
        if (!reads(access.mode) || mark_[access.data] == stamp_) continue;
        mark_[access.data] = stamp_;
        data.push_back(access.data);
        added += weight_of(access.data);
      }
      if (n > 0 && weight + added > limit_) {
        data.resize(before);
        break;
      }
      weight += added;
    }
    return data;
  }

  double shared_unsorted(const std::vector<DataId>& a, const std::vector<DataId>& b) {
    ++stamp_;
    for (DataId d : a) mark_[d] = stamp_;
    double shared = 0;
    for (DataId d : b) {
      if (mark_[d] == stamp_) shared += weight_of(d);
    }
    return shared;
  }

  // fgcs Fig. 3: reverse Pi and/or Pj so that the sub-packages sharing the most end up
  // adjacent. Ties prefer reversing both, then the second, then the first, then none
  // (REFERENCE.md, HFP.c).
  void flip(PackageId i, PackageId j) {
    const auto a_head = head_or_tail(packages_[i], true), a_tail = head_or_tail(packages_[i], false);
    const auto b_head = head_or_tail(packages_[j], true), b_tail = head_or_tail(packages_[j], false);
    const double both = shared_unsorted(a_head, b_tail);
    const double second = shared_unsorted(a_tail, b_tail);
    const double first = shared_unsorted(a_head, b_head);
    const double none = shared_unsorted(a_tail, b_head);
    const double best = std::max({both, second, first, none});
    const auto reverse = [&](PackageId p) {
      Package& package = packages_[p];
      std::reverse(package.tasks.begin(), package.tasks.end());
      if (package.split > 0) package.split = package.tasks.size() - package.split;
    };
    if (best == both) {
      reverse(i);
      reverse(j);
    } else if (best == second) {
      reverse(j);
    } else if (best == first) {
      reverse(i);
    } else {
      return;
    }
    ++result_.flips;
  }

  // Flipping's head (or tail) sub-package: with flip_constituents, of a package built by a
  // merge whose inputs fit in M, the first (or second) of the two packages merged to build it
  // (the 2021 report's rule (c)); else the longest head (or tail) whose inputs fit (rules (a)
  // and (b): the whole package when it fits).
  std::vector<DataId> head_or_tail(const Package& package, bool head) {
    if (options_.flip_constituents && package.split > 0 && package.weight <= limit_) {
      const std::span<const TaskId> tasks(package.tasks);
      return distinct_inputs(head ? tasks.first(package.split) : tasks.subspan(package.split));
    }
    return sub_package(package.tasks, head);
  }

  std::vector<DataId> distinct_inputs(std::span<const TaskId> tasks) {
    ++stamp_;
    std::vector<DataId> data;
    for (TaskId task : tasks) {
      for (const Access& access : w_.accesses(task)) {
        if (!reads(access.mode) || mark_[access.data] == stamp_) continue;
        mark_[access.data] = stamp_;
        data.push_back(access.data);
      }
    }
    return data;
  }

  HfpPacking finish() {
    for (PackageId p : alive_in_order()) result_.packages.push_back(std::move(packages_[p].tasks));
    result_.non_connected_tasks = non_connected_.size();
    if (!non_connected_.empty()) {
      if (result_.packages.empty()) {
        result_.packages.push_back(std::move(non_connected_));
      } else {
        // One GPU: the very end of the schedule (Algorithm 5, line 35). K GPUs: the package
        // with the least work, so the packages stay balanced.
        std::size_t lightest = 0;
        double least = -1;
        for (std::size_t k = 0; k < result_.packages.size(); ++k) {
          double flops = 0;
          for (TaskId t : result_.packages[k]) flops += w_.tasks()[t].flops;
          if (least < 0 || flops < least) {
            least = flops;
            lightest = k;
          }
        }
        auto& target = result_.packages[lightest];
        target.insert(target.end(), non_connected_.begin(), non_connected_.end());
      }
    }
    return std::move(result_);
  }

  const Workload& w_;
  HfpOptions options_;
  double limit_ = 0;
  std::vector<Package> packages_;
  std::vector<std::vector<PackageId>> holders_;  // per data: the alive packages reading it
  std::vector<Best> best_;
  std::vector<double> acc_;
  std::vector<PackageId> touched_, round_;
  std::vector<char> taken_;  // merged in the current round (Algorithm 5's Q)
  std::vector<std::uint32_t> mark_;
  std::uint32_t stamp_ = 0;
  std::set<std::pair<std::size_t, PackageId>> by_size_;  // the alive packages by task count
  std::vector<TaskId> non_connected_;
  std::uint32_t alive_ = 0;
  bool phase1_ = true;
  HfpPacking result_;
};

class Hfp final : public Scheduler, public TaskFuture {
 public:
  Hfp(HfpOptions options, QueueServer::Options serving) : options_(options), serving_(serving) {}

  void prepare(const Workload& workload, const Platform& platform, const SchedulerContext& context) override {
    workload_ = &workload;
    options_.memory_bytes = platform.memory_bytes;
    options_.packages = platform.gpus;
    const HfpPacking packing = hfp_pack(workload, options_);
    uses_.assign(platform.gpus, {});
    for (auto& uses : uses_) uses.reset(workload.data_count());
    QueueServer::Options serving = serving_;
    serving.count_scans = context.count_scans;
    server_.reset(workload, platform.gpus, *context.memory, serving,
                  [this](GpuId g, TaskId task, std::size_t position) { uses_[g].append_reads(*workload_, task, position); });
    for (GpuId g = 0; g < platform.gpus && g < packing.packages.size(); ++g) {
      for (TaskId task : packing.packages[g]) server_.append(g, task);
    }
  }

  void push(TaskId task) override { server_.push(task); }
  std::optional<TaskId> pop(GpuId gpu) override { return server_.pop(gpu); }
  void on_load_requested(GpuId g, DataId d) override { server_.on_state(g, d, ReplicaState::Loading); }
  void on_data_loaded(GpuId g, DataId d) override { server_.on_state(g, d, ReplicaState::Resident); }
  void on_data_evicted(GpuId g, DataId d) override { server_.on_state(g, d, ReplicaState::Absent); }
  std::uint64_t tasks_scanned() const override { return server_.tasks_scanned(); }
  bool serves_out_of_future_order() const override { return serving_.ready || serving_.steal; }

  const TaskFuture* future() const override { return this; }
  std::uint64_t next_use(GpuId gpu, DataId data) const override {
    const TaskQueue& queue = server_.queue(gpu);
    return uses_[gpu].next(data, [&](std::uint64_t position) { return queue.taken(position); });
  }

 private:
  HfpOptions options_;
  QueueServer::Options serving_;
  const Workload* workload_ = nullptr;
  QueueServer server_;
  std::vector<NextUseIndex> uses_;
};

}  // namespace

HfpPacking hfp_pack(const Workload& workload, const HfpOptions& options) { return Packer(workload, options).run(); }

Result<std::unique_ptr<Scheduler>> make_hfp(const Params& params) {
  HfpOptions options;
  QueueServer::Options serving;
  if (auto status = params.flags({{"flip", &options.flip}, {"fast_start", &options.fast_start}, {"weighted", &options.weighted},
                                  {"fitting_partner", &options.fitting_partner}, {"flip_constituents", &options.flip_constituents},
                                  {"ready", &serving.ready}, {"steal", &serving.steal}, {"ready_scan", &serving.scan}});
      !status) {
    return status.error();
  }
  return std::unique_ptr<Scheduler>(std::make_unique<Hfp>(options, serving));
}

}  // namespace tilelens
