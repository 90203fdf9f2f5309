// The hypergraph-partitioning scheduler of the DARTS slides: split the tasks into K parts, one
// per GPU, so that the parts share as little data as possible, then serve each part on its GPU
// with Ready, and let a GPU whose part has no ready task steal the last ready task of the
// part with the most ready tasks.
//
// The slides partition the task-data hypergraph with hMETIS, which Debian does not ship
// (neither PaToH). We use METIS (libmetis-dev), a graph partitioner, on a graph standing for
// the hypergraph (see partition_tasks): vertices are tasks with equal weights (balanced task
// counts), and the readers of each data are joined so that the edge cut follows the bytes
// replicated on several GPUs. Scotch would serve as well; METIS is seeded, so deterministic.
// A part keeps the submission order of its tasks. One GPU: the submission order.
#include <metis.h>

#include <algorithm>
#include <mutex>

#include "schedulers/queue_server.hpp"
#include "schedulers/static_order.hpp"

namespace tilelens {

std::vector<std::uint32_t> partition_tasks(const Workload& workload, std::uint32_t parts, std::uint64_t seed) {
  const std::size_t m = workload.task_count();
  std::vector<std::uint32_t> part(m, 0);
  if (parts <= 1 || m == 0) return part;
  // The graph: tasks are vertices; the readers of each data are joined as a clique when they
  // are few (kClique or less) and as a path in submission order otherwise, each edge weighing
  // the data's size. A path costs as many cut edges as the readers change part along it, which
  // follows the number of parts the data is read in far better than a star (tried first: on
  // matmul2d METIS then cut every row and column) and keeps the graph linear in the accesses.
  constexpr std::size_t kClique = 6;
  const auto& order = workload.submission_order();
  std::vector<std::uint32_t> position(m);
  for (std::uint32_t p = 0; p < m; ++p) position[order[p]] = p;
  const double unit = static_cast<double>(std::max<std::uint64_t>(1, workload.largest_data_bytes())) / 1000.0;
  std::vector<std::vector<std::pair<idx_t, idx_t>>> neighbours(m);
  std::vector<TaskId> readers;
  for (DataId d = 0; d < workload.data_count(); ++d) {
    readers.assign(workload.readers(d).begin(), workload.readers(d).end());
    if (readers.size() < 2) continue;
    std::sort(readers.begin(), readers.end(), [&](TaskId a, TaskId b) { return position[a] < position[b]; });
    const auto weight = static_cast<idx_t>(std::max(1.0, static_cast<double>(workload.data()[d].bytes) / unit));
    const auto join = [&](TaskId a, TaskId b) {
      neighbours[a].push_back({static_cast<idx_t>(b), weight});
      neighbours[b].push_back({static_cast<idx_t>(a), weight});
    };
    if (readers.size() <= kClique) {
      for (std::size_t x = 0; x < readers.size(); ++x) {
        for (std::size_t y = x + 1; y < readers.size(); ++y) join(readers[x], readers[y]);
      }
    } else {
      for (std::size_t x = 0; x + 1 < readers.size(); ++x) join(readers[x], readers[x + 1]);
    }
  }
  auto vertices = static_cast<idx_t>(m);
  std::vector<idx_t> xadj{0}, adjncy, adjwgt;
  for (TaskId t = 0; t < m; ++t) {
    auto& list = neighbours[t];
    std::sort(list.begin(), list.end());
    for (std::size_t k = 0; k < list.size(); ++k) {  // tasks sharing several data: one edge, summed
      if (k > 0 && list[k].first == list[k - 1].first) {
        adjwgt.back() += list[k].second;
        continue;
      }
      adjncy.push_back(list[k].first);
      adjwgt.push_back(list[k].second);
    }
    xadj.push_back(static_cast<idx_t>(adjncy.size()));
  }
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = static_cast<idx_t>(seed % 2147483647);
  idx_t constraints = 1, nparts = static_cast<idx_t>(parts), cut = 0;
  std::vector<idx_t> result(m, 0);
  // METIS keeps its random state in a process-wide variable: two partitions at once (a sweep's
  // parallel replays) would draw from each other's sequence and stop being reproducible.
  static std::mutex metis_mutex;
  const std::lock_guard<std::mutex> lock(metis_mutex);
  const int status = METIS_PartGraphKway(&vertices, &constraints, xadj.data(), adjncy.data(), nullptr, nullptr, adjwgt.data(),
                                         &nparts, nullptr, nullptr, options, &cut, result.data());
  if (status != METIS_OK) {
    // Cannot happen on a valid graph; keep going with contiguous blocks of the submission order.
    for (std::size_t p = 0; p < m; ++p) part[order[p]] = static_cast<std::uint32_t>(p * parts / m);
    return part;
  }
  for (TaskId t = 0; t < m; ++t) part[t] = static_cast<std::uint32_t>(result[t]);
  return part;
}

namespace {

class Partitioned final : public Scheduler {
 public:
  Partitioned(std::uint64_t seed, QueueServer::Options serving) : seed_(seed), serving_(serving) {}

  void prepare(const Workload& workload, const Platform& platform, const SchedulerContext& context) override {
    const auto part = partition_tasks(workload, platform.gpus, seed_);
    QueueServer::Options serving = serving_;
    serving.count_scans = context.count_scans;
    server_.reset(workload, platform.gpus, *context.memory, serving);
    for (TaskId t : workload.submission_order()) server_.append(part[t], t);
  }
  void push(TaskId task) override { server_.push(task); }
  std::optional<TaskId> pop(GpuId gpu) override { return server_.pop(gpu); }
  void on_load_requested(GpuId g, DataId d) override { server_.on_state(g, d, ReplicaState::Loading); }
  void on_data_loaded(GpuId g, DataId d) override { server_.on_state(g, d, ReplicaState::Resident); }
  void on_data_evicted(GpuId g, DataId d) override { server_.on_state(g, d, ReplicaState::Absent); }
  std::uint64_t tasks_scanned() const override { return server_.tasks_scanned(); }

 private:
  std::uint64_t seed_;
  QueueServer::Options serving_;
  QueueServer server_;
};

}  // namespace

Result<std::unique_ptr<Scheduler>> make_partitioned(const Params& params) {
  auto seed = params.integer("seed");
  if (!seed) return seed.error();
  if (*seed < 0) return make_error("scheduler 'partition': seed must not be negative");
  QueueServer::Options serving;
  if (auto status = params.flags({{"ready", &serving.ready}, {"steal", &serving.steal}, {"ready_scan", &serving.scan}}); !status) {
    return status.error();
  }
  return std::unique_ptr<Scheduler>(std::make_unique<Partitioned>(static_cast<std::uint64_t>(*seed), serving));
}

}  // namespace tilelens
