/* LRU as a plugin: per memory, a list of resident data from least to most recently inserted
 * or used; the victim is the first one the executor allows. Its runs are identical to the
 * built-in `lru` (tests/plugins/test_plugins.cpp checks). The tutorial is docs/plugins.md. */
#include <stdlib.h>
#include <string.h>

#include "tilelens/plugin.h"

#define NONE UINT32_MAX

typedef struct {
  uint32_t data_count, memories;
  uint32_t *prev, *next, *first, *last; /* per (memory, data) links; per memory ends */
} lru;

static void* create(const tl_workload* workload, const tl_platform* platform, const tl_host* host, const tl_param* values,
                    char* error, size_t error_size) {
  (void)host, (void)values;
  lru* self = calloc(1, sizeof *self);
  const size_t links = (size_t)workload->data_count * (platform->memory_nodes ? platform->memory_nodes : 1);
  if (self) {
    self->data_count = workload->data_count;
    self->memories = platform->memory_nodes ? platform->memory_nodes : 1;
    self->prev = malloc(links * sizeof(uint32_t) + 1);
    self->next = malloc(links * sizeof(uint32_t) + 1);
    self->first = malloc(self->memories * sizeof(uint32_t));
    self->last = malloc(self->memories * sizeof(uint32_t));
  }
  if (!self || !self->prev || !self->next || !self->first || !self->last) {
    strncpy(error, "out of memory", error_size - 1);
    return NULL;
  }
  memset(self->prev, 0xff, links * sizeof(uint32_t));
  memset(self->next, 0xff, links * sizeof(uint32_t));
  memset(self->first, 0xff, self->memories * sizeof(uint32_t));
  memset(self->last, 0xff, self->memories * sizeof(uint32_t));
  return self;
}

static void destroy(void* state) {
  lru* self = state;
  free(self->prev), free(self->next), free(self->first), free(self->last), free(self);
}

static int linked(const lru* self, uint32_t memory, uint32_t data) {
  return self->first[memory] == data || self->prev[(size_t)memory * self->data_count + data] != NONE;
}

static void unlink_data(void* state, uint32_t memory, uint32_t data) {
  lru* self = state;
  if (!linked(self, memory, data)) return;
  const size_t at = (size_t)memory * self->data_count;
  const uint32_t before = self->prev[at + data], after = self->next[at + data];
  if (before != NONE) self->next[at + before] = after; else self->first[memory] = after;
  if (after != NONE) self->prev[at + after] = before; else self->last[memory] = before;
  self->prev[at + data] = self->next[at + data] = NONE;
}

static void to_back(void* state, uint32_t memory, uint32_t data) {
  lru* self = state;
  unlink_data(self, memory, data);
  const size_t at = (size_t)memory * self->data_count;
  self->prev[at + data] = self->last[memory];
  if (self->last[memory] != NONE) self->next[at + self->last[memory]] = data; else self->first[memory] = data;
  self->last[memory] = data;
}

static int choose_victim(void* state, uint32_t memory, uint32_t for_task, int prefetch, int (*evictable)(void*, uint32_t),
                         void* context, uint32_t* victim) {
  lru* self = state;
  (void)for_task, (void)prefetch;
  for (uint32_t d = self->first[memory]; d != NONE; d = self->next[(size_t)memory * self->data_count + d]) {
    if (evictable(context, d)) return *victim = d, 1;
  }
  return 0;
}

static const tl_param params[] = {{NULL, NULL}};

static const tl_eviction_plugin plugin = {
    .abi = TILELENS_PLUGIN_ABI, .name = "lru-example", .version = "1.0",
    .summary = "least recently inserted or used first (the built-in lru, as a plugin)", .params = params,
    .create = create, .destroy = destroy, .inserted = to_back, .used = to_back, .removed = unlink_data,
    .choose_victim = choose_victim,
};

const tl_eviction_plugin* tilelens_eviction_plugin_v1(void) { return &plugin; }
