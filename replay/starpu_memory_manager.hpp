// StarPU 1.3.10's memory manager (docs/starpu-memory-manager.md says where in StarPU's source
// each rule comes from), each rule one of StarpuMemoryRules' parameters: the dmda family's
// push-time prefetch, every node's fetches before its prefetches with a pause at the first
// prefetch it cannot place, limits on transfers in flight, prefetches that only use free
// memory, a clean replica reused before reclaiming twice the room, the idle write-back
// (idle_writeback.hpp), and data without a home dropped at the end. Internal to replay/.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "model/priority_key.hpp"
#include "replay/node_memory.hpp"

namespace tilelens::replay_detail {

class StarpuMemoryManager final : public NodeMemory {
 public:
  StarpuMemoryManager(ReplayState& state, const StarpuMemoryRules& rules);

  void reset(SchedulerContext& context) override;
  // With tidy_skips_busy or referenced_stay, what the task takes: StarPU's handle's current_mode.
  void task_ready(TaskId task) override;
  void prefetch_on_push(TaskId task) override;
  void serve(FunctionRef<void(GpuId)> try_start) override;
  // A node with nothing in flight and no fetch waiting starts its next idle write-back before
  // its workers pop: StarPU's driver makes progress (tidy, then the idle list when nothing is
  // pending, datawizard.c:29-66) before it pops the task whose fetch would keep it busy.
  void before_pops() override;
  // With progress_between_tasks, a transfer ending while every worker of its node computes is
  // held until one of them ends its task.
  void finish_transfer(std::uint32_t id) override;
  void flush() override { write_home(rules_.flush_homeless); }
  // A task waits for any write-back leaving its node of data it writes (idle, promoted, or asked
  // by another node): StarPU's fetch to write a datum with a pending request waits for it
  // (coherency.c:486-506, nwait, counted for a write only).
  bool may_start(GpuId g, TaskId task) const override;
  // With pop_when_fetched, not while a task g holds and has not started waits for its data.
  bool may_pop(GpuId g) const override;
  // With sync_reclaim and sequential_reclaim: g's driver is inside its fetch's reclaim, waiting
  // for a victim's write-back, and polls no running task until the reclaim's last write-back
  // has ended and its fetch allocates or gives up (NodeMemory::reclaim_ending); a task that
  // ended meanwhile is noticed then, before that allocation and the prefetches after it.
  bool holds_completion(GpuId g) const override {
    const std::uint32_t n = s_.workers[g].node;
    const Reclaim& reclaim = reclaims_[n];
    return rules_.sync_reclaim && reclaim.under_way && reclaim.worker == g && !reclaim_ending(n);
  }
  bool orders_starts() const override { return rules_.ordered_starts; }
  bool ended_workers_pop_last() const override { return rules_.polling_drivers; }
  // The task's fetch: with recency_at_request its hits refresh their data now (and its start does
  // not), with write_at_hit a hit for writing makes that copy the only valid one; with
  // fetch_list_order it promotes the first hops it finds waiting, in its data order.
  void task_buffered(GpuId g, TaskId task) override;

 private:
  std::uint32_t transfer_limit(bool prefetch) const override { return prefetch ? rules_.max_prefetches : rules_.max_fetches; }
  bool prefetch_may_evict() const override { return rules_.prefetch_evicts; }
  bool clean_first() const override { return rules_.clean_first; }
  double reclaim_factor() const override { return rules_.reclaim; }
  // While a fetch's eviction write-backs run, StarPU refuses every other allocation on the node
  // (reclaiming[node], memalloc.c:1545-1550, copy_driver.c:218).
  bool may_allocate(std::uint32_t n) const override { return !(rules_.sync_reclaim && eviction_writebacks_[n] > 0); }
  bool touch_at_start() const override { return !rules_.recency_at_request; }
  bool write_at_load() const override { return rules_.write_at_load; }
  bool invalid_keeps_room() const override { return rules_.invalid_keeps_room; }
  // With referenced_stay: a replica a request references, or one of a datum a task is writing.
  bool pinned(std::uint32_t n, DataId d) const override;
  bool sequential_reclaim() const override { return rules_.sequential_reclaim; }
  bool insert_at_allocation() const override { return rules_.insert_at_allocation; }
  // With write_at_hit: a held task's request to write d, which waited for this write-back,
  // completes now and makes n's copy the only valid one. With list_at_second_hop: the loads of
  // d through the host that start now take their place on their node's list of replicas.
  void writeback_ended(std::uint32_t n, DataId d) override;
  std::span<const Access> request_order(TaskId task) const override {
    return rules_.handle_order ? s_.w.accesses_by_data(task) : s_.w.accesses(task);
  }
  // With requests_at_push, the data whose push-time prefetch request still waits go first.
  std::span<const Access> issue_order(std::uint32_t n, TaskId task) const override;
  void load_requested(std::uint32_t n, DataId d) override;
  // With relay_requests, the first hop waits in the source node's requests (relays_).
  void relay_through_host(std::uint32_t n, DataId d, std::uint32_t source, TaskId for_task) override;


