// RANDOM: the submission order shuffled with a seed (recorded in the scheduler's spec).
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

}  // namespace

std::unique_ptr<Scheduler> make_random_order(const Params& params) {
  return std::make_unique<RandomOrder>(static_cast<std::uint64_t>(*params.integer("seed")));
}

}  // namespace tilelens
