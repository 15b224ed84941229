/* blocksolve.h -- solving the block system H~ x = b beyond one solve with
 * the program's factor (docs/DESIGN.md section 8): the matrix-free
 * product with H~ (hmul.c), iterative refinement of the factor's solve in
 * double (refine.c) and the preconditioned conjugate residual solver
 * (pcr.c), which needs no factor at all.
 *
 * They work on arrays, not on a world: block.c calls them with the world's
 * equality rows and solver bodies, rt_program_solve_refined (rt.h) with a
 * game's J and masses. Every buffer is the caller's; nothing allocates. */
#ifndef LDLPGS_RUNTIME_BLOCKSOLVE_H
#define LDLPGS_RUNTIME_BLOCKSOLVE_H

#include "rt.h"

/* H~ = J W J^T + epsilon diag(J W J^T) on a program's solver view, never
 * assembled: J holds the equality rows (12 per row, rows of solver
 * constraint c from J + 12 cons_row[c], as rt_assemble takes them),
 * inv_mass and inv_inertia the solver bodies' inverse masses (1 each) and
 * world-frame inverse inertias (9 each, zero for fixed bodies), dreg the
 * regularization epsilon diag(J W J^T) of every row, or NULL: then each
 * product computes it from J, the masses and eps (the same bits; cheaper
 * for one product, dearer for several). u is scratch of 6 per solver
 * body. */
typedef struct rt__hop {
  const rt_program *p;
  const double *J, *inv_mass, *inv_inertia;
  const double *dreg; /* (dim) or NULL */
  double *u;          /* (6 nsbody) */
  double eps;         /* epsilon, where dreg is NULL */
} rt__hop;

/* hmul.c */
/* diag(J W J^T) of every row (dim). */
void rt__hmul_diag(const rt_program *p, const double *J, const double *inv_mass, const double *inv_inertia,
                   double *diag);
/* y = H~ x (x and y: dim; they must not overlap). */
void rt__hmul(const rt__hop *h, const double *x, double *y);
/* r = b - H~ x; returns ||r||^2. r must not overlap x. */
double rt__hmul_residual(const rt__hop *h, const double *b, const double *x, double *r);
/* sum of a[i] b[i], i < n, in order */
double rt__hmul_dot(const double *a, const double *b, int n);

/* refine.c */
/* Buffers of rt__refine_solve: r, t and d of dim doubles each, xs of dim
 * scalars of the program's precision. */
typedef struct rt__refine_buf {
  double *r, *t, *d;
  void *xs;
} rt__refine_buf;

/* x = H~^-1 b: the solve with the factor in work, in the program's
 * precision, then at most `steps` refinement steps in double: r = b - H~ x,
 * d = the factor's solve of r, x += d. A step after which the residual has
 * not fallen is undone and ends the refinement; the last step is checked
 * only if check_last (its residual costs one more product with H~).
 * Returns the steps kept; *res0 (if not NULL) receives ||b - H~ x|| / ||b||
 * after the plain solve, *res after the steps (NAN if the last step was not
 * checked). b and x must not overlap. */
int rt__refine_solve(const rt__hop *h, const void *work, const double *b, double *x, int steps, int check_last,
                     rt__refine_buf *buf, double *res0, double *res);

/* pcr.c */
/* Buffers of rt__pcr_solve: six vectors of dim doubles. */
typedef struct rt__pcr_buf {
  double *r, *z, *p, *q, *az, *ap;
} rt__pcr_buf;

/* Solves H~ x = b by the conjugate residual method preconditioned with
 * minv (Jacobi: 1 / H~_ii, 0 for an empty row), matrix-free, from x as the
 * first guess (a warm start, scaled to its best multiple; zeros for none;
 * a guess that leaves a residual larger than b is dropped). Stops when
 * ||b - H~ x|| <= tol ||b|| (the true residual, not only the recurrence's)
 * or after max_iter iterations. Returns the iterations run; *res (if not
 * NULL) receives the final relative residual (the true one). */
int rt__pcr_solve(const rt__hop *h, const double *minv, const double *b, double *x, double tol, int max_iter,
                  rt__pcr_buf *buf, double *res);

#endif
