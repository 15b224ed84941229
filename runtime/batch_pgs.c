/* batch_pgs.c -- PGS sweeps over N copies of one mechanism at once, one
 * copy per lane (lanes.h). Every lane does what pgs.c's sweep does to that
 * copy alone, in the same order, so the results are its bits: J v summed
 * term by term from 0.0 (side a, then side b), the impulse, the clamp, then
 * each velocity += (W J^T)_k dl, side a before side b (which may be the
 * same body). An inert row (inv_diag 0) changes nothing in its lane, and a
 * side on the world takes no part: both are selects, never a product with
 * zero (-0.0 + 0.0 is not -0.0).
 *
 * With GCC or Clang each row is one vector operation per scalar operation
 * of pgs.c (batch_pgs_row.h, vector extensions of N doubles: two AVX-512
 * registers for 16 lanes, four AVX ones, eight SSE ones, as the build's
 * ARCH allows). A row on the same bodies in every copy (the mechanism's
 * rows) loads and stores its velocities as whole vectors; a row whose
 * bodies differ between copies (a contact) is one such vector row for each
 * pair of bodies among its lanes, in those lanes. Other compilers sweep
 * lane by lane (lane_row). It calls no other module. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lanes.h"
#include "rtmath.h"

int rt__lanes_alloc(rt__lanes *l, int N, int cap, int nsbody) {
  memset(l, 0, sizeof *l);
  l->N = N;
  l->nsbody = nsbody;
  const size_t rows = (size_t)cap * (size_t)N;
  int fail = 0;
  l->nrow = rt__alloc((size_t)N, sizeof(int), &fail);
  l->a = rt__alloc(rows, sizeof(int), &fail);
  l->b = rt__alloc(rows, sizeof(int), &fail);
  l->normal = rt__alloc(rows, sizeof(int), &fail);
  l->side = 6 * rows;
  l->J = rt__alloc(12 * rows, sizeof(double), &fail);
  l->WJ = rt__alloc(12 * rows, sizeof(double), &fail);
  l->rhs = rt__alloc(rows, sizeof(double), &fail);
  l->inv_diag = rt__alloc(rows, sizeof(double), &fail);
  l->lambda = rt__alloc(rows, sizeof(double), &fail);
  l->lo = rt__alloc(rows, sizeof(double), &fail);
  l->hi = rt__alloc(rows, sizeof(double), &fail);
  l->mu = rt__alloc(rows, sizeof(double), &fail);
  l->soft = rt__alloc(rows, sizeof(double), &fail);
  l->uniform = rt__alloc((size_t)cap, 1, &fail);
  l->kind = rt__alloc((size_t)cap, sizeof(int), &fail);
  l->vel = rt__alloc(6 * (size_t)nsbody * (size_t)N, sizeof(double), &fail);
  return fail ? -1 : 0;
}

/* per row and lane: a, b, normal; J, WJ; rhs, inv_diag, lambda, lo, hi,
 * mu, soft; per row: uniform, kind (rt__lanes_alloc) */
size_t rt__lanes_bytes(int N, int rows, int nsbody) {
  const size_t lane_row = 3 * sizeof(int) + (24 + 7) * sizeof(double);
  return (size_t)rows * ((size_t)N * lane_row + 1 + sizeof(int)) + 6 * (size_t)nsbody * (size_t)N * sizeof(double);
}

void rt__lanes_free(rt__lanes *l) {
  free(l->nrow);
  free(l->a);
  free(l->b);
  free(l->normal);
  free(l->J);
  free(l->WJ);
  free(l->rhs);
  free(l->inv_diag);
  free(l->lambda);
  free(l->lo);
  free(l->hi);
  free(l->mu);
  free(l->soft);
  free(l->uniform);
  free(l->kind);
  free(l->vel);
  memset(l, 0, sizeof *l);
}

/* Row i of copy j into its lane, or an inert row on the world, but for J
 * and W J^T (gather_jw). */
