/* The StarPU program behind the real-trace fixtures in tests/starpu/fixtures (see
 * tests/starpu/record_fixtures.sh): a tiled Cholesky and a tiled LU without pivoting on CPU
 * workers, with the shapes real applications give a trace, so that the importer is tested on
 * what StarPU itself writes:
 *   - tiles registered without a home (STARPU_DISK_SWAP can move them out of core) and first
 *     written by an init task ("dplgsy"), so their first access is a write;
 *   - Cholesky tasks carry their flops (GFlop in tasks.rec), LU tasks none, as in Chameleon's
 *     LU; the kinds are named as Chameleon names them (the perfmodel symbol is tasks.rec's Name);
 *   - one compute-only task per panel on a handle of size 0 ("panel_done");
 *   - starpu_data_wont_use on each finished panel ("Control: WontUse" records);
 *   - with --then-lu, the Cholesky's tiles are unregistered and an LU on other tile sizes
 *     follows, so StarPU reuses handle addresses for data of another size;
 *   - built with -DTILED_APPS_MPI, tiles are distributed over the ranks ((i + j) % ranks).
 * Each process writes a manifest (--manifest FILE, one per rank with MPI) listing what it
 * submitted and will execute: every registration, and every task with its kind, flops and
 * accesses. The tests check the imported trace against it.
 *
 * usage: tiled_apps cholesky|lu [--tiles T] [--tile B] [--then-lu B2] [--manifest FILE]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <starpu.h>
#ifdef TILED_APPS_MPI
#include <starpu_mpi.h>
#endif

#include "tile_kernels.h"

static int rank = 0, ranks = 1;
static FILE *manifest;
static unsigned long task_count;

/* ---- kernels: plain loops on column-major B x B tiles (tile_kernels.h) ---- */

static int matrix_tiles = 1; /* the same in every process */

static void plgsy_diagonal_cpu(void *buffers[], void *arg) {
  (void)arg;
  plgsy_tile(buffers, 1, matrix_tiles);
}
static void plgsy_cpu(void *buffers[], void *arg) {
  (void)arg;
  plgsy_tile(buffers, 0, matrix_tiles);
}
static void potrf_cpu(void *buffers[], void *arg) {
  (void)arg;
  potrf_tile(buffers);
}

static void getrf_cpu(void *buffers[], void *arg) {
  int i, j, k, n = SIDE(buffers[0]), ld = LD(buffers[0]);
  double *a = TILE(buffers[0]);
  (void)arg;
  for (k = 0; k < n; k++)
    for (i = k + 1; i < n; i++) {
      a[k * ld + i] /= a[k * ld + k];
      for (j = k + 1; j < n; j++) a[j * ld + i] -= a[k * ld + i] * a[j * ld + k];
    }
}

static void trsm_rlt_cpu(void *buffers[], void *arg) {
  (void)arg;
  trsm_rlt_tile(buffers);
}

/* B := L^-1 B with L unit lower (LU's row panel). */
static void trsm_llu_cpu(void *buffers[], void *arg) {
  int i, j, k, n = SIDE(buffers[0]), ldl = LD(buffers[0]), ldb = LD(buffers[1]);
  double *l = TILE(buffers[0]), *b = TILE(buffers[1]);
  (void)arg;
  for (j = 0; j < n; j++)
    for (i = 0; i < n; i++)
      for (k = 0; k < i; k++) b[j * ldb + i] -= l[k * ldl + i] * b[j * ldb + k];
}

/* B := B U^-1 with U upper (LU's column panel). */
static void trsm_ruu_cpu(void *buffers[], void *arg) {
  int i, j, k, n = SIDE(buffers[0]), ldu = LD(buffers[0]), ldb = LD(buffers[1]);
  double *u = TILE(buffers[0]), *b = TILE(buffers[1]);
  (void)arg;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      double s = b[j * ldb + i];
      for (k = 0; k < j; k++) s -= b[k * ldb + i] * u[j * ldu + k];
      b[j * ldb + i] = s / u[j * ldu + j];
    }
}

static void syrk_cpu(void *buffers[], void *arg) {
  (void)arg;
  syrk_tile(buffers);
}
static void gemm_nt_cpu(void *buffers[], void *arg) {
  (void)arg;
  gemm_tile(buffers, 1);
}
static void gemm_nn_cpu(void *buffers[], void *arg) {
  (void)arg;
  gemm_tile(buffers, 0);
}

