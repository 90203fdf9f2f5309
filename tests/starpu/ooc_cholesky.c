/* An out-of-core tiled Cholesky for comparing replay with a real StarPU (issue 18; run by
 * tests/starpu/starpu_vs_replay.sh). The lower triangle of a T x T matrix of B x B double tiles
 * is registered without a home: an init task writes each tile first, and when
 * STARPU_LIMIT_CPU_MEM leaves too little RAM, StarPU moves tiles out to its swap disk
 * (STARPU_DISK_SWAP) and reads them back; STARPU_BUS_STATS counts those reads.
 *
 * The program also writes what it submitted as a tilelens workload file (--workload FILE):
 * every tile, every task with its kind, flops and accesses, and the dependencies that StarPU's
 * sequential consistency gives them, so that tilelens replays the very same DAG. It prints the
 * time its kernels took per kind and the rate that makes ("kernel KIND TASKS SECONDS GFLOPS"),
 * for the replay's rates, and the same per worker ("worker_kernel WORKER KIND TASKS SECONDS"):
 * on a machine with no core to spare, another thread can share one worker's core for a whole
 * run and halve its kernels' speed (docs/replay.md, "Against a real StarPU").
 *
 * With --disk DIR the tiles have a home instead: each is allocated on a disk node in DIR
 * (starpu_disk_register, the unistd backend) and registered there, so StarPU reads it into RAM
 * for a task, writes it back when it evicts it or when the node is idle (its memchunk tidy), and
 * at the end; the workload file marks those tiles `home` (docs/workload-format.md).
 *
 * With TILELENS_ORDER_OUT=FILE it also writes each task as it ended, "task,worker,start_us,end_us"
 * (the task's id in the workload file, StarPU's worker), to compare StarPU's order and mapping
 * with a replay's (--order-out).
 *
 * With --probe-disk DIR it first times the disk path the run's transfers take ("disk_probe ROUNDS
 * MEDIAN_NS BYTES"): one tile read back from a file in DIR, through the page cache, as StarPU's
 * unistd backend does (open, glibc's aio_read, wait, close: Debian's StarPU has glibc's POSIX aio).
 * StarPU's own calibration of that disk writes and fsyncs a buffer to the device
 * (disk_unistd_global.c, _starpu_get_unistd_global_bandwidth_between_disk_and_main_ram), so it
 * measures the device, while the run's tiles, written and read back within seconds, never leave
 * the page cache; it moves by 3x from run to run and says nothing of the run's transfers.
 *
 * With --probe-disk-inrun too, a thread times the same read every 3 ms while the tasks run ("disk_inrun
 * ROUNDS MEDIAN_NS BYTES MEAN_NS P90_NS"): with every core running a polling worker, glibc's aio helper
 * waits for a core, as StarPU's own reads do. A diagnostic (docs/replay.md): it slows the run it
 * measures. Every run prints "run_ns NS", from the first submission to the last task's end.
 *
 * usage: ooc_cholesky [--tiles T] [--tile B] [--workload FILE] [--disk DIR] [--probe-disk DIR [--probe-disk-inrun]]
 */
#include <aio.h>
#include <pthread.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <starpu.h>

#include "tile_kernels.h"

enum kind { PLGSY, POTRF, TRSM, SYRK, GEMM, KINDS };
static const char *const kind_names[KINDS] = {"plgsy", "potrf", "trsm", "syrk", "gemm"};
static int64_t kernel_ns[KINDS];
static int64_t kernel_count[KINDS];
#define MAX_WORKERS 64
static int64_t worker_kernel_ns[MAX_WORKERS][KINDS];
static int64_t worker_kernel_count[MAX_WORKERS][KINDS];
static double kernel_flops[KINDS]; /* per task of the kind, B being fixed */
static int matrix_tiles = 1;
/* TILELENS_ORDER_OUT: the tasks as they ended (appended by the workers' callbacks). */
struct ended_task {
  long task;
  int worker;
  int64_t start_ns, end_ns;
};
static struct ended_task *ended;
static long ended_count;
static starpu_pthread_mutex_t ended_lock = STARPU_PTHREAD_MUTEX_INITIALIZER;

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void account(enum kind kind, int64_t begin) {
  const int64_t took = now_ns() - begin;
  const int worker = starpu_worker_get_id();
  __atomic_add_fetch(&kernel_ns[kind], took, __ATOMIC_RELAXED);
  __atomic_add_fetch(&kernel_count[kind], 1, __ATOMIC_RELAXED);
  if (worker >= 0 && worker < MAX_WORKERS) {
    __atomic_add_fetch(&worker_kernel_ns[worker][kind], took, __ATOMIC_RELAXED);
    __atomic_add_fetch(&worker_kernel_count[worker][kind], 1, __ATOMIC_RELAXED);
  }
}

