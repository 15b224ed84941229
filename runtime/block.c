/* block.c -- LDL-PGS's block Gauss-Seidel step on the equality rows with
 * the factored H~ (docs/DESIGN.md section 3), and solves with that factor.
 * It calls the program and pgs.c (impulses onto velocities). */
#include <math.h>

#include "world.h"

/* In double in place, in float on its rounding. */
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

/* A residual no larger than this (m/s, rad/s) is not solved for: it would
 * move a joint by less than 1e-14 m in a step. (The position pass's block
 * step with no drift to correct costs nothing.) */
#define RT__BLOCK_TOLERANCE 1e-12

/* delta = H~^-1 (R - J V) on the equality rows; lambda += delta;
 * V += W J^T delta; then `refine` times again from the new residual with
 * the same factor (iterative refinement: the residual is taken with
 * H = J W J^T through the rows, so each pass removes most of the error that
 * the regularization epsilon diag(H) -- and a float program's rounding --
 * left, on every row that is not redundant: the error of the solve goes
 * from about epsilon kappa to (epsilon kappa)^2, where kappa grows with the
 * mass ratio the rows see). */
void rt__block_step(rt_world *w, rt__rows *r, double *vel, int refine) {
  const int n = w->dim;
  double *res = w->r;
  for (int pass = 0; pass <= refine; pass++) {
    double most = 0.0;
    for (int i = 0; i < n; i++) {
      res[i] = r->rhs[i] - rt__pgs_row_velocity(r, i, vel);
      most = fmax(most, fabs(res[i]));
    }
    if (!(most > RT__BLOCK_TOLERANCE)) break; /* nothing left to solve for (a NaN goes on) */
    rt__block_solve(w, res);
    for (int i = 0; i < n; i++) r->lambda[i] += res[i];
    rt__pgs_apply(r, 0, n, res, vel);
  }
}
