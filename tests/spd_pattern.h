/* spd_pattern.h -- random SPD inputs with a program's block pattern, packed
 * into its workspace layout: shared by the tests (program_check.h,
 * test_batch.c) and the batch benchmark (bench/batch.c), so that both
 * factor the same kind of matrices. Static inline, no test framework. */
#ifndef LDLPGS_TESTS_SPD_PATTERN_H
#define LDLPGS_TESTS_SPD_PATTERN_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"
#include "test_util.h"

/* Zeroed buffers of exactly n elements (at least one), so that
 * AddressSanitizer sees any access past the end; out of memory aborts. */
static inline void *sp_zalloc(size_t n, size_t size) {
  void *q = calloc(n > 0 ? n : 1, size);
  if (!q) {
    fputs("spd_pattern: out of memory\n", stderr);
    abort();
  }
  return q;
}

/* Degree and first row of pivot q. */
static inline int deg(const rt_program *p, int q) { return p->cons_degree[p->piv_cons[q]]; }
static inline int row(const rt_program *p, int q) { return p->cons_row[p->piv_cons[q]]; }

/* Random symmetric, strictly diagonally dominant H (dense, dim x dim,
 * solver-constraint order) with the program's block pattern: node blocks
 * and original (non-fill) edge blocks. Values are representable in the
 * program's precision. */
static inline double *random_spd(test_rng *r, const rt_program *p) {
  int n = p->dim;
  double *h = sp_zalloc((size_t)n * (size_t)n, sizeof *h);
  for (int q = 0; q < p->ncons; q++) {
    int rq = row(p, q), dq = deg(p, q);
    for (int i = 0; i < dq; i++)
      for (int j = 0; j < i; j++) {
        double v = 2 * rng_unit(r) - 1;
        if (p->precision == RT_FLOAT) v = (float)v;
        h[(rq + i) * n + rq + j] = h[(rq + j) * n + rq + i] = v;
      }
    for (int k = p->piv_blk_adr[q]; k < p->piv_blk_adr[q + 1]; k++) {
      if (p->blk_fill[k]) continue;
      int t = p->blk_piv[k], rt = row(p, t);
      for (int i = 0; i < deg(p, t); i++)
        for (int j = 0; j < dq; j++) {
          double v = 2 * rng_unit(r) - 1;
          if (p->precision == RT_FLOAT) v = (float)v;
          h[(rt + i) * n + rq + j] = h[(rq + j) * n + rt + i] = v;
        }
    }
  }
  for (int i = 0; i < n; i++) {
    double s = 1;
    for (int j = 0; j < n; j++) s += fabs(h[i * n + j]);
    h[i * n + i] = p->precision == RT_FLOAT ? (float)s : s;
  }
  return h;
}

static inline size_t scalar_size(const rt_program *p) { return p->precision == RT_FLOAT ? sizeof(float) : sizeof(double); }

static inline void put(const rt_program *p, void *a, size_t i, double v) {
  if (p->precision == RT_FLOAT)
    ((float *)a)[i] = (float)v;
  else
    ((double *)a)[i] = v;
}

static inline double get(const rt_program *p, const void *a, size_t i) {
  return p->precision == RT_FLOAT ? ((const float *)a)[i] : ((const double *)a)[i];
}

/* Packs H into a workspace per the layout: node blocks (full square) and
 * every edge block, fill blocks included (zero). */
static inline void *pack(const rt_program *p, const double *h) {
  int n = p->dim;
  void *w = sp_zalloc((size_t)p->work_size, scalar_size(p));
  for (int q = 0; q < p->ncons; q++) {
    int rq = row(p, q), dq = deg(p, q);
    for (int i = 0; i < dq; i++)
      for (int j = 0; j < dq; j++) put(p, w, (size_t)(p->piv_node[q] + i * dq + j), h[(rq + i) * n + rq + j]);
    for (int k = p->piv_blk_adr[q]; k < p->piv_blk_adr[q + 1]; k++) {
      int t = p->blk_piv[k], rt = row(p, t);
      for (int i = 0; i < deg(p, t); i++)
        for (int j = 0; j < dq; j++) put(p, w, (size_t)(p->blk_off[k] + i * dq + j), h[(rt + i) * n + rq + j]);
    }
  }
  return w;
}

/* Copies n values of src into lane j of the N-lane dst (entry k at k*N + j),
 * or back (to_lane = 0). */
static inline void lane_copy(size_t sz, int N, int j, size_t n, void *lanes, void *plain, int to_lane) {
  for (size_t k = 0; k < n; k++) {
    char *l = (char *)lanes + (k * (size_t)N + (size_t)j) * sz, *s = (char *)plain + k * sz;
    if (to_lane)
      memcpy(l, s, sz);
    else
      memcpy(s, l, sz);
  }
}

#endif
