// What every memory manager does the same way, whatever its model's rules: the books of every
// copy (memory_state.hpp), a worker's requests for its held tasks' data, making room by
// evicting as the eviction policy says, moving data over the platform's links (through the
// ExecutionDevice), writing dirty data back, invalidating stale copies, and classifying every
// load as a fetch, a prefetch or unused (emit_load). The rules that differ between models are
// the implementations' (starpu_memory_manager.hpp, fgcs_memory_manager.hpp): which requests
// may evict and how much, how many transfers a node keeps in flight, in what order the nodes
// serve requests, what goes home at the end, and StarPU's idle write-back. Internal to replay/.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "replay/memory_manager.hpp"
#include "replay/chunk_allocator.hpp"
#include "replay/decision_clock.hpp"
#include "replay/idle_writeback.hpp"
#include "replay/memory_state.hpp"
#include "replay/node_flags.hpp"
#include "replay/replay_state.hpp"
#include "replay/slot_pool.hpp"

namespace tilelens::replay_detail {

class NodeMemory : public MemoryManager {
 public:
  explicit NodeMemory(ReplayState& state) : s_(state) {}

  void reset(SchedulerContext& context) override;
  void set_follows_future(bool follows) override { follows_future_ = follows; }
  const MemoryState& books() const override { return books_; }
  void log_state_changes() override { books_.start_change_log(); }
  void prefetch_on_push(TaskId) override {}
  void task_buffered(GpuId g, TaskId task) override;
  bool may_start(GpuId, TaskId) const override { return true; }
  void task_started(GpuId g, TaskId task, std::int64_t ready) override;
  void task_done(GpuId g, TaskId task) override;
  void finish_transfer(std::uint32_t id) override;
  // The memory node a transfer in flight loads into or writes back from.
  std::uint32_t transfer_node(std::uint32_t id) const { return transfers_[id].node; }
  void summarize(ReplaySummary& summary) override;
  std::string describe_transfer(std::uint32_t id) const override;
  double free_bytes(std::uint32_t n) const override {
    return chunks_ ? chunks_->free_bytes(n) : s_.options.platform.memory_bytes - books_.used(n);
  }
  std::int64_t victim_ticks() const override { return victim_clock_.ticks(); }
  std::int64_t future_ticks() const override { return future_clock_.ticks(); }

 protected:
  // The model's rules that the shared mechanics ask for.
  // Transfers a node may have in flight before a fetch (or a prefetch) waits; 0: no limit.
  virtual std::uint32_t transfer_limit(bool prefetch) const = 0;
  // Whether a request for a held task after the next one to run (a prefetch) may evict.
  virtual bool prefetch_may_evict() const = 0;
  // Whether a fetch that must evict takes a clean replica first, if the policy has one.
  virtual bool clean_first() const = 0;
  // How many times the room it needs a fetch frees once it must take dirty replicas (1: just the room).
  virtual double reclaim_factor() const = 0;
  // Whether node n may allocate room for a new replica now.
  virtual bool may_allocate(std::uint32_t) const { return true; }
  // Whether a task starting makes its data the most recently used on its node.
  virtual bool touch_at_start() const { return true; }
  // Whether a load for a task that writes the datum makes the loaded copy the only valid one as
  // it arrives (StarPU's request carries the access mode), rather than when the task ends.
  virtual bool write_at_load() const { return false; }
  // Whether a copy that a write on another node makes stale keeps its room until evicted.
  virtual bool invalid_keeps_room() const { return false; }
  // Whether node n's copy of d may not be evicted now for a reason of the model's own; asked
  // only when pins_ is set, to keep the victim search of models without such reasons short.
  virtual bool pinned(std::uint32_t, DataId) const { return false; }
  bool pins_ = false;
  // Whether a fetch's reclaim stops at each dirty victim until its write-back ends, then goes on
  // with the next victim (StarPU's synchronous, one-at-a-time reclaim).
  virtual bool sequential_reclaim() const { return false; }
  // Whether the eviction policy meets a new replica when its room is taken (StarPU's chunk list)
  // rather than when its load arrives.
  virtual bool insert_at_allocation() const { return false; }
  // A write-back of d from node n ended and brought the host up to date.
  virtual void writeback_ended(std::uint32_t /*n*/, DataId /*d*/) {}
  // A load of d into node n is asked for now (before it starts or waits for its source).
  virtual void load_requested(std::uint32_t /*n*/, DataId /*d*/) {}
  // The order in which a worker requests a task's data: the task's own, unless the model says
  // otherwise (StarPU's sorted handles).
  virtual std::span<const Access> request_order(TaskId task) const { return s_.w.accesses(task); }
  // The order in which a worker's requests for a task's data are served on its node: the request
  // order, unless the model ranks some requests first (StarPU's request priorities).
  virtual std::span<const Access> issue_order(std::uint32_t /*n*/, TaskId task) const { return request_order(task); }

