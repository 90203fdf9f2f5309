// The replay's memory manager: how memory nodes serve the workers' requests for data (DESIGN
// section 3, docs/replay.md). It keeps the books of every copy (memory_state.hpp), issues the
// fetches and prefetches of the tasks held in the workers' buffers, makes room by evicting as
// the eviction policy says, moves data over the platform's links (through the ExecutionDevice),
// writes dirty data back, invalidates stale copies, and classifies every load as a fetch, a
// prefetch or unused (emit_load). Which requests may evict, in what order a node serves them,
// how many transfers it keeps in flight and when it writes back are the memory model's rules
// (model/memory_model.hpp: StarPU 1.3.10's by default, the fgcs paper's selectable); this is
// the only place that reads them. The engine (engine.cpp) runs the event loop and the tasks'
// lifecycle, and calls in at each event. Internal to replay/.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/memory_model.hpp"
#include "replay/decision_clock.hpp"
#include "replay/idle_writeback.hpp"
#include "replay/memory_state.hpp"
#include "replay/node_flags.hpp"
#include "replay/replay_state.hpp"
#include "replay/slot_pool.hpp"

namespace tilelens::replay_detail {

class MemoryManager {
 public:
  MemoryManager(ReplayState& state, const MemoryModel& model);

  // Before the scheduler prepares: the books sized for the run. `context` gets the dmda
  // family's push-time prefetch (MemoryModel::prefetch_at_push) and the future's changes.
  void reset(SchedulerContext& context);
  // After the eviction policy attached: whether it wants on_future_changed.
  void set_follows_future(bool follows) { follows_future_ = follows; }

  const MemoryState& books() const { return books_; }

  // StarPU prefetches a task at push when its architecture has a single memory node.
  void prefetch_on_push(TaskId task);
  // The requests of every worker's held tasks, in the order the memory model serves them, then
  // the idle write-backs; `try_start(g)` starts worker g's next task if its data are resident.
  // A template, so that the engine's try_start inlines here: it runs several times an event.
  template <class TryStart>
  void serve(TryStart&& try_start) {
    if (model_.fetches_first) {
      for (GpuId g = 0; g < s_.W; ++g) {
        if (!s_.workers[g].running && !s_.workers[g].held.empty()) try_start(g);
      }
      issue_by_level();
      for (GpuId g = 0; g < s_.W; ++g) {
        if (!s_.workers[g].running && !s_.workers[g].held.empty()) try_start(g);  // write-only outputs are allocated at once
      }
    } else {
      // Each worker's requests in buffer order, worker after worker.
      for (GpuId g = 0; g < s_.W; ++g) {
        const Worker& worker = s_.workers[g];
        if (worker.held.empty()) continue;
        if (!worker.running) try_start(g);
        const std::uint64_t allocations = s_.allocations;
        issue_requests(g);
        if (!worker.running && s_.allocations != allocations) try_start(g);  // write-only outputs are allocated at once
      }
      push_prefetches();
    }
    after_requests();
  }

  // A task entered worker g's buffer / starts on g (its data resident; `ready` is when g could
  // have started it) / ended on g.
  void task_buffered(GpuId g, TaskId task);
  void task_started(GpuId g, TaskId task, std::int64_t ready);
  void task_done(GpuId g, TaskId task);
  void finish_transfer(std::uint32_t id);
  // At the end of the run: dirty data go home (StarPU keeps data without a home out).
  void flush();
  void summarize(ReplaySummary& summary);
  // The transfer `id` in words, for an error.
  std::string describe_transfer(std::uint32_t id) const;
  std::int64_t victim_ticks() const { return victim_clock_.ticks(); }
  std::int64_t future_ticks() const { return future_clock_.ticks(); }

 private:
  struct Transfer {
    bool is_load = true;
    DataId data = 0;
    std::uint32_t node = 0;           // memory node: destination of a load, source of a write-back
    std::int32_t source = kFromHost;  // a load's source: kFromHost or the first worker of a node
    std::int64_t start_ns = 0;
    std::uint32_t version = 0;  // a write-back: the version of the data it carries
    WritebackCause cause = WritebackCause::Eviction;
  };
  struct OpenLoad {  // a load not yet classified (fetch / prefetch / unused)
    std::int32_t source = kFromHost;
    std::int64_t issue_ns = 0;
    std::int64_t end_ns = 0;
  };
  // Which of a worker's held tasks a call requests for: all in buffer order, the next one to
  // run (a fetch), or those after it (prefetches). False when a request had to wait.
  enum class Requests { All, Fetch, Prefetch };

