/* block.c -- LDL-PGS's block Gauss-Seidel step on the equality rows with
 * the factored H~ (docs/DESIGN.md section 3), refined by passes that take
 * the residual in double through the rows, and solves of its system: with
 * the program's factor, or by PCR without a factor (pcr.c, hmul.c;
 * section 8). It calls the program, hmul.c, pcr.c and pgs.c (impulses
 * onto velocities). */
#include <math.h>
#include <string.h>

#include "blocksolve.h"
#include "rtmath.h"
#include "world.h"

/* The program's solve (or a half of it) of v with the step's factor: in
 * double in place, in float on its rounding. */
typedef void (*program_solve_fn)(const rt_program *p, const void *work, void *x);
static void factor_run(rt_world *w, double *v, program_solve_fn solve) {
  if (w->prog->precision == RT_FLOAT) {
    float *x = w->x;
    for (int i = 0; i < w->dim; i++) x[i] = (float)v[i];
    solve(w->prog, w->work, x);
    for (int i = 0; i < w->dim; i++) v[i] = x[i];
  } else {
    solve(w->prog, w->work, v);
  }
}

static void factor_solve(rt_world *w, double *v) { factor_run(w, v, rt_program_solve); }

/* The halves of factor_solve: the backward after the forward is it, to
 * the bit (a float's value survives the round trip through double). */
void rt__block_forward(rt_world *w, double *v) { factor_run(w, v, rt_program_solve_forward); }
void rt__block_backward(rt_world *w, double *v) { factor_run(w, v, rt_program_solve_backward); }

/* H~ of the equality rows r (their J, the solver bodies' masses), never
 * assembled. Its regularization epsilon diag(J W J^T) comes from the rows'
 * inverse diagonals, 1 / ((1 + epsilon) J W J^T), which are also PCR's
 * Jacobi preconditioner (1 / H~_ii): one division a row, where computing
 * the diagonal again from J and the masses costs a third of a product. */
static rt__hop block_hop(rt_world *w, const rt__rows *r) {
  const double eps = w->set.epsilon, *inv = r->inv_diag;
  for (int i = 0; i < w->dim; i++) w->bdreg[i] = inv[i] > 0 ? eps / ((1.0 + eps) * inv[i]) : 0.0;
  return (rt__hop){.p = w->prog, .J = r->J, .inv_mass = w->inv_mass, .inv_inertia = w->inv_inertia,
                   .dreg = w->bdreg, .u = w->bu};
}

static int use_pcr(const rt_world *w) { return w->set.block_solver == RT_BLOCK_PCR; }

int rt__block_splits(const rt_world *w) {
  const rt_program *p = w->prog;
  return !use_pcr(w) && (p->solve == NULL || (p->solve_forward != NULL && p->solve_backward != NULL));
}

/* x = H~^-1 b by PCR from the first guess x; records what it did in info
 * if record. */
static void pcr_solve(rt_world *w, const rt__rows *r, const double *b, double *x, int record) {
  const rt__hop h = block_hop(w, r);
  const int n = w->dim;
  rt__pcr_buf buf = {w->bbuf, w->bbuf + n, w->bbuf + 2 * n, w->bbuf + 3 * n, w->bbuf + 4 * n, w->bbuf + 5 * n};
  const int cap = w->set.pcr_max_iterations > 0 ? w->set.pcr_max_iterations : n;
  double res = NAN;
  const int it = rt__pcr_solve(&h, r->inv_diag, b, x, w->set.pcr_tolerance, cap, &buf, record ? &res : NULL);
  if (record) {
    w->info.pcr_iterations = it;
    w->info.block_residual = res;
  }
}

void rt__block_solve(rt_world *w, double *v) {
  if (!use_pcr(w)) {
    factor_solve(w, v);
    return;
  }
  memset(w->bs, 0, sizeof *w->bs * (size_t)w->dim);
  pcr_solve(w, &w->rows, v, w->bs, 0);
  memcpy(v, w->bs, sizeof *v * (size_t)w->dim);
}

/* delta = H~^-1 (R - J V) on the equality rows; lambda += delta;
 * V += W J^T delta; then `refine` times again from the new residual with
 * the same factor (iterative refinement: the residual is taken with
 * H = J W J^T through the rows, so each pass removes most of the error that
 * the regularization epsilon diag(H) -- and a float program's rounding --
 * left, on every row that is not redundant: the error of the solve goes
 * from about epsilon kappa to (epsilon kappa)^2, where kappa grows with the
 * mass ratio the rows see).
 *
 * With PCR, the step's own rows' first guess is the last step's delta
 * (w->bx), which pcr.c scales to its best multiple: on the samples that
 * saves up to a fifth of the iterations (chain, multi_wheel, buggy) and
 * nothing on the redundant ones. (The last step's impulses themselves are a
 * worse guess than none: after the sweeps their residual is 10-400 times
 * ||R - J V|| on the scissor lift.) */
double rt__block_residual(rt_world *w, const rt__rows *r, const double *vel) {
  return rt__pgs_residual(r, w->prog, w->row_letter, vel, w->r);
}

void rt__block_correct(rt_world *w, rt__rows *r, const double *delta, double *vel) {
  for (int i = 0; i < w->dim; i++) r->lambda[i] += delta[i];
  rt__pgs_apply_equality(r, w->prog, delta, vel);
}

int rt__block_step(rt_world *w, rt__rows *r, double *vel, int refine) {
  const int n = w->dim, main_rows = r == &w->rows;
  double *res = w->r;
  int pass = 0;
  for (; pass <= refine; pass++) {
    const double most = rt__block_residual(w, r, vel);
    if (!(most > RT__BLOCK_TOLERANCE)) break; /* nothing left to solve for (a NaN goes on) */
    double *delta = res;
    if (use_pcr(w)) {
      delta = w->bs;
      if (main_rows && pass == 0)
        memcpy(delta, w->bx, sizeof *delta * (size_t)n);
      else
        memset(delta, 0, sizeof *delta * (size_t)n);
      pcr_solve(w, r, res, delta, main_rows && pass == 0);
      if (main_rows && pass == 0) memcpy(w->bx, delta, sizeof *w->bx * (size_t)n);
    } else {
      factor_solve(w, res);
    }
    rt__block_correct(w, r, delta, vel);
  }
  if (main_rows) w->info.refine_steps = pass > 0 ? pass - 1 : 0;
  return pass;
}
