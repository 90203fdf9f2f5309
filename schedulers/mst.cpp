// Maximum Spanning Tree order (fgcs section 4.2, Algorithm 2, after Yoo et al.): Prim's
// algorithm on the task graph with edge weight = number of shared input data, starting from
// the first submitted task; the next task is the unvisited one with the largest key, ties to
// the earliest submitted (REFERENCE.md, mst_policy.c). Unreachable tasks keep key 0 and so
// come in submission order once the reachable ones are exhausted.
#include <queue>

#include "schedulers/static_order.hpp"

namespace tilelens {

std::vector<TaskId> maximum_spanning_tree_order(const Workload& workload) {
  const auto& submitted = workload.submission_order();
  const std::size_t count = submitted.size();
  std::vector<std::uint32_t> position(count);
  for (std::uint32_t p = 0; p < count; ++p) position[submitted[p]] = p;

  std::vector<std::uint32_t> key(count, 0), shared(count, 0);
  std::vector<char> visited(count, 0);
  std::vector<std::uint32_t> touched;
  struct Candidate {
    std::uint32_t key;
    std::uint32_t vertex;
    bool operator<(const Candidate& other) const {  // max key first, then smallest vertex
      return key != other.key ? key < other.key : vertex > other.vertex;
    }
  };
  std::priority_queue<Candidate> queue;
  key[0] = 1;
  queue.push({1, 0});
  std::size_t lowest_unvisited = 0;
  std::vector<TaskId> order;
  order.reserve(count);
  while (order.size() < count) {
    std::uint32_t v = 0;
    bool found = false;
    while (!queue.empty()) {
      const Candidate top = queue.top();
      queue.pop();
      if (!visited[top.vertex] && key[top.vertex] == top.key) {
        v = top.vertex;
        found = true;
        break;
      }
    }
    if (!found) {
      while (visited[lowest_unvisited]) ++lowest_unvisited;
      v = static_cast<std::uint32_t>(lowest_unvisited);
    }
    visited[v] = 1;
    order.push_back(submitted[v]);
    for (const Access& access : workload.accesses(submitted[v])) {
      if (!reads(access.mode)) continue;
      for (TaskId reader : workload.readers(access.data)) {
        const std::uint32_t q = position[reader];
        if (visited[q]) continue;
        if (shared[q]++ == 0) touched.push_back(q);
      }
    }
    for (std::uint32_t q : touched) {
      if (shared[q] > key[q]) {
        key[q] = shared[q];
        queue.push({key[q], q});
      }
      shared[q] = 0;
    }
    touched.clear();
  }
  return order;
}

namespace {

class MaximumSpanningTree final : public OrderedScheduler {
 protected:
  std::vector<TaskId> compute_order(const Workload& workload, const Platform&, const SchedulerContext&) override {
    return maximum_spanning_tree_order(workload);
  }
};

}  // namespace

std::unique_ptr<Scheduler> make_maximum_spanning_tree(const Params&) {
  return std::make_unique<MaximumSpanningTree>();
}

}  // namespace tilelens