static void plgsy_cpu(void *buffers[], void *arg) {
  const int64_t begin = now_ns();
  plgsy_tile(buffers, arg != NULL, matrix_tiles);
  account(PLGSY, begin);
}
static void potrf_cpu(void *buffers[], void *arg) {
  const int64_t begin = now_ns();
  (void)arg;
  potrf_tile(buffers);
  account(POTRF, begin);
}
static void trsm_cpu(void *buffers[], void *arg) {
  const int64_t begin = now_ns();
  (void)arg;
  trsm_rlt_tile(buffers);
  account(TRSM, begin);
}
static void syrk_cpu(void *buffers[], void *arg) {
  const int64_t begin = now_ns();
  (void)arg;
  syrk_tile(buffers);
  account(SYRK, begin);
}
static void gemm_cpu(void *buffers[], void *arg) {
  const int64_t begin = now_ns();
  (void)arg;
  gemm_tile(buffers, 1);
  account(GEMM, begin);
}

/* History-based models, as an application's: DMDA's decisions need them (calibrate first). */
static struct starpu_perfmodel models[KINDS] = {
    {.type = STARPU_HISTORY_BASED, .symbol = "ooc_plgsy"}, {.type = STARPU_HISTORY_BASED, .symbol = "ooc_potrf"},
    {.type = STARPU_HISTORY_BASED, .symbol = "ooc_trsm"},  {.type = STARPU_HISTORY_BASED, .symbol = "ooc_syrk"},
    {.type = STARPU_HISTORY_BASED, .symbol = "ooc_gemm"}};
static struct starpu_codelet codelets[KINDS] = {
    {.cpu_funcs = {plgsy_cpu}, .nbuffers = 1, .modes = {STARPU_W}, .model = &models[PLGSY], .name = "plgsy"},
    {.cpu_funcs = {potrf_cpu}, .nbuffers = 1, .modes = {STARPU_RW}, .model = &models[POTRF], .name = "potrf"},
    {.cpu_funcs = {trsm_cpu}, .nbuffers = 2, .modes = {STARPU_R, STARPU_RW}, .model = &models[TRSM], .name = "trsm"},
    {.cpu_funcs = {syrk_cpu}, .nbuffers = 2, .modes = {STARPU_R, STARPU_RW}, .model = &models[SYRK], .name = "syrk"},
    {.cpu_funcs = {gemm_cpu}, .nbuffers = 3, .modes = {STARPU_R, STARPU_R, STARPU_RW}, .model = &models[GEMM], .name = "gemm"}};

/* ---- the workload file: tiles, tasks, and the dependencies of sequential consistency ---- */

static FILE *workload;
static int tiles_count;
static long task_count;
/* Per tile: its last writer, and the tasks that read it since (tilelens' ids). */
static long *last_writer;
static long **readers;
static int *reader_count, *reader_room;

static int tile_id(int i, int j) { return i * (i + 1) / 2 + j; } /* the lower triangle, row by row */

struct access {
  enum starpu_data_access_mode mode;
  int i, j;
};