  // Which of a worker's held tasks a call requests for: all in buffer order, the next one to
  // run (a fetch), or those after it (prefetches). False when a request had to wait.
  enum class Requests { All, Fetch, Prefetch };
  bool issue_requests(GpuId g, Requests which = Requests::All);
  // Each worker's requests in buffer order, worker after worker, starting a worker's next
  // task as soon as its data are there.
  void serve_workers_in_turn(FunctionRef<void(GpuId)> try_start);
  // Whether node n may start one more transfer of a fetch (or of a prefetch) now.
  bool may_start_transfer(std::uint32_t n, bool prefetch) const {
    const std::uint32_t limit = transfer_limit(prefetch);
    return limit == 0 || in_flight_[n] < limit;
  }
  // d on n is the most recently used now: a task starts with it, or a request found it there.
  void touch(std::uint32_t n, DataId d) {
    s_.policy.on_used(n, d);
    if (tidy_) tidy_->used(n, d);
  }
  // Whether a task held by node n's workers (running or buffered) accesses d / writes d.
  bool held_task_uses(std::uint32_t n, DataId d) const { return held_uses_[s_.slot(n, d)] > 0; }
  bool held_task_writes(std::uint32_t n, DataId d) const { return held_writes_[s_.slot(n, d)] > 0; }
  // Whether a new replica of `bytes` would find room on node n now.
  bool fits(std::uint32_t n, double bytes) const {
    return chunks_ ? chunks_->fits(n, bytes) : free_bytes(n) >= bytes;
  }
  // Takes room on n for a new replica of d (loading, or a write-only output) and counts it.
  void reserve_replica(std::uint32_t n, DataId d);
  // A load of d into node n for `for_task` (a fetch or a prefetch): from the host, over a GPU
  // link, or through the host when only a GPU without a link to n holds it (relay_through_host).
  void request_load(std::uint32_t n, DataId d, TaskId for_task);
  // The first hop of such a load: the only valid copy, on node `source`, goes home. Here at
  // once; a model may queue it among the source's own requests.
  virtual void relay_through_host(std::uint32_t /*n*/, DataId d, std::uint32_t source, TaskId /*for_task*/) {
    start_writeback(source, d, WritebackCause::Request);
  }
  void start_writeback(std::uint32_t n, DataId d, WritebackCause cause);
  // A request found d in place on node n for `writer`, a task that writes it, and the model
  // updates the states with the request's mode: the copy becomes the only valid one and dirty.
  void written_at_request(std::uint32_t n, DataId d, TaskId writer);
  // Whether a request other than a resident copy's is pending for d anywhere: a load, a
  // write-back in flight, or an idle write-back queued (StarPU's nwait, coherency.c:486-497).
  bool request_pending(DataId d) const;
  // At the end: every datum whose only valid copy is on a node goes home, those without a home
  // (whose first access writes them) only when `homeless_too`.
  void write_home(bool homeless_too);

  ReplayState& s_;
  MemoryState books_;
  // Per node: transfers in flight (loads into it, write-backs from it), replicas held
  // (resident, loading or evicting).
  std::vector<std::uint32_t> in_flight_, replicas_;
  // Per node: write-backs of replicas a request evicted, in flight.
  std::vector<std::uint32_t> eviction_writebacks_;
  // Per node, with sequential_reclaim(): a fetch's reclaim that stopped at a dirty victim and
  // goes on once that write-back has ended (walk: its stamp in victim_.passed; freed: the bytes it took).
  struct Reclaim {
    bool under_way = false;
    std::uint32_t walk = 0;
    double freed = 0;
    double bytes = 0;  // the room its fetch asks for (it frees reclaim_factor() times that)
    int round = 0;     // of _starpu_allocate_interface's three
    GpuId worker = 0;  // whose fetch it is: its driver waits
  };
  std::vector<Reclaim> reclaims_;
  // Whether node n's reclaim has done its part: its last victim is home and its fetch will
  // allocate, or give up, at its next call.
  bool reclaim_ending(std::uint32_t n) const;
  // StarPU's suballocator, when the model has it: where each replica's room is (else bytes only).
  std::unique_ptr<ChunkAllocator> chunks_;
  // StarPU's idle write-back, when the model has it: told of every replica's life.
  std::unique_ptr<IdleWriteback> tidy_;

 private:
  NodeFlags dirty_;             // per node: dirty replicas (newer than the host's copy)
  std::vector<char> homeless_;  // per data: its first access writes it
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