static void gather_row(rt__lanes *l, const rt__rows *r, int i, int j) {
  const int N = l->N;
  const size_t d = (size_t)i * (size_t)N + (size_t)j;
  if (r == NULL) {
    l->a[d] = l->b[d] = RT_WORLD;
    l->normal[d] = -1;
    l->inv_diag[d] = l->lambda[d] = l->rhs[d] = l->lo[d] = l->hi[d] = l->mu[d] = l->soft[d] = 0.0;
    return;
  }
  l->a[d] = r->a[i];
  l->b[d] = r->b[i];
  l->normal[d] = r->normal[i];
  l->rhs[d] = r->rhs[i];
  l->inv_diag[d] = r->inv_diag[i];
  l->lambda[d] = r->lambda[i];
  l->lo[d] = r->lo[i];
  l->hi[d] = r->hi[i];
  l->mu[d] = r->mu[i];
  l->soft[d] = r->soft[i];
}

/* J and W J^T of row i of every copy into the lanes (zeros in a copy
 * without the row), 4 copies and 4 entries at a time (rt__transpose4_double:
 * entry by entry, the tank's batch of 8 stepped 1.11-1.12x as fast as its
 * copies one by one, now 1.22-1.23x). */
static void gather_jw(rt__lanes *l, rt_world *const *w, int i) {
  static const double zero[12];
  const int N = l->N;
  for (int j = 0; j < N; j += 4) {
    const double *J[4], *WJ[4];
    for (int c = 0; c < 4; c++) {
      const int has = i < l->nrow[j + c];
      J[c] = has ? w[j + c]->rows.J + 12 * (size_t)i : zero;
      WJ[c] = has ? w[j + c]->rows.WJ + 12 * (size_t)i : zero;
    }
    for (int k = 0; k < 12; k += 4) {
      size_t e[4];
      for (int m = 0; m < 4; m++) e[m] = rt__lanes_at(l, i, k + m) + (size_t)j;
      rt__transpose4_double(J[0] + k, J[1] + k, J[2] + k, J[3] + k, l->J + e[0], l->J + e[1], l->J + e[2], l->J + e[3]);
      rt__transpose4_double(WJ[0] + k, WJ[1] + k, WJ[2] + k, WJ[3] + k, l->WJ + e[0], l->WJ + e[1], l->WJ + e[2],
                            l->WJ + e[3]);
    }
  }
}

/* Whether row i is on the same bodies in every copy that has it (the
 * padded lanes then take those bodies too: inert, they only read them),
 * and its kind: its normal in every copy that has it, or RT__LANES_MIXED. */
static void mark(rt__lanes *l, int i) {
  const int N = l->N;
  const size_t r = (size_t)i * (size_t)N;
  int ref = -1, uniform = 1, kind = -1;
  for (int j = 0; j < N; j++) {
    if (i >= l->nrow[j]) continue;
    if (ref < 0) {
      ref = j;
      kind = l->normal[r + j];
      continue;
    }
    if (l->normal[r + j] != kind) kind = RT__LANES_MIXED;
    if (l->a[r + j] != l->a[r + ref] || l->b[r + j] != l->b[r + ref]) uniform = 0;
  }
  if (uniform && ref >= 0)
    for (int j = 0; j < N; j++)
      if (i >= l->nrow[j]) {
        l->a[r + j] = l->a[r + ref];
        l->b[r + j] = l->b[r + ref];
      }
  l->uniform[i] = (unsigned char)uniform;
  l->kind[i] = kind;
}

/* Rows [lo, hi) of the copies taken (the others: inert rows). */
static void gather_rows(rt__lanes *l, rt_world *const *w, int lo, int hi) {
  /* row by row, so that each write fills the lanes of one cache line
   * (copy by copy, the writes strode over the whole array N times: the
   * gather cost as much as the sweeps) */
  for (int i = lo; i < hi; i++) {
    for (int j = 0; j < l->N; j++) gather_row(l, i < l->nrow[j] ? &w[j]->rows : NULL, i, j);
    gather_jw(l, w, i);
    mark(l, i);
  }
}

void rt__lanes_gather(rt__lanes *l, rt_world *const *w, const unsigned char *take, int first) {
  const int N = l->N;
  l->n = 0;
  for (int j = 0; j < N; j++) {
    l->nrow[j] = take[j] ? w[j]->rows.n : 0;
    if (l->nrow[j] > l->n) l->n = l->nrow[j];
  }
  l->from = first < l->n ? first : l->n;
  gather_rows(l, w, l->from, l->n);
  for (size_t k = 0; k < 6 * (size_t)l->nsbody; k++)
    for (int j = 0; j < N; j++)
      if (take[j]) l->vel[k * N + j] = w[j]->vel[k];
}