  // MemoryModel::fetches_first: every node's fetches, then its prefetches while they can start.
  void issue_by_level();
  // MemoryModel::prefetch_at_push without fetches_first: the pushed tasks' prefetches.
  void push_prefetches();
  // MemoryModel::idle_writeback's pass, after the requests of an event.
  void after_requests();
  bool issue_requests(GpuId g, Requests which = Requests::All);
  // Push-time prefetches (MemoryModel::prefetch_at_push) into node n, for the tasks queued
  // there and not taken by a worker yet. False when one had to wait.
  bool prefetch_pushed(std::uint32_t n);
  void queue_prefetch(std::uint32_t n, TaskId task);
  // Whether node n may start one more transfer of a fetch (or of a prefetch) now.
  bool may_start_transfer(std::uint32_t n, bool prefetch) const;
  void write_back_idle();
  // d on n is the most recently used now: a task starts with it, or a request found it there
  // (MemoryModel::touch_on_request).
  void touch(std::uint32_t n, DataId d) {
    s_.policy.on_used(n, d);
    if (idle_) idle_->used(n, d);
  }
  // Takes room on n for a new replica of d (loading, or a write-only output) and counts it.
  void reserve_replica(std::uint32_t n, DataId d);
  void request_host_copies(GpuId g);
  bool head_before(GpuId a, GpuId b) const;
  bool make_room(GpuId g, double bytes, std::size_t index);
  std::optional<DataId> choose_victim(std::uint32_t n, const VictimRequest& request, bool clean_only);
  void evict(std::uint32_t n, DataId d, TaskId for_task);
  void free_copy(std::uint32_t n, DataId d, TaskId for_task, EvictionCause cause, bool wrote_back);
  void invalidate_copies(DataId d, std::uint32_t keep, TaskId writer);
  void request_load(std::uint32_t n, DataId d);
  // A load into node n from the host (kFromHost) or from node `source`.
  void start_load(std::uint32_t n, DataId d, std::int32_t source);
  void start_writeback(std::uint32_t n, DataId d, WritebackCause cause);
  void emit_load(std::uint32_t n, DataId d, LoadKind kind, TaskId task);
  void notify_future(DataId d);
  void copy_leaves(std::uint32_t n, DataId d) {
    if (held_uses_[s_.slot(n, d)] > 0) ++epoch_[n];
  }
  // The victim search's test, made once: resident, and not protected for the request at hand
  // (by the protection stamp, or on a node of one worker asking for its last held task, by
  // held_uses_ alone).
  bool evictable(DataId d) const {
    if (d >= s_.nd || books_.copy(victim_.node, d) != Copy::Resident) return false;
    if (victim_.clean_only && dirty_.test(victim_.node, d)) return false;
    return victim_.by_uses ? held_uses_[s_.slot(victim_.node, d)] == 0 : protect_[s_.slot(victim_.node, d)] != victim_.stamp;
  }
  struct Evictable {
    const MemoryManager* manager;
    bool operator()(DataId d) const { return manager->evictable(d); }
  };

  ReplayState& s_;
  const MemoryModel& model_;
  MemoryState books_;
  // The victim search at hand: its node, its protection stamp, whether it protects by
  // held_uses_ alone, whether it takes clean replicas only (MemoryModel::clean_first).
  struct {
    std::uint32_t node = 0, stamp = 0;
    bool by_uses = false, clean_only = false;
  } victim_;
  Evictable evictable_{this};
  std::vector<std::uint32_t> protect_;  // per (node, data): stamp of the last protection pass
  std::uint32_t protect_stamp_ = 0;
  std::vector<TaskId> evict_for_;         // per (node, data): whose request started an eviction write-back
  std::vector<std::uint32_t> held_uses_;  // per (node, data): tasks held by the node's workers that access it
  std::vector<std::uint64_t> epoch_;      // per node: bumped when a copy that a held task accesses leaves
  std::vector<std::uint32_t> open_load_;  // per (node, data): its load's id in open_loads_, or kNoId
  SlotPool<OpenLoad> open_loads_;
  SlotPool<Transfer> transfers_;  // in flight, by the id the device reports them ended with
  // Per node: transfers in flight (loads into it, write-backs from it), replicas held
  // (resident, loading or evicting), dirty replicas (newer than the host's copy), whether
  // prefetching pauses until the next event, the tasks to prefetch there since their push.
  std::vector<std::uint32_t> in_flight_, replicas_;
  NodeFlags dirty_;
  std::vector<char> prefetch_paused_;
  std::vector<std::deque<TaskId>> push_prefetches_;
  bool single_node_prefetch_ = false;  // every pushed task is prefetched into the one memory node
  std::unique_ptr<IdleWriteback> idle_;  // MemoryModel::idle_writeback
  std::vector<char> homeless_;  // per data: its first access writes it (MemoryModel::flush_homeless)
  bool follows_future_ = false;  // the policy wants on_future_changed
  std::uint64_t stale_writebacks_ = 0;
  DecisionClock victim_clock_, future_clock_;
};

}  // namespace tilelens::replay_detail
