/* The reference side of the fidelity comparison (docs/fidelity.md): a StarPU program that
 * submits a tilelens workload the way applications do, for StarPU 1.3.10 built in SimGrid mode
 * (tests/starpu/build_starpu_simgrid.sh). StarPU's own schedulers and memory manager then run
 * it on the simulated machine that `tilelens export starpu-simgrid` wrote, deterministically.
 *
 * What it does, in the order an application would:
 *   - registers every datum up front, homed in main memory (a vector of BYTES one-byte
 *     elements at a fake address: in SimGrid mode nothing is ever copied);
 *   - submits the tasks in the workload's submission order, each with its accesses, its
 *     priority and the explicit dependencies of the workload's `dep` records (sequential
 *     consistency is off, so StarPU adds none of its own);
 *   - a task of kind K lasts FLOPS / rate(K) on a GPU, the platform's kernel rate in the
 *     machine folder's rates file, given to StarPU as its performance model;
 *   - waits for every task, unregisters the data (dirty tiles go home) and shuts down.
 * It prints one JSON line: the simulated makespan (first submission to the last task's end),
 * and the transfers StarPU counted on each bus, host-to-GPU loads, GPU-to-GPU loads and
 * GPU-to-host write-backs, with their bytes. With TILELENS_ORDER_OUT=FILE it also writes each
 * task as it ended, "task,worker,start_us,end_us" (the task's id in the workload file), to
 * compare the order StarPU ran with a replay's --order-out.
 *
 * TILELENS_SCHED_REC=FILE imposes a schedule, as starpu_replay does with the sched.rec that
 * `tilelens export starpu-replay --run` writes: each task (by SubmitOrder) runs on its
 * SpecificWorker, in its Workerorder there (StarPU then bypasses the scheduler, whose push-time
 * prefetch it still makes: sched_policy.c:540-545). Its kernels stay asynchronous, so a tilelens
 * schedule is compared with StarPU's memory manager without the replay tool's departures.
 *
 * TILELENS_LIKE_REPLAY_TOOL=sync,anywhere,first_use (any of them, or all) makes it run as StarPU's
 * replay tool runs an exported tasks.rec (tools/starpu_replay.c; docs/fidelity.md, "StarPU's
 * replay tool"): sync, kernels run inside the driver's thread (its one codelet is
 * STARPU_CODELET_SIMGRID_EXECUTE, not STARPU_CUDA_ASYNC); anywhere, a codelet that has CPU code
 * too (StarPU then skips the push-time prefetch of a task only one memory node can run,
 * sched_policy.c:549-562); first_use, the data registered in the order the submitted tasks first
 * use them (StarPU sorts a task's handles by address, so that order is the order of its requests).
 *
 * Priorities: tilelens priorities are bottom levels in flops, larger than StarPU's int; each
 * is replaced by its rank among the workload's distinct priorities, which keeps their order,
 * the only thing StarPU's schedulers compare.
 *
 * usage: simgrid_dag WORKLOAD_FILE RATES_FILE
 *   (STARPU_HOME, STARPU_HOSTNAME, STARPU_NCUDA, STARPU_SCHED... set by tests/starpu/simgrid_run.sh)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <starpu.h>

#define MAX_KINDS 64
#define MAX_ACCESSES STARPU_NMAXBUFS

struct kind {
  char name[64];
  double gflops; /* on a GPU */
  struct starpu_perfmodel model;
  struct starpu_codelet codelet;
};

struct task {
  int id;
  int kind;
  double flops;
  long long priority;
  int rank; /* the priority's rank */
  int naccesses;
  int data[MAX_ACCESSES];
  enum starpu_data_access_mode modes[MAX_ACCESSES];
  int npreds;
  int *preds;
};

static struct kind kinds[MAX_KINDS];
static int nkinds;
static struct task *tasks;
static int ntasks, tasks_cap;
static unsigned long long *data_bytes;
static int ndata, data_cap;
static int *order;
static int norder;

static void die(const char *file, int line, const char *what) {
  fprintf(stderr, "simgrid_dag: %s:%d: %s\n", file, line, what);
  exit(2);
}

