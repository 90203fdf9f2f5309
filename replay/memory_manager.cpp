// The memory model's manager; see memory_manager.hpp.
#include "replay/memory_manager.hpp"

#include "replay/fgcs_memory_manager.hpp"
#include "replay/starpu_memory_manager.hpp"

namespace tilelens::replay_detail {
namespace {

struct Make {
  ReplayState& state;
  std::unique_ptr<MemoryManager> operator()(const StarpuMemoryRules& rules) const {
    return std::make_unique<StarpuMemoryManager>(state, rules);
  }
  std::unique_ptr<MemoryManager> operator()(const FgcsMemoryRules&) const { return std::make_unique<FgcsMemoryManager>(state); }
};

}  // namespace

std::unique_ptr<MemoryManager> make_memory_manager(ReplayState& state, const MemoryModel& model) {
  return std::visit(Make{state}, model.rules);
}

}  // namespace tilelens::replay_detail
