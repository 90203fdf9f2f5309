// The mechanics every memory manager shares; see node_memory.hpp.
#include "replay/node_memory.hpp"

#include <algorithm>
#include <utility>

#include "model/units.hpp"

namespace tilelens::replay_detail {

void NodeMemory::reset(SchedulerContext& context) {
  const std::uint32_t N = s_.N;
  const std::size_t slots = N * s_.nd;
  books_.reset(N, s_.w);
  open_load_.assign(slots, kNoId);
  load_writer_.assign(slots, kNoId);
  victim_.protect.assign(slots, 0);
  evict_for_.assign(slots, kNoId);
  held_uses_.assign(slots, 0);
  held_writes_.assign(slots, 0);
  epoch_.assign(N, 0);
  in_flight_.assign(N, 0);
  replicas_.assign(N, 0);
  eviction_writebacks_.assign(N, 0);
  reclaims_.assign(N, {});
  victim_.passed.assign(sequential_reclaim() ? slots : 0, 0);
  victim_.last_walk = 0;
  if (tidy_) tidy_->reset(N, s_.nd);
  if (chunks_) chunks_->reset(N, s_.nd, s_.options.platform.memory_bytes, static_cast<double>(s_.w.largest_data_bytes()));
  dirty_.reset(N, s_.nd);
  homeless_.assign(s_.nd, 0);
  std::vector<char> seen(s_.nd, 0);
  for (TaskId t : s_.w.submission_order()) {
    for (const Access& access : s_.w.accesses(t)) {
      if (seen[access.data]) continue;
      seen[access.data] = 1;
      homeless_[access.data] = reads(access.mode) || s_.w.data()[access.data].home ? 0 : 1;
    }
  }
  context.future_changed = [this](DataId d) { notify_future(d); };
}

void NodeMemory::task_buffered(GpuId g, TaskId task) {
  const Worker& worker = s_.workers[g];
  if (!worker.cpu) {
    for (const Access& access : s_.w.accesses(task)) {
      ++held_uses_[s_.slot(worker.node, access.data)];
      if (writes(access.mode)) ++held_writes_[s_.slot(worker.node, access.data)];
    }
  }
  if (follows_future_) {
    for (const Access& access : s_.w.accesses(task)) {
      if (reads(access.mode)) notify_future(access.data);
    }
  }
}

void NodeMemory::task_started(GpuId g, TaskId task, std::int64_t ready) {
  const std::uint32_t n = s_.workers[g].node;
  const bool touching = touch_at_start();
  for (const Access& access : s_.w.accesses(task)) {
    if (touching) touch(n, access.data);
    const std::uint32_t open = open_load_[s_.slot(n, access.data)];
    if (open != kNoId) emit_load(n, access.data, classify_load(open_loads_[open].end_ns, ready), task);
  }
}

void NodeMemory::task_done(GpuId g, TaskId task) {
  const Worker& worker = s_.workers[g];
  if (!worker.cpu) {
    for (const Access& access : s_.w.accesses(task)) {
      --held_uses_[s_.slot(worker.node, access.data)];
      if (writes(access.mode)) --held_writes_[s_.slot(worker.node, access.data)];
    }
  }
  for (const Access& access : s_.w.accesses(task)) {
    if (!writes(access.mode)) continue;
    invalidate_copies(access.data, worker.cpu ? kNoId : worker.node, task);
    if (worker.cpu) continue;
    dirty_.set(worker.node, access.data);
    if (tidy_) tidy_->written(worker.node, access.data, !homeless_[access.data]);
  }
}

void NodeMemory::summarize(ReplaySummary& summary) {
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

std::string NodeMemory::describe_transfer(std::uint32_t id) const {
  const Transfer& transfer = transfers_[id];
  return std::string(transfer.is_load ? "the load" : "the write-back") + " of data " + s_.w.data()[transfer.data].name + " (" +
         format_bytes(static_cast<double>(s_.w.data()[transfer.data].bytes)) + ") on GPU " + std::to_string(s_.nodes[transfer.node].first);
}

void NodeMemory::notify_future(DataId d) {
  if (!follows_future_) return;
  for (std::uint32_t n = 0; n < s_.N; ++n) {
    if (books_.copy(n, d) == Copy::Resident) {
      future_clock_([&] { s_.policy.on_future_changed(n, d); });
    }
  }
}

void NodeMemory::reserve_replica(std::uint32_t n, DataId d) {
  if (books_.copy(n, d) == Copy::Invalid) {
    // Its room is still taken, and its chunk keeps its place in StarPU's list; the policy
    // meets it again when it arrives, or keeps it where it is when it meets replicas at allocation.
    if (!insert_at_allocation()) s_.policy.on_removed(n, d);
    return;
  }
  books_.reserve(n, d);
  if (chunks_ && !chunks_->allocate(n, d, books_.bytes(d))) s_.fail("internal: no room for data " + s_.w.data()[d].name + " after room was made");
  ++replicas_[n];
  if (tidy_) tidy_->reserved(n, d);
  if (insert_at_allocation()) s_.policy.on_inserted(n, d);
}

// A CPU worker computes from the host: data its held tasks read whose only valid copy is on a
// GPU are written back (lahp: "write-backs when a CPU task reads data last written on a GPU").
void NodeMemory::request_host_copies(GpuId g) {
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

void NodeMemory::serve_workers_in_turn(FunctionRef<void(GpuId)> try_start) {
  for (GpuId g = 0; g < s_.W; ++g) {
    const Worker& worker = s_.workers[g];
    if (worker.held.empty()) continue;
    if (!worker.running) try_start(g);
    const std::uint64_t allocations = s_.allocations;
    issue_requests(g);
    if (!worker.running && s_.allocations != allocations) try_start(g);  // write-only outputs are allocated at once
  }
}

bool NodeMemory::issue_requests(GpuId g, Requests which) {
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
    for (const Access& access : issue_order(n, task)) {
      const DataId d = access.data;
      const Copy copy = books_.copy(n, d);
      if (copy == Copy::Resident || copy == Copy::Loading) continue;
      if (copy == Copy::Evicting) return false;  // wait until it is gone, then load it again
      if (!may_allocate(n)) return false;
      if (reads(access.mode) && !may_start_transfer(n, index != head)) return false;
      if (copy != Copy::Invalid && !make_room(g, books_.bytes(d), index)) return false;
      reserve_replica(n, d);
      if (reads(access.mode)) {
        request_load(n, d, task);
      } else {
        books_.allocate(n, d);
        s_.device->allocate(n, d);
        if (!insert_at_allocation()) s_.policy.on_inserted(n, d);
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

// An invalidated copy's room is given back: its eviction was recorded when it was invalidated.
void NodeMemory::drop_invalid(std::uint32_t n, DataId d) { give_back_room(n, d); }

// StarPU marks the other replicas invalid and frees none of them (coherency.c:185-196): the
// copy is gone for every reader, its room is not.
void NodeMemory::keep_invalid(std::uint32_t n, DataId d, TaskId writer) {
  books_.invalidate(n, d);
  copy_gone(n, d, writer, EvictionCause::Invalidated, false, true);
}

void NodeMemory::free_copy(std::uint32_t n, DataId d, TaskId for_task, EvictionCause cause, bool wrote_back) {
  const bool reported = give_back_room(n, d);  // an evicting copy was told to the scheduler when its write-back began
  copy_gone(n, d, for_task, cause, wrote_back, !reported);
}

bool NodeMemory::give_back_room(std::uint32_t n, DataId d) {
  const bool evicting = books_.release(n, d);
  if (chunks_) chunks_->release(n, d, books_.bytes(d));
  if (tidy_) tidy_->released(n, d);
  --replicas_[n];
  return evicting;
}

void NodeMemory::copy_gone(std::uint32_t n, DataId d, TaskId for_task, EvictionCause cause, bool wrote_back, bool tell) {
  if (tell) copy_leaves(n, d);
  dirty_.clear(n, d);
  s_.device->release(n, d);
  if (open_load_[s_.slot(n, d)] != kNoId) emit_load(n, d, LoadKind::Unused, kNoId);
  s_.emit(EvictionRecord{.data = d, .gpu = s_.nodes[n].first, .for_task = for_task, .cause = cause, .wrote_back = wrote_back, .time_ns = s_.now});
  if (tell) s_.tell_workers(n, [&](GpuId v) { s_.scheduler.on_data_evicted(v, d); });
}

void NodeMemory::request_load(std::uint32_t n, DataId d, TaskId for_task) {
  books_.begin_load(n, d);
  load_requested(n, d);
  if (write_at_load() && for_task != kNoId) {
    for (const Access& access : s_.w.accesses(for_task)) {
      if (access.data == d && writes(access.mode)) load_writer_[s_.slot(n, d)] = for_task;
    }
  }
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
      if (h != n && copy == Copy::Resident) {
        relay_through_host(n, d, h, for_task);
        return;
      }
      if (h != n && copy == Copy::Evicting) {
        start_writeback(h, d, WritebackCause::Request);
        return;
      }
    }
    s_.fail("internal: data " + s_.w.data()[d].name + " has no valid copy anywhere");
  }
}

void NodeMemory::start_load(std::uint32_t n, DataId d, std::int32_t source) {
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

void NodeMemory::start_writeback(std::uint32_t n, DataId d, WritebackCause cause) {
  Transfer transfer;
  transfer.is_load = false;
  transfer.data = d;
  transfer.node = n;
  transfer.start_ns = s_.now;
  transfer.cause = cause;
  transfer.version = books_.version(d);
  books_.writeback_started(d, n);
  ++in_flight_[n];
  if (cause == WritebackCause::Eviction) ++eviction_writebacks_[n];
  s_.device->start_writeback(transfers_.add(transfer), n, d);
}

void NodeMemory::finish_transfer(std::uint32_t id) {
  const Transfer transfer = transfers_.take(id);
  const DataId d = transfer.data;
  const std::uint32_t n = transfer.node;
  --in_flight_[n];
  ++s_.changes;
  if (transfer.is_load) {
    books_.finish_load(n, d);
    open_loads_[open_load_[s_.slot(n, d)]].end_ns = s_.now;
    if (!insert_at_allocation()) s_.policy.on_inserted(n, d);
    s_.tell_workers(n, [&](GpuId v) { s_.scheduler.on_data_loaded(v, d); });
    if (const TaskId writer = std::exchange(load_writer_[s_.slot(n, d)], kNoId); writer != kNoId) loaded_for_write(n, d, writer);
    return;
  }
  if (transfer.cause == WritebackCause::Eviction) --eviction_writebacks_[n];
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
  writeback_ended(n, d);
}

// A write by `writer` leaves one valid copy: node `keep`'s, or the host's when keep is kNoId.
void NodeMemory::invalidate_copies(DataId d, std::uint32_t keep, TaskId writer) {
  for (std::uint32_t h = 0; h < s_.N; ++h) {
    if (h == keep) continue;
    const Copy copy = books_.copy(h, d);
    if (copy == Copy::Resident && invalid_keeps_room()) {
      keep_invalid(h, d, writer);
    } else if (copy == Copy::Resident) {
      s_.policy.on_removed(h, d);
      free_copy(h, d, writer, EvictionCause::Invalidated, false);
    } else if (copy == Copy::Evicting) {
      // h is writing back the version this task overwrote (its copy was the last valid one
      // when h chose to evict it): that write-back is now stale; h's copy leaves when it ends.
      books_.mark_stale(h, d);
    } else if (copy != Copy::Absent && copy != Copy::Invalid) {
      s_.fail("task " + s_.w.task_label(writer) + " wrote " + s_.w.data()[d].name + " while GPU " + std::to_string(s_.nodes[h].first) +
           " was loading it: the workload lacks a dependency between tasks that access it");
    }
  }
  books_.written(d, keep);
}

// StarPU updates the states when a request completes with the request's mode
// (_starpu_update_data_state, coherency.c:170-200): with W in it, every other copy is invalid,
// the home's too, and the chunk is dirty, though the task has not run yet.
void NodeMemory::loaded_for_write(std::uint32_t n, DataId d, TaskId writer) {
  for (std::uint32_t h = 0; h < s_.N; ++h) {
    const Copy copy = books_.copy(h, d);
    if (h != n && copy != Copy::Resident && copy != Copy::Absent && copy != Copy::Invalid) return;  // another node moves it: left to the task's end
  }
  if (!books_.host_valid(d) || books_.writeback_from(d) >= 0) return;  // already the only valid copy, or going home
  invalidate_copies(d, n, writer);
  dirty_.set(n, d);
  if (tidy_) tidy_->written(n, d, !homeless_[d]);
}

void NodeMemory::written_at_request(std::uint32_t n, DataId d, TaskId writer) {
  loaded_for_write(n, d, writer);
  // The home's copy may be invalid already (an idle write-back still queued): the replica, counted
  // clean since the tidy asked for that write-back, is dirty again all the same (_starpu_memchunk_dirty).
  if (tidy_) tidy_->written(n, d, !homeless_[d]);
}

bool NodeMemory::request_pending(DataId d) const {
  if (books_.writeback_from(d) >= 0) return true;
  for (std::uint32_t h = 0; h < s_.N; ++h) {
    if (books_.copy(h, d) == Copy::Loading || (tidy_ && tidy_->queued(h, d))) return true;
  }
  return false;
}

void NodeMemory::emit_load(std::uint32_t n, DataId d, LoadKind kind, TaskId task) {
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

void NodeMemory::write_home(bool homeless_too) {
  for (DataId d = 0; d < s_.nd; ++d) {
    if (books_.host_valid(d) || books_.writeback_from(d) >= 0) continue;
    if (homeless_[d] && !homeless_too && !s_.options.flush_all) continue;
    for (std::uint32_t n = 0; n < s_.N; ++n) {
      if (books_.copy(n, d) == Copy::Resident) {
        start_writeback(n, d, WritebackCause::Flush);
        break;
      }
    }
  }
}

}  // namespace tilelens::replay_detail
