// StarPU 1.3.10's memory manager; see starpu_memory_manager.hpp, and
// docs/starpu-memory-manager.md for where each rule comes from.
#include "replay/starpu_memory_manager.hpp"

#include <algorithm>
#include <limits>
#include <utility>

namespace tilelens::replay_detail {

StarpuMemoryManager::StarpuMemoryManager(ReplayState& state, const StarpuMemoryRules& rules) : NodeMemory(state), rules_(rules) {
  if (rules_.idle_writeback) tidy_ = std::make_unique<IdleWriteback>(rules_.min_clean, rules_.target_clean);
  // A memory smaller than one chunk could hold no small datum at all under StarPU's rule (StarPU
  // itself would fail there): such toy memories count bytes.
  if (rules_.suballocate && state.options.platform.memory_bytes >= ChunkAllocator::kChunkBytes) chunks_ = std::make_unique<ChunkAllocator>();
}

void StarpuMemoryManager::reset(SchedulerContext& context) {
  NodeMemory::reset(context);
  prefetch_paused_.assign(s_.N, 0);
  pops_in_this_pass_.assign(s_.N, 0);
  push_prefetches_.assign(s_.N, {});
  relays_.assign(s_.N, {});
  fetch_sequence_ = 0;
  promoted_.assign(s_.N, {});
  unnoticed_transfers_.assign(rules_.progress_between_tasks ? s_.N : 0, {});
  listed_at_second_hop_.assign(rules_.list_at_second_hop ? s_.N * s_.nd : 0, 0);
  awaiting_second_hop_.assign(s_.N, 0);
  quiet_key_ = kNoQuietPass;
  // StarPU's priorities are ints and a Workerorder's INT_MAX is above them all; tilelens's are
  // 64-bit bottom levels, so the base is what lies above this workload's.
  std::int64_t highest = std::numeric_limits<std::int64_t>::min();
  for (const Task& t : s_.w.tasks()) highest = std::max(highest, t.priority);
  const auto room = static_cast<std::int64_t>(s_.w.task_count()) + 1, top = std::numeric_limits<std::int64_t>::max();
  above_priorities_ = highest > top - 2 * room ? top - room : highest + room;
  taken_for_write_.assign(rules_.tidy_skips_busy || rules_.referenced_stay ? s_.nd : 0, 0);
  pins_ = rules_.referenced_stay;
  request_written_.assign(rules_.write_at_hit ? s_.N * s_.nd : 0, kNoId);
  const bool shared = rules_.requests_at_push && rules_.shared_push_requests;
  push_requested_.assign(rules_.requests_at_push && !shared ? s_.w.access_count() : 0, 0);
  push_requests_.clear();
  push_request_of_.assign(shared ? static_cast<std::size_t>(s_.N) * s_.w.data_count() : 0, kNoPushRequest);
  // StarPU prefetches a task at push when its architecture has a single memory node (every
  // scheduler: sched_policy.c), and the dmda family once it allocated the task to a worker.
  single_node_prefetch_ = rules_.prefetch_at_push && s_.N == 1;
  if (rules_.prefetch_at_push && !single_node_prefetch_) {
    context.allocated = [this](TaskId task, GpuId worker) {
      if (worker < s_.W && !s_.workers[worker].cpu) queue_prefetch(s_.workers[worker].node, task);
    };
  }
}

void StarpuMemoryManager::serve(FunctionRef<void(GpuId)> try_start) {
  if (tidy_ && rules_.wait_for_writebacks && tidy_->any_queued()) promote_idle_writebacks();
  if (rules_.fetches_first) {
    const auto start_idle_workers = [&] {
      for (GpuId g = 0; g < s_.W; ++g) {
        if (!s_.workers[g].running && !s_.workers[g].held.empty()) try_start(g);
      }
    };
    start_idle_workers();
    const std::uint64_t allocations = s_.allocations;
    issue_by_level();
    if (rules_.fetch_list_order) start_promoted();
    // Requests make data resident at once only by allocating write-only outputs: without one,
    // no worker the first pass left idle can start now.
    if (s_.allocations != allocations) start_idle_workers();
  } else {
    serve_workers_in_turn(try_start);
    if (rules_.prefetch_at_push) {
      for (std::uint32_t n = 0; n < s_.N; ++n) prefetch_pushed(n);
    }
  }
  if (tidy_ && s_.error.empty()) write_back_idle();
}

// StarPU takes a task's data when its dependencies are met, and a read-write access counts as a
// write there (data_concurrency.c:123-124); the mode stays until the next task takes the datum.
void StarpuMemoryManager::task_ready(TaskId task) {
  if (taken_for_write_.empty()) return;
  for (const Access& access : s_.w.accesses(task)) taken_for_write_[access.data] = writes(access.mode) ? 1 : 0;
}

// StarPU frees a replica only when nothing references it, and, when the last task to take the
// datum writes it, only when no copy of it anywhere is referenced (may_free_subtree,
// memalloc.c:275-295). A request references both its ends until it completes
// (data_request.c:165-181): a queued idle write-back, a write-back under way, a first hop waiting.
bool StarpuMemoryManager::pinned(std::uint32_t n, DataId d) const {
  if (tidy_ && tidy_->queued(n, d)) return true;
  if (promoted(n, d)) return true;
  if (books_.writeback_from(d) == static_cast<std::int32_t>(n)) return true;
  for (const Relay& relay : relays_[n]) {
    if (relay.data == d) return true;
  }
  return taken_for_write_[d] && referenced(d);
}

bool StarpuMemoryManager::referenced(DataId d) const {
  if (books_.writeback_from(d) >= 0) return true;
  for (std::uint32_t h = 0; h < s_.N; ++h) {
    const Copy copy = books_.copy(h, d);
    if (copy == Copy::Loading || copy == Copy::Evicting || held_task_uses(h, d) || (tidy_ && tidy_->queued(h, d)) || promoted(h, d)) return true;
  }
  return false;
}

// Before the scheduler's decision, as StarPU does (the engine asks only for tasks that only the
// bounded memory's workers can run, not the CPU workers computing from the host).
void StarpuMemoryManager::prefetch_on_push(TaskId task) {
  if (single_node_prefetch_) queue_prefetch(0, task);
}

// StarPU posts a prefetch at once: an input already there is a cache hit then, refreshed and,
// for a task that writes it, made the only valid copy (a prefetch carries the task's mode and
// hits whatever else is pending, coherency.c:505); the others wait for room in the node's queue.
void StarpuMemoryManager::queue_prefetch(std::uint32_t n, TaskId task) {
  if (rules_.touch_on_request || rules_.write_at_hit) {
    for (const Access& access : s_.w.accesses(task)) {
      if (!reads(access.mode) || books_.copy(n, access.data) != Copy::Resident) continue;
      if (rules_.touch_on_request) touch(n, access.data);
      if (rules_.write_at_hit && writes(access.mode)) written_at_request(n, access.data, task);
    }
  }
  ++s_.changes;
  if (!push_request_of_.empty()) {
    // One request per datum and node: a datum some earlier push asked for already has its
    // request, which this prefetch reuses (coherency.c:601-625), keeping its priority.
    for (const Access& access : s_.w.accesses(task)) {
      const Copy copy = books_.copy(n, access.data);
      if (!reads(access.mode) || copy == Copy::Resident || copy == Copy::Loading) continue;
      std::uint32_t& request = push_request_of_[s_.slot(n, access.data)];
      if (request != kNoPushRequest) continue;
      request = static_cast<std::uint32_t>(push_requests_.size());
      push_requests_.push_back({task, access.data, request_priority(task)});
      push_prefetches_[n].push(push_requests_.back().priority, request);
    }
    return;
  }
  if (!push_requested_.empty()) {
    const std::uint32_t first = s_.w.tasks()[task].first_access;
    const auto accesses = s_.w.accesses(task);
    for (std::size_t i = 0; i < accesses.size(); ++i) {
      const Copy copy = books_.copy(n, accesses[i].data);
      if (reads(accesses[i].mode) && copy != Copy::Resident && copy != Copy::Loading) push_requested_[first + i] = 1;
    }
  }
  push_prefetches_[n].push(request_priority(task), task);
}

std::int64_t StarpuMemoryManager::push_priority(TaskId task) const {
  const std::uint32_t place = s_.scheduler.worker_order(task);
  return place == 0 ? s_.w.tasks()[task].priority : above_priorities_ - static_cast<std::int64_t>(place);
}

// A load of d into n serves the request StarPU keeps for it: the next push of a task reading d
// asks anew.
void StarpuMemoryManager::load_requested(std::uint32_t n, DataId d) {
  if (!push_request_of_.empty()) push_request_of_[s_.slot(n, d)] = kNoPushRequest;
}

// StarPU's node serves its requests by priority, in arrival order within one (a prio list,
// data_request.c): a fetch's new request has priority 0 (coherency.c:1109), a push-time
// prefetch's its task's, which it keeps when the fetch promotes it (data_request.c:839-870).
// With shared_push_requests that is the request waiting for the datum, whichever task's push made
// it; without, only the task's own push-time requests count.
std::span<const Access> StarpuMemoryManager::issue_order(std::uint32_t n, TaskId task) const {
  const std::span<const Access> order = request_order(task);
  if (!push_request_of_.empty()) {
    const auto waiting = [&](DataId d) { return waiting_priority(n, d); };
    if (std::none_of(order.begin(), order.end(), [&](const Access& a) { return waiting(a.data) != 0; })) return order;
    issue_scratch_.assign(order.begin(), order.end());
    std::stable_sort(issue_scratch_.begin(), issue_scratch_.end(),
                     [&](const Access& a, const Access& b) { return waiting(a.data) > waiting(b.data); });
    return issue_scratch_;
  }
  if (push_requested_.empty()) return order;
  const std::uint32_t first = s_.w.tasks()[task].first_access;
  const auto accesses = s_.w.accesses(task);
  const std::int64_t priority = push_priority(task);
  if (priority == 0 || std::none_of(push_requested_.begin() + first, push_requested_.begin() + first + accesses.size(), [](char c) { return c != 0; })) {
    return order;  // every request of the task has the same priority: arrival order
  }
  const auto waiting = [&](DataId d) {
    for (std::size_t i = 0; i < accesses.size(); ++i) {
      if (accesses[i].data == d && push_requested_[first + i]) return true;
    }
    return false;
  };
  issue_scratch_.assign(order.begin(), order.end());
  std::stable_sort(issue_scratch_.begin(), issue_scratch_.end(), [&](const Access& a, const Access& b) {
    return (waiting(a.data) ? priority : 0) > (waiting(b.data) ? priority : 0);
  });
  return issue_scratch_;
}

// StarPU serves a node's fetches before its prefetches, and prefetches only while every fetch
// could start; a prefetch that cannot be placed pauses the node's prefetching until the next
// event (data_request.c, docs/starpu-memory-manager.md section 3).
void StarpuMemoryManager::issue_by_level() {
  // The pass reads only the books and what ReplayState::changes counts: once a pass changed
  // nothing, the next one, with nothing changed since, would find nothing either (at every
  // event StarPU's drivers serve before they pop and after, and most of those passes repeat).
  const std::uint64_t key = serve_key();
  if (key == quiet_key_) return;
  std::fill(prefetch_paused_.begin(), prefetch_paused_.end(), 0);
  for (GpuId g = 0; g < s_.W; ++g) {
    if (!issue_requests(g, Requests::Fetch) && !s_.workers[g].cpu) prefetch_paused_[s_.workers[g].node] = 1;
  }
  for (std::uint32_t h = 0; h < s_.N; ++h) {
    if (!relays_[h].empty() && !serve_relays(h, false, 0)) prefetch_paused_[h] = 1;
  }
  for (GpuId g = 0; g < s_.W; ++g) {
    const Worker& worker = s_.workers[g];
    if (worker.cpu || prefetch_paused_[worker.node]) continue;
    if (!issue_requests(g, Requests::Prefetch)) prefetch_paused_[worker.node] = 1;
  }
  for (std::uint32_t n = 0; n < s_.N; ++n) {
    if (!prefetch_paused_[n]) prefetch_pushed(n);
  }
  if (serve_key() == key) quiet_key_ = key;
}

// A push-time prefetch only uses free memory, whatever prefetch_evicts says: the task is not
// in any buffer yet, so no order of tasks says whose data it could take.
bool StarpuMemoryManager::prefetch_pushed(std::uint32_t n) {
  if (!push_request_of_.empty()) return serve_push_requests(n);
  PriorityFifo& queue = push_prefetches_[n];
  while (!queue.empty()) {
    const TaskId task = queue.front();
    if (!relays_above_started(n, request_priority(task))) return false;
    if (!s_.popped[task]) {  // once in a buffer, its requests are the buffer's
      const auto accesses = s_.w.accesses(task);
      const std::uint32_t first = s_.w.tasks()[task].first_access;
      for (std::size_t i = 0; i < accesses.size(); ++i) {
        const Access& access = accesses[i];
        if (!reads(access.mode)) continue;  // StarPU prefetches only what a task reads
        // Only what was missing at the push has a request (StarPU asks then, coherency.c:876-891).
        if (!push_requested_.empty() && !push_requested_[first + i]) continue;
        if (start_push_load(n, access.data, task) == PushLoad::Waits) return false;
      }
    }
    if (!push_requested_.empty()) {
      const std::uint32_t first = s_.w.tasks()[task].first_access;
      std::fill_n(push_requested_.begin() + first, s_.w.tasks()[task].access_count, 0);
    }
    queue.pop_front();
  }
  return relays_[n].empty() || serve_relays(n, true, std::numeric_limits<std::int64_t>::min());
}

// First hops of higher priority than a prefetch of `priority` go before it (one priority list in
// StarPU): whether those waiting on node n have all started.
bool StarpuMemoryManager::relays_above_started(std::uint32_t n, std::int64_t priority) {
  return relays_[n].empty() || priority == std::numeric_limits<std::int64_t>::max() || serve_relays(n, true, priority + 1);
}

// A push-time prefetch of d into node n for `task`, in free memory only.
StarpuMemoryManager::PushLoad StarpuMemoryManager::start_push_load(std::uint32_t n, DataId d, TaskId task) {
  const Copy copy = books_.copy(n, d);
  if (copy == Copy::Resident || copy == Copy::Loading) return PushLoad::NotNeeded;
  if (copy == Copy::Evicting || !may_allocate(n) || !may_start_transfer(n, true)) return PushLoad::Waits;
  if (copy != Copy::Invalid && !fits(n, books_.bytes(d))) return PushLoad::Waits;
  reserve_replica(n, d);
  request_load(n, d, task);
  return PushLoad::Started;
}

// StarPU's prefetch list (data_request.c): its requests by priority, each served when its datum
// fits in free memory; the first that does not stops the list. A request another load served
// is done; one whose task a worker took is the worker's to fetch (its buffer's requests).
bool StarpuMemoryManager::serve_push_requests(std::uint32_t n) {
  PriorityFifo& queue = push_prefetches_[n];
  for (; !queue.empty(); queue.pop_front()) {
    const std::uint32_t id = queue.front();
    const PushRequest request = push_requests_[id];
    std::uint32_t& waiting = push_request_of_[s_.slot(n, request.data)];
    if (waiting != id) continue;  // served: a later request of d may wait, in its own place
    if (!relays_above_started(n, request.priority)) return false;
    if (s_.popped[request.task]) {
      waiting = kNoPushRequest;
      continue;
    }
    const PushLoad load = start_push_load(n, request.data, request.task);
    if (load == PushLoad::Waits) return false;
    if (load == PushLoad::NotNeeded) waiting = kNoPushRequest;  // a started load closed it (load_requested)
  }
  return relays_[n].empty() || serve_relays(n, true, std::numeric_limits<std::int64_t>::min());
}

void StarpuMemoryManager::relay_through_host(std::uint32_t n, DataId d, std::uint32_t source, TaskId for_task) {
  if (!rules_.relay_requests || !rules_.fetches_first) {
    NodeMemory::relay_through_host(n, d, source, for_task);
    return;
  }
  if (rules_.list_at_second_hop) {
    // Its room stays taken; its chunk joins the list when the second hop starts (writeback_ended).
    if (tidy_) tidy_->released(n, d);
    if (insert_at_allocation()) s_.policy.on_removed(n, d);
    listed_at_second_hop_[s_.slot(n, d)] = 1;
    ++awaiting_second_hop_[n];
  }
  // A worker's fetch asks at priority 0 and in the fetch list at once; a push-time prefetch at its task's.
  const bool fetch = rules_.fetch_list_order && for_task != kNoId && s_.popped[for_task];
  relays_[source].push_back({d, n, fetch ? 0 : request_priority(for_task), fetch ? ++fetch_sequence_ : 0});
  ++s_.changes;
}

bool StarpuMemoryManager::serve_relays(std::uint32_t h, bool prefetches, std::int64_t lowest) {
  std::vector<Relay>& relays = relays_[h];
  while (true) {
    // One whose data went home some other way is done: its waiting load starts then.
    if (std::erase_if(relays, [&](const Relay& relay) { return !still_dirty_here(h, relay.data); }) > 0) ++s_.changes;
    // A fetch first (one a task held by its destination needs): with fetch_list_order the
    // highest priority, then the first in the fetch list; else the first asked for. Without a
    // fetch, the first of the highest priority.
    auto next = relays.end();
    for (auto it = relays.begin(); it != relays.end(); ++it) {
      if (!held_task_uses(it->to, it->data)) continue;
      if (next == relays.end()) next = it;
      if (!rules_.fetch_list_order) break;
      if (it->priority > next->priority || (it->priority == next->priority && it->fetched < next->fetched)) next = it;
    }
    const bool fetch = next != relays.end();
    if (!fetch && prefetches) {
      for (auto it = relays.begin(); it != relays.end(); ++it) {
        if (it->priority >= lowest && (next == relays.end() || it->priority > next->priority)) next = it;
      }
    }
    if (next == relays.end()) return true;
    if (!may_start_transfer(h, !fetch)) return false;
    const DataId d = next->data;
    relays.erase(next);
    start_writeback(h, d, WritebackCause::Request);
  }
}

// The worker's fetch for the task, in handle order: each datum in place is a cache hit, unless
// the task writes it and another request on it is pending (then the fetch waits for that one,
// coherency.c:486-506, and finds nothing yet).
void StarpuMemoryManager::task_buffered(GpuId g, TaskId task) {
  NodeMemory::task_buffered(g, task);
  const Worker& worker = s_.workers[g];
  if (worker.cpu) return;
  if (rules_.fetch_list_order) {
    for (const Access& access : request_order(task)) promote_relays(worker.node, access.data);
  }
  if (!(rules_.recency_at_request || rules_.write_at_hit)) return;
  for (const Access& access : request_order(task)) {
    const DataId d = access.data;
    if (books_.copy(worker.node, d) != Copy::Resident) continue;
    if (writes(access.mode) && request_pending(d)) continue;
    if (rules_.recency_at_request) touch(worker.node, d);
    if (rules_.write_at_hit && writes(access.mode)) {
      written_at_request(worker.node, d, task);
      request_written_[s_.slot(worker.node, d)] = task;
    }
  }
}

// StarPU's fetch to write a datum with a pending request waits for it (nwait); when that
// request completes, the fetch's own completes with the write mode and updates the states
// (coherency.c:486-520, _starpu_update_data_state): the copy is dirty before the task starts.
// A request completes once: a later write-back of d (another worker reading it, which only a DAG
// without data dependencies allows) leaves the copy as it is.
void StarpuMemoryManager::writeback_ended(std::uint32_t n, DataId d) {
  for (std::uint32_t h = 0; h < s_.N && !listed_at_second_hop_.empty(); ++h) {
    if (!std::exchange(listed_at_second_hop_[s_.slot(h, d)], 0)) continue;
    --awaiting_second_hop_[h];
    if (books_.copy(h, d) != Copy::Loading) continue;
    if (tidy_) tidy_->reserved(h, d);
    if (insert_at_allocation()) s_.policy.on_inserted(h, d);
  }
  if (!rules_.write_at_hit || !held_task_writes(n, d) || books_.copy(n, d) != Copy::Resident) return;
  for (GpuId g : s_.nodes[n].workers) {
    for (TaskId task : s_.workers[g].held) {
      for (const Access& access : s_.w.accesses(task)) {
        if (access.data != d || !writes(access.mode)) continue;
        if (std::exchange(request_written_[s_.slot(n, d)], task) != task) written_at_request(n, d, task);
        return;
      }
    }
  }
}

bool StarpuMemoryManager::may_start(GpuId g, TaskId task) const {
  if (rules_.sync_reclaim && eviction_writebacks_[s_.workers[g].node] > 0) return false;
  if (!rules_.wait_for_writebacks) return true;
  const auto n = static_cast<std::int32_t>(s_.workers[g].node);
  for (const Access& access : s_.w.accesses(task)) {
    if (writes(access.mode) && (books_.writeback_from(access.data) == n || promoted(static_cast<std::uint32_t>(n), access.data))) return false;
  }
  return true;
}

bool StarpuMemoryManager::may_pop(GpuId g) const {
  if (!rules_.pop_when_fetched) return true;
  const Worker& worker = s_.workers[g];
  for (std::size_t i = worker.running ? 1 : 0; i < worker.held.size(); ++i) {
    const TaskId task = worker.held[i];
    for (const Access& access : s_.w.accesses(task)) {
      if (books_.copy(worker.node, access.data) != Copy::Resident) return false;
    }
    if (!may_start(g, task)) return false;
  }
  return true;
}

// A held task (StarPU's driver fetched for it when it popped it, driver_cuda.c:1025) that writes a datum
// waiting in the idle list: StarPU promotes that request to a fetch, which goes at once, and the
// task waits for it.
void StarpuMemoryManager::promote_idle_writebacks() {
  for (GpuId g = 0; g < s_.W; ++g) {
    const Worker& worker = s_.workers[g];
    if (worker.cpu) continue;
    const std::uint32_t n = worker.node;
    for (TaskId task : worker.held) {
      for (const Access& access : s_.w.accesses(task)) {
        const DataId d = access.data;
        if (!writes(access.mode) || !tidy_->take_queued(n, d)) continue;
        // Recorded as a request's write-back: a task waits for it, at fetch level (StarPU's trace types it F).
        if (!still_dirty_here(n, d)) continue;
        if (rules_.fetch_list_order) {
          promoted_[n].push_back(d);
        } else {
          start_writeback(n, d, WritebackCause::Request);
        }
      }
    }
  }
}

// A synchronous reclaim holds the node's fetch list where it is: the promoted write-backs
// behind it start once it is over (the list is walked in order, data_request.c:590-620).
void StarpuMemoryManager::start_promoted() {
  for (std::uint32_t n = 0; n < s_.N; ++n) {
    if (promoted_[n].empty() || reclaims_[n].under_way) continue;
    const std::vector<DataId> waiting = std::exchange(promoted_[n], {});
    for (DataId d : waiting) {
      if (still_dirty_here(n, d)) start_writeback(n, d, WritebackCause::Request);
    }
  }
}

// StarPU's fetch finds a first hop waiting as a prefetch and moves it to the back of the
// source node's fetch list (_starpu_update_prefetch_status, data_request.c:839-853).
void StarpuMemoryManager::promote_relays(std::uint32_t n, DataId d) {
  for (std::vector<Relay>& relays : relays_) {
    for (Relay& relay : relays) {
      if (relay.data == d && relay.to == n && relay.fetched == 0) relay.fetched = ++fetch_sequence_;
    }
  }
}

// StarPU's memchunk tidy (idle_writeback.hpp): what it makes of each untidy replica, then the
// node's next idle write-back, one at a time while it moves nothing else (data_request.c: the
// idle list is served only when no request is pending on the node, one at a time).
void StarpuMemoryManager::write_back_idle() {
  for (std::uint32_t n = 0; n < s_.N; ++n) write_back_idle(n);
}

void StarpuMemoryManager::tidy(std::uint32_t n) {
  const auto visit = [&](DataId d) {
    using Visit = IdleWriteback::Visit;
    // A resident replica that a task held by the node's workers writes is skipped: StarPU's
    // fetch for that task made it the only valid copy at once (coherency.c:185-200, the home
    // invalidated when the write is acquired, not when it ends) and holds it while the task
    // waits or runs (refcnt, current_mode W: memalloc.c:1151-1168).
    if (books_.copy(n, d) == Copy::Resident && held_task_writes(n, d)) return Visit::Skip;
    // A reclaim writing a victim back marks it and the chunk after it, and the walk passes over a
    // chunk whose next one is marked (memalloc.c:1131-1136; free_potentially_in_use_mc, :999-1008, and
    // try_to_throw_mem_chunk, :648): the victim and the chunk before it are skipped.
    if (rules_.sequential_reclaim) {
      const auto next = tidy_->next_after(n, d);
      if (books_.copy(n, d) == Copy::Evicting || (next && books_.copy(n, *next) == Copy::Evicting)) return Visit::Skip;
    }
    // StarPU's rule in full (tidy_skips_busy): the last task to take d writes it, and some copy
    // of d is referenced, the visited one included (a load into it, say).
    if (rules_.tidy_skips_busy && taken_for_write_[d] && referenced(d)) return Visit::Skip;
    // A loading replica whose home holds the value counts clean too (StarPU looks at the home
    // only, memalloc.c:1186-1197); one leaving is skipped.
    if (books_.host_valid(d) || books_.writeback_from(d) >= 0) return Visit::CountClean;
    // StarPU looks at the home only, not at the visited replica: an invalidated one (which keeps
    // its chunk) asks for the datum home from the node that holds it, in that node's idle list,
    // and counts clean (memalloc.c:1186-1230).
    if (books_.copy(n, d) == Copy::Invalid && rules_.tidy_fetches_home) {
      for (std::uint32_t h = 0; h < s_.N; ++h) {
        if (h == n || !still_dirty_here(h, d)) continue;
        if (!tidy_->queued(h, d)) tidy_->queue(h, d);
        return Visit::CountClean;
      }
      return Visit::Skip;
    }
    if (books_.copy(n, d) != Copy::Resident) return Visit::Skip;
    return Visit::WriteBack;
  };
  // A replica waiting for its second hop is in no list yet: StarPU has not allocated its chunk.
  tidy_->tidy(n, replicas_[n] - awaiting_second_hop_[n], visit);
}

void StarpuMemoryManager::write_back_idle(std::uint32_t n) {
  tidy(n);
  if (in_flight_[n] == 0) start_idle_writeback(n);
}

void StarpuMemoryManager::start_idle_writeback(std::uint32_t n) {
  const auto needed = [&](DataId d) { return still_dirty_here(n, d); };
  if (const auto d = tidy_->next_writeback(n, needed)) start_writeback(n, *d, WritebackCause::Idle);
}

// StarPU's CPU driver runs its task in its own thread and makes progress only between tasks
// (driver_cpu.c:285-311): with progress_between_tasks, a transfer ending while every worker of
// its node computes waits for the first of them to end its task (before_pops).
void StarpuMemoryManager::finish_transfer(std::uint32_t id) {
  if (rules_.progress_between_tasks) {
    const std::uint32_t n = transfer_node(id);
    if (every_worker_computes(n)) {
      unnoticed_transfers_[n].push_back(id);
      return;
    }
  }
  NodeMemory::finish_transfer(id);
}

void StarpuMemoryManager::before_pops() {
  // The driver whose task ended makes its progress before it pops (driver_cpu.c:311-314): it
  // notices the transfers that ended meanwhile, in the order they ended.
  for (std::uint32_t n = 0; n < unnoticed_transfers_.size(); ++n) {
    if (unnoticed_transfers_[n].empty() || every_worker_computes(n)) continue;
    for (std::uint32_t id : std::exchange(unnoticed_transfers_[n], {})) NodeMemory::finish_transfer(id);
  }
  const bool progress = rules_.progress_before_pop && rules_.fetches_first;
  // A fetch's reclaim waiting for its victim's write-back makes the node progress meanwhile
  // (data_request.c:225-256): once nothing is pending there, an idle write-back starts before the
  // reclaim chooses its next victim.
  if (tidy_ && rules_.sequential_reclaim) {
    for (std::uint32_t n = 0; n < s_.N; ++n) {
      if (reclaims_[n].under_way && in_flight_[n] == 0) write_back_idle(n);
    }
  }
  // StarPU's driver makes its memory progress again and again between two events, each pass
  // tidying the node whatever is in flight (datawizard.c:42) and serving its requests, so the
  // tidy before the pop sees the requests placed since; the idle list moves only when nothing
  // is pending on the node.
  // With same_pass_pop, a node whose worker pops in this very pass tidies before the requests
  // only; the next pass's tidy, after the pop's fetches, is the one in serve.
  const bool same_pass = progress && tidy_ && rules_.same_pass_pop;
  if (same_pass) {
    for (std::uint32_t n = 0; n < s_.N; ++n) {
      pops_in_this_pass_[n] = pops_in_this_pass(n) ? 1 : 0;
      if (pops_in_this_pass_[n]) tidy(n);
    }
  }
  if (progress) issue_by_level();
  if (progress && tidy_) {
    for (std::uint32_t n = 0; n < s_.N; ++n) {
      if (!(same_pass && pops_in_this_pass_[n])) tidy(n);
    }
  }
  if (!tidy_) return;
  for (std::uint32_t n = 0; n < s_.N; ++n) {
    if (in_flight_[n] != 0 || fetch_waiting(n)) continue;
    if (same_pass && pops_in_this_pass_[n]) {
      start_idle_writeback(n);
    } else {
      write_back_idle(n);
    }
  }
}

// StarPU's driver pops in the pass that noticed its task's end when the next task in its
// pipeline has its data (that task starts at once, driver_cuda.c:899-920), after the pass's
// progress (tidy, then requests; datawizard.c:29-66, driver_cuda.c:960-963) and before the next
// pass's tidy, which sees the pop's fetches (a hit moves its chunk to the back of the list,
// coherency.c:528). A driver whose next task waited for a transfer pops a pass later
// (task_transferring, driver_common.c:528-531), after a tidy that saw the requests.
bool StarpuMemoryManager::pops_in_this_pass(std::uint32_t n) const {
  for (GpuId g : s_.nodes[n].workers) {
    const Worker& worker = s_.workers[g];
    if (worker.cpu || worker.running || worker.free_since != s_.now || worker.held.empty()) continue;
    const auto accesses = s_.w.accesses(worker.held.front());
    if (std::all_of(accesses.begin(), accesses.end(), [&](const Access& a) { return books_.copy(n, a.data) == Copy::Resident; })) return true;
  }
  return false;
}

bool StarpuMemoryManager::fetch_waiting(std::uint32_t n) const {
  for (GpuId g : s_.nodes[n].workers) {
    const Worker& worker = s_.workers[g];
    const std::size_t next = worker.running ? 1 : 0;
    if (next >= worker.held.size()) continue;
    for (const Access& access : s_.w.accesses(worker.held[next])) {
      const Copy copy = books_.copy(n, access.data);
      if (copy != Copy::Resident && copy != Copy::Loading) return true;
    }
  }
  return false;
}

}  // namespace tilelens::replay_detail
