/* batch_pgs.c -- PGS sweeps over N copies of one mechanism at once, one
 * copy per lane (lanes.h). Every lane does what pgs.c's sweep does to that
 * copy alone, in the same order, so the results are its bits: J v summed
 * term by term from 0.0 (side a, then side b), the impulse, the clamp, then
 * each velocity += (W J^T)_k dl, side a before side b (which may be the
 * same body). An inert row (inv_diag 0) changes nothing in its lane.
 *
 * A row on the same two bodies in every copy and with fixed bounds (the
 * mechanism's rows: joints, motors, limits; and contacts that happen to
 * agree) is swept in all lanes at once, each operation a loop over the
 * lanes that the compiler turns into vector operations (an inert lane is
 * masked out, never added to: v + 0 is not v for v = -0.0). A row whose
 * bodies differ between copies (contacts) or whose bounds follow another
 * row (friction) is swept lane by lane. It calls no other module. */
#include <stdlib.h>
#include <string.h>

#include "lanes.h"

#if defined(__GNUC__)
#define LANES_INLINE static inline __attribute__((always_inline))
#else
#define LANES_INLINE static inline
#endif

int rt__lanes_alloc(rt__lanes *l, int N, int cap, int nsbody) {
  memset(l, 0, sizeof *l);
  l->N = N;
  l->cap = cap;
  l->nsbody = nsbody;
  const size_t rows = (size_t)cap * (size_t)N;
  int fail = 0;
  l->nrow = rt__alloc((size_t)N, sizeof(int), &fail);
  l->a = rt__alloc(rows, sizeof(int), &fail);
  l->b = rt__alloc(rows, sizeof(int), &fail);
  l->normal = rt__alloc(rows, sizeof(int), &fail);
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
  l->vel = rt__alloc(6 * (size_t)nsbody * (size_t)N, sizeof(double), &fail);
  return fail ? -1 : 0;
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
  free(l->vel);
  memset(l, 0, sizeof *l);
}

