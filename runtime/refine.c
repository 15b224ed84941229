/* refine.c -- mixed-precision iterative refinement (docs/DESIGN.md section
 * 8): a factor in float, a residual and a correction in double.
 *
 * A float factor of H~ is the factor of H~ + E with |E| about 6e-8 |H|
 * (float's rounding), so its solve leaves the residual E x. Where H is
 * singular (redundant rows: a scissor lift's stages, closed loops) H~'s
 * smallest eigenvalues are epsilon diag(H), 1e-6 of the largest by
 * default, and the solve's relative error there is E / (epsilon diag):
 * 1e-2 to 1e-1 on the samples, where double leaves 1e-10. Each refinement
 * step r = b - H~ x (double, matrix-free: hmul.c), d = solve(r) (float
 * factor), x += d multiplies the residual by about that same ratio, so
 * refinement converges whenever the float solve has any digit right, and
 * each step costs one product with H~ and one solve -- no second factor.
 * It calls the program and hmul.c. */
#include "blocksolve.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

/* out = H~^-1 v through the factor, in the program's precision (v and out
 * may be the same). */
static void factor_solve(const rt_program *p, const void *work, const double *v, double *out, void *xs) {
  const int n = p->dim;
  if (p->precision == RT_FLOAT) {
    float *x = xs;
    for (int i = 0; i < n; i++) x[i] = (float)v[i];
    rt_program_solve(p, work, x);
    for (int i = 0; i < n; i++) out[i] = x[i];
  } else {
    if (out != v) memcpy(out, v, sizeof *out * (size_t)n);
    rt_program_solve(p, work, out);
  }
}

static double relative(double rr, double bb) { return bb > 0 ? sqrt(rr / bb) : sqrt(rr); }

int rt__refine_solve(const rt__hop *h, const void *work, const double *b, double *x, int steps, int check_last,
                     rt__refine_buf *buf, double *res0, double *res) {
  const rt_program *p = h->p;
  const int n = p->dim;
  factor_solve(p, work, b, x, buf->xs);
  if (steps <= 0 && res0 == NULL && res == NULL) return 0;
  const double bb = res0 || res ? rt__hmul_dot(b, b, n) : 0.0;
  double rr = rt__hmul_residual(h, b, x, buf->r);
  if (res0) *res0 = relative(rr, bb);
  int kept = 0;
  for (int k = 0; k < steps && rr > 0; k++) {
    factor_solve(p, work, buf->r, buf->d, buf->xs);
    for (int i = 0; i < n; i++) buf->t[i] = x[i] + buf->d[i];
    if (k + 1 == steps && !check_last) { /* taken unchecked */
      memcpy(x, buf->t, sizeof *x * (size_t)n);
      kept++;
      rr = NAN;
      break;
    }
    const double next = rt__hmul_residual(h, b, buf->t, buf->r);
    if (!(next < rr)) break; /* stopped falling: x stays */
    memcpy(x, buf->t, sizeof *x * (size_t)n);
    rr = next;
    kept++;
  }
  if (res) *res = isnan(rr) ? NAN : relative(rr, bb);
  return kept;
}

/*---- for games calling a program directly (rt.h) ------------------------------*/

size_t rt_program_refine_scratch(const rt_program *p) { return 5 * (size_t)p->dim + 6 * (size_t)p->nsbody; }

int rt_program_solve_refined(const rt_program *p, const double *J, const double *inv_mass, const double *inv_inertia,
                             double epsilon, const void *work, const double *b, double *x, int steps, double *scratch,
                             rt_refine_info *info) {
  const size_t n = (size_t)p->dim;
  double *dreg = scratch, *u = dreg + n;
  rt__refine_buf buf = {.r = u + 6 * (size_t)p->nsbody};
  buf.t = buf.r + n;
  buf.d = buf.t + n;
  buf.xs = buf.d + n; /* n doubles hold n scalars of either precision */
  /* One product with H~ (one step, unchecked): its rows' regularization
   * where the product reads them; more: once, here. */
  const int once = steps <= 1 && info == NULL;
  if (!once) {
    rt__hmul_diag(p, J, inv_mass, inv_inertia, dreg);
    for (size_t i = 0; i < n; i++) dreg[i] *= epsilon;
  }
  const rt__hop h = {
      .p = p, .J = J, .inv_mass = inv_mass, .inv_inertia = inv_inertia, .dreg = once ? NULL : dreg, .eps = epsilon, .u = u};
  double r0 = NAN, r1 = NAN;
  const int kept = rt__refine_solve(&h, work, b, x, steps, info != NULL, &buf, info ? &r0 : NULL, info ? &r1 : NULL);
  if (info) {
    info->steps = kept;
    info->residual0 = r0;
    info->residual = r1;
  }
  return kept;
}