/* A task with no data to speak of: a short computation ordered by a handle of size 0. */
static void panel_done_cpu(void *buffers[], void *arg) {
  volatile double x = 0;
  int i;
  (void)buffers;
  (void)arg;
  for (i = 0; i < 200000; i++) x += i * 0.5;
}

/* ---- codelets; the perfmodel's symbol is what tasks.rec calls the task ---- */

#define MODEL(var, name) static struct starpu_perfmodel var = {.type = STARPU_HISTORY_BASED, .symbol = name}
MODEL(plgsy_model, "dplgsy");
MODEL(potrf_model, "dpotrf");
MODEL(getrf_model, "dgetrf_nopiv");
MODEL(trsm_model, "dtrsm");
MODEL(syrk_model, "dsyrk");
MODEL(gemm_model, "dgemm");
MODEL(panel_model, "panel_done");

#define CODELET(var, func, n, perfmodel, ...) \
  static struct starpu_codelet var = {.cpu_funcs = {func}, .nbuffers = n, .modes = {__VA_ARGS__}, .model = &perfmodel, .name = #var}
CODELET(plgsy_diagonal_cl, plgsy_diagonal_cpu, 1, plgsy_model, STARPU_W);
CODELET(plgsy_cl, plgsy_cpu, 1, plgsy_model, STARPU_W);
CODELET(potrf_cl, potrf_cpu, 1, potrf_model, STARPU_RW);
CODELET(getrf_cl, getrf_cpu, 1, getrf_model, STARPU_RW);
CODELET(trsm_rlt_cl, trsm_rlt_cpu, 2, trsm_model, STARPU_R, STARPU_RW);
CODELET(trsm_llu_cl, trsm_llu_cpu, 2, trsm_model, STARPU_R, STARPU_RW);
CODELET(trsm_ruu_cl, trsm_ruu_cpu, 2, trsm_model, STARPU_R, STARPU_RW);
CODELET(syrk_cl, syrk_cpu, 2, syrk_model, STARPU_R, STARPU_RW);
CODELET(gemm_nt_cl, gemm_nt_cpu, 3, gemm_model, STARPU_R, STARPU_R, STARPU_RW);
CODELET(gemm_nn_cl, gemm_nn_cpu, 3, gemm_model, STARPU_R, STARPU_R, STARPU_RW);
CODELET(panel_cl, panel_done_cpu, 1, panel_model, STARPU_RW);

/* ---- the matrix and the manifest ---- */

struct matrix {
  const char *name;
  int tiles, side;
  starpu_data_handle_t *handles;
};

static int owner(int i, int j) { return (i + j) % ranks; }

static starpu_data_handle_t tile(struct matrix *m, int i, int j) { return m->handles[i * m->tiles + j]; }

static void register_matrix(struct matrix *m, const char *name, int tiles, int side, int phase) {
  int i, j;
  m->name = name;
  m->tiles = tiles;
  m->side = side;
  m->handles = calloc((size_t)tiles * tiles, sizeof *m->handles);
  for (i = 0; i < tiles; i++)
    for (j = 0; j < tiles; j++) {
      starpu_data_handle_t *h = &m->handles[i * tiles + j];
      /* No home: StarPU allocates the tile where it is first written (and may swap it out). */
      starpu_matrix_data_register(h, -1, 0, side, side, side, sizeof(double));
      starpu_data_set_name(*h, name);
      starpu_data_set_coordinates(*h, 2, i, j);
#ifdef TILED_APPS_MPI
      starpu_mpi_data_register(*h, phase * tiles * tiles + i * tiles + j, owner(i, j));
#else
      (void)phase;
#endif
      fprintf(manifest, "data %s %d %d %lu %d\n", name, i, j, (unsigned long)side * side * sizeof(double), owner(i, j));
    }
}

static void unregister_matrix(struct matrix *m) {
  int i;
  for (i = 0; i < m->tiles * m->tiles; i++) starpu_data_unregister(m->handles[i]);
  free(m->handles);
}

/* Inserts one task (with MPI, on the owner of the tile it writes, the last access) and lists it
 * in the manifest when this rank runs it. Accesses: up to 3 (mode, i, j) on the matrix. */
struct access {
  int mode, i, j;
};

#ifdef TILED_APPS_MPI
#define INSERT(...) starpu_mpi_task_insert(MPI_COMM_WORLD, __VA_ARGS__)
#else
#define INSERT(...) starpu_task_insert(__VA_ARGS__)
#endif

static void submit(struct starpu_codelet *cl, const char *kind, double flops, struct matrix *m, int n, struct access *a) {
  starpu_data_handle_t h[3];
  int x, status = 0;
  for (x = 0; x < n; x++) h[x] = tile(m, a[x].i, a[x].j);
  /* STARPU_FLOPS of 0 would still print "GFlop: 0.000000": leave it out, as Chameleon's LU does. */
  if (n == 1 && flops > 0) status = INSERT(cl, a[0].mode, h[0], STARPU_FLOPS, flops, 0);
  else if (n == 1) status = INSERT(cl, a[0].mode, h[0], 0);
  else if (n == 2 && flops > 0) status = INSERT(cl, a[0].mode, h[0], a[1].mode, h[1], STARPU_FLOPS, flops, 0);
  else if (n == 2) status = INSERT(cl, a[0].mode, h[0], a[1].mode, h[1], 0);
  else if (flops > 0) status = INSERT(cl, a[0].mode, h[0], a[1].mode, h[1], a[2].mode, h[2], STARPU_FLOPS, flops, 0);
  else status = INSERT(cl, a[0].mode, h[0], a[1].mode, h[1], a[2].mode, h[2], 0);
  if (status != 0) {
    fprintf(stderr, "tiled_apps: a %s task could not be submitted\n", kind);
    exit(1);
  }
  if (owner(a[n - 1].i, a[n - 1].j) != rank) return;
  fprintf(manifest, "task %lu %s %.0f", task_count++, kind, flops);
  for (x = 0; x < n; x++)
    fprintf(manifest, " %s:%s:%d:%d", a[x].mode == STARPU_R ? "R" : a[x].mode == STARPU_W ? "W" : "RW", m->name, a[x].i, a[x].j);
  fprintf(manifest, "\n");
}

static void init_tiles(struct matrix *m) {
  int i, j;
  for (i = 0; i < m->tiles; i++)
    for (j = 0; j < m->tiles; j++) {
      struct access a[1] = {{STARPU_W, i, j}};
      submit(i == j ? &plgsy_diagonal_cl : &plgsy_cl, "dplgsy", 0, m, 1, a);
    }
}

static void panel_done(starpu_data_handle_t token) {
  struct starpu_task *task = starpu_task_create();
  task->cl = &panel_cl;
  task->handles[0] = token;
  if (starpu_task_submit(task) != 0) exit(1);
  fprintf(manifest, "task %lu panel_done 0 RW:token:0:0\n", task_count++);
}

static void cholesky(struct matrix *m, starpu_data_handle_t token) {
  const double b = m->side;
  int i, j, k, t = m->tiles;
  init_tiles(m);
  for (k = 0; k < t; k++) {
    struct access p[1] = {{STARPU_RW, k, k}};
    submit(&potrf_cl, "dpotrf", b * b * b / 3, m, 1, p);
    for (i = k + 1; i < t; i++) {
      struct access a[2] = {{STARPU_R, k, k}, {STARPU_RW, i, k}};
      submit(&trsm_rlt_cl, "dtrsm", b * b * b, m, 2, a);
    }
    for (i = k + 1; i < t; i++) {
      struct access s[2] = {{STARPU_R, i, k}, {STARPU_RW, i, i}};
      submit(&syrk_cl, "dsyrk", b * b * b, m, 2, s);
      for (j = k + 1; j < i; j++) {
        struct access g[3] = {{STARPU_R, i, k}, {STARPU_R, j, k}, {STARPU_RW, i, j}};
        submit(&gemm_nt_cl, "dgemm", 2 * b * b * b, m, 3, g);
      }
    }
    if (rank == 0) panel_done(token);
    /* The panel is final: StarPU may write it back and drop it from memory. */
    for (i = k; i < t; i++)
      if (owner(i, k) == rank) starpu_data_wont_use(tile(m, i, k));
  }
}

/* As Chameleon's dgetrf_nopiv: the tasks carry no flop count. */
static void lu(struct matrix *m, starpu_data_handle_t token) {
  int i, j, k, t = m->tiles;
  init_tiles(m);
  for (k = 0; k < t; k++) {
    struct access p[1] = {{STARPU_RW, k, k}};
    submit(&getrf_cl, "dgetrf_nopiv", 0, m, 1, p);
    for (j = k + 1; j < t; j++) {
      struct access a[2] = {{STARPU_R, k, k}, {STARPU_RW, k, j}};
      submit(&trsm_llu_cl, "dtrsm", 0, m, 2, a);
    }
    for (i = k + 1; i < t; i++) {
      struct access a[2] = {{STARPU_R, k, k}, {STARPU_RW, i, k}};
      submit(&trsm_ruu_cl, "dtrsm", 0, m, 2, a);
    }
    for (i = k + 1; i < t; i++)
      for (j = k + 1; j < t; j++) {
        struct access g[3] = {{STARPU_R, i, k}, {STARPU_R, k, j}, {STARPU_RW, i, j}};
        submit(&gemm_nn_cl, "dgemm", 0, m, 3, g);
      }
    if (rank == 0) panel_done(token);
  }
}

int main(int argc, char **argv) {
  const char *app = argc > 1 ? argv[1] : "";
  const char *manifest_path = NULL;
  int tiles = 8, side = 128, then_lu = 0, arg;
  struct matrix m;
  starpu_data_handle_t token;
  char path[4096];

  for (arg = 2; arg < argc; arg++) {
    if (!strcmp(argv[arg], "--tiles") && arg + 1 < argc) tiles = atoi(argv[++arg]);
    else if (!strcmp(argv[arg], "--tile") && arg + 1 < argc) side = atoi(argv[++arg]);
    else if (!strcmp(argv[arg], "--then-lu") && arg + 1 < argc) then_lu = atoi(argv[++arg]);
    else if (!strcmp(argv[arg], "--manifest") && arg + 1 < argc) manifest_path = argv[++arg];
    else {
      fprintf(stderr, "tiled_apps: unknown argument %s\n", argv[arg]);
      return 2;
    }
  }
  if ((strcmp(app, "cholesky") && strcmp(app, "lu")) || tiles < 1 || side < 1) {
    fprintf(stderr, "usage: tiled_apps cholesky|lu [--tiles T] [--tile B] [--then-lu B2] [--manifest FILE]\n");
    return 2;
  }
#ifdef TILED_APPS_MPI
  if (starpu_mpi_init_conf(&argc, &argv, 1, MPI_COMM_WORLD, NULL) != 0) return 1;
  starpu_mpi_comm_rank(MPI_COMM_WORLD, &rank);
  starpu_mpi_comm_size(MPI_COMM_WORLD, &ranks);
#else
  if (starpu_init(NULL) != 0) return 1;
#endif
  snprintf(path, sizeof path, "%s.%d", manifest_path ? manifest_path : "manifest", rank);
  manifest = fopen(ranks > 1 ? path : (manifest_path ? manifest_path : "/dev/null"), "w");
  if (!manifest) return 1;
  fprintf(manifest, "# what tiled_apps submitted on rank %d of %d: 'data NAME I J BYTES OWNER' per registration,\n", rank, ranks);
  fprintf(manifest, "# 'task SEQ KIND FLOPS MODE:NAME:I:J...' per task this rank runs, in submission order\n");
  fprintf(manifest, "run %s tiles %d tile %d then_lu %d ranks %d rank %d\n", app, tiles, side, then_lu, ranks, rank);

  starpu_void_data_register(&token);
  matrix_tiles = tiles;
  register_matrix(&m, "A", tiles, side, 0);
  if (!strcmp(app, "cholesky")) cholesky(&m, token);
  else lu(&m, token);
  if (then_lu) {
    /* Unregistering frees the handles: the LU's registrations reuse their addresses. */
    starpu_task_wait_for_all();
    unregister_matrix(&m);
    register_matrix(&m, "B", tiles, then_lu, 1);
    lu(&m, token);
  }
  starpu_task_wait_for_all();
  unregister_matrix(&m);
  starpu_data_unregister(token);
  fclose(manifest);
#ifdef TILED_APPS_MPI
  starpu_mpi_shutdown();
#else
  starpu_shutdown();
#endif
  return 0;
}