static void record_task(enum kind kind, double flops, int i, int j, int k, int n, const struct access *a) {
  const long task = task_count++;
  int x, r;
  if (!workload) return;
  fprintf(workload, "task %s %.0f 0 %d %d %d", kind_names[kind], flops, i, j, k);
  for (x = 0; x < n; x++)
    fprintf(workload, " %s:%d", a[x].mode == STARPU_R ? "R" : a[x].mode == STARPU_W ? "W" : "RW", tile_id(a[x].i, a[x].j));
  fprintf(workload, "\n");
  for (x = 0; x < n; x++) {
    const int d = tile_id(a[x].i, a[x].j);
    if (a[x].mode & STARPU_W) {
      /* After the last writer and every reader since (StarPU: RAW, WAW, WAR). */
      if (reader_count[d] == 0 && last_writer[d] >= 0) fprintf(workload, "dep %ld %ld\n", last_writer[d], task);
      for (r = 0; r < reader_count[d]; r++) fprintf(workload, "dep %ld %ld\n", readers[d][r], task);
      last_writer[d] = task;
      reader_count[d] = 0;
    } else {
      if (last_writer[d] >= 0) fprintf(workload, "dep %ld %ld\n", last_writer[d], task);
      if (reader_count[d] == reader_room[d]) {
        reader_room[d] = reader_room[d] ? 2 * reader_room[d] : 4;
        readers[d] = realloc(readers[d], (size_t)reader_room[d] * sizeof **readers);
        if (!readers[d]) exit(1);
      }
      readers[d][reader_count[d]++] = task;
    }
  }
}

static starpu_data_handle_t *handles;

static void task_ended(void *arg) {
  struct starpu_task *task = starpu_task_get_current();
  int64_t start = 0, end = now_ns();
  if (task && task->profiling_info) {
    start = (int64_t)(starpu_timing_timespec_to_us(&task->profiling_info->start_time) * 1000);
    end = (int64_t)(starpu_timing_timespec_to_us(&task->profiling_info->end_time) * 1000);
  }
  STARPU_PTHREAD_MUTEX_LOCK(&ended_lock);
  ended[ended_count].task = (long)(intptr_t)arg;
  ended[ended_count].worker = starpu_worker_get_id();
  ended[ended_count].start_ns = start;
  ended[ended_count].end_ns = end;
  ended_count++;
  STARPU_PTHREAD_MUTEX_UNLOCK(&ended_lock);
}

static void submit(enum kind kind, double flops, int i, int j, int k, int n, const struct access *a) {
  struct starpu_task *task = starpu_task_create();
  int x;
  task->cl = &codelets[kind];
  for (x = 0; x < n; x++) task->handles[x] = handles[tile_id(a[x].i, a[x].j)];
  if (kind == PLGSY && i == j) task->cl_arg = &codelets; /* any non-NULL pointer: a diagonal tile */
  if (flops > 0) task->flops = flops;
  kernel_flops[kind] = flops;
  if (ended) {
    task->callback_func = task_ended;
    task->callback_arg = (void *)(intptr_t)task_count; /* the id record_task gives it */
  }
  if (starpu_task_submit(task) != 0) {
    fprintf(stderr, "ooc_cholesky: a %s task could not be submitted\n", kind_names[kind]);
    exit(1);
  }
  record_task(kind, flops, i, j, k, n, a);
}

static int by_value(const void *a, const void *b) {
  const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}
/* One tile read back from the probe file at path into buf, as StarPU's unistd backend reads
 * (open, glibc's aio_read and wait, close): its time in ns, or -1. */
static int64_t time_tile_read(const char *path, char *buf, size_t bytes) {
  struct aiocb request;
  const struct aiocb *waiting[1] = {&request};
  const int64_t start = now_ns();
  const int fd = open(path, O_RDWR);
  if (fd < 0) return -1;
  memset(&request, 0, sizeof request);
  request.aio_fildes = fd;
  request.aio_buf = buf;
  request.aio_nbytes = bytes;
  if (aio_read(&request) != 0) {
    close(fd);
    return -1;
  }
  while (aio_error(&request) == EINPROGRESS) aio_suspend(waiting, 1, NULL);
  const ssize_t got = aio_return(&request);
  close(fd);
  return got == (ssize_t)bytes ? now_ns() - start : -1;
}