static void *grow(void *array, int *cap, int need, size_t item) {
  if (need <= *cap) return array;
  *cap = need * 2 + 16;
  array = realloc(array, (size_t)*cap * item);
  if (!array) die("memory", 0, "out of memory");
  return array;
}

static int find_kind(const char *name) {
  for (int k = 0; k < nkinds; k++)
    if (strcmp(kinds[k].name, name) == 0) return k;
  return -1;
}

/* Whether TILELENS_LIKE_REPLAY_TOOL names `what` (or is "all"). */
static int like_tool(const char *what) {
  const char *list = getenv("TILELENS_LIKE_REPLAY_TOOL");
  return list && (strcmp(list, "all") == 0 || strstr(list, what) != NULL);
}

/* The tasks' durations: flops over the kind's GPU rate, in microseconds. */
static double task_length_us(struct starpu_task *task, struct starpu_perfmodel_arch *arch, unsigned nimpl) {
  (void)arch;
  (void)nimpl;
  const struct task *t = task->cl_arg;
  const double rate = kinds[t->kind].gflops;
  return t->flops / (rate * 1e9) * 1e6;
}

/* Never called in SimGrid mode: the simulated GPU only waits the model's time. */
static void no_kernel(void *buffers[], void *arg) {
  (void)buffers;
  (void)arg;
}

/* Each task as it ends (callbacks run one at a time in SimGrid mode). */
struct ended {
  int task, worker;
  double start_us, end_us;
};
static struct ended *ended;
static int nended;

static void task_ended(void *arg) {
  const struct task *t = arg;
  struct starpu_task *task = starpu_task_get_current();
  double start = -1;
  if (task && task->profiling_info) start = starpu_timing_timespec_to_us(&task->profiling_info->start_time);
  ended[nended].task = t->id;
  ended[nended].worker = starpu_worker_get_id();
  ended[nended].start_us = start;
  ended[nended].end_us = starpu_timing_now();
  ++nended;
}

static void read_workload(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) die(path, 0, "cannot open");
  char line[1 << 16];
  int lineno = 0;
  while (fgets(line, sizeof line, f)) {
    ++lineno;
    char *hash = strchr(line, '#');
    if (hash) *hash = 0;
    char *save = NULL;
    char *word = strtok_r(line, " \t\r\n", &save);
    if (!word) continue;
    if (strcmp(word, "kind") == 0) {
      char *name = strtok_r(NULL, " \t\r\n", &save);
      if (!name || nkinds == MAX_KINDS) die(path, lineno, "bad kind record (or more than 64 kinds)");
      snprintf(kinds[nkinds].name, sizeof kinds[nkinds].name, "%s", name);
      kinds[nkinds].gflops = 0;
      ++nkinds;
    } else if (strcmp(word, "data") == 0) {
      char *bytes = strtok_r(NULL, " \t\r\n", &save);
      if (!bytes) die(path, lineno, "bad data record");
      data_bytes = grow(data_bytes, &data_cap, ndata + 1, sizeof *data_bytes);
      data_bytes[ndata] = strtoull(bytes, NULL, 10);
      /* A vector of one-byte elements counts them in 32 bits. */
      if (data_bytes[ndata] > UINT32_MAX) die(path, lineno, "a datum over 4 GiB");
      ++ndata;
    } else if (strcmp(word, "task") == 0) {
      tasks = grow(tasks, &tasks_cap, ntasks + 1, sizeof *tasks);
      struct task *t = &tasks[ntasks];
      memset(t, 0, sizeof *t);
      t->id = ntasks;
      char *kind = strtok_r(NULL, " \t\r\n", &save);
      char *flops = strtok_r(NULL, " \t\r\n", &save);
      char *priority = strtok_r(NULL, " \t\r\n", &save);
      if (!kind || !flops || !priority || (t->kind = find_kind(kind)) < 0) die(path, lineno, "bad task record");
      t->flops = strtod(flops, NULL);
      t->priority = strtoll(priority, NULL, 10);
      for (int skip = 0; skip < 3; skip++) strtok_r(NULL, " \t\r\n", &save); /* drawing coordinates */
      char *access;
      while ((access = strtok_r(NULL, " \t\r\n", &save))) {
        if (t->naccesses == MAX_ACCESSES) die(path, lineno, "more accesses than StarPU's STARPU_NMAXBUFS");
        char *colon = strchr(access, ':');
        if (!colon) die(path, lineno, "bad access");
        *colon = 0;
        enum starpu_data_access_mode mode = strcmp(access, "R") == 0 ? STARPU_R : strcmp(access, "W") == 0 ? STARPU_W : STARPU_RW;
        t->modes[t->naccesses] = mode;
        t->data[t->naccesses] = atoi(colon + 1);
        if (t->data[t->naccesses] < 0 || t->data[t->naccesses] >= ndata) die(path, lineno, "access to an unknown datum");
        ++t->naccesses;
      }
      ++ntasks;
    } else if (strcmp(word, "dep") == 0) {
      char *before = strtok_r(NULL, " \t\r\n", &save), *after = strtok_r(NULL, " \t\r\n", &save);
      if (!before || !after) die(path, lineno, "bad dep record");
      const int b = atoi(before), a = atoi(after);
      if (a < 0 || a >= ntasks || b < 0 || b >= ntasks) die(path, lineno, "dep on an unknown task");
      struct task *t = &tasks[a];
      t->preds = realloc(t->preds, (size_t)(t->npreds + 1) * sizeof *t->preds);
      t->preds[t->npreds++] = b;
    } else if (strcmp(word, "order") == 0) {
      char *id;
      while ((id = strtok_r(NULL, " \t\r\n", &save))) {
        order = realloc(order, (size_t)(norder + 1) * sizeof *order);
        order[norder++] = atoi(id);
      }
    }
  }
  fclose(f);
  if (norder == 0) {
    order = malloc((size_t)ntasks * sizeof *order);
    for (int i = 0; i < ntasks; i++) order[i] = i;
    norder = ntasks;
  }
  if (norder != ntasks) die(path, 0, "the order does not list every task once");
}