  // fetches_first: every node's fetches, then its prefetches while they can start.
  void issue_by_level();
  // Push-time prefetches into node n, for the tasks queued there and not taken by a worker
  // yet. False when one had to wait.
  bool prefetch_pushed(std::uint32_t n);
  // With shared_push_requests: node n's push-time requests served in priority order while they fit.
  bool serve_push_requests(std::uint32_t n);
  bool relays_above_started(std::uint32_t n, std::int64_t priority);
  enum class PushLoad : std::uint8_t { Started, NotNeeded, Waits };
  // Started when d fits in node n's free memory now; NotNeeded when d is there or loading.
  PushLoad start_push_load(std::uint32_t n, DataId d, TaskId task);
  void queue_prefetch(std::uint32_t n, TaskId task);
  // Node h's queued first hops: with `prefetches` false those a task the destination holds
  // needs (fetches), while h has fewer than max_fetches transfers in flight; otherwise the
  // rest too, highest priority first down to `lowest`, while h has fewer than max_prefetches.
  // False when one had to wait.
  bool serve_relays(std::uint32_t h, bool prefetches, std::int64_t lowest);
  // The priority of a task's push-time prefetch: its own, or above every task's when the schedule
  // imposes an order on its worker (a sched.rec's Workerorder: StarPU asks at INT_MAX - Workerorder,
  // coherency.c:973-978), the earliest place first.
  std::int64_t push_priority(TaskId task) const;
  // The request's priority on a node's lists: its push-time prefetch's, when the rules order requests.
  std::int64_t request_priority(TaskId task) const { return rules_.prioritized_requests ? push_priority(task) : 0; }
  // Above every task's priority by more than the number of tasks: a Workerorder's base.
  std::int64_t above_priorities_ = 0;
  void write_back_idle();
  // StarPU's tidy on node n, then its next idle write-back if nothing is in flight there.
  void write_back_idle(std::uint32_t n);
  // Node n's next queued idle write-back, if any is still needed, starts now.
  void start_idle_writeback(std::uint32_t n);
  // With same_pass_pop: whether a worker of node n pops in the pass that noticed its task's end
  // (its next task has its data and starts at once).
  bool pops_in_this_pass(std::uint32_t n) const;
  // StarPU's tidy walk on node n (memalloc.c:1096-1245): untidy replicas counted clean, or queued for write-back.
  void tidy(std::uint32_t n);
  // Whether a worker of node n waits for data of its next task that is not even loading.
  bool fetch_waiting(std::uint32_t n) const;
  // The queued idle write-backs of the data that a task a worker holds writes start now, as
  // fetches; with fetch_list_order they join the node's fetch list (promoted_) instead.
  void promote_idle_writebacks();
  // With fetch_list_order: the promoted write-backs of every node without a reclaim under way
  // start, after the fetches before them.
  void start_promoted();
  // With fetch_list_order: a fetch of d into node n moves the first hops of d's load waiting as
  // prefetches into the fetch list.
  void promote_relays(std::uint32_t n, DataId d);
  // Whether node n has a promoted write-back of d waiting in its fetch list.
  bool promoted(std::uint32_t n, DataId d) const { return std::find(promoted_[n].begin(), promoted_[n].end(), d) != promoted_[n].end(); }
  // Whether a queued idle write-back of d from node n still has something to carry home.
  bool still_dirty_here(std::uint32_t n, DataId d) const {
    return books_.copy(n, d) == Copy::Resident && !books_.host_valid(d) && books_.writeback_from(d) < 0;
  }

