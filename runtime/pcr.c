/* pcr.c -- the preconditioned conjugate residual solver of the block
 * system (docs/DESIGN.md section 8), as Axion solves its constraint-space
 * system (../shared/seeds/axion-linear-solver.txt): matrix-free (one
 * product with H~ an iteration, hmul.c), Jacobi-preconditioned, stopped on
 * the relative residual or an iteration cap. It needs no program's factor
 * (only the solver view), so it also steps a world created without a
 * program.
 *
 * With M the preconditioner (minv), z = M r, from x0:
 *   r = b - H~ x, z = M r, p = z, Az = H~ z, Ap = Az, rho = z . Az
 *   repeat: q = M Ap, alpha = rho / (Ap . q),
 *           x += alpha p, r -= alpha Ap, z -= alpha q,
 *           Az = H~ z, rho' = z . Az, beta = rho' / rho,
 *           p = z + beta p, Ap = Az + beta Ap
 * Conjugate residual minimizes the residual in M's norm over the Krylov
 * space, so unlike conjugate gradients its residual does not jump about
 * from one iteration to the next, and it needs only that H~ be symmetric:
 * a redundant mechanism with epsilon = 0 (H singular) still gets the
 * residual down to what its right-hand side allows. When the recurrence's
 * residual meets the tolerance, the true residual b - H~ x is computed (one
 * more product) and the iteration goes on from it if it does not. A first
 * guess g enters as a g with the a that minimizes ||b - a H~ g|| in M's
 * norm (one product), and is dropped if that still leaves a residual
 * larger than b's. It calls hmul.c only. */
#include "blocksolve.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

/* z = M r */
static void precondition(const double *minv, const double *r, double *z, int n) {
  for (int i = 0; i < n; i++) z[i] = minv[i] * r[i];
}

/* The directions from the residual in buf->r: z, p, Az, Ap; returns rho. */
static double restart(const rt__hop *h, const double *minv, rt__pcr_buf *buf, int n) {
  precondition(minv, buf->r, buf->z, n);
  memcpy(buf->p, buf->z, sizeof *buf->p * (size_t)n);
  rt__hmul(h, buf->z, buf->az);
  memcpy(buf->ap, buf->az, sizeof *buf->ap * (size_t)n);
  return rt__hmul_dot(buf->z, buf->az, n);
}

int rt__pcr_solve(const rt__hop *h, const double *minv, const double *b, double *x, double tol, int max_iter,
                  rt__pcr_buf *buf, double *res) {
  const int n = h->p->dim;
  const double bb = rt__hmul_dot(b, b, n);
  const double goal = tol * tol * bb;
  int guess = 0;
  for (int i = 0; i < n && !guess; i++) guess = x[i] != 0.0;
  double rr = bb + 1.0; /* no guess: start from zero, below */
  if (guess) {
    /* the first guess g scaled by the a that minimizes ||b - a H~ g|| in
     * M's norm */
    rt__hmul(h, x, buf->az);
    precondition(minv, buf->az, buf->q, n);
    const double hgm = rt__hmul_dot(buf->az, buf->q, n);
    double a = hgm > 0 ? rt__hmul_dot(b, buf->q, n) / hgm : 0.0;
    if (!isfinite(a)) a = 0.0;
    rr = 0.0;
    for (int i = 0; i < n; i++) {
      x[i] *= a;
      buf->r[i] = b[i] - a * buf->az[i];
      rr += buf->r[i] * buf->r[i];
    }
  }
  if (!(rr <= bb)) { /* no guess, or one still worse than none in the norm the tolerance counts */
    memset(x, 0, sizeof *x * (size_t)n);
    memcpy(buf->r, b, sizeof *buf->r * (size_t)n);
    rr = bb;
  }
  int it = 0, exact = 1; /* exact: rr is the true residual's, not the recurrence's */
  if (rr > goal && rr > 0) {
    double rho = restart(h, minv, buf, n);
    while (it < max_iter) {
      precondition(minv, buf->ap, buf->q, n);
      const double apq = rt__hmul_dot(buf->ap, buf->q, n);
      if (!(apq > 0) || !(rho != 0)) break; /* nothing left to gain in this space */
      const double alpha = rho / apq;
      for (int i = 0; i < n; i++) {
        x[i] += alpha * buf->p[i];
        buf->r[i] -= alpha * buf->ap[i];
        buf->z[i] -= alpha * buf->q[i];
      }
      it++;
      rr = rt__hmul_dot(buf->r, buf->r, n);
      exact = 0;
      if (rr <= goal) {
        rr = rt__hmul_residual(h, b, x, buf->r); /* the recurrence drifts: check */
        exact = 1;
        if (rr <= goal) break;
        rho = restart(h, minv, buf, n);
        continue;
      }
      rt__hmul(h, buf->z, buf->az);
      const double next = rt__hmul_dot(buf->z, buf->az, n);
      const double beta = next / rho;
      rho = next;
      for (int i = 0; i < n; i++) {
        buf->p[i] = buf->z[i] + beta * buf->p[i];
        buf->ap[i] = buf->az[i] + beta * buf->ap[i];
      }
    }
  }
  if (res && !exact) rr = rt__hmul_residual(h, b, x, buf->r);
  if (res) *res = bb > 0 ? sqrt(rr / bb) : sqrt(rr);
  return it;
}

/*---- for games calling a program's solver view directly (rt.h) -------------------*/

size_t rt_program_pcr_scratch(const rt_program *p) { return 8 * (size_t)p->dim + 6 * (size_t)p->nsbody; }

int rt_program_solve_pcr(const rt_program *p, const double *J, const double *inv_mass, const double *inv_inertia,
                         double epsilon, const double *b, double *x, double tol, int max_iter, double *scratch,
                         double *residual) {
  const size_t n = (size_t)p->dim;
  double *dreg = scratch, *minv = dreg + n, *u = minv + n;
  rt__pcr_buf buf = {.r = u + 6 * (size_t)p->nsbody};
  buf.z = buf.r + n;
  buf.p = buf.z + n;
  buf.q = buf.p + n;
  buf.az = buf.q + n;
  buf.ap = buf.az + n;
  rt__hmul_diag(p, J, inv_mass, inv_inertia, dreg);
  for (size_t i = 0; i < n; i++) {
    const double d = dreg[i] + epsilon * dreg[i];
    minv[i] = d > 0 ? 1.0 / d : 0.0;
    dreg[i] *= epsilon;
  }
  const rt__hop h = {.p = p, .J = J, .inv_mass = inv_mass, .inv_inertia = inv_inertia, .dreg = dreg, .u = u};
  return rt__pcr_solve(&h, minv, b, x, tol, max_iter, &buf, residual);
}