/* A sched.rec's SubmitOrder, SpecificWorker and Workerorder fields, per task (-1 and 0: none). */
static int *specific_worker;
static unsigned *worker_order;

static void read_sched_rec(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) die(path, 0, "cannot open");
  specific_worker = malloc((size_t)ntasks * sizeof *specific_worker);
  worker_order = calloc((size_t)ntasks, sizeof *worker_order);
  for (int i = 0; i < ntasks; i++) specific_worker[i] = -1;
  char line[256];
  int lineno = 0;
  long submit = 0, worker = -1, place = 0;
  for (int done = 0; !done;) {
    done = !fgets(line, sizeof line, f);
    ++lineno;
    if (done || line[0] == '\n') {
      if (submit > 0) {
        if (submit > norder || worker < 0) die(path, lineno, "a record's SubmitOrder is past the workload's tasks, or it has no SpecificWorker");
        specific_worker[order[submit - 1]] = (int)worker;
        worker_order[order[submit - 1]] = (unsigned)place;
      }
      submit = 0, worker = -1, place = 0;
    } else if (strncmp(line, "SubmitOrder: ", 13) == 0) {
      submit = strtol(line + 13, NULL, 10);
    } else if (strncmp(line, "SpecificWorker: ", 16) == 0) {
      worker = strtol(line + 16, NULL, 10);
    } else if (strncmp(line, "Workerorder: ", 13) == 0) {
      place = strtol(line + 13, NULL, 10);
    }
  }
  fclose(f);
}

static void read_rates(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) die(path, 0, "cannot open");
  char name[64];
  double gflops;
  while (fscanf(f, "%63s %lf", name, &gflops) == 2) {
    const int k = find_kind(name);
    if (k >= 0) kinds[k].gflops = gflops;
  }
  fclose(f);
  for (int k = 0; k < nkinds; k++)
    if (!(kinds[k].gflops > 0)) die(path, 0, "a task kind of the workload has no GPU rate");
}

static int compare_priority(const void *a, const void *b) {
  const long long x = *(const long long *)a, y = *(const long long *)b;
  return (x > y) - (x < y);
}

