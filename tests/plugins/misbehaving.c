/* Plugins that misbehave, one per MISBEHAVIOUR (tests/plugins/test_plugins.cpp): each must get a
 * clear error, with nothing stored. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tilelens/plugin.h"

#define REFUSE 1       /* create() returns NULL with a message */
#define BAD_TASK 2     /* pop() hands out a task that does not exist */
#define WRONG_ABI 3    /* built for another ABI */
#define BAD_VICTIM 4   /* an eviction policy naming a datum it may not evict */
#define CRASH 5        /* pop() dereferences a null pointer */
#define HANG 6         /* pop() never returns */

typedef struct {
  uint32_t tasks, next;
} state;

static void* create(const tl_workload* w, const tl_platform* p, const tl_host* h, const tl_param* v, char* error, size_t size) {
  (void)p, (void)h, (void)v;
#if MISBEHAVIOUR == REFUSE
  (void)w;
  snprintf(error, size, "this plugin only runs workloads of 7 tasks");
  return NULL;
#else
  (void)error, (void)size;
  state* self = calloc(1, sizeof *self);
  self->tasks = w->task_count;
  return self;
#endif
}
static void destroy(void* self) { free(self); }
static void push(void* self, uint32_t task) { (void)self, (void)task; }
static int pop(void* state_, uint32_t worker, uint32_t* task) {
  state* self = state_;
  (void)worker;
#if MISBEHAVIOUR == CRASH
  volatile uint32_t* nowhere = NULL;
  *task = *nowhere;
#elif MISBEHAVIOUR == HANG
  for (volatile int forever = 1; forever;) {
  }
#endif
  *task = MISBEHAVIOUR == BAD_TASK ? self->tasks + 5 : self->next++;
  return self->next <= self->tasks;
}
static int choose_victim(void* self, uint32_t memory, uint32_t for_task, int prefetch, int (*evictable)(void*, uint32_t), void* context,
                         uint32_t* victim) {
  (void)self, (void)memory, (void)prefetch, (void)evictable, (void)context;
  *victim = for_task == 0 ? 0 : 1000000;
  return 1;
}
static const tl_param params[] = {{NULL, NULL}};
static const tl_scheduler_plugin scheduler = {.abi = MISBEHAVIOUR == WRONG_ABI ? 99 : TILELENS_PLUGIN_ABI, .name = "misbehaving",
                                              .version = "0", .summary = "", .params = params, .create = create,
                                              .destroy = destroy, .push = push, .pop = pop};
static const tl_eviction_plugin eviction = {.abi = TILELENS_PLUGIN_ABI, .name = "misbehaving", .version = "0", .summary = "",
                                            .params = params, .create = create, .destroy = destroy, .choose_victim = choose_victim};
const tl_scheduler_plugin* tilelens_scheduler_plugin_v1(void) { return &scheduler; }
const tl_eviction_plugin* tilelens_eviction_plugin_v1(void) { return &eviction; }
