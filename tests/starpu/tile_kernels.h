/* The plain C kernels of the StarPU programs in tests/starpu (tiled_apps.c, ooc_cholesky.c):
 * column-major B x B double tiles, StarPU's CPU codelet signature. Loops, not BLAS, so that the
 * programs build wherever StarPU does; their speed is measured, not assumed. */
#ifndef TILELENS_TILE_KERNELS_H
#define TILELENS_TILE_KERNELS_H

#include <starpu.h>

#define TILE(buffer) ((double *)STARPU_MATRIX_GET_PTR(buffer))
#define SIDE(buffer) ((int)STARPU_MATRIX_GET_NX(buffer))
#define LD(buffer) ((int)STARPU_MATRIX_GET_LD(buffer))

/* Symmetric, and diagonally dominant over a matrix of `tiles` x `tiles` tiles: positive
 * definite, stable without pivoting. */
static inline void plgsy_tile(void *buffers[], int diagonal, int tiles) {
  int i, j, n = SIDE(buffers[0]), ld = LD(buffers[0]);
  double *a = TILE(buffers[0]);
  for (j = 0; j < n; j++)
    for (i = 0; i < n; i++) a[j * ld + i] = diagonal && i == j ? 2.0 * n * tiles : 1.0 / (1.0 + (i + j) % 7);
}

/* A := L with A = L L^T (lower). */
static inline void potrf_tile(void *buffers[]) {
  int i, j, k, n = SIDE(buffers[0]), ld = LD(buffers[0]);
  double *a = TILE(buffers[0]);
  for (k = 0; k < n; k++) {
    double d = a[k * ld + k];
    for (j = 0; j < k; j++) d -= a[j * ld + k] * a[j * ld + k];
    a[k * ld + k] = d = __builtin_sqrt(d);
    for (i = k + 1; i < n; i++) {
      double s = a[k * ld + i];
      for (j = 0; j < k; j++) s -= a[j * ld + i] * a[j * ld + k];
      a[k * ld + i] = s / d;
    }
  }
}

/* B := B * L^-T with L the lower triangle of the first tile. */
static inline void trsm_rlt_tile(void *buffers[]) {
  int i, j, k, n = SIDE(buffers[0]), ldl = LD(buffers[0]), ldb = LD(buffers[1]);
  double *l = TILE(buffers[0]), *b = TILE(buffers[1]);
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      double s = b[j * ldb + i];
      for (k = 0; k < j; k++) s -= b[k * ldb + i] * l[k * ldl + j];
      b[j * ldb + i] = s / l[j * ldl + j];
    }
}

/* C := C - A A^T (lower part). */
static inline void syrk_tile(void *buffers[]) {
  int i, j, k, n = SIDE(buffers[0]), lda = LD(buffers[0]), ldc = LD(buffers[1]);
  double *a = TILE(buffers[0]), *c = TILE(buffers[1]);
  for (j = 0; j < n; j++)
    for (i = j; i < n; i++)
      for (k = 0; k < n; k++) c[j * ldc + i] -= a[k * lda + i] * a[k * lda + j];
}

/* C := C - A B, or C - A B^T. */
static inline void gemm_tile(void *buffers[], int transpose_b) {
  int i, j, k, n = SIDE(buffers[0]), lda = LD(buffers[0]), ldb = LD(buffers[1]), ldc = LD(buffers[2]);
  double *a = TILE(buffers[0]), *b = TILE(buffers[1]), *c = TILE(buffers[2]);
  for (j = 0; j < n; j++)
    for (k = 0; k < n; k++) {
      double bkj = transpose_b ? b[k * ldb + j] : b[j * ldb + k];
      for (i = 0; i < n; i++) c[j * ldc + i] -= a[k * lda + i] * bkj;
    }
}

#endif