/* The probe's file: one tile of bytes, written through the page cache (never synced). */
static int write_probe_file(const char *dir, size_t bytes, char *path, size_t room, char **buf) {
  int fd;
  *buf = malloc(bytes);
  if (!*buf || snprintf(path, room, "%s/tilelens-disk-probe", dir) >= (int)room) return 1;
  memset(*buf, 1, bytes);
  fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
  if (fd < 0 || pwrite(fd, *buf, bytes, 0) != (ssize_t)bytes || close(fd) != 0) {
    perror(path);
    return 1;
  }
  return 0;
}

/* The median time of one tile's read from a page-cached file in DIR, as the unistd backend reads
 * (see the header); printed as "disk_probe ROUNDS MEDIAN_NS BYTES". 0 on success. */
static int probe_disk(const char *dir, size_t bytes) {
  enum { WARMUP = 10, ROUNDS = 101 };
  int64_t took[ROUNDS];
  char path[4096];
  char *buf = NULL;
  int round;
  if (write_probe_file(dir, bytes, path, sizeof path, &buf) != 0) return 1;
  for (round = 0; round < WARMUP + ROUNDS; round++) {
    const int64_t t = time_tile_read(path, buf, bytes);
    if (t < 0) return 1;
    if (round >= WARMUP) took[round - WARMUP] = t;
  }
  unlink(path);
  free(buf);
  qsort(took, ROUNDS, sizeof *took, by_value);
  printf("disk_probe %d %lld %lu\n", ROUNDS, (long long)took[ROUNDS / 2], (unsigned long)bytes);
  return 0;
}

/* The same read, timed while the run goes on (--probe-disk-inrun): a thread of this process (at
 * StarPU's priority) reads the probe file every INRUN_PERIOD_NS until the tasks are done. On a
 * machine whose every core runs a polling worker, glibc's aio helper thread waits for a core, and
 * so does StarPU's own read of a tile: the probe before StarPU starts sees an idle machine. */
enum { INRUN_PERIOD_NS = 3000000, INRUN_MAX = 100000 };
struct inrun_probe {
  char path[4096];
  char *buf;
  size_t bytes;
  int64_t *took;
  long count;
  int stop; /* set by main, read by the thread: __atomic, as the kernels' counters */
  pthread_t thread;
};
static void *inrun_probe_loop(void *arg) {
  struct inrun_probe *probe = arg;
  while (!__atomic_load_n(&probe->stop, __ATOMIC_ACQUIRE) && probe->count < INRUN_MAX) {
    const struct timespec pause = {0, INRUN_PERIOD_NS};
    const int64_t t = time_tile_read(probe->path, probe->buf, probe->bytes);
    if (t >= 0) probe->took[probe->count++] = t;
    nanosleep(&pause, NULL);
  }
  return NULL;
}