static void rank_priorities(void) {
  long long *sorted = malloc((size_t)(ntasks + 1) * sizeof *sorted);
  for (int i = 0; i < ntasks; i++) sorted[i] = tasks[i].priority;
  qsort(sorted, (size_t)ntasks, sizeof *sorted, compare_priority);
  int distinct = 0;
  for (int i = 0; i < ntasks; i++)
    if (distinct == 0 || sorted[distinct - 1] != sorted[i]) sorted[distinct++] = sorted[i];
  for (int i = 0; i < ntasks; i++) {
    int lo = 0, hi = distinct - 1;
    while (lo < hi) {
      const int mid = (lo + hi) / 2;
      if (sorted[mid] < tasks[i].priority) lo = mid + 1;
      else hi = mid;
    }
    tasks[i].rank = lo;
  }
  free(sorted);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: simgrid_dag WORKLOAD_FILE RATES_FILE\n");
    return 2;
  }
  read_workload(argv[1]);
  read_rates(argv[2]);
  const char *sched_rec = getenv("TILELENS_SCHED_REC");
  if (sched_rec && *sched_rec) read_sched_rec(sched_rec);
  rank_priorities();

  for (int k = 0; k < nkinds; k++) {
    struct kind *kind = &kinds[k];
    kind->model.type = STARPU_PER_ARCH;
    kind->model.symbol = kind->name;
    kind->model.arch_cost_function = task_length_us;
    kind->codelet.where = like_tool("anywhere") ? STARPU_CPU | STARPU_CUDA : STARPU_CUDA;
    if (like_tool("anywhere")) kind->codelet.cpu_funcs[0] = no_kernel; /* never run: there is no CPU worker */
    kind->codelet.cuda_funcs[0] = no_kernel;
    // Asynchronous, as the CUDA codelets of tiled libraries are (Chameleon's): the driver
    // queues the kernel and goes on serving data requests and popping tasks while it runs.
    // Without it StarPU-SimGrid executes each task inside the driver's thread, which then
    // neither posts nor serves any request until the task ends (driver_cuda.c:546-560).
    kind->codelet.cuda_flags[0] = like_tool("sync") ? 0 : STARPU_CUDA_ASYNC;
    kind->codelet.nbuffers = STARPU_VARIABLE_NBUFFERS;
    kind->codelet.model = &kind->model;
    kind->codelet.name = kind->name;
  }

  struct starpu_conf conf;
  starpu_conf_init(&conf);
  conf.ncpus = 0;
  if (starpu_init(&conf) != 0) {
    fprintf(stderr, "simgrid_dag: starpu_init failed (is STARPU_HOME a machine folder?)\n");
    return 1;
  }
  starpu_profiling_status_set(STARPU_PROFILING_ENABLE);

  /* The registration order: data ids, or the order the submitted tasks first use them. */
  int *registered = calloc((size_t)ndata, sizeof *registered);
  int nregistered = 0;
  char *seen = calloc((size_t)ndata, 1);
  for (int i = 0; like_tool("first_use") && i < norder; i++) {
    const struct task *t = &tasks[order[i]];
    for (int a = 0; a < t->naccesses; a++) {
      if (!seen[t->data[a]]) {
        seen[t->data[a]] = 1;
        registered[nregistered++] = t->data[a];
      }
    }
  }
  for (int d = 0; d < ndata; d++)
    if (!seen[d]) registered[nregistered++] = d;
  free(seen);

  starpu_data_handle_t *handles = calloc((size_t)ndata, sizeof *handles);
  for (int r = 0; r < ndata; r++) {
    const int d = registered[r];
    /* A fake, distinct, aligned address: SimGrid mode moves no byte. */
    starpu_vector_data_register(&handles[d], STARPU_MAIN_RAM, (uintptr_t)(0x100000 + (uintptr_t)d * 4096), (uint32_t)data_bytes[d], 1);
    starpu_data_set_sequential_consistency_flag(handles[d], 0);
  }
  free(registered);

  ended = calloc((size_t)ntasks + 1, sizeof *ended);
  struct starpu_task **made = calloc((size_t)ntasks, sizeof *made);
  for (int i = 0; i < ntasks; i++) {
    struct task *t = &tasks[i];
    struct starpu_task *task = starpu_task_create();
    task->cl = &kinds[t->kind].codelet;
    task->cl_arg = t;
    task->callback_func = task_ended;
    task->callback_arg = t;
    task->nbuffers = t->naccesses;
    task->priority = t->rank;
    if (specific_worker && specific_worker[i] >= 0) {
      task->workerid = (unsigned)specific_worker[i];
      task->execute_on_a_specific_worker = 1;
      task->workerorder = worker_order[i];
    }
    task->detach = 1;
    for (int a = 0; a < t->naccesses; a++) {
      task->handles[a] = handles[t->data[a]];
      task->modes[a] = t->modes[a];
    }
    made[i] = task;
  }
  for (int i = 0; i < ntasks; i++) {
    struct task *t = &tasks[i];
    if (t->npreds == 0) continue;
    struct starpu_task **preds = malloc((size_t)t->npreds * sizeof *preds);
    for (int p = 0; p < t->npreds; p++) preds[p] = made[t->preds[p]];
    starpu_task_declare_deps_array(made[i], (unsigned)t->npreds, preds);
    free(preds);
  }

  const double begin = starpu_timing_now();
  for (int i = 0; i < norder; i++) {
    const int ret = starpu_task_submit(made[order[i]]);
    if (ret != 0) {
      fprintf(stderr, "simgrid_dag: task %d refused (%d): no worker can run it?\n", order[i], ret);
      return 1;
    }
  }
  starpu_task_wait_for_all();
  const double end = starpu_timing_now();
  /* Set and empty is unset: a script passes the variable through whether it wants the log or not. */
  const char *order_out = getenv("TILELENS_ORDER_OUT");
  if (order_out && !*order_out) order_out = NULL;
  if (order_out) {
    FILE *f = fopen(order_out, "w");
    if (!f) die(order_out, 0, "cannot write");
    fprintf(f, "task,worker,start_us,end_us\n");
    for (int i = 0; i < nended; i++)
      fprintf(f, "%d,%d,%.3f,%.3f\n", ended[i].task, ended[i].worker, ended[i].start_us - begin, ended[i].end_us - begin);
    fclose(f);
  }
  for (int d = 0; d < ndata; d++) starpu_data_unregister(handles[d]);

  unsigned long long loads = 0, load_bytes = 0, peer_loads = 0, peer_bytes = 0, writebacks = 0, writeback_bytes = 0;
  const int buses = starpu_bus_get_count();
  for (int bus = 0; bus < buses; bus++) {
    struct starpu_profiling_bus_info info;
    if (starpu_bus_get_profiling_info(bus, &info) != 0) continue;
    const int src = starpu_bus_get_src(bus), dst = starpu_bus_get_dst(bus);
    const int src_ram = starpu_node_get_kind((unsigned)src) == STARPU_CPU_RAM;
    const int dst_ram = starpu_node_get_kind((unsigned)dst) == STARPU_CPU_RAM;
    if (src_ram && !dst_ram) {
      loads += (unsigned long long)info.transfer_count;
      load_bytes += (unsigned long long)info.transferred_bytes;
    } else if (!src_ram && !dst_ram) {
      peer_loads += (unsigned long long)info.transfer_count;
      peer_bytes += (unsigned long long)info.transferred_bytes;
    } else if (!src_ram && dst_ram) {
      writebacks += (unsigned long long)info.transfer_count;
      writeback_bytes += (unsigned long long)info.transferred_bytes;
    }
  }
  printf("{\"scheduler\":\"%s\",\"tasks\":%d,\"data\":%d,\"makespan_ns\":%.0f,\"loads\":%llu,\"bytes_from_host\":%llu,"
         "\"gpu_to_gpu_loads\":%llu,\"bytes_gpu_to_gpu\":%llu,\"writebacks\":%llu,\"bytes_written_back\":%llu}\n",
         getenv("STARPU_SCHED") ? getenv("STARPU_SCHED") : "default", ntasks, ndata, (end - begin) * 1e3, loads,
         load_bytes, peer_loads, peer_bytes, writebacks, writeback_bytes);
  starpu_shutdown();
  return 0;
}
