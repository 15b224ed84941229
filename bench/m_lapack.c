/* m_lapack.c -- dense LAPACK Cholesky (potrf, lower, column-major) of the
 * full H~ as a bench method, double (dpotrf/dpotrs) or float
 * (spotrf/spotrs), through LAPACKE's _work entry points (no NaN scan of the
 * input). potrf works in place: every call first copies the pristine
 * matrix back, and `restore` is that copy alone. OpenBLAS runs one thread
 * (bench.c also sets OPENBLAS_NUM_THREADS=1 before the library starts). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lapacke.h>

#include "flopcount.h"
#include "method.h"

/* OpenBLAS's own entry points (cblas.h of the OpenBLAS build declares
 * them; the generic cblas.h does not). */
void openblas_set_num_threads(int num_threads);
char *openblas_get_config(void);

typedef struct lapack_state {
  int n, single;
  size_t bytes; /* of the matrix */
  void *pristine, *a, *b, *x;
  int info;
} lapack_state;

static void restore(void *ctx) {
  lapack_state *s = ctx;
  memcpy(s->a, s->pristine, s->bytes);
  __asm__ volatile("" ::: "memory");
}

static void factor(void *ctx) {
  lapack_state *s = ctx;
  memcpy(s->a, s->pristine, s->bytes);
  s->info = s->single ? LAPACKE_spotrf_work(LAPACK_COL_MAJOR, 'L', s->n, s->a, s->n)
                      : LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', s->n, s->a, s->n);
}

static void solve(void *ctx) {
  lapack_state *s = ctx;
  const size_t scalar = s->single ? sizeof(float) : sizeof(double);
  memcpy(s->x, s->b, scalar * (size_t)s->n);
  if (s->single)
    LAPACKE_spotrs_work(LAPACK_COL_MAJOR, 'L', s->n, 1, s->a, s->n, s->x, s->n);
  else
    LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'L', s->n, 1, s->a, s->n, s->x, s->n);
}

static int check(void *ctx, double *x) {
  lapack_state *s = ctx;
  factor(s);
  if (s->info != 0) return -1;
  solve(s);
  for (int i = 0; i < s->n; i++) x[i] = s->single ? (double)((const float *)s->x)[i] : ((const double *)s->x)[i];
  return 0;
}

static void destroy(void *ctx) {
  lapack_state *s = ctx;
  free(s->pristine);
  free(s->a);
  free(s->b);
  free(s->x);
  free(s);
}

const char *bm_lapack_config(void) {
  openblas_set_num_threads(1);
  return openblas_get_config();
}

int bm_lapack_init(bm_method *m, const bm_input *in, int single) {
  openblas_set_num_threads(1);
  const int n = in->H->n;
  const size_t scalar = single ? sizeof(float) : sizeof(double);
  lapack_state *s = calloc(1, sizeof *s);
  if (!s) abort();
  s->n = n;
  s->single = single;
  s->bytes = scalar * (size_t)n * (size_t)n;
  s->pristine = malloc(s->bytes + scalar);
  s->a = malloc(s->bytes + scalar);
  s->b = malloc(scalar * (size_t)(n + 1));
  s->x = malloc(scalar * (size_t)(n + 1));
  if (!s->pristine || !s->a || !s->b || !s->x) abort();
  double *dense = hm_dense(in->H);
  for (size_t k = 0; k < (size_t)n * (size_t)n; k++) {
    if (single)
      ((float *)s->pristine)[k] = (float)dense[k];
    else
      ((double *)s->pristine)[k] = dense[k];
  }
  free(dense);
  for (int i = 0; i < n; i++) {
    if (single)
      ((float *)s->b)[i] = (float)in->b[i];
    else
      ((double *)s->b)[i] = in->b[i];
  }
  memset(m, 0, sizeof *m);
  snprintf(m->name, sizeof m->name, "LAPACK %s (dense)", single ? "spotrf" : "dpotrf");
  m->precision = single ? "float" : "double";
  m->library = 1;
  m->state = s;
  m->factor = factor;
  m->restore = restore;
  m->solve = solve;
  m->check = check;
  m->destroy = destroy;
  m->flops_chol = fc_chol_dense(n);
  m->lnz = (long long)n * (n + 1) / 2;
  return 0;
}