int main(int argc, char **argv) {
  const char *workload_path = NULL, *disk_dir = NULL, *probe_dir = NULL;
  int disk_node = -1, probe_inrun = 0;
  struct inrun_probe inrun;
  int64_t run_start;
  int tiles = 12, side = 128, arg, i, j, k;
  double b;
  for (arg = 1; arg < argc; arg++) {
    if (!strcmp(argv[arg], "--tiles") && arg + 1 < argc) tiles = atoi(argv[++arg]);
    else if (!strcmp(argv[arg], "--tile") && arg + 1 < argc) side = atoi(argv[++arg]);
    else if (!strcmp(argv[arg], "--workload") && arg + 1 < argc) workload_path = argv[++arg];
    else if (!strcmp(argv[arg], "--disk") && arg + 1 < argc) disk_dir = argv[++arg];
    else if (!strcmp(argv[arg], "--probe-disk") && arg + 1 < argc) probe_dir = argv[++arg];
    else if (!strcmp(argv[arg], "--probe-disk-inrun")) probe_inrun = 1;
    else {
      fprintf(stderr, "usage: ooc_cholesky [--tiles T] [--tile B] [--workload FILE] [--disk DIR] [--probe-disk DIR [--probe-disk-inrun]]\n");
      return 2;
    }
  }
  if (probe_inrun && !probe_dir) {
    fprintf(stderr, "ooc_cholesky: --probe-disk-inrun needs --probe-disk DIR\n");
    return 2;
  }
  if (tiles < 1 || tiles > 1000 || side < 1 || side > 4096) {
    fprintf(stderr, "ooc_cholesky: --tiles must be 1 to 1000 and --tile 1 to 4096\n");
    return 2;
  }
  matrix_tiles = tiles;
  b = side;
  tiles_count = tiles * (tiles + 1) / 2;
  last_writer = malloc((size_t)tiles_count * sizeof *last_writer);
  readers = calloc((size_t)tiles_count, sizeof *readers);
  reader_count = calloc((size_t)tiles_count, sizeof *reader_count);
  reader_room = calloc((size_t)tiles_count, sizeof *reader_room);
  handles = calloc((size_t)tiles_count, sizeof *handles);
  if (!last_writer || !readers || !reader_count || !reader_room || !handles) return 1;
  for (i = 0; i < tiles_count; i++) last_writer[i] = -1;
  if (workload_path) {
    workload = fopen(workload_path, "w");
    if (!workload) {
      perror(workload_path);
      return 1;
    }
    fprintf(workload, "tilelens-workload 1\n# written by tests/starpu/ooc_cholesky.c\nname ooc-cholesky-%d-%d\n", tiles, side);
    for (k = 0; k < KINDS; k++) fprintf(workload, "kind %s\n", kind_names[k]);
    for (i = 0; i < tiles; i++)
      for (j = 0; j <= i; j++)
        fprintf(workload, "data %lu A %d %d A_%d_%d%s\n", (unsigned long)side * side * sizeof(double), i, j, i, j, disk_dir ? " home" : "");
  }

  /* Set and empty is unset: a script passes the variable through whether it wants the log or not. */
  const char *order_out = getenv("TILELENS_ORDER_OUT");
  if (order_out && !*order_out) order_out = NULL;
  if (order_out) {
    /* plgsy per tile, potrf per step, trsm and syrk per tile below the diagonal, gemm per (i, j, k), k < j < i */
    const long below = (long)tiles * (tiles - 1) / 2;
    const long total = (long)tiles_count + tiles + 2 * below + (long)tiles * (tiles - 1) * (tiles - 2) / 6;
    ended = calloc((size_t)total, sizeof *ended);
    if (!ended) return 1;
  }
  /* Before StarPU starts: its workers then poll on both cores. */
  if (probe_dir && probe_disk(probe_dir, (size_t)side * side * sizeof(double)) != 0) {
    fprintf(stderr, "ooc_cholesky: could not time a read in %s\n", probe_dir);
    return 1;
  }
  if (starpu_init(NULL) != 0) return 1;
  if (order_out) starpu_profiling_status_set(STARPU_PROFILING_ENABLE);
  if (disk_dir) {
    /* Room for every tile on the disk, and some to spare. */
    disk_node = starpu_disk_register(&starpu_disk_unistd_ops, (void *)disk_dir, (starpu_ssize_t)tiles_count * side * side * sizeof(double) * 2 + (64 << 20));
    if (disk_node < 0) {
      fprintf(stderr, "ooc_cholesky: no disk node in %s\n", disk_dir);
      return 1;
    }
  }
  for (i = 0; i < tiles; i++)
    for (j = 0; j <= i; j++) {
      uintptr_t home = 0;
      if (disk_dir) {
        home = starpu_malloc_on_node((unsigned)disk_node, (size_t)side * side * sizeof(double));
        if (!home) {
          fprintf(stderr, "ooc_cholesky: tile (%d, %d) could not be allocated on the disk\n", i, j);
          return 1;
        }
      }
      starpu_matrix_data_register(&handles[tile_id(i, j)], disk_node, home, side, side, side, sizeof(double));
    }

  if (probe_inrun) {
    memset(&inrun, 0, sizeof inrun);
    inrun.bytes = (size_t)side * side * sizeof(double);
    inrun.took = malloc(INRUN_MAX * sizeof *inrun.took);
    if (!inrun.took || write_probe_file(probe_dir, inrun.bytes, inrun.path, sizeof inrun.path, &inrun.buf) != 0 ||
        pthread_create(&inrun.thread, NULL, inrun_probe_loop, &inrun) != 0) {
      fprintf(stderr, "ooc_cholesky: could not start the in-run disk probe in %s\n", probe_dir);
      return 1;
    }
  }
  run_start = now_ns();
  for (i = 0; i < tiles; i++)
    for (j = 0; j <= i; j++) {
      const struct access a[1] = {{STARPU_W, i, j}};
      submit(PLGSY, b * b, i, j, 0, 1, a);
    }
  for (k = 0; k < tiles; k++) {
    const struct access p[1] = {{STARPU_RW, k, k}};
    submit(POTRF, b * b * b / 3, k, k, k, 1, p);
    for (i = k + 1; i < tiles; i++) {
      const struct access a[2] = {{STARPU_R, k, k}, {STARPU_RW, i, k}};
      submit(TRSM, b * b * b, i, k, k, 2, a);
    }
    for (i = k + 1; i < tiles; i++) {
      const struct access s[2] = {{STARPU_R, i, k}, {STARPU_RW, i, i}};
      submit(SYRK, b * b * b, i, i, k, 2, s);
      for (j = k + 1; j < i; j++) {
        const struct access g[3] = {{STARPU_R, i, k}, {STARPU_R, j, k}, {STARPU_RW, i, j}};
        submit(GEMM, 2 * b * b * b, i, j, k, 3, g);
      }
    }
  }
  starpu_task_wait_for_all();
  /* From the first submission to the last task's end: StarPU's makespan, the final write-backs aside. */
  printf("run_ns %lld\n", (long long)(now_ns() - run_start));
  if (probe_inrun) {
    __atomic_store_n(&inrun.stop, 1, __ATOMIC_RELEASE);
    pthread_join(inrun.thread, NULL);
    unlink(inrun.path);
    if (inrun.count == 0) {
      fprintf(stderr, "ooc_cholesky: the in-run disk probe timed no read\n");
      return 1;
    }
    qsort(inrun.took, (size_t)inrun.count, sizeof *inrun.took, by_value);
    {
      long r;
      int64_t sum = 0;
      for (r = 0; r < inrun.count; r++) sum += inrun.took[r];
      /* ROUNDS MEDIAN_NS BYTES MEAN_NS P90_NS */
      printf("disk_inrun %ld %lld %lu %lld %lld\n", inrun.count, (long long)inrun.took[inrun.count / 2], (unsigned long)inrun.bytes,
             (long long)(sum / inrun.count), (long long)inrun.took[inrun.count * 9 / 10]);
    }
  }
  for (i = 0; i < tiles_count; i++) starpu_data_unregister(handles[i]);
  starpu_shutdown();
  if (workload && fclose(workload) != 0) return 1;
  if (order_out) {
    FILE *f = fopen(order_out, "w");
    long e;
    int64_t begin = ended_count ? ended[0].start_ns : 0;
    if (!f) {
      perror(order_out);
      return 1;
    }
    for (e = 0; e < ended_count; e++)
      if (ended[e].start_ns < begin) begin = ended[e].start_ns;
    fprintf(f, "task,worker,start_us,end_us\n");
    for (e = 0; e < ended_count; e++)
      fprintf(f, "%ld,%d,%.3f,%.3f\n", ended[e].task, ended[e].worker, (ended[e].start_ns - begin) / 1e3, (ended[e].end_ns - begin) / 1e3);
    if (fclose(f) != 0) return 1;
  }
  for (k = 0; k < KINDS; k++) {
    const double seconds = kernel_ns[k] * 1e-9;
    printf("kernel %s %ld %.9f %.6f\n", kind_names[k], (long)kernel_count[k], seconds,
           seconds > 0 ? kernel_count[k] * kernel_flops[k] / seconds * 1e-9 : 0.0);
  }
  {
    int w;
    for (w = 0; w < MAX_WORKERS; w++)
      for (k = 0; k < KINDS; k++)
        if (worker_kernel_count[w][k] > 0)
          printf("worker_kernel %d %s %ld %.9f\n", w, kind_names[k], (long)worker_kernel_count[w][k], worker_kernel_ns[w][k] * 1e-9);
  }
  return 0;
}
