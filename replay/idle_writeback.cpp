// StarPU's idle write-back; see idle_writeback.hpp. The dirty head follows memalloc.c's
// MC_LIST_PUSH_BACK, MC_LIST_ERASE and the tidy loop's increment (memalloc.c:60-90, 1116-1118).
#include "replay/idle_writeback.hpp"

#include <algorithm>

namespace tilelens::replay_detail {

void IdleWriteback::reset(std::uint32_t nodes, std::size_t data_count) {
  recency_.reset(nodes, data_count);
  untidy_.reset(nodes, data_count);
  dirty_head_.assign(nodes, std::nullopt);
  queued_.assign(nodes, {});
  queued_count_.assign(nodes * data_count, 0);
  data_count_ = data_count;
}

void IdleWriteback::reserved(std::uint32_t n, DataId d) {
  recency_.push_back(n, d);
  untidy_.set(n, d);
  if (!dirty_head_[n]) dirty_head_[n] = d;  // the only untidy replica for now
}

// Erasing the dirty head moves it to the next replica.
void IdleWriteback::unlink(std::uint32_t n, DataId d) {
  if (dirty_head_[n] == d) dirty_head_[n] = recency_.next_after(n, d);
  recency_.unlink(n, d);
}

// StarPU moves a used chunk to the back of its list (erase, then push back).
void IdleWriteback::used(std::uint32_t n, DataId d) {
  if (!recency_.contains(n, d)) return;
  unlink(n, d);
  recency_.push_back(n, d);
  if (untidy_.test(n, d) && !dirty_head_[n]) dirty_head_[n] = d;
}

void IdleWriteback::released(std::uint32_t n, DataId d) {
  unlink(n, d);
  untidy_.clear(n, d);
}

// Whole numbers of replicas, rounded down, as StarPU counts them: with 32 replicas it starts
// when none is clean and stops at 3. A replica the walk skips (a task writes it) freezes the
// dirty head there, so the next walk looks at it again; otherwise the head follows the walk.
void IdleWriteback::tidy(std::uint32_t n, std::uint32_t replicas, FunctionRef<Visit(DataId)> visit) {
  const auto clean = [&] { return replicas - untidy_.count(n); };
  const auto share = [&](double percent) { return static_cast<std::uint32_t>(replicas * percent / 100); };
  if (!(clean() < share(min_clean_))) return;
  bool skipped = false;
  std::optional<DataId> at = dirty_head_[n];
  while (at && clean() < share(target_clean_)) {
    const DataId d = *at;
    const std::optional<DataId> next = recency_.next_after(n, d);
    if (untidy_.test(n, d)) {
      switch (visit(d)) {
        case Visit::Skip: skipped = true; break;
        case Visit::CountClean: untidy_.clear(n, d); break;
        case Visit::WriteBack:
          untidy_.clear(n, d);  // StarPU counts it clean once its write-back is asked for
          queue(n, d);
          break;
      }
    }
    at = next;
    if (!at || !skipped) dirty_head_[n] = at;
  }
}

std::optional<DataId> IdleWriteback::next_writeback(std::uint32_t n, FunctionRef<bool(DataId)> needed) {
  std::deque<DataId>& queue = queued_[n];
  while (!queue.empty()) {
    const DataId d = queue.front();
    queue.pop_front();
    --queued_count_[n * data_count_ + d];
    if (needed(d)) return d;
  }
  return std::nullopt;
}

bool IdleWriteback::take_queued(std::uint32_t n, DataId d) {
  std::uint32_t& count = queued_count_[n * data_count_ + d];
  if (count == 0) return false;
  std::deque<DataId>& queue = queued_[n];
  queue.erase(std::find(queue.begin(), queue.end(), d));
  --count;
  return true;
}

}  // namespace tilelens::replay_detail
