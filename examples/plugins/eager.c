/* EAGER as a plugin: ready tasks in one FIFO, served in release order to whichever worker
 * asks (darts section 4.1). Its runs are identical to the built-in `eager`
 * (tests/plugins/test_plugins.cpp checks). The tutorial is docs/plugins.md. */
#include <stdlib.h>
#include <string.h>

#include "tilelens/plugin.h"

typedef struct {
  uint32_t* fifo; /* a ring of task_count slots: every task is pushed once */
  uint32_t capacity, head, size;
} eager;

static void* create(const tl_workload* workload, const tl_platform* platform, const tl_host* host, const tl_param* values,
                    char* error, size_t error_size) {
  (void)platform, (void)host, (void)values;
  eager* self = calloc(1, sizeof *self);
  if (self) self->fifo = malloc(sizeof *self->fifo * (workload->task_count ? workload->task_count : 1));
  if (!self || !self->fifo) {
    strncpy(error, "out of memory", error_size - 1);
    free(self);
    return NULL;
  }
  self->capacity = workload->task_count ? workload->task_count : 1;
  return self;
}

static void destroy(void* state) {
  eager* self = state;
  free(self->fifo);
  free(self);
}

static void push(void* state, uint32_t task) {
  eager* self = state;
  self->fifo[(self->head + self->size++) % self->capacity] = task;
}

static int pop(void* state, uint32_t worker, uint32_t* task) {
  eager* self = state;
  (void)worker;
  if (self->size == 0) return 0;
  *task = self->fifo[self->head];
  self->head = (self->head + 1) % self->capacity;
  --self->size;
  return 1;
}

static const tl_param params[] = {{NULL, NULL}};

static const tl_scheduler_plugin plugin = {
    .abi = TILELENS_PLUGIN_ABI,
    .name = "eager-example",
    .version = "1.0",
    .summary = "ready tasks in release order, to any worker (the built-in eager, as a plugin)",
    .params = params,
    .create = create,
    .destroy = destroy,
    .push = push,
    .pop = pop,
};

const tl_scheduler_plugin* tilelens_scheduler_plugin_v1(void) { return &plugin; }
