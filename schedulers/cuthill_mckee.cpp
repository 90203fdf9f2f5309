// Cuthill-McKee and Reverse-Cuthill-McKee orders (fgcs section 4.1, Algorithm 1).
//
// The task graph G^T joins tasks that share input data; following the paper's adaptation to
// heterogeneous sizes, an edge weighs the bytes the two tasks share, so the weighted degree
// of a task is the sum over its inputs of size x (readers - 1). Algorithm 1 as printed:
// start from the vertex of smallest weighted degree, append the unvisited neighbours of each
// vertex sorted by non-decreasing weighted degree, reverse at the end for RCM. Ties go to
// the earlier submitted task. Two departures, written in docs/schedulers.md: when the graph is
// disconnected (Algorithm 1 would stop) the walk restarts from the unvisited vertex of
// smallest weighted degree; and StarPU's cuthillmckee_policy.c sorts neighbours by edge
// weight instead of degree, which we do not follow (the paper wins, REFERENCE.md).
#include <algorithm>
#include <numeric>

#include "schedulers/static_order.hpp"

namespace tilelens {

std::vector<TaskId> cuthill_mckee_order(const Workload& workload, bool reverse) {
  const auto& submitted = workload.submission_order();
  const std::size_t count = submitted.size();
  std::vector<std::uint32_t> position(count);
  for (std::uint32_t p = 0; p < count; ++p) position[submitted[p]] = p;

  std::vector<double> degree(count, 0);
  for (std::uint32_t p = 0; p < count; ++p) {
    for (const Access& access : workload.accesses(submitted[p])) {
      if (!reads(access.mode)) continue;
      const double sharers = static_cast<double>(workload.readers(access.data).size()) - 1;
      degree[p] += sharers * static_cast<double>(workload.data()[access.data].bytes);
    }
  }
  const auto lighter = [&](std::uint32_t a, std::uint32_t b) {
    return degree[a] != degree[b] ? degree[a] < degree[b] : a < b;
  };
  std::vector<std::uint32_t> by_degree(count);
  std::iota(by_degree.begin(), by_degree.end(), 0);
  std::sort(by_degree.begin(), by_degree.end(), lighter);

  std::vector<char> visited(count, 0);
  std::vector<std::uint32_t> sigma;
  sigma.reserve(count);
  std::vector<std::uint32_t> neighbours;
  std::size_t restart = 0;
  std::size_t i = 0;
  while (sigma.size() < count) {
    if (i == sigma.size()) {  // start, or a new connected component
      while (visited[by_degree[restart]]) ++restart;
      visited[by_degree[restart]] = 1;
      sigma.push_back(by_degree[restart]);
    }
    neighbours.clear();
    for (const Access& access : workload.accesses(submitted[sigma[i]])) {
      if (!reads(access.mode)) continue;
      for (TaskId reader : workload.readers(access.data)) {
        const std::uint32_t q = position[reader];
        if (!visited[q]) {
          visited[q] = 1;
          neighbours.push_back(q);
        }
      }
    }
    std::sort(neighbours.begin(), neighbours.end(), lighter);
    sigma.insert(sigma.end(), neighbours.begin(), neighbours.end());
    ++i;
  }
  if (reverse) std::reverse(sigma.begin(), sigma.end());
  std::vector<TaskId> order(count);
  for (std::size_t p = 0; p < count; ++p) order[p] = submitted[sigma[p]];
  return order;
}

namespace {

class CuthillMcKee final : public OrderedScheduler {
 public:
  explicit CuthillMcKee(bool reverse) : reverse_(reverse) {}

 protected:
  std::vector<TaskId> compute_order(const Workload& workload, const Platform&, const SchedulerContext&) override {
    return cuthill_mckee_order(workload, reverse_);
  }

 private:
  bool reverse_;
};

}  // namespace

std::unique_ptr<Scheduler> make_cuthill_mckee(const Params&) { return std::make_unique<CuthillMcKee>(false); }
std::unique_ptr<Scheduler> make_reverse_cuthill_mckee(const Params&) { return std::make_unique<CuthillMcKee>(true); }

}  // namespace tilelens