void rt__lanes_gather_before(rt__lanes *l, rt_world *const *w) {
  gather_rows(l, w, 0, l->from);
  l->from = 0;
}

void rt__lanes_scatter(const rt__lanes *l, rt_world *const *w, const unsigned char *take) {
  const int N = l->N;
  for (int i = l->from; i < l->n; i++)
    for (int j = 0; j < N; j++) {
      if (!take[j] || i >= l->nrow[j]) continue;
      const size_t d = (size_t)i * (size_t)N + (size_t)j;
      rt__rows *r = &w[j]->rows;
      r->lambda[i] = l->lambda[d];
      r->lo[i] = l->lo[d];
      r->hi[i] = l->hi[d];
    }
  for (size_t k = 0; k < 6 * (size_t)l->nsbody; k++)
    for (int j = 0; j < N; j++)
      if (take[j]) w[j]->vel[k] = l->vel[k * N + j];
}

void rt__lanes_mask(rt__lanes *l, int j, const int *rows, int k) {
  for (int t = 0; t < k; t++)
    if (rows[t] >= l->from && rows[t] < l->nrow[j]) l->inv_diag[(size_t)rows[t] * (size_t)l->N + (size_t)j] = 0.0;
}

void rt__lanes_refresh(rt__lanes *l, rt_world *const *w, const unsigned char *take) {
  const int N = l->N;
  for (int i = l->from; i < l->n; i++)
    for (int j = 0; j < N; j++) {
      if (!take[j] || i >= l->nrow[j]) continue;
      const size_t d = (size_t)i * (size_t)N + (size_t)j;
      const rt__rows *r = &w[j]->rows;
      l->lambda[d] = r->lambda[i];
      l->lo[d] = r->lo[i];
      l->hi[d] = r->hi[i];
    }
  for (size_t k = 0; k < 6 * (size_t)l->nsbody; k++)
    for (int j = 0; j < N; j++)
      if (take[j]) l->vel[k * N + j] = w[j]->vel[k];
}

#if defined(__GNUC__) && !defined(LDLPGS_NO_VECTOR)
#define LN 4
#include "batch_pgs_row.h"
#undef LN
#define LN 8
#include "batch_pgs_row.h"
#undef LN
#define LN 16
#include "batch_pgs_row.h"
#undef LN

void rt__lanes_sweep(rt__lanes *l, int first, const long long *act, double *change) {
  switch (l->N) {
  case 4: sweep_4(l, first, act, change); break;
  case 8: sweep_8(l, first, act, change); break;
  default: sweep_16(l, first, act, change); break;
  }
}

void rt__lanes_residual(const rt__lanes *l, int dim, double *res, double *most) {
  switch (l->N) {
  case 4: residual_4(l, dim, res, most); break;
  case 8: residual_8(l, dim, res, most); break;
  default: residual_16(l, dim, res, most); break;
  }
}

void rt__lanes_correct(rt__lanes *l, int dim, const double *delta, const unsigned char *act) {
  switch (l->N) {
  case 4: correct_4(l, dim, delta, act); break;
  case 8: correct_8(l, dim, delta, act); break;
  default: correct_16(l, dim, delta, act); break;
  }
}
#else
/* Row i in lane j alone: pgs.c's sweep_row on the lanes' layout; returns
 * how much it changed the row's velocity. */
