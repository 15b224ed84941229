/* block.c -- LDL-PGS's block Gauss-Seidel step on the equality rows with
 * the factored H~ (docs/DESIGN.md section 3), and solves of its system:
 * with the program's factor, refined in double when rt_settings.refine
 * asks (refine.c), or by PCR without a factor (pcr.c; section 8). It calls
 * the program, hmul.c, refine.c, pcr.c and pgs.c (impulses onto
 * velocities). */
#include <math.h>
#include <string.h>

#include "blocksolve.h"
#include "world.h"

/* In double in place, in float on its rounding. */
static void factor_solve(rt_world *w, double *v) {
  if (w->prog->precision == RT_FLOAT) {
    float *x = w->x;
    for (int i = 0; i < w->dim; i++) x[i] = (float)v[i];
    rt_program_solve(w->prog, w->work, x);
    for (int i = 0; i < w->dim; i++) v[i] = x[i];
  } else {
    rt_program_solve(w->prog, w->work, v);
  }
}

/* H~ of the equality rows as they stand (w->rows.J, the solver bodies'
 * masses), never assembled. Its regularization epsilon diag(J W J^T) comes
 * from the rows' inverse diagonals, 1 / ((1 + epsilon) J W J^T), which are
 * also PCR's Jacobi preconditioner (1 / H~_ii): one division a row, where
 * computing the diagonal again from J and the masses costs a third of a
 * refinement step. */
static rt__hop block_hop(rt_world *w) {
  const double eps = w->set.epsilon, *inv = w->rows.inv_diag;
  for (int i = 0; i < w->dim; i++) w->bdreg[i] = inv[i] > 0 ? eps / ((1.0 + eps) * inv[i]) : 0.0;
  return (rt__hop){.p = w->prog, .J = w->rows.J, .inv_mass = w->inv_mass, .inv_inertia = w->inv_inertia,
                   .dreg = w->bdreg, .u = w->bu};
}

/* x = H~^-1 b by refinement or PCR (x: PCR's first guess); records what
 * it did in info if record. */
static void solve(rt_world *w, const double *b, double *x, int record) {
  const rt__hop h = block_hop(w);
  const int n = w->dim;
  if (w->set.block_solver == RT_BLOCK_PCR) {
    rt__pcr_buf buf = {w->bbuf, w->bbuf + n, w->bbuf + 2 * n, w->bbuf + 3 * n, w->bbuf + 4 * n, w->bbuf + 5 * n};
    const int cap = w->set.pcr_max_iterations > 0 ? w->set.pcr_max_iterations : n;
    double res = NAN;
    const int it = rt__pcr_solve(&h, w->rows.inv_diag, b, x, w->set.pcr_tolerance, cap, &buf, record ? &res : NULL);
    if (record) {
      w->info.pcr_iterations = it;
      w->info.block_residual = res;
    }
  } else {
    rt__refine_buf buf = {w->bbuf, w->bbuf + n, w->bbuf + 2 * n, w->bbuf + 3 * n};
    const int kept = rt__refine_solve(&h, w->work, b, x, w->set.refine, 0, &buf, NULL, NULL);
    if (record) w->info.refine_steps = kept;
  }
}

static int plain(const rt_world *w) { return w->set.block_solver == RT_BLOCK_LDL && w->set.refine == 0; }

void rt__block_solve(rt_world *w, double *v) {
  if (plain(w)) {
    factor_solve(w, v);
    return;
  }
  memset(w->bs, 0, sizeof *w->bs * (size_t)w->dim);
  solve(w, v, w->bs, 0);
  memcpy(v, w->bs, sizeof *v * (size_t)w->dim);
}

/* delta = H~^-1 (R - J V) on the equality rows; lambda += delta;
 * V += W J^T delta. PCR's first guess is the last step's delta (w->bx),
 * which pcr.c scales to its best multiple: on the samples that saves up to
 * a fifth of the iterations (chain, multi_wheel, buggy) and nothing on the
 * redundant ones. (The last step's impulses themselves are a worse guess
 * than none: after the sweeps their residual is 10-400 times ||R - J V||
 * on the scissor lift.) */
void rt__block_step(rt_world *w) {
  rt__rows *r = &w->rows;
  const int n = w->dim;
  double *res = w->r, *delta = res;
  for (int i = 0; i < n; i++) res[i] = r->rhs[i] - rt__pgs_row_velocity(r, i, w->vel);
  if (plain(w)) {
    factor_solve(w, res);
  } else {
    delta = w->bs;
    for (int i = 0; i < n; i++) delta[i] = w->bx[i];
    solve(w, res, delta, 1);
  }
  for (int i = 0; i < n; i++) r->lambda[i] += delta[i];
  if (!plain(w)) memcpy(w->bx, delta, sizeof *w->bx * (size_t)n);
  rt__pgs_apply(r, 0, n, delta, w->vel);
}
