/* tilelens plugin interface, version 1: a scheduler or an eviction policy in a shared library,
 * loaded by `--scheduler ./libmine.so[:key=value,...]` or `--eviction ./libvictim.so[:...]`.
 * Plain C (any compiler, or Rust through its C ABI); docs/plugins.md is the tutorial.
 *
 * A library exports one or both entry points:
 *   const tl_scheduler_plugin* tilelens_scheduler_plugin_v1(void);
 *   const tl_eviction_plugin* tilelens_eviction_plugin_v1(void);
 * each returning a description that lives as long as the library (a static const object).
 *
 * A plugin sees what the built-in policies see, no more: the workload (tasks, data, accesses,
 * dependencies, priorities), the platform, the memory states through tl_host, and, for an
 * eviction policy that asks for it (needs_future), the scheduler's known future. Every view
 * stays valid from create() to destroy(); ids are 0-based. Calls come from one thread.
 *
 * Contract of a scheduler, in the order calls happen (the built-in one: schedulers/scheduler.hpp):
 *   1. create(...) once: return the plugin's state, or NULL after writing a message to `error`.
 *   2. push(self, task) when a task becomes ready (its predecessors done), in release order.
 *   3. pop(self, worker, &task) when a worker has room in its task buffer: return 1 and set
 *      *task to a pushed task not handed out yet, or return 0 (nothing for now; the worker
 *      asks again after the next event). A task that is not ready, or handed out twice, stops
 *      the run with an error.
 *   4. hooks as things happen, each optional (NULL): task_started, task_done, data_loaded,
 *      data_evicted (a replica arrived on, or left, the memory of `worker`).
 *   5. destroy(self) once.
 *
 * Contract of an eviction policy (the built-in one: eviction/policy.hpp):
 *   1. create(...) once.
 *   2. inserted(self, memory, data) when a replica becomes resident; used(...) when a task
 *      starts using it; removed(...) when it leaves (evicted or invalidated). `memory` names a
 *      memory node (one per GPU unless GPUs share one).
 *   3. choose_victim(self, memory, for_task, prefetch, evictable, evictable_context, &victim)
 *      when room is needed: return 1 and set *victim to a data for which
 *      evictable(evictable_context, data) is nonzero, or return 0. Returning 0 is allowed only
 *      for a prefetch (prefetch != 0); a wrong victim stops the run with an error.
 *   4. destroy(self) once.
 */
#ifndef TILELENS_PLUGIN_H
#define TILELENS_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TILELENS_PLUGIN_ABI 1

enum { TL_READ = 0, TL_WRITE = 1, TL_READ_WRITE = 2 };              /* an access's mode */
enum { TL_ABSENT = 0, TL_LOADING = 1, TL_RESIDENT = 2 };           /* a replica's state */
#define TL_NEVER UINT64_MAX                                          /* next_use: no further use */

typedef struct tl_workload {
  uint32_t task_count, data_count, kind_count;
  const char* const* kind_names;   /* [kind_count] */
  const uint16_t* task_kind;       /* [task_count] */
  const double* task_flops;        /* [task_count] */
  const int64_t* task_priority;    /* [task_count]: higher runs first (bottom levels in flops) */
  const uint32_t* access_begin;    /* [task_count + 1]: task t's accesses are [begin[t], begin[t + 1]) */
  const uint32_t* access_data;     /* [accesses] */
  const uint8_t* access_mode;      /* [accesses]: TL_READ, TL_WRITE or TL_READ_WRITE */
  const uint64_t* data_bytes;      /* [data_count] */
  const uint32_t* successor_begin; /* [task_count + 1] */
  const uint32_t* successors;      /* [edges] */
} tl_workload;

typedef struct tl_platform {
  uint32_t gpus;          /* workers 0 .. gpus - 1 compute from a bounded memory */
  uint32_t cpus;          /* workers gpus .. gpus + cpus - 1 compute from the host */
  uint32_t memory_nodes;  /* bounded memories; worker w < gpus uses memory w / (gpus / memory_nodes) */
  double memory_bytes;    /* per bounded memory */
  double bus_bandwidth;   /* bytes per second between the host and a GPU */
} tl_platform;

typedef struct tl_host {
  void* context;
  /* The replica of `data` on `worker`'s memory: TL_ABSENT, TL_LOADING or TL_RESIDENT. */
  int (*replica_state)(void* context, uint32_t worker, uint32_t data);
  double (*free_bytes)(void* context, uint32_t worker);
  /* The scheduler's known future: the position of the next use of `data` by `gpu`, or
   * TL_NEVER; only for an eviction policy with needs_future (NULL otherwise). */
  uint64_t (*next_use)(void* context, uint32_t gpu, uint32_t data);
} tl_host;

typedef struct tl_param {
  const char* key;
  const char* value; /* the default in a declaration; the value given in create() */
} tl_param;

typedef struct tl_scheduler_plugin {
  uint32_t abi; /* TILELENS_PLUGIN_ABI */
  const char* name;
  const char* version;
  const char* summary;
  const tl_param* params; /* the parameters it takes, with defaults, ended by {NULL, NULL} */
  void* (*create)(const tl_workload* workload, const tl_platform* platform, const tl_host* host, const tl_param* values,
                  char* error, size_t error_size);
  void (*destroy)(void* self);
  void (*push)(void* self, uint32_t task);
  int (*pop)(void* self, uint32_t worker, uint32_t* task);
  void (*task_started)(void* self, uint32_t worker, uint32_t task);
  void (*task_done)(void* self, uint32_t worker, uint32_t task);
  void (*data_loaded)(void* self, uint32_t worker, uint32_t data);
  void (*data_evicted)(void* self, uint32_t worker, uint32_t data);
} tl_scheduler_plugin;

typedef struct tl_eviction_plugin {
  uint32_t abi; /* TILELENS_PLUGIN_ABI */
  const char* name;
  const char* version;
  const char* summary;
  const tl_param* params;
  int needs_future; /* nonzero: tl_host.next_use answers (Belady-like policies) */
  void* (*create)(const tl_workload* workload, const tl_platform* platform, const tl_host* host, const tl_param* values,
                  char* error, size_t error_size);
  void (*destroy)(void* self);
  void (*inserted)(void* self, uint32_t memory, uint32_t data);
  void (*used)(void* self, uint32_t memory, uint32_t data);
  void (*removed)(void* self, uint32_t memory, uint32_t data);
  int (*choose_victim)(void* self, uint32_t memory, uint32_t for_task, int prefetch, int (*evictable)(void* context, uint32_t data),
                       void* evictable_context, uint32_t* victim);
} tl_eviction_plugin;

const tl_scheduler_plugin* tilelens_scheduler_plugin_v1(void);
const tl_eviction_plugin* tilelens_eviction_plugin_v1(void);

#ifdef __cplusplus
}
#endif

#endif /* TILELENS_PLUGIN_H */