static double lane_row(rt__lanes *l, int i, int j) {
  const int N = l->N;
  double *v = l->vel;
  const size_t r = (size_t)i * (size_t)N + (size_t)j;
  const double id = l->inv_diag[r];
  if (id == 0.0) return 0.0;
  const int a = l->a[r], b = l->b[r];
  const size_t ja = rt__lanes_at(l, i, 0) + (size_t)j, jb = rt__lanes_at(l, i, 6) + (size_t)j;
  double *va = a == RT_WORLD ? NULL : v + 6 * (size_t)a * N + j;
  double *vb = b == RT_WORLD ? NULL : v + 6 * (size_t)b * N + j;
  double jv = 0.0;
  if (va != NULL)
    for (int k = 0; k < 6; k++) jv += l->J[ja + k * N] * va[k * N];
  if (vb != NULL)
    for (int k = 0; k < 6; k++) jv += l->J[jb + k * N] * vb[k * N];
  const double old = l->lambda[r];
  double x = old + (l->rhs[r] - jv) * id;
  if (l->normal[r] >= 0) {
    l->hi[r] = l->mu[r] * l->lambda[(size_t)l->normal[r] * N + j];
    l->lo[r] = -l->hi[r];
  } else if (l->normal[r] == RT__ROW_SOFT) {
    x -= l->soft[r] * old * id;
  }
  if (x < l->lo[r]) x = l->lo[r];
  if (x > l->hi[r]) x = l->hi[r];
  l->lambda[r] = x;
  const double d = x - old;
  if (va != NULL)
    for (int k = 0; k < 6; k++) va[k * N] += l->WJ[ja + k * N] * d;
  if (vb != NULL)
    for (int k = 0; k < 6; k++) vb[k * N] += l->WJ[jb + k * N] * d;
  return fabs(d) / id;
}

/* Rows 0 .. dim are the mechanism's equality rows, on the same bodies in
 * every copy: each lane's J v summed as pgs.c's row_dot does. */
void rt__lanes_residual(const rt__lanes *l, int dim, double *res, double *most) {
  const int N = l->N;
  for (int j = 0; j < N; j++) most[j] = 0.0;
  for (int i = 0; i < dim; i++) {
    const size_t r = (size_t)i * (size_t)N;
    const int a = l->a[r], b = l->b[r];
    const double *Ja = l->J + rt__lanes_at(l, i, 0), *Jb = l->J + rt__lanes_at(l, i, 6);
    double s[RT__LANES_MAX];
    for (int j = 0; j < N; j++) s[j] = 0.0;
    if (a != RT_WORLD) {
      const double *va = l->vel + 6 * (size_t)a * N;
      for (int k = 0; k < 6; k++)
        for (int j = 0; j < N; j++) s[j] += Ja[k * N + j] * va[k * N + j];
    }
    if (b != RT_WORLD) {
      const double *vb = l->vel + 6 * (size_t)b * N;
      for (int k = 0; k < 6; k++)
        for (int j = 0; j < N; j++) s[j] += Jb[k * N + j] * vb[k * N + j];
    }
    for (int j = 0; j < N; j++) {
      res[r + j] = l->rhs[r + j] - s[j];
      most[j] = rt__most(most[j], fabs(res[r + j]));
    }
  }
}

/* block.c's lambda += delta and pgs.c's rt__pgs_apply (a row whose delta
 * is 0 moves nothing) in the lanes of act. */
void rt__lanes_correct(rt__lanes *l, int dim, const double *delta, const unsigned char *act) {
  const int N = l->N;
  for (int i = 0; i < dim; i++) {
    const size_t r = (size_t)i * (size_t)N;
    const int a = l->a[r], b = l->b[r];
    const double *WJa = l->WJ + rt__lanes_at(l, i, 0), *WJb = l->WJ + rt__lanes_at(l, i, 6), *d = delta + r;
    for (int j = 0; j < N; j++)
      if (act[j]) l->lambda[r + j] += d[j];
    if (a != RT_WORLD) {
      double *va = l->vel + 6 * (size_t)a * N;
      for (int k = 0; k < 6; k++)
        for (int j = 0; j < N; j++)
          if (act[j] && d[j] != 0.0) va[k * N + j] += WJa[k * N + j] * d[j];
    }
    if (b != RT_WORLD) {
      double *vb = l->vel + 6 * (size_t)b * N;
      for (int k = 0; k < 6; k++)
        for (int j = 0; j < N; j++)
          if (act[j] && d[j] != 0.0) vb[k * N + j] += WJb[k * N + j] * d[j];
    }
  }
}

void rt__lanes_sweep(rt__lanes *l, int first, const long long *act, double *change) {
  for (int j = 0; j < l->N; j++) {
    double c = 0.0;
    if (act[j])
      for (int i = first; i < l->n; i++) c = rt__most(c, lane_row(l, i, j));
    if (change) change[j] = c;
  }
}
#endif
