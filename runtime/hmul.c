/* hmul.c -- the product with H~ = J W J^T + epsilon diag(J W J^T) on the
 * equality rows, never assembled (blocksolve.h): what refinement needs for
 * its residual and PCR for every iteration. Axion's "expand, contract"
 * (../shared/seeds/axion-linear-solver.txt) in three passes:
 *   u_b = sum over the rows i on solver body b of J_i,b^T x_i   (expand)
 *   u_b = W_b u_b                                  (per body: m^-1, I^-1)
 *   y_i = J_i,a . u_a + J_i,b . u_b + epsilon diag_i x_i      (contract)
 * 24 multiply-adds a row and 12 a solver body, against the h d^2 of a
 * factorization: the operator is cheap where a factor is dense. All in
 * double, in a fixed order; the sums are written as short independent
 * chains (a constraint's rows summed in registers before they reach u_b, a
 * row's 12 products added pairwise), because one long chain of dependent
 * additions per row made the product latency-bound: 5.4 us on the scissor
 * lift, against 7.9 us for its whole float factor and solve. It calls
 * nothing. */
#include "blocksolve.h"

#include <stddef.h>
#include <string.h>

/* j . v over 6, in pairs */
static inline double dot6(const double *j, const double *v) {
  const double s0 = j[0] * v[0] + j[1] * v[1], s1 = j[2] * v[2] + j[3] * v[3], s2 = j[4] * v[4] + j[5] * v[5];
  return (s0 + s1) + s2;
}

/* J_s W_b J_s^T of one side s (6 numbers) on a body with inverse mass im
 * and world inverse inertia ii. */
static inline double side_diag(const double *j, double im, const double *ii) {
  const double lin = im * ((j[0] * j[0] + j[1] * j[1]) + j[2] * j[2]);
  const double t0 = (ii[0] * j[3] + ii[1] * j[4]) + ii[2] * j[5];
  const double t1 = (ii[3] * j[3] + ii[4] * j[4]) + ii[5] * j[5];
  const double t2 = (ii[6] * j[3] + ii[7] * j[4]) + ii[8] * j[5];
  return lin + ((j[3] * t0 + j[4] * t1) + j[5] * t2);
}

void rt__hmul_diag(const rt_program *p, const double *J, const double *inv_mass, const double *inv_inertia,
                   double *diag) {
  for (int c = 0; c < p->ncons; c++) {
    const int a = p->cons_a[c], b = p->cons_b[c];
    const int r0 = p->cons_row[c], r1 = r0 + p->cons_degree[c];
    for (int row = r0; row < r1; row++) {
      const double *j = J + 12 * (size_t)row;
      const double da = a == RT_WORLD ? 0.0 : side_diag(j, inv_mass[a], inv_inertia + 9 * (size_t)a);
      const double db = b == RT_WORLD ? 0.0 : side_diag(j + 6, inv_mass[b], inv_inertia + 9 * (size_t)b);
      diag[row] = da + db;
    }
  }
}

/* u += sum over rows [r0, r1) of J_row,side^T x_row, summed in registers */
static inline void scatter(double *u, const double *J, const double *x, int r0, int r1) {
  double acc[6] = {0, 0, 0, 0, 0, 0};
  for (int row = r0; row < r1; row++) {
    const double *j = J + 12 * (size_t)row, xi = x[row];
    for (int k = 0; k < 6; k++) acc[k] += j[k] * xi;
  }
  for (int k = 0; k < 6; k++) u[k] += acc[k];
}

/* u = W J^T x, 6 per solver body. */
static void expand(const rt__hop *h, const double *x) {
  const rt_program *p = h->p;
  double *u = h->u;
  memset(u, 0, 6 * sizeof *u * (size_t)p->nsbody);
  for (int c = 0; c < p->ncons; c++) {
    const int a = p->cons_a[c], b = p->cons_b[c], r0 = p->cons_row[c], r1 = r0 + p->cons_degree[c];
    if (a != RT_WORLD) scatter(u + 6 * (size_t)a, h->J, x, r0, r1);
    if (b != RT_WORLD) scatter(u + 6 * (size_t)b, h->J + 6, x, r0, r1);
  }
  for (int b = 0; b < p->nsbody; b++) {
    double *ub = u + 6 * (size_t)b;
    const double *ii = h->inv_inertia + 9 * (size_t)b, im = h->inv_mass[b];
    const double w0 = ub[3], w1 = ub[4], w2 = ub[5];
    ub[0] *= im;
    ub[1] *= im;
    ub[2] *= im;
    ub[3] = (ii[0] * w0 + ii[1] * w1) + ii[2] * w2;
    ub[4] = (ii[3] * w0 + ii[4] * w1) + ii[5] * w2;
    ub[5] = (ii[6] * w0 + ii[7] * w1) + ii[8] * w2;
  }
}

static const double zero6[6] = {0, 0, 0, 0, 0, 0};

/* y = H~ x (residual = 0), or r = b - H~ x (residual = 1) returning
 * ||r||^2. */
static double contract(const rt__hop *h, const double *x, const double *b, double *y, int residual) {
  const rt_program *p = h->p;
  double rr = 0.0;
  for (int c = 0; c < p->ncons; c++) {
    const int a = p->cons_a[c], bb = p->cons_b[c], r0 = p->cons_row[c], r1 = r0 + p->cons_degree[c];
    const double *ua = a == RT_WORLD ? zero6 : h->u + 6 * (size_t)a;
    const double *ub = bb == RT_WORLD ? zero6 : h->u + 6 * (size_t)bb;
    for (int row = r0; row < r1; row++) {
      const double *j = h->J + 12 * (size_t)row;
      const double v = (dot6(j, ua) + dot6(j + 6, ub)) + h->dreg[row] * x[row];
      if (residual) {
        y[row] = b[row] - v;
        rr += y[row] * y[row];
      } else {
        y[row] = v;
      }
    }
  }
  return rr;
}

void rt__hmul(const rt__hop *h, const double *x, double *y) {
  expand(h, x);
  contract(h, x, NULL, y, 0);
}

double rt__hmul_residual(const rt__hop *h, const double *b, const double *x, double *r) {
  expand(h, x);
  return contract(h, x, b, r, 1);
}

double rt__hmul_dot(const double *a, const double *b, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}
