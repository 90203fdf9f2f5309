// How a replay's memory nodes serve requests for data: which memory model, with its own rules.
// Each model is its own memory manager in replay/ (replay/memory_manager.hpp); this file holds
// only what a run records and a user writes: the model's name and its parameters, as a spec
// ("starpu", "starpu:idle_writeback=0", "fgcs"). docs/replay.md says what each parameter does;
// docs/starpu-memory-manager.md where in StarPU's source each StarPU rule comes from.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "model/params.hpp"
#include "util/result.hpp"

namespace tilelens {

// StarPU 1.3.10's memory manager (the default). Each rule is a parameter, so that a study can
// turn one off ("starpu:idle_writeback=0") and see what it costs.
struct StarpuMemoryRules {
  // Requests for the buffered tasks after the next one to run (prefetches) may evict data.
  // StarPU: no, a prefetch only uses free memory and waits otherwise (memalloc.c).
  bool prefetch_evicts = false;
  // A task that the scheduler allocates to a worker when it becomes ready (DMDA, DMDAR,
  // DMDAS) has its read inputs prefetched then, before the worker takes it (StarPU's dmda push).
  bool prefetch_at_push = true;
  // A node serves the fetches of all its workers before any prefetch, and stops prefetching
  // for the moment at the first prefetch it cannot place (data_request.c). Otherwise each
  // worker issues its requests in buffer order, worker after worker.
  bool fetches_first = true;
  // Transfers a node may have in flight before it postpones further fetches or prefetches
  // (StarPU's 20 and 10; 0: no limit).
  std::uint32_t max_fetches = 20;
  std::uint32_t max_prefetches = 10;
  // A fetch that must evict first takes a clean replica of the same size, if the eviction
  // policy has one to give, before any replica that must be written back (StarPU reuses a
  // same-footprint clean chunk before it reclaims).
  bool clean_first = true;
  // A prefetch that finds its data already there makes it the most recently used, as a use
  // does (StarPU refreshes a chunk on every request that hits it: coherency.c).
  bool touch_on_request = true;
  // A fetch that finds no clean replica to take evicts until this many times the room it needs
  // is free or freeing (StarPU reclaims twice the size: memalloc.c); 1: just the room.
  double reclaim = 2;
  // When fewer than min_clean percent of a node's replicas are clean, the node writes its
  // oldest dirty replicas back while it has no other transfer in flight, one at a time, until
  // target_clean percent are clean; the replicas stay, now clean (StarPU's memchunk tidy).
  bool idle_writeback = true;
  double min_clean = 5;
  double target_clean = 10;
  // A node serves its waiting push-time prefetches by the task's priority, highest first, in
  // request order among equals: StarPU keeps each node's data requests in priority lists and
  // gives a prefetch its task's priority (coherency.c, data_request.c). 0: in request order.
  bool prioritized_requests = true;
  // A task waits for any write-back leaving its node of data it writes, whatever asked for it:
  // StarPU's fetch for writing a datum with a pending request waits for it (coherency.c:486-506,
  // nwait, counted for a write only), and a queued idle write-back that the node's next task
  // writes is promoted to a fetch at once (data_request.c:839). Data it only reads serve at once.
  // 0: a resident replica serves at once.
  bool wait_for_writebacks = true;
  // A fetch that evicts dirty replicas writes them back synchronously: the node's driver waits
  // for those write-backs and starts no task meanwhile (memalloc.c:324-345, transfer_subtree_to_node
  // waits inside the allocation, which runs in the GPU driver's thread); with sequential_reclaim,
  // a task of that worker that ends meanwhile is noticed only once the reclaim's last write-back
  // has ended and its fetch will allocate or give up, before that allocation (the driver polls
  // nothing while it waits; docs/starpu-memory-manager.md item 27). 0: the worker goes on.
  bool sync_reclaim = true;
  // A replica becomes the most recently used when a worker's request for it finds it there (a
  // task entering a buffer), not when a task runs with it: StarPU moves a chunk to its list's
  // tail on a request's cache hit only (coherency.c:527, memalloc.c:1661). A request to write a
  // datum that has another request pending is no hit (it waits, coherency.c:486-506) and
  // refreshes nothing. 0: when a task starts.
  bool recency_at_request = true;
  // GPU memory is handed out as StarPU's CUDA suballocator does (malloc.c:640-960): a datum of
  // at most 4 MiB takes 16 KiB blocks in 32 MiB chunks, and the memory limit counts whole
  // chunks, so a node holds fewer such data than its bytes say. A memory under one chunk counts
  // bytes (StarPU could place no small datum there). 0: the limit counts data bytes (StarPU's
  // CPU memory out of core, which it does not suballocate without a GPU).
  bool suballocate = true;
  // At the end, data without a home (whose first access writes it, so no initial value is
  // needed: StarPU's handles registered without a home node) are written back like the rest.
  // StarPU drops them at unregistration.
  bool flush_homeless = false;
  // A load of data whose only valid copy is on another GPU with no link goes through the host,
  // and its first hop is one of the source node's own requests (StarPU's handling node for a
  // GPU-to-RAM copy is the GPU: coherency.c:355-370), at the load's level and priority: a
  // prefetch's waits behind the source's fetches, its limit of transfers in flight and its
  // prefetches of higher priority, and becomes a fetch once a task the destination holds needs
  // the data (data_request.c:839-877). 0: the first hop starts at once.
  bool relay_requests = true;
  // A GPU worker takes a task from the scheduler only when no task it holds waits for its data:
  // StarPU's driver pops nothing while the task it popped last is transferring its inputs
  // (task_transferring, driver_common.c:521-531), so one fetch at a time, and pops again once
  // that task is launched. 0: a worker with room in its buffer takes a task at once.
  bool pop_when_fetched = true;
  // A load for a task that writes the datum (read-write) makes the loaded copy the only valid
  // one as it arrives, the home's copy invalid and the replica dirty: StarPU's request carries
  // the task's mode and its completion updates the states with it (_starpu_update_data_state,
  // coherency.c:170-200), prefetches included. 0: when the task ends.
  bool write_at_load = true;
  // A request that finds its datum in place for a task that writes it (a worker's fetch, or a
  // push-time prefetch, which carries the task's mode in StarPU) makes that copy the only valid
  // one and dirty at once: a hit updates the states with the request's mode
  // (_starpu_create_request_to_fetch_data, coherency.c:505-511; prefetches, coherency.c:785-787).
  // A request to write that waited for a write-back of its datum does so when that write-back
  // ends (its completion updates the states, coherency.c:185-200). 0: when the task ends.
  bool write_at_hit = true;
  // At each event a node serves its requests (fetches, then prefetches) before its workers pop:
  // StarPU's driver makes its memory node progress (datawizard.c:29-66) before it pops, so a
  // prefetch that a transfer's end let through is placed before the popped task's own requests.
  // With fetches_first only. 0: the workers pop first.
  bool progress_before_pop = true;
  // A task's requests go in the order of its data handles, which StarPU sorts before it fetches
  // (_STARPU_JOB_GET_ORDERED_BUFFERS, coherency.c:1077): handles registered in data order, so by
  // data id. Push-time prefetches keep the task's order (coherency.c:876). 0: the task's order.
  bool handle_order = true;
  // StarPU's tidy passes over a replica of a datum that a task is writing somewhere: the last
  // task that took the datum (when its dependencies were met) writes it, and some copy of it
  // is referenced, by a task that fetched it or by a request (a load, a write-back, a queued
  // idle write-back) on any node (memalloc.c:1153-1168; current_mode is W for read-write too,
  // data_concurrency.c:123; requests reference both ends, data_request.c:165-181). The walk goes
  // on past it, but the dirty head stays. 0: only a resident replica that a task held by the
  // node writes is passed over.
  bool tidy_skips_busy = true;
  // A replica that a write on another node makes invalid keeps its room until it is evicted or
  // loaded again: StarPU marks it invalid (_starpu_update_data_state, coherency.c:185-196) and
  // frees its allocation only when a fetch reclaims room (memalloc.c). A prefetch, which
  // reclaims nothing, does not get that room. 0: the room is free at once.
  bool invalid_keeps_room = true;
  // No replica that a request references is an eviction victim (a queued idle write-back, a
  // write-back under way, a first hop through the host waiting), nor any replica of a datum whose
  // last ready task writes it while some copy of it is referenced: StarPU frees only chunks that
  // may_free_subtree allows (memalloc.c:275-295), and a request references both its ends until it
  // completes (data_request.c:165-181). 0: only the held tasks' data are protected.
  bool referenced_stay = true;
  // A fetch's reclaim takes its victims one at a time: a dirty victim's write-back ends before
  // the next victim is chosen, and while it waits the node makes progress as StarPU's driver
  // does inside _starpu_wait_data_request_completion (data_request.c:225-256): an idle write-back
  // may start there once nothing else is pending, ahead of the next victim's
  // (free_potentially_in_use_mc, memalloc.c:970-1052; transfer_subtree_to_node, :312-345).
  // 0: every victim is chosen and its write-back started at once.
  bool sequential_reclaim = true;
  // The eviction policy meets a new replica when its room is taken, not when its load arrives:
  // StarPU's chunk list, which its reclaim walks, gets the chunk at allocation
  // (_starpu_allocate_memory_on_node, memalloc.c:1609-1634; register_mem_chunk, :1335), and a chunk
  // invalidated and loaded again keeps its place. 0: when the load arrives.
  bool insert_at_allocation = true;
  // A push-time prefetch requests the task's data missing at the push, then and only then
  // (starpu_prefetch_task_input_on_node_prio, coherency.c:864-895): a datum there at the push and
  // evicted later has no request until a worker's fetch asks for it. Such a request keeps its
  // task's priority when a fetch promotes it (data_request.c:839-870), where a fetch's own
  // request has priority 0 (coherency.c:1109): a fetch's data whose push-time request still
  // waits go first. 0: a push-time prefetch asks for whatever is missing when it is served.
  bool requests_at_push = true;
  // A request that reaches the fetch level joins the back of its node's fetch list, behind the
  // requests already there (_starpu_update_prefetch_status, data_request.c:839-853; the list is
  // served by priority, then in order, :590): a worker's fetch promotes the first hops through
  // the host it finds waiting as prefetches in the order of its handles, and a promoted idle
  // write-back starts once the node's synchronous reclaim, if any, is over. A fetch's own first
  // hop has priority 0 (coherency.c:1109). 0: first hops in the order they were asked for, and a
  // promoted idle write-back at once.
  bool fetch_list_order = true;
  // Transfers started at one instant leave in the order the runtime started them: StarPU's
  // drivers take their decisions one after another, each progress call costing StarPU-SimGrid
  // 1 us (datawizard.c:33-36), so two equal transfers it starts "together" never end together.
  // The replay keeps its clock and gives the k-th transfer started at an instant k ns more to
  // move. 0: transfers started at one instant are simultaneous.
  bool ordered_starts = true;
  // A load through the host (a datum valid only on another GPU without a link) takes its room
  // on the destination's list of replicas when its second hop starts: StarPU allocates a
  // request's destination when it handles the request (_starpu_driver_copy_data_1_to_1, from
  // starpu_handle_data_request, data_request.c:497), and the second hop waits for the first;
  // until then the tidy does not count it among the node's replicas. 0: when the load is asked for.
  bool list_at_second_hop = true;
  // The tidy's walk judges a replica by its home only (memalloc.c:1186-1230): a replica that a
  // write elsewhere invalidated (it keeps its chunk, invalid_keeps_room) and whose home is not
  // valid either asks for the datum home, from the node that holds the valid copy, in that node's
  // idle list, and counts clean. 0: such a replica is passed over.
  bool tidy_fetches_home = true;
  // A worker whose task ends while its next task has its data pops in the same pass of its
  // driver, after that pass's tidy (which ran before the pass's requests) and before the next
  // pass's tidy, which sees the pop's fetch hits (driver_cuda.c:899-963, datawizard.c:29-66); a
  // worker whose next task waited for a transfer pops one pass later. 0: every pop comes after
  // a tidy that saw the pass's requests (progress_before_pop's order).
  bool same_pass_pop = true;
  // With requests_at_push: StarPU keeps one request per datum and node. A push-time prefetch of
  // a datum some earlier push already asked for reuses that request and its priority
  // (coherency.c:601-625), the node's prefetch list holds requests, not tasks, in priority order,
  // and a request is done once any load of its datum is asked for; a fetch serves first the data
  // such a request waits for, at its priority. 0: each task's push asks for its own missing data,
  // and a fetch ranks only the requests its own task's push made.
  bool shared_push_requests = true;
  // A node's workers are StarPU CPU drivers: each runs its task inside the driver's thread and
  // makes its memory progress only between tasks (driver_cpu.c:285-311), so a transfer that
  // ends while every worker of its node computes is noticed, its room and data handed over and
  // the requests behind it issued, only when one of them ends its task. 0 (the default, StarPU's
  // CUDA drivers with asynchronous kernels): at once. The real-StarPU comparison's CPU workers
  // out of core set it (tests/starpu/starpu_vs_replay.sh, docs/replay.md).
  bool progress_between_tasks = false;
  // StarPU's drivers poll the scheduler (STARPU_NON_BLOCKING_DRIVERS, the default of a StarPU
  // built without SimGrid, Debian's included: configure.ac:279-286): a worker without a task
  // asks for one again and again, so when a task ends, a worker that was idle takes (or steals)
  // the successors its end releases while the ending worker is still releasing them; that worker
  // pops once it is done. The workers whose task ended at an event then pop after the others.
  // 0 (the default, StarPU-SimGrid's blocking drivers, which sleep until a push wakes them while
  // the releasing worker goes on): every worker in its index order. The real-StarPU comparison
  // sets it (tests/starpu/starpu_vs_replay.sh, docs/replay.md).
  bool polling_drivers = false;
};

// The fgcs paper's model (section 3): each worker requests its buffered tasks' data in buffer
// order, any request may evict just the room it needs, there is no limit on transfers in
// flight, and every datum goes home at the end. It has no parameters.
struct FgcsMemoryRules {};

struct MemoryModel {
  std::variant<StarpuMemoryRules, FgcsMemoryRules> rules{};

  std::string_view name() const;
  // The spec with every parameter, for the run record.
  std::string canonical() const;
};

// A model's parameters, with their defaults and help (for --help and docs); none for fgcs.
const std::vector<ParamSpec>& memory_model_params(std::string_view name);
// "starpu" or "fgcs", with the model's own key=value overrides. Errors name the bad key or value.
// The long fgcs specs stored before fgcs had a manager of its own (StarPU's parameter names at
// the fgcs values: "fgcs:clean_first=0,...") still parse, to the fgcs model.
Result<MemoryModel> parse_memory_model(std::string_view spec);
// The spec without the parameters left at their defaults, for labels: "starpu", "fgcs",
// "starpu:idle_writeback=0". A text that is not a spec is returned as it is.
std::string short_memory_model_spec(std::string_view spec);
// Whether a recorded spec is the fgcs model's (empty: runs stored before models were recorded).
bool is_fgcs_memory_model(std::string_view spec);

}  // namespace tilelens
