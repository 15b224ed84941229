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

/* Two doubles in the lanes of a vector, each lane the scalar IEEE
 * operation (no contraction under -ffp-contract=off), so the bits are the
 * scalar code's; a struct of two where the compiler has no vector
 * extensions. The lanes hold a row's two sides (its bodies a and b), or
 * two neighbouring entries of a side. The sample chain's one refinement
 * step (33 rows in constraints of 3): the contract pass with the diagonal
 * computed on the way 150 -> 128 instructions a row; the whole
 * rt_program_solve_refined call 720 -> 660 ns, the car's 725 -> 615, the
 * lift's 6.8 -> 5.9 us (A/B in one sitting). */
#if defined(__GNUC__) || defined(__clang__)
typedef double hv2 __attribute__((vector_size(16)));
static inline hv2 hv(double lo, double hi) { return (hv2){lo, hi}; }
static inline hv2 hv_add(hv2 a, hv2 b) { return a + b; }
static inline hv2 hv_mul(hv2 a, hv2 b) { return a * b; }
static inline double hv_sum(hv2 a) { return a[0] + a[1]; }
static inline hv2 hv_load(const double *p) {
  hv2 v;
  memcpy(&v, p, sizeof v);
  return v;
}
static inline void hv_store(double *p, hv2 v) { memcpy(p, &v, sizeof v); }
#else
typedef struct {
  double l[2];
} hv2;
static inline hv2 hv(double lo, double hi) { return (hv2){{lo, hi}}; }
static inline hv2 hv_add(hv2 a, hv2 b) { return hv(a.l[0] + b.l[0], a.l[1] + b.l[1]); }
static inline hv2 hv_mul(hv2 a, hv2 b) { return hv(a.l[0] * b.l[0], a.l[1] * b.l[1]); }
static inline double hv_sum(hv2 a) { return a.l[0] + a.l[1]; }
static inline hv2 hv_load(const double *p) { return hv(p[0], p[1]); }
static inline void hv_store(double *p, hv2 v) { p[0] = v.l[0], p[1] = v.l[1]; }
#endif

static const double zero6[6] = {0, 0, 0, 0, 0, 0}, zero9[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};

/* A constraint's two sides in lanes: u (W J^T x of its bodies), inverse
 * masses and inverse inertias, zero for the world. */
typedef struct sides {
  hv2 u[6], im, ii[9];
} sides;

static inline void sides_masses(sides *s, const double *inv_mass, const double *inv_inertia, int a, int b) {
  const double *ia = a == RT_WORLD ? zero9 : inv_inertia + 9 * (size_t)a;
  const double *ib = b == RT_WORLD ? zero9 : inv_inertia + 9 * (size_t)b;
  s->im = hv(a == RT_WORLD ? 0.0 : inv_mass[a], b == RT_WORLD ? 0.0 : inv_mass[b]);
  for (int k = 0; k < 9; k++) s->ii[k] = hv(ia[k], ib[k]);
}

/* J_s W_s J_s^T of both sides s of row j (12 numbers) in the lanes, summed
 * side a first: on a world side's lane +0, which leaves the other side's
 * bits (for finite J). Per lane: im |j_lin|^2 + j_ang . (I^-1 j_ang), in
 * a fixed order of short sums. */
static inline double row_diag(const double *j, const sides *s) {
  hv2 v[6];
  for (int k = 0; k < 6; k++) v[k] = hv(j[k], j[6 + k]);
  const hv2 lin = hv_mul(s->im, hv_add(hv_add(hv_mul(v[0], v[0]), hv_mul(v[1], v[1])), hv_mul(v[2], v[2])));
  hv2 t[3];
  for (int r = 0; r < 3; r++)
    t[r] = hv_add(hv_add(hv_mul(s->ii[3 * r], v[3]), hv_mul(s->ii[3 * r + 1], v[4])), hv_mul(s->ii[3 * r + 2], v[5]));
  return hv_sum(hv_add(lin, hv_add(hv_add(hv_mul(v[3], t[0]), hv_mul(v[4], t[1])), hv_mul(v[5], t[2]))));
}

/* J_a . u_a + J_b . u_b of row j: per side ((j0 u0 + j1 u1) + (j2 u2 +
 * j3 u3)) + (j4 u4 + j5 u5), then side a's plus side b's. */
static inline double row_dot(const double *j, const sides *s) {
  hv2 p[6];
  for (int k = 0; k < 6; k++) p[k] = hv_mul(hv(j[k], j[6 + k]), s->u[k]);
  return hv_sum(hv_add(hv_add(hv_add(p[0], p[1]), hv_add(p[2], p[3])), hv_add(p[4], p[5])));
}

void rt__hmul_diag(const rt_program *p, const double *J, const double *inv_mass, const double *inv_inertia,
                   double *diag) {
  sides s;
  for (int c = 0; c < p->ncons; c++) {
    const int r0 = p->cons_row[c], r1 = r0 + p->cons_degree[c];
    sides_masses(&s, inv_mass, inv_inertia, p->cons_a[c], p->cons_b[c]);
    for (int row = r0; row < r1; row++) diag[row] = row_diag(J + 12 * (size_t)row, &s);
  }
}

/* u += sum over rows [r0, r1) of J_row,side^T x_row, summed in registers
 * (two entries a lane pair) */
static inline void scatter(double *u, const double *J, const double *x, int r0, int r1) {
  hv2 acc[3] = {hv(0, 0), hv(0, 0), hv(0, 0)};
  for (int row = r0; row < r1; row++) {
    const double *j = J + 12 * (size_t)row;
    const hv2 xi = hv(x[row], x[row]);
    for (int k = 0; k < 3; k++) acc[k] = hv_add(acc[k], hv_mul(hv_load(j + 2 * k), xi));
  }
  for (int k = 0; k < 3; k++) hv_store(u + 2 * k, hv_add(hv_load(u + 2 * k), acc[k]));
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

/* y = H~ x (residual = 0), or r = b - H~ x (residual = 1) returning
 * ||r||^2. Without h->dreg, each row's epsilon diag(J W J^T) is computed
 * where the product reads the row, with rt__hmul_diag's bits times
 * epsilon: for one product that saves a pass over J and the masses. */
static double contract(const rt__hop *h, const double *x, const double *b, double *y, int residual) {
  const rt_program *p = h->p;
  double rr = 0.0;
  sides s = {0}; /* (its masses are set and read only without dreg: gcc -O1 cannot see that) */
  for (int c = 0; c < p->ncons; c++) {
    const int a = p->cons_a[c], bb = p->cons_b[c], r0 = p->cons_row[c], r1 = r0 + p->cons_degree[c];
    const double *ua = a == RT_WORLD ? zero6 : h->u + 6 * (size_t)a;
    const double *ub = bb == RT_WORLD ? zero6 : h->u + 6 * (size_t)bb;
    for (int k = 0; k < 6; k++) s.u[k] = hv(ua[k], ub[k]);
    if (!h->dreg) sides_masses(&s, h->inv_mass, h->inv_inertia, a, bb);
    for (int row = r0; row < r1; row++) {
      const double *j = h->J + 12 * (size_t)row;
      const double dreg = h->dreg ? h->dreg[row] : row_diag(j, &s) * h->eps;
      const double v = row_dot(j, &s) + dreg * x[row];
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
