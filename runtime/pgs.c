/* pgs.c -- the impulse solver's inner loops: projected Gauss-Seidel sweeps
 * over constraint rows with velocity changes (docs/DESIGN.md section 3),
 * and applying impulses to velocities. It works on rows and velocities
 * alone and calls no other module. */
#include <math.h>
#include <stddef.h>

#include "world.h"

static double row_dot(const double *J, const double *va, const double *vb) {
  double s = 0.0;
  if (va != NULL)
    for (int k = 0; k < 6; k++) s += J[k] * va[k];
  if (vb != NULL)
    for (int k = 0; k < 6; k++) s += J[6 + k] * vb[k];
  return s;
}

static void row_axpy(const double *WJ, double dl, double *va, double *vb) {
  if (va != NULL)
    for (int k = 0; k < 6; k++) va[k] += WJ[k] * dl;
  if (vb != NULL)
    for (int k = 0; k < 6; k++) vb[k] += WJ[6 + k] * dl;
}

static double *body_vel(double *vel, int b) { return b == RT_WORLD ? NULL : vel + 6 * (size_t)b; }

double rt__pgs_row_velocity(const rt__rows *r, int i, const double *vel) {
  return row_dot(r->J + 12 * (size_t)i, body_vel((double *)vel, r->a[i]), body_vel((double *)vel, r->b[i]));
}

double rt__pgs_sweep(rt__rows *r, int first, int last, double *vel) {
  double change = 0.0;
  for (int i = first; i < last; i++) {
    if (r->inv_diag[i] == 0.0) continue;
    double *va = body_vel(vel, r->a[i]), *vb = body_vel(vel, r->b[i]);
    const double jv = row_dot(r->J + 12 * (size_t)i, va, vb);
    const double old = r->lambda[i];
    double l = old + (r->rhs[i] - jv) * r->inv_diag[i];
    if (r->normal[i] >= 0) { /* friction: within the current normal impulse */
      r->hi[i] = r->mu[i] * r->lambda[r->normal[i]];
      r->lo[i] = -r->hi[i];
    }
    if (l < r->lo[i]) l = r->lo[i];
    if (l > r->hi[i]) l = r->hi[i];
    r->lambda[i] = l;
    row_axpy(r->WJ + 12 * (size_t)i, l - old, va, vb);
    change = fmax(change, fabs(l - old) / r->inv_diag[i]);
  }
  return change;
}

void rt__pgs_apply(const rt__rows *r, int first, int last, const double *dl, double *vel) {
  for (int i = first; i < last; i++)
    if (dl[i] != 0.0) row_axpy(r->WJ + 12 * (size_t)i, dl[i], body_vel(vel, r->a[i]), body_vel(vel, r->b[i]));
}

/* The slices' prefetches walk [f, f + bytes) line by line, however
 * aligned. Slicing a sweep changes no bit: the rows are visited in the
 * same order. */
void rt__pgs_sweep_prefetch(rt__rows *r, double *vel, const void *data, size_t bytes) {
  enum { LINE = 64, LINES_PER_SLICE = 8 };
  if (data == NULL) {
    rt__pgs_sweep(r, 0, r->n, vel);
    return;
  }
  const char *f = data;
  const size_t nline = (bytes + LINE - 1) / LINE + 1;
  const size_t nslice = (nline + LINES_PER_SLICE - 1) / LINES_PER_SLICE;
  for (size_t k = 0; k < nslice; k++) {
    rt__pgs_sweep(r, (int)(r->n * k / nslice), (int)(r->n * (k + 1) / nslice), vel);
    for (size_t i = k * LINES_PER_SLICE; i < nline && i < (k + 1) * LINES_PER_SLICE; i++)
      __builtin_prefetch(f + i * LINE, 0, 2);
  }
}
