// The replay's memory manager; see memory_manager.hpp for what it does and
// docs/starpu-memory-manager.md for where StarPU's rules come from.
#include "replay/memory_manager.hpp"

#include <algorithm>

#include "model/units.hpp"

namespace tilelens::replay_detail {

MemoryManager::MemoryManager(ReplayState& state, const MemoryModel& model) : s_(state), model_(model) {
  if (model_.idle_writeback) idle_ = std::make_unique<IdleWriteback>(model_.min_clean, model_.target_clean);
}

void MemoryManager::reset(SchedulerContext& context) {
  const std::uint32_t N = s_.N;
  const std::size_t slots = N * s_.nd;
  books_.reset(N, s_.w);
  open_load_.assign(slots, kNoId);
  protect_.assign(slots, 0);
  evict_for_.assign(slots, kNoId);
  held_uses_.assign(slots, 0);
  epoch_.assign(N, 0);
  in_flight_.assign(N, 0);
  replicas_.assign(N, 0);
  if (idle_) idle_->reset(N, s_.nd);
  dirty_.reset(N, s_.nd);
  prefetch_paused_.assign(N, 0);
  push_prefetches_.assign(N, {});
  homeless_.assign(s_.nd, 0);
  std::vector<char> seen(s_.nd, 0);
  for (TaskId t : s_.w.submission_order()) {
    for (const Access& access : s_.w.accesses(t)) {
      if (seen[access.data]) continue;
      seen[access.data] = 1;
      homeless_[access.data] = reads(access.mode) ? 0 : 1;
    }
  }
  context.future_changed = [this](DataId d) { notify_future(d); };
  // StarPU prefetches a task at push when its architecture has a single memory node (every
  // scheduler: sched_policy.c), and the dmda family once it allocated the task to a worker.
  single_node_prefetch_ = model_.prefetch_at_push && N == 1;
  if (model_.prefetch_at_push && !single_node_prefetch_) {
    context.allocated = [this](TaskId task, GpuId worker) {
      if (worker < s_.W && !s_.workers[worker].cpu) queue_prefetch(s_.workers[worker].node, task);
    };
  }
}

void MemoryManager::task_buffered(GpuId g, TaskId task) {
  const Worker& worker = s_.workers[g];
  if (!worker.cpu) {
    for (const Access& access : s_.w.accesses(task)) ++held_uses_[s_.slot(worker.node, access.data)];
  }
  if (follows_future_) {
    for (const Access& access : s_.w.accesses(task)) {
      if (reads(access.mode)) notify_future(access.data);
    }
  }
}

void MemoryManager::task_started(GpuId g, TaskId task, std::int64_t ready) {
  const std::uint32_t n = s_.workers[g].node;
  for (const Access& access : s_.w.accesses(task)) {
    touch(n, access.data);
    const std::uint32_t open = open_load_[s_.slot(n, access.data)];
    if (open != kNoId) emit_load(n, access.data, classify_load(open_loads_[open].end_ns, ready), task);
  }
}

void MemoryManager::task_done(GpuId g, TaskId task) {
  const Worker& worker = s_.workers[g];
  if (!worker.cpu) {
    for (const Access& access : s_.w.accesses(task)) --held_uses_[s_.slot(worker.node, access.data)];
  }
  for (const Access& access : s_.w.accesses(task)) {
    if (!writes(access.mode)) continue;
    invalidate_copies(access.data, worker.cpu ? kNoId : worker.node, task);
    if (worker.cpu) continue;
    dirty_.set(worker.node, access.data);
    if (idle_) idle_->written(worker.node, access.data, !homeless_[access.data]);
  }
}

void MemoryManager::summarize(ReplaySummary& summary) {
  // Loads still unclassified at the end were never used.
  std::vector<std::uint64_t> resident(s_.N, 0);
  for (std::uint32_t n = 0; n < s_.N; ++n) {
    for (DataId d = 0; d < s_.nd; ++d) {
      if (open_load_[s_.slot(n, d)] != kNoId) emit_load(n, d, LoadKind::Unused, kNoId);
      if (books_.copy(n, d) == Copy::Resident) ++resident[n];
    }
  }
  s_.totals.finish(summary, s_.w.total_flops());
  for (std::uint32_t n = 0; n < s_.N; ++n) {
    GpuSummary& memory = summary.gpus[s_.nodes[n].first];  // a node's memory figures go to its first worker
    memory.resident_at_end = resident[n];
    memory.peak_bytes = books_.peak(n);
  }
  summary.stale_writebacks = stale_writebacks_;
}

std::string MemoryManager::describe_transfer(std::uint32_t id) const {
  const Transfer& transfer = transfers_[id];
  return std::string(transfer.is_load ? "the load" : "the write-back") + " of data " + s_.w.data()[transfer.data].name + " (" +
         format_bytes(static_cast<double>(s_.w.data()[transfer.data].bytes)) + ") on GPU " + std::to_string(s_.nodes[transfer.node].first);
}

// Before the scheduler's decision, as StarPU does (the engine asks only for tasks that only the
// bounded memory's workers can run, not the CPU workers computing from the host).
void MemoryManager::prefetch_on_push(TaskId task) {
  if (single_node_prefetch_) queue_prefetch(0, task);
}

// StarPU posts a prefetch at once: an input already there is refreshed then (a cache hit),
// the others wait for room in the node's queue.
void MemoryManager::queue_prefetch(std::uint32_t n, TaskId task) {
  if (model_.touch_on_request) {
    for (const Access& access : s_.w.accesses(task)) {
      if (reads(access.mode) && books_.copy(n, access.data) == Copy::Resident) touch(n, access.data);
    }
  }
  push_prefetches_[n].push_back(task);
}

void MemoryManager::notify_future(DataId d) {
  if (!follows_future_) return;
  for (std::uint32_t n = 0; n < s_.N; ++n) {
    if (books_.copy(n, d) == Copy::Resident) {
      future_clock_([&] { s_.policy.on_future_changed(n, d); });
    }
  }
}

// StarPU serves a node's fetches before its prefetches, and prefetches only while every fetch
// could start; a prefetch that cannot be placed pauses the node's prefetching until the next
// event (data_request.c, docs/starpu-memory-manager.md section 3).
void MemoryManager::issue_by_level() {
  std::fill(prefetch_paused_.begin(), prefetch_paused_.end(), 0);
  for (GpuId g = 0; g < s_.W; ++g) {
    if (!issue_requests(g, Requests::Fetch) && !s_.workers[g].cpu) prefetch_paused_[s_.workers[g].node] = 1;
  }
  for (GpuId g = 0; g < s_.W; ++g) {
    const Worker& worker = s_.workers[g];
    if (worker.cpu || prefetch_paused_[worker.node]) continue;
    if (!issue_requests(g, Requests::Prefetch)) prefetch_paused_[worker.node] = 1;
  }
  for (std::uint32_t n = 0; n < s_.N; ++n) {
    if (!prefetch_paused_[n]) prefetch_pushed(n);
  }
}

void MemoryManager::push_prefetches() {
  if (!model_.prefetch_at_push) return;
  for (std::uint32_t n = 0; n < s_.N; ++n) prefetch_pushed(n);
}

void MemoryManager::after_requests() {
  if (idle_ && s_.error.empty()) write_back_idle();
}

bool MemoryManager::may_start_transfer(std::uint32_t n, bool prefetch) const {
  const std::uint32_t limit = prefetch ? model_.max_prefetches : model_.max_fetches;
  return limit == 0 || in_flight_[n] < limit;
}

// A push-time prefetch only uses free memory, whatever prefetch_evicts says: the task is not
// in any buffer yet, so no order of tasks says whose data it could take.
bool MemoryManager::prefetch_pushed(std::uint32_t n) {
  std::deque<TaskId>& queue = push_prefetches_[n];
  while (!queue.empty()) {
    const TaskId task = queue.front();
    if (!s_.popped[task]) {  // once in a buffer, its requests are the buffer's
      for (const Access& access : s_.w.accesses(task)) {
        if (!reads(access.mode)) continue;  // StarPU prefetches only what a task reads
        const DataId d = access.data;
        const Copy copy = books_.copy(n, d);
        if (copy == Copy::Resident || copy == Copy::Loading) continue;
        if (copy == Copy::Evicting || !may_start_transfer(n, true)) return false;
        if (s_.options.platform.memory_bytes - books_.used(n) < books_.bytes(d)) return false;
        reserve_replica(n, d);
        request_load(n, d);
      }
    }
    queue.pop_front();
  }
  return true;
}

// StarPU counts a new chunk clean only when its data has a home holding a valid copy.
void MemoryManager::reserve_replica(std::uint32_t n, DataId d) {
  books_.reserve(n, d);
  ++replicas_[n];
  if (idle_) idle_->reserved(n, d, !homeless_[d] && books_.host_valid(d));
}

// StarPU's memchunk tidy (idle_writeback.hpp): what it makes of each untidy replica.
void MemoryManager::write_back_idle() {
  for (std::uint32_t n = 0; n < s_.N; ++n) {
    const auto visit = [&](DataId d) {
      using Visit = IdleWriteback::Visit;
      if (books_.copy(n, d) != Copy::Resident) return Visit::Skip;
      if (books_.host_valid(d) || books_.writeback_from(d) >= 0) return Visit::CountClean;
      for (GpuId v : s_.nodes[n].workers) {
        const Worker& worker = s_.workers[v];
        if (!worker.running) continue;
        for (const Access& access : s_.w.accesses(worker.held.front())) {
          if (access.data == d && writes(access.mode)) return Visit::Skip;
        }
      }
      return Visit::WriteBack;
    };
    if (const auto d = idle_->pass(n, replicas_[n], in_flight_[n] == 0, visit)) start_writeback(n, *d, WritebackCause::Idle);
  }
}

// A CPU worker computes from the host: data its held tasks read whose only valid copy is on a
// GPU are written back (lahp: "write-backs when a CPU task reads data last written on a GPU").
void MemoryManager::request_host_copies(GpuId g) {
  for (TaskId task : s_.workers[g].held) {
    for (const Access& access : s_.w.accesses(task)) {
      const DataId d = access.data;
      if (!reads(access.mode) || books_.host_valid(d) || books_.writeback_from(d) >= 0) continue;
      for (std::uint32_t n = 0; n < s_.N; ++n) {
        const Copy copy = books_.copy(n, d);
        if ((copy == Copy::Resident || copy == Copy::Evicting) && !books_.stale(n, d)) {
          start_writeback(n, d, WritebackCause::Request);
          break;
        }
      }
    }
  }
}

bool MemoryManager::issue_requests(GpuId g, Requests which) {
  Worker& worker = s_.workers[g];
  if (worker.cpu) {
    if (which != Requests::Prefetch) request_host_copies(g);
    return true;
  }
  const std::uint32_t n = worker.node;
  const std::size_t head = worker.running ? 1 : 0;
  std::size_t index = head;
  if (worker.requested_epoch == epoch_[n]) index = std::max(index, worker.requested);
  std::size_t end = worker.held.size();
  if (which == Requests::Fetch) end = std::min(end, head + 1);
  if (which == Requests::Prefetch && index <= head && head < end) return false;  // the fetch waits: so do prefetches
  for (; index < end; ++index) {
    const TaskId task = worker.held[index];
    for (const Access& access : s_.w.accesses(task)) {
      const DataId d = access.data;
      const Copy copy = books_.copy(n, d);
      if (copy == Copy::Resident || copy == Copy::Loading) continue;
      if (copy == Copy::Evicting) return false;  // wait until it is gone, then load it again
      if (reads(access.mode) && !may_start_transfer(n, index != head)) return false;
      if (!make_room(g, books_.bytes(d), index)) return false;
      reserve_replica(n, d);
      if (reads(access.mode)) {
        request_load(n, d);
      } else {
        books_.allocate(n, d);
        s_.device->allocate(n, d);
        s_.policy.on_inserted(n, d);
        s_.tell_workers(n, [&](GpuId v) { s_.scheduler.on_data_loaded(v, d); });
        s_.emit(AllocationRecord{d, s_.nodes[n].first, s_.now, task});
      }
    }
    // Requests for later tasks protect this one's data: it stays requested until the epoch moves.
    worker.requested = index + 1;
    worker.requested_epoch = epoch_[n];
  }
  return true;
}

// Between two workers of one memory, whose next task goes first when both need room: the one
// buffered earlier, then the lower worker. Its data are safe from the other's requests, so
// the oldest waiting task always makes progress.
bool MemoryManager::head_before(GpuId a, GpuId b) const {
  const Worker& wa = s_.workers[a];
  const Worker& wb = s_.workers[b];
  const std::size_t ia = wa.running ? 1 : 0, ib = wb.running ? 1 : 0;
  if (ia >= wa.held.size()) return false;
  if (ib >= wb.held.size()) return true;
  const std::int64_t ta = s_.buffered_at[wa.held[ia]], tb = s_.buffered_at[wb.held[ib]];
  return ta != tb ? ta < tb : a < b;
}

bool MemoryManager::make_room(GpuId g, double bytes, std::size_t index) {
  Worker& worker = s_.workers[g];
  const std::uint32_t n = worker.node;
  const Node& node = s_.nodes[n];
  const double capacity = s_.options.platform.memory_bytes;
  if (capacity - books_.used(n) >= bytes) return true;
  // Data used by the running task or any held task up to this one stay; on a shared memory
  // also the data of the other workers' running tasks, and of their next tasks unless this
  // request is for a next task that goes before theirs.
  const std::size_t head = worker.running ? 1u : 0u;
  const bool prefetch = index != head;
  if (prefetch && !model_.prefetch_evicts) return false;  // StarPU: a prefetch waits for free room
  victim_.node = n;
  victim_.by_uses = node.workers.size() == 1 && index + 1 == worker.held.size();  // every held task is protected
  if (!victim_.by_uses) {
    const std::uint32_t stamp = victim_.stamp = ++protect_stamp_;
    for (std::size_t i = 0; i <= index; ++i) {
      for (const Access& access : s_.w.accesses(worker.held[i])) protect_[s_.slot(n, access.data)] = stamp;
    }
    for (GpuId v : node.workers) {
      if (v == g) continue;
      const Worker& other = s_.workers[v];
      const std::size_t other_head = other.running ? 1u : 0u;
      const std::size_t last = std::min(other.held.size(), (prefetch || head_before(v, g)) ? other_head + 1 : other_head);
      for (std::size_t i = 0; i < last; ++i) {
        for (const Access& access : s_.w.accesses(other.held[i])) protect_[s_.slot(n, access.data)] = stamp;
      }
    }
  }
  VictimRequest request;
  request.for_task = worker.held[index];
  request.prefetch = prefetch;
  request.evictable = evictable_;
  // StarPU: a fetch reuses one clean replica's room if it can (clean_first); otherwise it
  // reclaims `reclaim` times the room it needs, writing dirty replicas back as it meets them.
  bool reclaiming = false;
  const double reclaim_bytes = bytes * model_.reclaim;
  while (true) {
    const double free = capacity - books_.used(n), freeing = free + books_.pending_free(n);
    if (free >= bytes && (!reclaiming || freeing >= reclaim_bytes)) return true;
    if (freeing >= (reclaiming ? reclaim_bytes : bytes)) return false;  // write-backs will free enough
    std::optional<DataId> victim;
    if (!reclaiming && model_.clean_first) victim = choose_victim(n, request, true);
    if (!victim) {
      reclaiming = !prefetch && model_.reclaim > 1;
      victim = choose_victim(n, request, false);
      if (!victim && free >= bytes) return true;  // reclaimed what it could
    }
    if (!victim) {
      bool busy = books_.pending_free(n) > 0;
      for (GpuId v : node.workers) busy = busy || s_.workers[v].running || (v != g && head_before(v, g));
      if (!request.prefetch && !busy && !books_.any_loading(n)) {
        s_.fail("the eviction policy found no victim on GPU " + std::to_string(node.first) + " for the next task, " +
             s_.w.task_label(request.for_task) + ", although its data fit in memory");
      }
      return false;
    }
    if (!request.evictable(*victim)) {
      s_.fail("the eviction policy chose data " + std::to_string(*victim) + ", which cannot be evicted now");
      return false;
    }
    evict(n, *victim, request.for_task);
  }
}

// The policy's victim, among clean replicas only (none dirty: no write-back needed) or all.
std::optional<DataId> MemoryManager::choose_victim(std::uint32_t n, const VictimRequest& request, bool clean_only) {
  if (clean_only) {
    if (dirty_.count(n) == 0) clean_only = false;             // every replica is clean
    else if (dirty_.count(n) >= replicas_[n]) return std::nullopt;  // none is
  }
  victim_.clean_only = clean_only;
  const auto victim = victim_clock_([&] { return s_.policy.choose_victim(n, request); });
  victim_.clean_only = false;
  return victim;
}

void MemoryManager::evict(std::uint32_t n, DataId d, TaskId for_task) {
  s_.policy.on_removed(n, d);
  if (!books_.host_valid(d) && books_.holders(d) == 1) {  // the last valid copy: write it back first
    books_.begin_eviction(n, d);
    copy_leaves(n, d);
    evict_for_[s_.slot(n, d)] = for_task;
    if (books_.writeback_from(d) < 0) start_writeback(n, d, WritebackCause::Eviction);
    // The scheduler sees the copy as gone from now on (MemoryView says Absent).
    s_.tell_workers(n, [&](GpuId v) { s_.scheduler.on_data_evicted(v, d); });
    return;
  }
  free_copy(n, d, for_task, EvictionCause::Capacity, false);
}

void MemoryManager::free_copy(std::uint32_t n, DataId d, TaskId for_task, EvictionCause cause, bool wrote_back) {
  const bool reported = books_.release(n, d);  // an evicting copy was told to the scheduler when its write-back began
  if (!reported) copy_leaves(n, d);
  dirty_.clear(n, d);
  if (idle_) idle_->released(n, d);
  --replicas_[n];
  s_.device->release(n, d);
  if (open_load_[s_.slot(n, d)] != kNoId) emit_load(n, d, LoadKind::Unused, kNoId);
  s_.emit(EvictionRecord{.data = d, .gpu = s_.nodes[n].first, .for_task = for_task, .cause = cause, .wrote_back = wrote_back, .time_ns = s_.now});
  if (!reported) s_.tell_workers(n, [&](GpuId v) { s_.scheduler.on_data_evicted(v, d); });
}

void MemoryManager::request_load(std::uint32_t n, DataId d) {
  books_.begin_load(n, d);
  s_.tell_workers(n, [&](GpuId v) { s_.scheduler.on_load_requested(v, d); });
  open_load_[s_.slot(n, d)] = open_loads_.add({kFromHost, s_.now, 0});

  const Platform& platform = s_.options.platform;
  if (platform.gpu_link_bandwidth > 0 && (platform.gpu_link_bandwidth >= platform.bus_bandwidth || !books_.host_valid(d))) {
    for (std::uint32_t h = 0; h < s_.N; ++h) {
      if (h != n && books_.copy(h, d) == Copy::Resident) {
        start_load(n, d, static_cast<std::int32_t>(h));
        return;
      }
    }
  }
  if (books_.host_valid(d)) {
    start_load(n, d, kFromHost);
    return;
  }
  // The only valid copy is on another GPU without a link to this one: go through the host.
  books_.wait_for_host(d, n);
  if (books_.writeback_from(d) < 0) {
    for (std::uint32_t h = 0; h < s_.N; ++h) {
      const Copy copy = books_.copy(h, d);
      if (h != n && (copy == Copy::Resident || copy == Copy::Evicting)) {
        start_writeback(h, d, WritebackCause::Request);
        return;
      }
    }
    s_.fail("internal: data " + s_.w.data()[d].name + " has no valid copy anywhere");
  }
}

void MemoryManager::start_load(std::uint32_t n, DataId d, std::int32_t source) {
  Transfer transfer;
  transfer.is_load = true;
  transfer.data = d;
  transfer.node = n;
  // Records name a node by its first worker.
  transfer.source = source == kFromHost ? kFromHost : static_cast<std::int32_t>(s_.nodes[static_cast<std::uint32_t>(source)].first);
  transfer.start_ns = s_.now;
  open_loads_[open_load_[s_.slot(n, d)]].source = transfer.source;
  ++in_flight_[n];
  s_.device->start_load(transfers_.add(transfer), n, d, source);
}

void MemoryManager::start_writeback(std::uint32_t n, DataId d, WritebackCause cause) {
  Transfer transfer;
  transfer.is_load = false;
  transfer.data = d;
  transfer.node = n;
  transfer.start_ns = s_.now;
  transfer.cause = cause;
  transfer.version = books_.version(d);
  books_.writeback_started(d, n);
  ++in_flight_[n];
  s_.device->start_writeback(transfers_.add(transfer), n, d);
}

void MemoryManager::finish_transfer(std::uint32_t id) {
  const Transfer transfer = transfers_.take(id);
  const DataId d = transfer.data;
  const std::uint32_t n = transfer.node;
  --in_flight_[n];
  if (transfer.is_load) {
    books_.finish_load(n, d);
    open_loads_[open_load_[s_.slot(n, d)]].end_ns = s_.now;
    s_.policy.on_inserted(n, d);
    s_.tell_workers(n, [&](GpuId v) { s_.scheduler.on_data_loaded(v, d); });
    return;
  }
  s_.emit(WritebackRecord{d, s_.nodes[n].first, s_.w.data()[d].bytes, transfer.start_ns, s_.now, transfer.cause});
  if (transfer.version != books_.version(d)) {
    // A write on another worker made this version stale while it moved: the host copy stays
    // invalid, and the evicting copy it came from simply leaves.
    ++stale_writebacks_;
    if (books_.copy(n, d) == Copy::Evicting) free_copy(n, d, evict_for_[s_.slot(n, d)], EvictionCause::Capacity, true);
    return;
  }
  const std::vector<std::uint32_t> waiting = books_.writeback_done(d);
  // The host holds this version now: every copy of it is clean, and evicting ones may leave,
  // including those that waited for another node's write-back instead of starting their own.
  for (std::uint32_t h = 0; h < s_.N; ++h) {
    dirty_.clear(h, d);
    if (books_.copy(h, d) == Copy::Evicting && !books_.stale(h, d)) free_copy(h, d, evict_for_[s_.slot(h, d)], EvictionCause::Capacity, true);
  }
  for (std::uint32_t h : waiting) start_load(h, d, kFromHost);
}

// A write by `writer` leaves one valid copy: node `keep`'s, or the host's when keep is kNoId.
void MemoryManager::invalidate_copies(DataId d, std::uint32_t keep, TaskId writer) {
  for (std::uint32_t h = 0; h < s_.N; ++h) {
    if (h == keep) continue;
    const Copy copy = books_.copy(h, d);
    if (copy == Copy::Resident) {
      s_.policy.on_removed(h, d);
      free_copy(h, d, writer, EvictionCause::Invalidated, false);
    } else if (copy == Copy::Evicting) {
      // h is writing back the version this task overwrote (its copy was the last valid one
      // when h chose to evict it): that write-back is now stale; h's copy leaves when it ends.
      books_.mark_stale(h, d);
    } else if (copy != Copy::Absent) {
      s_.fail("task " + s_.w.task_label(writer) + " wrote " + s_.w.data()[d].name + " while GPU " + std::to_string(s_.nodes[h].first) +
           " was loading it: the workload lacks a dependency between tasks that access it");
    }
  }
  books_.written(d, keep);
}

void MemoryManager::emit_load(std::uint32_t n, DataId d, LoadKind kind, TaskId task) {
  const OpenLoad load = open_loads_.take(open_load_[s_.slot(n, d)]);
  open_load_[s_.slot(n, d)] = kNoId;
  const LoadRecord record{.data = d,
                          .gpu = s_.nodes[n].first,
                          .task = task,
                          .source = static_cast<std::int16_t>(load.source),
                          .kind = kind,
                          .bytes = s_.w.data()[d].bytes,
                          .issue_ns = load.issue_ns,
                          .end_ns = load.end_ns};
  s_.totals.add(record);
  if (s_.observer) s_.observer->on_load(record);
}

void MemoryManager::flush() {
  for (DataId d = 0; d < s_.nd; ++d) {
    if (books_.host_valid(d) || books_.writeback_from(d) >= 0) continue;
    if (homeless_[d] && !model_.flush_homeless) continue;  // StarPU drops data without a home at unregistration
    for (std::uint32_t n = 0; n < s_.N; ++n) {
      if (books_.copy(n, d) == Copy::Resident) {
        start_writeback(n, d, WritebackCause::Flush);
        break;
      }
    }
  }
}
}  // namespace tilelens::replay_detail