  // Whether some copy of d is referenced in StarPU's sense: a task held on a node uses it, or a
  // transfer or queued idle write-back involves it.
  bool referenced(DataId d) const;

  const StarpuMemoryRules rules_;
  // Per task access (Workload::accesses order), with requests_at_push: a push-time prefetch request
  // for it waits in its node's list (it keeps its task's priority when a fetch promotes it).
  std::vector<char> push_requested_;
  // With shared_push_requests, StarPU's requests themselves: push_prefetches_ holds indices into
  // push_requests_, and per (node, data) the index of the request waiting for it, if any
  // (kNoPushRequest otherwise), until a load of it is asked for.
  struct PushRequest {
    TaskId task;  // the task whose push made it
    DataId data;
    std::int64_t priority;
  };
  std::vector<PushRequest> push_requests_;
  static constexpr std::uint32_t kNoPushRequest = ~0u;
  std::vector<std::uint32_t> push_request_of_;
  // The priority of the push-time request waiting for d on node n (0 when none).
  std::int64_t waiting_priority(std::uint32_t n, DataId d) const {
    const std::uint32_t request = push_request_of_[s_.slot(n, d)];
    return request == kNoPushRequest ? 0 : push_requests_[request].priority;
  }
  // Per (node, data), with write_at_hit: the last task whose request to write it updated the states.
  std::vector<TaskId> request_written_;
  mutable std::vector<Access> issue_scratch_;
  // Per datum: whether the last task that took it writes it (StarPU's current_mode W).
  std::vector<char> taken_for_write_;
  // Per node: whether prefetching pauses until the next event, the tasks to prefetch there
  // since their push, in the order the node serves them (by priority when the rules say so,
  // then in request order).
  std::vector<char> prefetch_paused_;
  std::vector<char> pops_in_this_pass_;  // per node, with same_pass_pop: pops_in_this_pass at this pass
  std::vector<PriorityFifo> push_prefetches_;
  bool single_node_prefetch_ = false;  // every pushed task is prefetched into the one memory node
  // Per source node: first hops of loads through the host waiting to start, in request order.
  struct Relay {
    DataId data = 0;
    std::uint32_t to = 0;  // the node the load goes to
    std::int64_t priority = 0;
    // With fetch_list_order: its place in the fetch list, once a fetch asked for it or promoted
    // it (0 while it waits as a prefetch).
    std::uint64_t fetched = 0;
  };
  std::vector<std::vector<Relay>> relays_;
  std::uint64_t fetch_sequence_ = 0;  // the last place given in a fetch list
  // Per node: idle write-backs promoted to fetches, waiting for the node's reclaim to end.
  std::vector<std::vector<DataId>> promoted_;
  // Per node, with progress_between_tasks: transfers that ended while every worker computed.
  std::vector<std::vector<std::uint32_t>> unnoticed_transfers_;
  // A worker whose task has ended computes no more, though the end may wait to be noticed (its
  // driver inside a synchronous reclaim, holds_completion): the transfers it waits for reach it.
  bool every_worker_computes(std::uint32_t n) const {
    const auto& workers = s_.nodes[n].workers;
    return !workers.empty() && std::all_of(workers.begin(), workers.end(), [&](GpuId g) {
      return s_.workers[g].running && s_.workers[g].end_ns > s_.now;
    });
  }
  // Per (node, data), with list_at_second_hop: a load through the host whose replica joins the
  // node's list when its second hop starts.
  std::vector<char> listed_at_second_hop_;
  std::vector<std::uint32_t> awaiting_second_hop_;  // per node: how many such replicas
  // What issue_by_level reads has changed when this count has (books and ReplayState::changes).
  std::uint64_t serve_key() const { return books_.generation() + s_.changes; }
  static constexpr std::uint64_t kNoQuietPass = ~std::uint64_t{0};
  std::uint64_t quiet_key_ = kNoQuietPass;  // the count at the last pass that changed nothing
};

}  // namespace tilelens::replay_detail
