/* pgs.c -- the impulse solver's inner loops: projected Gauss-Seidel sweeps
 * over constraint rows with velocity changes, and LDL-PGS's block
 * Gauss-Seidel step on the equality rows (DESIGN.md section 3). */
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

double rt__row_velocity(const rt__rows *r, int i, const double *vel) {
  return row_dot(r->J + 12 * (size_t)i, body_vel((double *)vel, r->a[i]), body_vel((double *)vel, r->b[i]));
}

void rt__pgs_sweep(rt__rows *r, int first, int last, double *vel) {
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
  }
}

void rt__rows_apply(const rt__rows *r, int first, int last, const double *dl, double *vel) {
  for (int i = first; i < last; i++)
    if (dl[i] != 0.0) row_axpy(r->WJ + 12 * (size_t)i, dl[i], body_vel(vel, r->a[i]), body_vel(vel, r->b[i]));
}

/* x = H~^-1 x through the program's precision: in double in place, in float
 * on its rounding. */
void rt__block_solve(rt_world *w, double *v) {
  if (w->prog->precision == RT_FLOAT) {
    float *x = w->x;
    for (int i = 0; i < w->dim; i++) x[i] = (float)v[i];
    rt_program_solve(w->prog, w->work, x);
    for (int i = 0; i < w->dim; i++) v[i] = x[i];
  } else {
    rt_program_solve(w->prog, w->work, v);
  }
}

/* delta = H~^-1 (R - J V) on the equality rows; lambda += delta;
 * V += W J^T delta. */
void rt__block_step(rt_world *w) {
  rt__rows *r = &w->rows;
  const int n = w->dim;
  double *res = w->r;
  for (int i = 0; i < n; i++) res[i] = r->rhs[i] - rt__row_velocity(r, i, w->vel);
  rt__block_solve(w, res);
  for (int i = 0; i < n; i++) {
    r->lambda[i] += res[i];
    if (res[i] != 0.0) row_axpy(r->WJ + 12 * (size_t)i, res[i], body_vel(w->vel, r->a[i]), body_vel(w->vel, r->b[i]));
  }
}
