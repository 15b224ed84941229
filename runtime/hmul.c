/* hmul.c -- the product with H~ = J W J^T + epsilon diag(J W J^T) on the
 * equality rows, never assembled (blocksolve.h): what refinement needs for
 * its residual and PCR for every iteration. Axion's "expand, contract"
 * (../shared/seeds/axion-linear-solver.txt) in three passes:
 *   u_b = sum over the rows i on solver body b of J_i,b^T x_i   (expand)
 *   u_b = W_b u_b                                  (per body: m^-1, I^-1)
 *   y_i = J_i,a . u_a + J_i,b . u_b + epsilon diag_i x_i      (contract)
 * 24 multiply-adds a row and 12 a solver body, against the h d^2 of a
 * factorization: the operator is cheap where a factor is dense. All in
 * double, in a fixed order. It calls nothing. */
#include "blocksolve.h"

#include <stddef.h>
#include <string.h>

/* Solver body of side s (0 = a, 1 = b) of solver constraint c. */
static int side(const rt_program *p, int c, int s) { return s ? p->cons_b[c] : p->cons_a[c]; }

void rt__hmul_diag(const rt_program *p, const double *J, const double *inv_mass, const double *inv_inertia,
                   double *diag) {
  for (int c = 0; c < p->ncons; c++)
    for (int row = p->cons_row[c]; row < p->cons_row[c] + p->cons_degree[c]; row++) {
      double d = 0.0;
      for (int s = 0; s < 2; s++) {
        const int b = side(p, c, s);
        if (b == RT_WORLD) continue;
        const double *j = J + 12 * (size_t)row + 6 * s, *ii = inv_inertia + 9 * (size_t)b;
        d += inv_mass[b] * (j[0] * j[0] + j[1] * j[1] + j[2] * j[2]);
        for (int k = 0; k < 3; k++) d += j[3 + k] * (ii[3 * k] * j[3] + ii[3 * k + 1] * j[4] + ii[3 * k + 2] * j[5]);
      }
      diag[row] = d;
    }
}

/* u = W J^T x, 6 per solver body. */
static void expand(const rt__hop *h, const double *x) {
  const rt_program *p = h->p;
  double *u = h->u;
  memset(u, 0, 6 * sizeof *u * (size_t)p->nsbody);
  for (int c = 0; c < p->ncons; c++)
    for (int row = p->cons_row[c]; row < p->cons_row[c] + p->cons_degree[c]; row++) {
      const double xi = x[row];
      for (int s = 0; s < 2; s++) {
        const int b = side(p, c, s);
        if (b == RT_WORLD) continue;
        const double *j = h->J + 12 * (size_t)row + 6 * s;
        double *ub = u + 6 * (size_t)b;
        for (int k = 0; k < 6; k++) ub[k] += j[k] * xi;
      }
    }
  for (int b = 0; b < p->nsbody; b++) {
    double *ub = u + 6 * (size_t)b;
    const double *ii = h->inv_inertia + 9 * (size_t)b, im = h->inv_mass[b];
    const double w0 = ub[3], w1 = ub[4], w2 = ub[5];
    for (int k = 0; k < 3; k++) ub[k] *= im;
    for (int k = 0; k < 3; k++) ub[3 + k] = ii[3 * k] * w0 + ii[3 * k + 1] * w1 + ii[3 * k + 2] * w2;
  }
}

/* J_i . u over row i's bodies, plus its regularization. */
static double contract(const rt__hop *h, int c, int row, double xi) {
  const rt_program *p = h->p;
  double y = 0.0;
  for (int s = 0; s < 2; s++) {
    const int b = side(p, c, s);
    if (b == RT_WORLD) continue;
    const double *j = h->J + 12 * (size_t)row + 6 * s, *ub = h->u + 6 * (size_t)b;
    for (int k = 0; k < 6; k++) y += j[k] * ub[k];
  }
  return y + h->dreg[row] * xi;
}

void rt__hmul(const rt__hop *h, const double *x, double *y) {
  const rt_program *p = h->p;
  expand(h, x);
  for (int c = 0; c < p->ncons; c++)
    for (int row = p->cons_row[c]; row < p->cons_row[c] + p->cons_degree[c]; row++) y[row] = contract(h, c, row, x[row]);
}

double rt__hmul_residual(const rt__hop *h, const double *b, const double *x, double *r) {
  const rt_program *p = h->p;
  expand(h, x);
  double rr = 0.0;
  for (int c = 0; c < p->ncons; c++)
    for (int row = p->cons_row[c]; row < p->cons_row[c] + p->cons_degree[c]; row++) {
      r[row] = b[row] - contract(h, c, row, x[row]);
      rr += r[row] * r[row];
    }
  return rr;
}

double rt__hmul_dot(const double *a, const double *b, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}