/* Row i of copy j into its lane, or an inert row on the world. */
static void gather_row(rt__lanes *l, const rt__rows *r, int i, int j) {
  const int N = l->N;
  const size_t d = (size_t)i * (size_t)N + (size_t)j;
  if (r == NULL) {
    l->a[d] = l->b[d] = RT_WORLD;
    l->normal[d] = -1;
    l->inv_diag[d] = l->lambda[d] = l->rhs[d] = l->lo[d] = l->hi[d] = l->mu[d] = l->soft[d] = 0.0;
    for (int k = 0; k < 12; k++) l->J[(12 * (size_t)i + k) * N + j] = l->WJ[(12 * (size_t)i + k) * N + j] = 0.0;
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
  const double *J = r->J + 12 * (size_t)i, *WJ = r->WJ + 12 * (size_t)i;
  for (int k = 0; k < 12; k++) {
    l->J[(12 * (size_t)i + k) * N + j] = J[k];
    l->WJ[(12 * (size_t)i + k) * N + j] = WJ[k];
  }
}

/* Whether row i can be swept in all lanes at once: every copy that has it
 * puts it on the same two bodies, and none is a friction row; the padded
 * lanes then take those bodies too (inert, they only read them). */
static int mark_uniform(rt__lanes *l, int i) {
  const int N = l->N;
  const size_t r = (size_t)i * (size_t)N;
  int ref = -1;
  for (int j = 0; j < N; j++) {
    if (i >= l->nrow[j]) continue;
    if (l->normal[r + j] >= 0) return 0;
    if (ref < 0) ref = j;
    else if (l->a[r + j] != l->a[r + ref] || l->b[r + j] != l->b[r + ref]) return 0;
  }
  for (int j = 0; j < N; j++)
    if (i >= l->nrow[j]) {
      l->a[r + j] = l->a[r + ref];
      l->b[r + j] = l->b[r + ref];
    }
  return 1;
}

void rt__lanes_gather(rt__lanes *l, rt_world *const *w, const unsigned char *take) {
  const int N = l->N;
  l->n = 0;
  for (int j = 0; j < N; j++) {
    l->nrow[j] = take[j] ? w[j]->rows.n : 0;
    if (l->nrow[j] > l->n) l->n = l->nrow[j];
  }
  for (int j = 0; j < N; j++) {
    for (int i = 0; i < l->nrow[j]; i++) gather_row(l, &w[j]->rows, i, j);
    for (int i = l->nrow[j]; i < l->n; i++) gather_row(l, NULL, i, j);
    if (!take[j]) continue;
    const double *v = w[j]->vel;
    for (size_t k = 0; k < 6 * (size_t)l->nsbody; k++) l->vel[k * N + j] = v[k];
  }
  for (int i = 0; i < l->n; i++) l->uniform[i] = (unsigned char)mark_uniform(l, i);
}

void rt__lanes_scatter(const rt__lanes *l, rt_world *const *w, const unsigned char *take) {
  const int N = l->N;
  for (int j = 0; j < N; j++) {
    if (!take[j]) continue;
    rt__rows *r = &w[j]->rows;
    for (int i = 0; i < l->nrow[j]; i++) {
      const size_t d = (size_t)i * (size_t)N + (size_t)j;
      r->lambda[i] = l->lambda[d];
      r->lo[i] = l->lo[d];
      r->hi[i] = l->hi[d];
    }
    double *v = w[j]->vel;
    for (size_t k = 0; k < 6 * (size_t)l->nsbody; k++) v[k] = l->vel[k * N + j];
  }
}

/* Row i in every lane at once (a uniform row); N is a constant where it is
 * inlined, so the lane loops are fixed-length vector operations. */
LANES_INLINE void uniform_row(rt__lanes *l, int i, const int N) {
  const size_t r = (size_t)i * (size_t)N;
  const int a = l->a[r], b = l->b[r];
  const double *restrict J = l->J + 12 * r, *restrict WJ = l->WJ + 12 * r;
  double *restrict va = a == RT_WORLD ? NULL : l->vel + 6 * (size_t)a * N;
  double *restrict vb = b == RT_WORLD ? NULL : l->vel + 6 * (size_t)b * N;
  double jv[RT__LANES_MAX], dl[RT__LANES_MAX];
  unsigned char on[RT__LANES_MAX];
  for (int j = 0; j < N; j++) jv[j] = 0.0;
  if (va != NULL)
    for (int k = 0; k < 6; k++)
      for (int j = 0; j < N; j++) jv[j] += J[k * N + j] * va[k * N + j];
  if (vb != NULL)
    for (int k = 0; k < 6; k++)
      for (int j = 0; j < N; j++) jv[j] += J[(6 + k) * N + j] * vb[k * N + j];
  for (int j = 0; j < N; j++) {
    const double id = l->inv_diag[r + j], old = l->lambda[r + j];
    double x = old + (l->rhs[r + j] - jv[j]) * id;
    if (l->normal[r + j] == RT__ROW_SOFT) x -= l->soft[r + j] * old * id;
    if (x < l->lo[r + j]) x = l->lo[r + j];
    if (x > l->hi[r + j]) x = l->hi[r + j];
    on[j] = id != 0.0;
    if (!on[j]) x = old;
    l->lambda[r + j] = x;
    dl[j] = x - old;
  }
  /* Side a, then side b from memory: the same body on both sides (a == b)
   * takes side b's change on top of side a's, as in pgs.c. */
  if (va != NULL)
    for (int k = 0; k < 6; k++)
      for (int j = 0; j < N; j++)
        if (on[j]) va[k * N + j] += WJ[k * N + j] * dl[j];
  if (vb != NULL)
    for (int k = 0; k < 6; k++)
      for (int j = 0; j < N; j++)
        if (on[j]) vb[k * N + j] += WJ[(6 + k) * N + j] * dl[j];
}

/* Row i in lane j alone: pgs.c's sweep_row on the lanes' layout. */
static void lane_row(rt__lanes *l, int i, int j) {
  const int N = l->N;
  const size_t r = (size_t)i * (size_t)N + (size_t)j;
  const double id = l->inv_diag[r];
  if (id == 0.0) return;
  const int a = l->a[r], b = l->b[r];
  const double *J = l->J + 12 * (size_t)i * N + j, *WJ = l->WJ + 12 * (size_t)i * N + j;
  double *va = a == RT_WORLD ? NULL : l->vel + 6 * (size_t)a * N + j;
  double *vb = b == RT_WORLD ? NULL : l->vel + 6 * (size_t)b * N + j;
  double jv = 0.0;
  if (va != NULL)
    for (int k = 0; k < 6; k++) jv += J[k * N] * va[k * N];
  if (vb != NULL)
    for (int k = 0; k < 6; k++) jv += J[(6 + k) * N] * vb[k * N];
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
    for (int k = 0; k < 6; k++) va[k * N] += WJ[k * N] * d;
  if (vb != NULL)
    for (int k = 0; k < 6; k++) vb[k * N] += WJ[(6 + k) * N] * d;
}

LANES_INLINE void sweep_n(rt__lanes *l, const int N) {
  for (int i = 0; i < l->n; i++) {
    if (l->uniform[i]) {
      uniform_row(l, i, N);
    } else {
      for (int j = 0; j < N; j++) lane_row(l, i, j);
    }
  }
}

void rt__lanes_sweep(rt__lanes *l) {
  switch (l->N) {
  case 4: sweep_n(l, 4); break;
  case 8: sweep_n(l, 8); break;
  default: sweep_n(l, 16); break;
  }
}