  void request_host_copies(GpuId g);
  bool head_before(GpuId a, GpuId b) const;
  bool make_room(GpuId g, double bytes, std::size_t index);
  bool reclaim_at_once(std::uint32_t n, double bytes, const VictimRequest& request);
  bool reclaim_in_rounds(GpuId g, double bytes, const VictimRequest& request);
  bool take_victim(std::uint32_t n, DataId victim, double bytes, bool clean_pass, const VictimRequest& request);
  std::optional<DataId> choose_victim(std::uint32_t n, const VictimRequest& request, bool clean_only);
  void evict(std::uint32_t n, DataId d, TaskId for_task);
  void free_copy(std::uint32_t n, DataId d, TaskId for_task, EvictionCause cause, bool wrote_back);
  void invalidate_copies(DataId d, std::uint32_t keep, TaskId writer);
  // With invalid_keeps_room(): a copy another node's write made stale keeps its room (Copy::Invalid)
  // until evicted (drop_invalid) or loaded again.
  void keep_invalid(std::uint32_t n, DataId d, TaskId writer);
  void drop_invalid(std::uint32_t n, DataId d);
  // The two halves of freeing a copy: its room back to the node (books, chunk, tidy list;
  // returns whether it was being evicted), and its leaving, recorded and told to the readers
  // (`tell`: the scheduler was not told already).
  bool give_back_room(std::uint32_t n, DataId d);
  void copy_gone(std::uint32_t n, DataId d, TaskId for_task, EvictionCause cause, bool wrote_back, bool tell);
  // With write_at_load, a load for `writer` that arrived on node n: its copy is the only valid one.
  void loaded_for_write(std::uint32_t n, DataId d, TaskId writer);
  // A load into node n from the host (kFromHost) or from node `source`.
  void start_load(std::uint32_t n, DataId d, std::int32_t source);
  void emit_load(std::uint32_t n, DataId d, LoadKind kind, TaskId task);
  void notify_future(DataId d);
  void copy_leaves(std::uint32_t n, DataId d) {
    if (held_uses_[s_.slot(n, d)] > 0) ++epoch_[n];
  }
  // The victim search's test, made once: resident, and not protected for the request at hand
  // (by the protection stamp, or on a node of one worker asking for its last held task, by
  // held_uses_ alone).
  bool evictable(DataId d) const {
    if (d >= s_.nd) return false;
    if (victim_.walk == 0) return may_evict(d);
    // A reclaim that goes on after a write-back does not come back to what it passed over
    // (StarPU walks its list once, from the chunk after its last victim: memalloc.c:988-1030).
    std::uint32_t& passed = victim_.passed[s_.slot(victim_.node, d)];
    if (passed == victim_.walk) return false;
    if (may_evict(d)) return true;
    passed = victim_.walk;
    return false;
  }
  bool may_evict(DataId d) const {
    const Copy copy = books_.copy(victim_.node, d);
    if (copy != Copy::Resident && copy != Copy::Invalid) return false;
    if (victim_.clean_only && dirty_.test(victim_.node, d)) return false;
    if (pins_ && pinned(victim_.node, d)) {
      victim_.pinned_seen = true;  // it will be free once its request is done: no victim is no error
      return false;
    }
    return victim_.by_uses ? held_uses_[s_.slot(victim_.node, d)] == 0 : victim_.protect[s_.slot(victim_.node, d)] != victim_.stamp;
  }
  struct Evictable {
    const NodeMemory* memory;
    bool operator()(DataId d) const { return memory->evictable(d); }
  };

  // The victim search at hand: its node, its protection stamp, whether it protects by
  // held_uses_ alone, whether it takes clean replicas only (clean_first()).
  // walk: with sequential_reclaim(), the reclaim's own stamp in `passed` (0: none).
  struct {
    std::uint32_t node = 0, stamp = 0, walk = 0;
    bool by_uses = false, clean_only = false;
    mutable bool pinned_seen = false;
    bool stalled = false;  // the last reclaim found no victim at all
    std::vector<std::uint32_t> protect;  // per (node, data): stamp of the last protection pass
    mutable std::vector<std::uint32_t> passed;  // per (node, data): the reclaim walk that passed over it
    std::uint32_t last_stamp = 0, last_walk = 0;
  } victim_;
  Evictable evictable_{this};
  std::vector<TaskId> evict_for_;         // per (node, data): whose request started an eviction write-back
  std::vector<std::uint32_t> held_uses_;  // per (node, data): tasks held by the node's workers that access it
  std::vector<std::uint32_t> held_writes_;  // per (node, data): those of them that write it
  std::vector<std::uint64_t> epoch_;      // per node: bumped when a copy that a held task accesses leaves
  std::vector<std::uint32_t> open_load_;  // per (node, data): its load's id in open_loads_, or kNoId
  std::vector<TaskId> load_writer_;       // per (node, data): the task writing d whose load is under way, or kNoId
  SlotPool<OpenLoad> open_loads_;
  SlotPool<Transfer> transfers_;  // in flight, by the id the device reports them ended with
  bool follows_future_ = false;   // the policy wants on_future_changed
  std::uint64_t stale_writebacks_ = 0;
  DecisionClock victim_clock_, future_clock_;
};

}  // namespace tilelens::replay_detail
