// Making room on a node, for every memory manager: whose data a request may not take, the
// eviction policy's victims, and the two ways of reclaiming (all victims at once, or StarPU's
// rounds, one victim at a time); see node_memory.hpp.
#include "replay/node_memory.hpp"

#include <algorithm>

namespace tilelens::replay_detail {

// Between two workers of one memory, whose next task goes first when both need room: the one
// buffered earlier, then the lower worker. Its data are safe from the other's requests, so
// the oldest waiting task always makes progress.
bool NodeMemory::head_before(GpuId a, GpuId b) const {
  const Worker& wa = s_.workers[a];
  const Worker& wb = s_.workers[b];
  const std::size_t ia = wa.running ? 1 : 0, ib = wb.running ? 1 : 0;
  if (ia >= wa.held.size()) return false;
  if (ib >= wb.held.size()) return true;
  const std::int64_t ta = s_.buffered_at[wa.held[ia]], tb = s_.buffered_at[wb.held[ib]];
  return ta != tb ? ta < tb : a < b;
}

bool NodeMemory::make_room(GpuId g, double bytes, std::size_t index) {
  Worker& worker = s_.workers[g];
  const std::uint32_t n = worker.node;
  const Node& node = s_.nodes[n];
  if (fits(n, bytes) && !reclaims_[n].under_way) return true;
  // Data used by the running task or any held task up to this one stay; on a shared memory
  // also the data of the other workers' running tasks, and of their next tasks unless this
  // request is for a next task that goes before theirs.
  const std::size_t head = worker.running ? 1u : 0u;
  const bool prefetch = index != head;
  if (prefetch && !prefetch_may_evict()) return false;
  victim_.node = n;
  victim_.walk = 0;
  victim_.pinned_seen = false;
  victim_.by_uses = node.workers.size() == 1 && index + 1 == worker.held.size();  // every held task is protected
  if (!victim_.by_uses) {
    const std::uint32_t stamp = victim_.stamp = ++victim_.last_stamp;
    for (std::size_t i = 0; i <= index; ++i) {
      for (const Access& access : s_.w.accesses(worker.held[i])) victim_.protect[s_.slot(n, access.data)] = stamp;
    }
    for (GpuId v : node.workers) {
      if (v == g) continue;
      const Worker& other = s_.workers[v];
      const std::size_t other_head = other.running ? 1u : 0u;
      const std::size_t last = std::min(other.held.size(), (prefetch || head_before(v, g)) ? other_head + 1 : other_head);
      for (std::size_t i = 0; i < last; ++i) {
        for (const Access& access : s_.w.accesses(other.held[i])) victim_.protect[s_.slot(n, access.data)] = stamp;
      }
    }
  }
  VictimRequest request;
  request.for_task = worker.held[index];
  request.prefetch = prefetch;
  request.evictable = evictable_;
  const bool found = sequential_reclaim() ? reclaim_in_rounds(g, bytes, request) : reclaim_at_once(n, bytes, request);
  if (found || !s_.error.empty()) return found;
  // No victim: an error unless something will free room or change the protections.
  if (!victim_.stalled) return false;
  bool busy = books_.pending_free(n) > 0 || victim_.pinned_seen;
  for (GpuId v : node.workers) busy = busy || s_.workers[v].running || (v != g && head_before(v, g));
  if (!request.prefetch && !busy && !books_.any_loading(n)) {
    s_.fail("the eviction policy found no victim on GPU " + std::to_string(node.first) + " for the next task, " +
            s_.w.task_label(request.for_task) + ", although its data fit in memory");
  }
  return false;
}

// A fetch reuses one clean replica's room if the model says so (clean_first); otherwise it
// reclaims reclaim_factor() times the room it needs, writing dirty replicas back as it meets
// them, all at once.
bool NodeMemory::reclaim_at_once(std::uint32_t n, double bytes, const VictimRequest& request) {
  victim_.stalled = false;
  bool reclaiming = false;
  const double reclaim = reclaim_factor();
  const double reclaim_bytes = bytes * reclaim;
  while (true) {
    // In bytes: with StarPU's chunks, free blocks too short for a datum count too (as StarPU
    // counts the bytes it reclaimed, not where they lie); whether it fits is asked exactly.
    const double pending = books_.pending_free(n), freeing = free_bytes(n) + pending;
    if (fits(n, bytes) && (!reclaiming || freeing >= reclaim_bytes)) return true;
    if (pending > 0 && freeing >= (reclaiming ? reclaim_bytes : bytes)) return false;  // write-backs will free enough
    std::optional<DataId> victim;
    bool clean_pass = false;
    if (!reclaiming && clean_first()) {
      victim = choose_victim(n, request, true);
      clean_pass = victim.has_value();
    }
    if (!victim) {
      reclaiming = !request.prefetch && reclaim > 1;
      victim = choose_victim(n, request, false);
      if (!victim && fits(n, bytes)) return true;  // reclaimed what it could
    }
    if (!victim) {
      victim_.stalled = true;
      return false;
    }
    if (!take_victim(n, *victim, bytes, clean_pass, request)) return false;
  }
}

// StarPU's allocation (_starpu_allocate_interface, memalloc.c:1490-1560): up to three rounds of
// a clean replica's room taken as it is, then, for a fetch, a reclaim of reclaim_factor() times
// the room, walking the replicas once in the policy's order and freeing them one at a time: at
// each dirty one the walk stops until its write-back has ended (transfer_subtree_to_node waits,
// memalloc.c:312-345), and goes on from there at a later call. Only the room this reclaim
// freed counts towards its goal (free_potentially_in_use_mc, :970-1052).
bool NodeMemory::reclaim_in_rounds(GpuId g, double bytes, const VictimRequest& request) {
  const std::uint32_t n = s_.workers[g].node;
  victim_.stalled = false;
  Reclaim& reclaim = reclaims_[n];
  const double goal = bytes * reclaim_factor();
  bool found_any = false;
  for (int round = 0; round < 3; ++round) {
    if (!reclaim.under_way) {
      if (fits(n, bytes)) return true;
      if (clean_first()) {
        if (const auto victim = choose_victim(n, request, true)) {
          if (!take_victim(n, *victim, bytes, true, request)) return false;
          found_any = true;
          if (fits(n, bytes)) return true;
        }
      }
      if (request.prefetch) return false;
      reclaim = {.under_way = true, .walk = ++victim_.last_walk, .freed = 0, .bytes = bytes, .round = round, .worker = g};
    }
    if (eviction_writebacks_[n] > 0) return false;  // the last victim's write-back is still moving
    victim_.walk = reclaim.walk;
    while (reclaim.freed < goal) {
      const auto victim = choose_victim(n, request, false);
      if (!victim) break;
      found_any = true;
      reclaim.freed += books_.bytes(*victim);
      if (!take_victim(n, *victim, bytes, false, request)) {
        victim_.walk = 0;
        return false;
      }
      if (books_.copy(n, *victim) == Copy::Evicting) {  // the walk goes on once it is home
        victim_.walk = 0;
        return false;
      }
    }
    victim_.walk = 0;
    reclaim = {};
  }
  // StarPU does not try a fourth time after its third reclaim: the request waits for the next
  // progress call (memalloc.c:1555-1556).
  victim_.stalled = !found_any && !fits(n, bytes);
  return false;
}

// StarPU's driver waiting in a reclaim notices nothing else until the reclaim's last write-back
// has ended and its fetch either allocates or, after the third round, gives up: at a round
// whose room its fetch still cannot use, it starts the next round at once.
bool NodeMemory::reclaim_ending(std::uint32_t n) const {
  const Reclaim& reclaim = reclaims_[n];
  return reclaim.under_way && reclaim.freed >= reclaim.bytes * reclaim_factor() && eviction_writebacks_[n] == 0 &&
         (reclaim.round == 2 || fits(n, reclaim.bytes));
}

// Evicts the policy's victim; false if the policy chose one it may not take.
bool NodeMemory::take_victim(std::uint32_t n, DataId victim, double bytes, bool clean_pass, const VictimRequest& request) {
  if (!request.evictable(victim)) {
    s_.fail("the eviction policy chose data " + std::to_string(victim) + ", which cannot be evicted now");
    return false;
  }
  // StarPU gives a clean replica of the same footprint's memory straight to the new datum.
  if (clean_pass && chunks_ && books_.bytes(victim) == bytes) chunks_->reuse_next_release(n);
  evict(n, victim, request.for_task);
  return true;
}

// The policy's victim, among clean replicas only (none dirty: no write-back needed) or all.
std::optional<DataId> NodeMemory::choose_victim(std::uint32_t n, const VictimRequest& request, bool clean_only) {
  if (clean_only) {
    if (dirty_.count(n) == 0) clean_only = false;             // every replica is clean
    else if (dirty_.count(n) >= replicas_[n]) return std::nullopt;  // none is
  }
  victim_.clean_only = clean_only;
  const auto victim = victim_clock_([&] { return s_.policy.choose_victim(n, request); });
  victim_.clean_only = false;
  return victim;
}

void NodeMemory::evict(std::uint32_t n, DataId d, TaskId for_task) {
  s_.policy.on_removed(n, d);
  if (books_.copy(n, d) == Copy::Invalid) {
    drop_invalid(n, d);
    return;
  }
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

}  // namespace tilelens::replay_detail
