// RANDOM: the submission order shuffled with a seed (recorded in the scheduler's spec).
//
// STARPU-RANDOM: StarPU 1.3.10's random policy (sched_policies/random_policy.c): each
// ready task goes to a worker drawn at random in proportion to its speed, from StarPU's
// drand48 stream (seeded with `seed`; StarPU's SimGrid mode seeds it with 0, starpu_rand.h:33-35),
// and joins that worker's list at the front when its priority is not the lowest, at the back
// otherwise (starpu_push_local_task with prio = !!priority, jobs.c:848-853: StarPU's priorities
// are ranks, the lowest 0). A worker takes the front of its list. On one GPU this is a stack.
#include <algorithm>
#include <deque>

#include "util/rng.hpp"
#include "schedulers/static_order.hpp"

namespace tilelens {
namespace {

class RandomOrder final : public OrderedScheduler {
 public:
  explicit RandomOrder(std::uint64_t seed) : seed_(seed) {}

 protected:
  std::vector<TaskId> compute_order(const Workload& workload, const Platform&, const SchedulerContext&) override {
    std::vector<TaskId> order = workload.submission_order();
    Rng rng(seed_);
    rng.shuffle(order);
    return order;
  }

 private:
  std::uint64_t seed_;
};

// POSIX drand48 as glibc computes it: X' = (0x5DEECE66D X + 11) mod 2^48, returned as X' / 2^48,
// srand48(s) starting from (s << 16) | 0x330E.
class Drand48 {
 public:
  explicit Drand48(std::uint64_t seed) : x_(((seed & 0xFFFFFFFFu) << 16) | 0x330Eu) {}
  double next() {
    x_ = (0x5DEECE66DULL * x_ + 0xBULL) & ((1ULL << 48) - 1);
    return static_cast<double>(x_) / static_cast<double>(1ULL << 48);
  }

 private:
  std::uint64_t x_;
};

class StarpuRandom final : public Scheduler {
 public:
  explicit StarpuRandom(std::uint64_t seed) : seed_(seed) {}
  void prepare(const Workload& workload, const Platform& platform, const SchedulerContext&) override {
    w_ = &workload;
    lists_.assign(platform.workers(), {});
    rng_ = Drand48(seed_);
    lowest_ = INT64_MAX;
    for (const Task& t : workload.tasks()) lowest_ = std::min(lowest_, t.priority);
    // Per kind, the workers that run it, each with its speed on that kind (StarPU's relative
    // speedup), and their sum.
    able_.assign(workload.kinds().size(), {});
    speed_sum_.assign(workload.kinds().size(), 0);
    for (KindId k = 0; k < workload.kinds().size(); ++k) {
      for (GpuId g = 0; g < platform.workers(); ++g) {
        const double speed = platform.is_cpu_worker(g) ? platform.cpu_gflops_of(workload.kinds()[k]) : platform.gflops_of(workload.kinds()[k]);
        if (!(speed > 0)) continue;
        able_[k].emplace_back(g, speed);
        speed_sum_[k] += speed;
      }
    }
  }
  void push(TaskId task) override {
    // The first worker whose running sum of speeds reaches the draw.
    const Task& t = w_->tasks()[task];
    const auto& able = able_[t.kind];
    if (able.empty()) return;
    const double draw = rng_.next() * speed_sum_[t.kind];
    GpuId chosen = able.back().first;
    double running = 0;
    for (const auto& [g, speed] : able) {
      if (running + speed >= draw) {
        chosen = g;
        break;
      }
      running += speed;
    }
    if (t.priority != lowest_) {
      lists_[chosen].push_front(task);
    } else {
      lists_[chosen].push_back(task);
    }
  }
  std::optional<TaskId> pop(GpuId g) override {
    if (lists_[g].empty()) return std::nullopt;
    const TaskId task = lists_[g].front();
    lists_[g].pop_front();
    return task;
  }
  bool uses_cpu_workers() const override { return true; }

 private:
  std::uint64_t seed_;
  const Workload* w_ = nullptr;
  std::vector<std::deque<TaskId>> lists_;
  std::vector<std::vector<std::pair<GpuId, double>>> able_;  // per kind
  std::vector<double> speed_sum_;                            // per kind
  Drand48 rng_{0};
  std::int64_t lowest_ = 0;
};

}  // namespace

std::unique_ptr<Scheduler> make_random_order(const Params& params) {
  return std::make_unique<RandomOrder>(static_cast<std::uint64_t>(*params.integer("seed")));
}
std::unique_ptr<Scheduler> make_starpu_random(const Params& params) {
  return std::make_unique<StarpuRandom>(static_cast<std::uint64_t>(*params.integer("seed")));
}

}  // namespace tilelens
