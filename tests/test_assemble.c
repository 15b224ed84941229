/* test_assemble.c -- assembly of H~ (runtime/assemble.c) from the numeric
 * inputs sim/numeric.c computes, and the whole path mechanism -> program ->
 * assemble -> interpreter factor/solve, on the sample mechanisms and on
 * random mechanisms built directly as mech structs. (Over 600 lines: the
 * random mechanism builder and the dense reference are shared by every case.)
 *
 * What is checked:
 * - numeric inputs: constraint values vanish at the initial pose (consistent
 *   anchors), every Jacobian annihilates a rigid motion of the whole
 *   mechanism (constraints not attached to the world or a fixed body), the
 *   shards of a body carry its mass and inertia, fixed bodies weigh nothing;
 * - assembly against a dense J W J^T built independently here (full Jacobian
 *   matrix over all solver bodies times the block-diagonal W): every entry
 *   of every node and edge block, fill-in blocks exactly zero, no nonzero
 *   outside the block pattern, epsilon on the diagonal; the float workspace
 *   is the double one rounded;
 * - solves: the interpreter in double and float against a dense LDL^T solve
 *   in double of the same H~: relative residual < 1e-10 (double) and < 1e-4
 *   (float) with epsilon = 1e-3, for random mechanisms and the samples; the
 *   samples with their own epsilon are reported (and must factor);
 * - a regularized singular H (two identical hinges) factors and solves with
 *   finite results; a zero Jacobian with epsilon 0 fails at pivot 0;
 * - multi_wheel shattered and unshattered each meet the residual bound. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../runtime/rtmath.h"
#include "load.h"
#include "numeric.h"
#include "program.h"
#include "rt.h"
#include "rtprog.h"
#include "test_util.h"

#define TIGHT_EPS 1e-3
#define DOUBLE_TOL 1e-10
#define FLOAT_TOL 1e-4
/* cond_1(H~) up to which a case counts as well-conditioned */
#define WELL_CONDITIONED 1e4
#define U_FLOAT 5.9604644775390625e-08 /* 2^-24 */
#define U_DOUBLE 1.1102230246251565e-16 /* 2^-53 */

/*---- dense reference ----------------------------------------------------------*/

/* Dense J (dim x 6 nsbody) from the packed per-constraint Jacobians. */
static double *dense_jacobian(const rt_program *p, const numeric *num) {
  int n = p->dim, cols = 6 * p->nsbody;
  double *jd = calloc((size_t)n * (size_t)cols + 1, sizeof *jd);
  assert_non_null(jd);
  for (int c = 0; c < p->ncons; c++)
    for (int r = 0; r < p->cons_degree[c]; r++) {
      const double *row = num->J + 12 * (size_t)(p->cons_row[c] + r);
      int body[2] = {p->cons_a[c], p->cons_b[c]};
      for (int s = 0; s < 2; s++)
        if (body[s] != RT_WORLD)
          for (int k = 0; k < 6; k++) jd[(size_t)(p->cons_row[c] + r) * cols + 6 * body[s] + k] += row[6 * s + k];
    }
  return jd;
}

/* H~ = J W J^T + eps diag(J W J^T), dense, solver-constraint order. */
static double *dense_h(const rt_program *p, const numeric *num, double eps) {
  int n = p->dim, cols = 6 * p->nsbody;
  double *jd = dense_jacobian(p, num);
  double *wjt = calloc((size_t)cols * (size_t)n + 1, sizeof *wjt); /* W J^T, cols x n */
  double *h = calloc((size_t)n * (size_t)n + 1, sizeof *h);
  assert_non_null(wjt);
  assert_non_null(h);
  for (int b = 0; b < p->nsbody; b++)
    for (int i = 0; i < n; i++) {
      for (int k = 0; k < 3; k++) wjt[(size_t)(6 * b + k) * n + i] = num->inv_mass[b] * jd[(size_t)i * cols + 6 * b + k];
      for (int k = 0; k < 3; k++) {
        double s = 0;
        for (int l = 0; l < 3; l++) s += num->inv_inertia[9 * b + 3 * k + l] * jd[(size_t)i * cols + 6 * b + 3 + l];
        wjt[(size_t)(6 * b + 3 + k) * n + i] = s;
      }
    }
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double s = 0;
      for (int k = 0; k < cols; k++) s += jd[(size_t)i * cols + k] * wjt[(size_t)k * n + j];
      h[(size_t)i * n + j] = s;
    }
  for (int i = 0; i < n; i++) h[(size_t)i * n + i] *= 1.0 + eps;
  free(jd);
  free(wjt);
  return h;
}

/* Dense Cholesky factor L (row-major, lower) of H in double, or NULL if H is
 * not positive definite. */
static double *dense_chol(const double *h, int n) {
  double *l = calloc((size_t)n * n + 1, sizeof *l);
  assert_non_null(l);
  for (int j = 0; j < n; j++) {
    double d = h[(size_t)j * n + j];
    for (int k = 0; k < j; k++) d -= l[(size_t)j * n + k] * l[(size_t)j * n + k];
    if (!(d > 0)) {
      free(l);
      return NULL;
    }
    d = sqrt(d);
    l[(size_t)j * n + j] = d;
    for (int i = j + 1; i < n; i++) {
      double v = h[(size_t)i * n + j];
      for (int k = 0; k < j; k++) v -= l[(size_t)i * n + k] * l[(size_t)j * n + k];
      l[(size_t)i * n + j] = v / d;
    }
  }
  return l;
}

/* x = (L L^T)^-1 b */
static void chol_solve(const double *l, int n, const double *b, double *x) {
  memcpy(x, b, sizeof *x * (size_t)n);
  for (int i = 0; i < n; i++) {
    for (int k = 0; k < i; k++) x[i] -= l[(size_t)i * n + k] * x[k];
    x[i] /= l[(size_t)i * n + i];
  }
  for (int i = n - 1; i >= 0; i--) {
    for (int k = i + 1; k < n; k++) x[i] -= l[(size_t)k * n + i] * x[k];
    x[i] /= l[(size_t)i * n + i];
  }
}

/* 1-norm condition number of H from its Cholesky factor (explicit inverse). */
static double cond1(const double *h, const double *l, int n) {
  double *e = calloc((size_t)n + 1, sizeof *e), *col = calloc((size_t)n + 1, sizeof *col);
  double hn = 0, in = 0;
  for (int j = 0; j < n; j++) {
    double sh = 0, si = 0;
    memset(e, 0, sizeof *e * (size_t)n);
    e[j] = 1;
    chol_solve(l, n, e, col);
    for (int i = 0; i < n; i++) {
      sh += fabs(h[(size_t)i * n + j]);
      si += fabs(col[i]);
    }
    hn = fmax(hn, sh);
    in = fmax(in, si);
  }
  free(e);
  free(col);
  return hn * in;
}

/*---- checks on one program ------------------------------------------------------*/

/* Every entry of the assembled double workspace against the dense H~; fill
 * blocks zero; nothing nonzero outside the block pattern. */
static void check_assembly(const rt_program *p, const double *w, const double *h) {
  int n = p->dim;
  double hmax = 0;
  for (size_t i = 0; i < (size_t)n * n; i++) hmax = fmax(hmax, fabs(h[i]));
  double tol = 1e-12 * (hmax > 0 ? hmax : 1);
  unsigned char *covered = calloc((size_t)n * n + 1, 1);
  assert_non_null(covered);
  for (int piv = 0; piv < p->ncons; piv++) {
    int cp = p->piv_cons[piv], d = p->cons_degree[cp], rp = p->cons_row[cp];
    for (int i = 0; i < d; i++)
      for (int j = 0; j < d; j++) {
        double want = h[(size_t)(rp + i) * n + rp + j], got = w[p->piv_node[piv] + i * d + j];
        if (fabs(got - want) > tol) fail_msg("node block of '%s' (%d,%d): %.17g != %.17g", p->cons_name[cp], i, j, got, want);
        covered[(size_t)(rp + i) * n + rp + j] = 1;
      }
    for (int k = p->piv_blk_adr[piv]; k < p->piv_blk_adr[piv + 1]; k++) {
      int cq = p->piv_cons[p->blk_piv[k]], dq = p->cons_degree[cq], rq = p->cons_row[cq];
      for (int i = 0; i < dq; i++)
        for (int j = 0; j < d; j++) {
          double got = w[p->blk_off[k] + i * d + j];
          if (p->blk_fill[k]) {
            if (got != 0.0) fail_msg("fill block ('%s', '%s') is not zero", p->cons_name[cq], p->cons_name[cp]);
            continue;
          }
          double want = h[(size_t)(rq + i) * n + rp + j];
          if (fabs(got - want) > tol)
            fail_msg("edge block ('%s', '%s') (%d,%d): %.17g != %.17g", p->cons_name[cq], p->cons_name[cp], i, j, got, want);
          covered[(size_t)(rq + i) * n + rp + j] = covered[(size_t)(rp + j) * n + rq + i] = 1;
        }
    }
  }
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      if (!covered[(size_t)i * n + j] && h[(size_t)i * n + j] != 0.0)
        fail_msg("H(%d,%d) = %g lies outside the block pattern", i, j, h[(size_t)i * n + j]);
  free(covered);
}

/* The numeric inputs of a program at the initial pose: constraint values,
 * rigid-motion invariance, shard masses and inertias. */
static void check_numeric(const program *pr, const numeric *num) {
  const smech *s = &pr->s;
  const mech *m = pr->m;
  for (int r = 0; r < num->dim; r++) assert_true(fabs(num->c[r]) < 1e-9);
  /* a rigid motion of everything: v_b = V + Omega x p_b, w_b = Omega */
  const double V[3] = {0.3, -1.1, 0.7}, Om[3] = {-0.4, 0.9, 0.25};
  for (int c = 0; c < s->ncons; c++) {
    int ends[2] = {s->cons_a[c], s->cons_b[c]};
    if (ends[0] == MECH_WORLD || ends[1] == MECH_WORLD) continue;
    if (m->bodies[s->body_orig[ends[0]]].fixed || m->bodies[s->body_orig[ends[1]]].fixed) continue;
    for (int r = 0; r < s->cons_degree[c]; r++) {
      const double *row = num->J + 12 * (size_t)(num->row[c] + r);
      double acc = 0, mag = 0;
      for (int e = 0; e < 2; e++) {
        const double *pos = m->bodies[s->body_orig[ends[e]]].pos;
        double v[3];
        rt__v3_cross(v, Om, pos);
        rt__v3_add(v, v, V);
        for (int k = 0; k < 3; k++) {
          acc += row[6 * e + k] * v[k] + row[6 * e + 3 + k] * Om[k];
          mag += fabs(row[6 * e + k] * v[k]) + fabs(row[6 * e + 3 + k] * Om[k]);
        }
      }
      assert_true(fabs(acc) <= 1e-10 * (1 + mag));
    }
  }
  for (int i = 0; i < m->nbody; i++) {
    const mech_body *b = &m->bodies[i];
    double msum = 0;
    for (int k = 0; k < s->shard_num[i]; k++) {
      int sb = s->shard_adr[i] + k;
      const double *ii = num->inv_inertia + 9 * (size_t)sb;
      if (b->fixed) {
        assert_true(num->inv_mass[sb] == 0.0);
        for (int e = 0; e < 9; e++) assert_true(ii[e] == 0.0);
        continue;
      }
      msum += 1.0 / num->inv_mass[sb];
      /* ii * (R diag(I/k) R^T) = identity: check on the body axes */
      for (int ax = 0; ax < 3; ax++) {
        double e[3] = {0, 0, 0}, u[3], y[3];
        e[ax] = 1;
        rt__q_rotate(u, b->rot, e);
        for (int r = 0; r < 3; r++) y[r] = (ii[3 * r] * u[0] + ii[3 * r + 1] * u[1] + ii[3 * r + 2] * u[2]) * b->inertia[ax] / s->shard_num[i];
        for (int r = 0; r < 3; r++) assert_true(fabs(y[r] - u[r]) < 1e-12);
      }
    }
    if (!b->fixed) assert_true(fabs(msum - b->mass) <= 1e-12 * b->mass);
  }
}

typedef struct outcome {
  int status[2];      /* factor status, by precision */
  double residual[2]; /* relative residual, by precision */
  double diff[2];     /* max |x - x_dense| / max |x_dense| */
  double dense_residual;
  double cond;        /* 1-norm condition number of H~ */
} outcome;

/* Assembles pr's H~ in both precisions, checks the assembly, factors and
 * solves with the interpreter, and compares with the dense solve. */
static void run(const program *pr, double eps, test_rng *r, outcome *out) {
  arena a;
  arena_init(&a);
  numeric num;
  numeric_build(&a, pr, &num);
  check_numeric(pr, &num);
  rt_program p[2];
  rtprog_build(&a, pr, RT_FLOAT, &p[RT_FLOAT]);
  rtprog_build(&a, pr, RT_DOUBLE, &p[RT_DOUBLE]);
  const rt_program *pd = &p[RT_DOUBLE];
  for (int c = 0; c < pd->ncons; c++) assert_int_equal(pd->cons_row[c], num.row[c]);
  int n = pd->dim;
  double *h = dense_h(pd, &num, eps);
  double *wd = calloc((size_t)pd->work_size + 1, sizeof *wd);
  float *wf = calloc((size_t)pd->work_size + 1, sizeof *wf);
  rt_assemble(pd, num.J, num.inv_mass, num.inv_inertia, eps, wd);
  rt_assemble(&p[RT_FLOAT], num.J, num.inv_mass, num.inv_inertia, eps, wf);
  check_assembly(pd, wd, h);
  for (int i = 0; i < pd->work_size; i++) assert_true(wf[i] == (float)wd[i]);

  double *b = calloc((size_t)n + 1, sizeof *b), *xd = calloc((size_t)n + 1, sizeof *xd);
  double *x = calloc((size_t)n + 1, sizeof *x);
  for (int i = 0; i < n; i++) b[i] = 2 * rng_unit(r) - 1;
  double *l = dense_chol(h, n);
  assert_non_null(l);
  chol_solve(l, n, b, xd);
  out->cond = cond1(h, l, n);
  free(l);
  out->dense_residual = rel_residual(h, n, xd, b);
  double xmax = 0;
  for (int i = 0; i < n; i++) xmax = fmax(xmax, fabs(xd[i]));

  double *tmpd = calloc((size_t)pd->temp_size + 1, sizeof *tmpd);
  float *tmpf = calloc((size_t)pd->temp_size + 1, sizeof *tmpf);
  float *xf = calloc((size_t)n + 1, sizeof *xf);
  out->status[RT_DOUBLE] = rt_interp_factor(pd, wd, tmpd);
  out->status[RT_FLOAT] = rt_interp_factor(&p[RT_FLOAT], wf, tmpf);
  for (int prec = 0; prec < 2; prec++) {
    out->residual[prec] = out->diff[prec] = INFINITY;
    if (out->status[prec] != -1) continue;
    if (prec == RT_DOUBLE) {
      memcpy(x, b, sizeof *x * (size_t)n);
      rt_interp_solve(pd, wd, x);
    } else {
      for (int i = 0; i < n; i++) xf[i] = (float)b[i];
      rt_interp_solve(&p[RT_FLOAT], wf, xf);
      for (int i = 0; i < n; i++) x[i] = xf[i];
    }
    double dmax = 0;
    for (int i = 0; i < n; i++) {
      assert_true(isfinite(x[i]));
      dmax = fmax(dmax, fabs(x[i] - xd[i]));
    }
    out->residual[prec] = rel_residual(h, n, x, b);
    out->diff[prec] = xmax > 0 ? dmax / xmax : dmax;
  }
  free(h);
  free(wd);
  free(wf);
  free(b);
  free(xd);
  free(x);
  free(tmpd);
  free(tmpf);
  free(xf);
  arena_free(&a);
}

/* The residual bounds of a solved case. Always: double factors, and each
 * precision's relative residual is within the backward-stability bound
 * u * cond_1(H~) (float must factor while that bound is below 1e-2).
 * Well-conditioned cases (cond_1(H~) <= WELL_CONDITIONED) also meet
 * DOUBLE_TOL and FLOAT_TOL. Returns 1 for a well-conditioned case. */
static int check_bounds(const char *name, const outcome *o) {
  if (o->status[RT_DOUBLE] != -1) fail_msg("%s: double factorization failed at pivot %d", name, o->status[RT_DOUBLE]);
  if (!(o->residual[RT_DOUBLE] <= fmax(DOUBLE_TOL, U_DOUBLE * o->cond)))
    fail_msg("%s: double residual %.3g (cond %.3g)", name, o->residual[RT_DOUBLE], o->cond);
  if (o->status[RT_FLOAT] != -1) {
    if (U_FLOAT * o->cond < 1e-2) fail_msg("%s: float factorization failed at pivot %d (cond %.3g)", name, o->status[RT_FLOAT], o->cond);
  } else if (!(o->residual[RT_FLOAT] <= fmax(FLOAT_TOL, U_FLOAT * o->cond))) {
    fail_msg("%s: float residual %.3g (cond %.3g)", name, o->residual[RT_FLOAT], o->cond);
  }
  if (o->cond > WELL_CONDITIONED) return 0;
  if (!(o->residual[RT_DOUBLE] < DOUBLE_TOL) || !(o->residual[RT_FLOAT] < FLOAT_TOL))
    fail_msg("%s: well-conditioned (cond %.3g) but residual double %.3g, float %.3g", name, o->cond,
             o->residual[RT_DOUBLE], o->residual[RT_FLOAT]);
  return 1;
}

/*---- random mechanisms ------------------------------------------------------------*/

static double uni(test_rng *r, double lo, double hi) { return lo + (hi - lo) * rng_unit(r); }

static void rand_unit(test_rng *r, double v[3]) {
  do {
    for (int k = 0; k < 3; k++) v[k] = uni(r, -1, 1);
  } while (rt__v3_norm(v) < 0.1);
  rt__v3_normalize(v);
}

static const char *fmt(arena *a, const char *f, int i) {
  char buf[32];
  snprintf(buf, sizeof buf, f, i);
  return arena_strdup(a, buf);
}

static const rt_joint_type eq_types[] = {RT_BALL, RT_HINGE, RT_ROD, RT_PRISMATIC, RT_CYLINDRICAL, RT_UNIVERSAL, RT_WELD};

/* Adds an equality constraint of type t between a and b (MECH_WORLD
 * allowed), with consistent world-frame data at the initial pose. */
static void add_cons(arena *a, test_rng *r, mech *m, int cap, rt_joint_type t, int ba, int bb) {
  assert_true(m->ncons < cap);
  mech_constraint *c = &m->cons[m->ncons];
  memset(c, 0, sizeof *c);
  c->name = fmt(a, "c%02d", m->ncons);
  c->line = m->ncons + 1;
  c->type = t;
  c->a = ba;
  c->b = bb;
  c->target = -1;
  /* a point between the bodies (or near the moving one) */
  double pa[3] = {0, 0, 0}, pb[3] = {0, 0, 0};
  if (ba != MECH_WORLD) memcpy(pa, m->bodies[ba].pos, sizeof pa);
  if (bb != MECH_WORLD) memcpy(pb, m->bodies[bb].pos, sizeof pb);
  if (ba == MECH_WORLD) memcpy(pa, pb, sizeof pa);
  if (bb == MECH_WORLD) memcpy(pb, pa, sizeof pb);
  double f = uni(r, 0.2, 0.8);
  for (int k = 0; k < 3; k++) c->anchor_a[k] = (1 - f) * pa[k] + f * pb[k] + uni(r, -0.3, 0.3);
  memcpy(c->anchor_b, c->anchor_a, sizeof c->anchor_b);
  rand_unit(r, c->axis_a);
  memcpy(c->axis_b, c->axis_a, sizeof c->axis_b);
  if (t == RT_UNIVERSAL) {
    double v[3];
    do {
      rand_unit(r, v);
      double d = rt__v3_dot(v, c->axis_a);
      for (int k = 0; k < 3; k++) v[k] -= d * c->axis_a[k];
    } while (rt__v3_norm(v) < 0.2);
    rt__v3_normalize(v);
    memcpy(c->axis_b, v, sizeof v);
  } else if (t == RT_ROD) {
    double d[3];
    rand_unit(r, d);
    double len = uni(r, 0.3, 2.0);
    for (int k = 0; k < 3; k++) c->anchor_b[k] = c->anchor_a[k] + len * d[k];
    c->length = len;
  }
  m->ncons++;
}

/* A random mechanism of 2..15 bodies: a random spanning tree of mixed
 * equality constraints (some to the world), random unit-quaternion
 * orientations, some fixed bodies.
 * wide: log-uniform masses over 1..1e4 (ratios up to 1e4), box sizes
 *   0.2..2 m, positions anywhere in a 6 m cube, plus extra constraints that
 *   close loops or attach bodies to the world (often redundant: H singular,
 *   only epsilon keeps H~ definite).
 * mild: masses 1..10, box sizes 0.5..1.5 m, each body about 1 m from its
 *   tree parent, no extra constraints. */
static void random_mech(arena *a, test_rng *r, int id, int wide, mech *m) {
  memset(m, 0, sizeof *m);
  m->file = "random.lua";
  m->name = fmt(a, wide ? "random_wide%d" : "random_mild%d", id);
  mech_default_settings(&m->settings);
  m->settings.epsilon = TIGHT_EPS;
  int nb = 2 + rng_int(r, 14);
  m->nbody = nb;
  m->bodies = ARENA_ARRAY(a, mech_body, nb);
  int *parent = ARENA_ARRAY(a, int, nb);
  for (int i = 0; i < nb; i++) {
    mech_body *b = &m->bodies[i];
    b->name = fmt(a, "b%02d", i);
    b->line = 100 + i;
    b->mass = wide ? pow(10.0, uni(r, 0.0, 4.0)) : uni(r, 1.0, 10.0);
    double lo = wide ? 0.2 : 0.5, hi = wide ? 2.0 : 1.5;
    double sx = uni(r, lo, hi), sy = uni(r, lo, hi), sz = uni(r, lo, hi);
    b->inertia[0] = b->mass * (sy * sy + sz * sz) / 12;
    b->inertia[1] = b->mass * (sx * sx + sz * sz) / 12;
    b->inertia[2] = b->mass * (sx * sx + sy * sy) / 12;
    parent[i] = i == 0 || rng_int(r, 5) == 0 ? MECH_WORLD : rng_int(r, i);
    if (wide || parent[i] == MECH_WORLD) {
      for (int k = 0; k < 3; k++) b->pos[k] = uni(r, wide ? -3 : -1, wide ? 3 : 1);
    } else {
      double u[3], len = uni(r, 0.8, 1.2);
      rand_unit(r, u);
      for (int k = 0; k < 3; k++) b->pos[k] = m->bodies[parent[i]].pos[k] + len * u[k];
    }
    double q[4];
    do {
      for (int k = 0; k < 4; k++) q[k] = uni(r, -1, 1);
    } while (rt__q_normalize(q) < 0.1);
    memcpy(b->rot, q, sizeof q);
    b->fixed = i > 0 && rng_int(r, 10) == 0;
  }
  int cap = 3 * nb + 8;
  m->cons = ARENA_ARRAY(a, mech_constraint, cap);
  int ntypes = (int)(sizeof eq_types / sizeof eq_types[0]);
  for (int i = 0; i < nb; i++) {
    int j = parent[i];
    if (mech_body_is_fixed(m, i) && mech_body_is_fixed(m, j)) continue;
    int swap = rng_int(r, 2);
    add_cons(a, r, m, cap, eq_types[rng_int(r, ntypes)], swap ? j : i, swap ? i : j);
  }
  if (!wide) return;
  int extra = rng_int(r, nb + 2);
  for (int e = 0; e < extra; e++) {
    int i = rng_int(r, nb), j = rng_int(r, nb + 1) - 1;
    if (j == i || (mech_body_is_fixed(m, i) && mech_body_is_fixed(m, j))) continue;
    add_cons(a, r, m, cap, eq_types[rng_int(r, ntypes)], i, j);
  }
}

static void test_random_mechanisms(void **state) {
  (void)state;
  test_rng r = {424242};
  /* by class (0 mild, 1 wide) and by well-conditioned (1) or not (0) */
  double worst[2][2][2] = {{{0}}}, worst_diff[2] = {0, 0}, cmax[2] = {0, 0};
  int count[2][2] = {{0}}, shattered = 0, with_fixed = 0, ntrial = 400;
  for (int trial = 0; trial < ntrial; trial++) {
    int wide = trial & 1;
    arena a;
    arena_init(&a);
    mech m;
    random_mech(&a, &r, trial, wide, &m);
    program_options o;
    program_default_options(&o);
    o.order = (order_kind)((trial >> 1) % ORDER_NKINDS);
    if (trial % 5 == 0) o.shatter = 6; /* shatter more often than the default */
    program pr;
    diag_list d;
    diag_init(&d);
    assert_int_equal(program_build(&a, &m, &o, &pr, &d), GEN_OK);
    diag_free(&d);
    shattered += pr.s.nshattered > 0;
    for (int i = 0; i < m.nbody; i++) with_fixed += m.bodies[i].fixed != 0;
    outcome out;
    run(&pr, m.settings.epsilon, &r, &out);
    int w = check_bounds(m.name, &out);
    count[wide][w]++;
    cmax[wide] = fmax(cmax[wide], out.cond);
    for (int prec = 0; prec < 2; prec++) {
      worst[wide][w][prec] = fmax(worst[wide][w][prec], out.residual[prec]);
      if (w) worst_diff[prec] = fmax(worst_diff[prec], out.diff[prec]);
    }
    arena_free(&a);
  }
  print_message("%d random mechanisms (%d with a shattered body, %d fixed bodies), epsilon %g; largest residuals:\n",
                ntrial, shattered, with_fixed, TIGHT_EPS);
  for (int wide = 0; wide < 2; wide++)
    print_message("  %s: %3d well-conditioned (cond_1 <= %g): double %.2e float %.2e;"
                  " %3d others (cond_1 up to %.1e): double %.2e float %.2e\n",
                  wide ? "wide" : "mild", count[wide][1], WELL_CONDITIONED, worst[wide][1][RT_DOUBLE],
                  worst[wide][1][RT_FLOAT], count[wide][0], cmax[wide], worst[wide][0][RT_DOUBLE],
                  worst[wide][0][RT_FLOAT]);
  print_message("  well-conditioned: largest max|x - x_dense| / max|x_dense|: double %.2e, float %.2e\n",
                worst_diff[RT_DOUBLE], worst_diff[RT_FLOAT]);
  assert_true(shattered > 0);
  assert_true(with_fixed > 0);
  assert_true(count[0][1] >= ntrial / 4); /* most mild mechanisms are well-conditioned */
}

/*---- sample mechanisms -------------------------------------------------------------*/

static int cmp_str(const void *x, const void *y) { return strcmp(*(char *const *)x, *(char *const *)y); }

static void test_samples(void **state) {
  (void)state;
  char dir[512];
  snprintf(dir, sizeof dir, "%s/mechanisms", SRC_DIR);
  DIR *dp = opendir(dir);
  assert_non_null(dp);
  char *names[256];
  int nn = 0;
  struct dirent *e;
  while ((e = readdir(dp)) != NULL && nn < 256) {
    size_t len = strlen(e->d_name);
    if (len > 4 && strcmp(e->d_name + len - 4, ".lua") == 0) names[nn++] = strdup(e->d_name);
  }
  closedir(dp);
  qsort(names, (size_t)nn, sizeof *names, cmp_str);
  test_rng r = {31337};
  int tested = 0;
  for (int f = 0; f < nn; f++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, names[f]);
    arena a;
    arena_init(&a);
    mech m;
    diag_list d;
    diag_init(&d);
    if (load_mech(&a, path, NULL, &m, &d) != GEN_OK) {
      print_message("%-22s skipped: does not load\n", names[f]);
      diag_free(&d);
      arena_free(&a);
      continue;
    }
    program_options o;
    program_default_options(&o);
    program pr;
    assert_int_equal(program_build(&a, &m, &o, &pr, &d), GEN_OK);
    diag_free(&d);
    outcome own, tight;
    run(&pr, m.settings.epsilon, &r, &own);
    run(&pr, TIGHT_EPS, &r, &tight);
    print_message("%-20s dim %3d eps %-6g cond %.1e residual double %.2e float %.2e (diff %.1e / %.1e)"
                  " | eps %g cond %.1e: %.2e / %.2e\n",
                  m.name, pr.s.dim, m.settings.epsilon, own.cond, own.residual[RT_DOUBLE], own.residual[RT_FLOAT],
                  own.diff[RT_DOUBLE], own.diff[RT_FLOAT], TIGHT_EPS, tight.cond, tight.residual[RT_DOUBLE],
                  tight.residual[RT_FLOAT]);
    check_bounds(m.name, &own);
    check_bounds(m.name, &tight);
    /* the interpreter solves about as well as the dense reference */
    assert_true(own.residual[RT_DOUBLE] < 1e3 * own.dense_residual + 1e-14);
    tested++;
    arena_free(&a);
  }
  for (int f = 0; f < nn; f++) free(names[f]);
  assert_true(tested >= 4);
}

/*---- special cases --------------------------------------------------------------------*/

static void load_sample(arena *a, const char *name, mech *m) {
  char path[512];
  snprintf(path, sizeof path, "%s/mechanisms/%s.lua", SRC_DIR, name);
  diag_list d;
  diag_init(&d);
  gen_status st = load_mech(a, path, NULL, m, &d);
  if (st != GEN_OK) diag_print(&d, stderr);
  assert_int_equal(st, GEN_OK);
  diag_free(&d);
}

/* The shard welds make the shattered H~ a different (larger) matrix; each
 * program's solve meets the bound on its own H~. */
static void test_multi_wheel_shattered(void **state) {
  (void)state;
  arena a;
  arena_init(&a);
  mech m;
  load_sample(&a, "multi_wheel", &m);
  test_rng r = {5};
  for (int shatter = 0; shatter < 2; shatter++) {
    program_options o;
    program_default_options(&o);
    if (!shatter) o.shatter = 0;
    program pr;
    diag_list d;
    diag_init(&d);
    assert_int_equal(program_build(&a, &m, &o, &pr, &d), GEN_OK);
    diag_free(&d);
    assert_int_equal(pr.s.nshattered > 0, shatter);
    for (int k = 0; k < 2; k++) {
      double eps = k ? TIGHT_EPS : m.settings.epsilon;
      outcome out;
      run(&pr, eps, &r, &out);
      print_message("multi_wheel %-11s dim %3d eps %-6g cond %.1e residual double %.2e float %.2e\n",
                    shatter ? "shattered" : "unshattered", pr.s.dim, eps, out.cond, out.residual[RT_DOUBLE],
                    out.residual[RT_FLOAT]);
      check_bounds(shatter ? "multi_wheel (shattered)" : "multi_wheel", &out);
      assert_true(out.residual[RT_DOUBLE] < DOUBLE_TOL);
    }
  }
  arena_free(&a);
}

/* Two identical hinges between the same bodies: H is singular, H~ is not. */
static void test_duplicate_hinges(void **state) {
  (void)state;
  arena a;
  arena_init(&a);
  mech m;
  memset(&m, 0, sizeof m);
  m.file = "dup.lua";
  m.name = "duplicate_hinges";
  mech_default_settings(&m.settings);
  m.nbody = 2;
  m.bodies = ARENA_ARRAY(&a, mech_body, 2);
  for (int i = 0; i < 2; i++) {
    mech_body *b = &m.bodies[i];
    b->name = i ? "lower" : "upper";
    b->mass = i ? 2.0 : 1.0;
    b->inertia[0] = b->inertia[1] = 0.1;
    b->inertia[2] = 0.05;
    b->pos[2] = -0.5 - 1.0 * i;
    b->rot[0] = 1;
  }
  m.ncons = 3;
  m.cons = ARENA_ARRAY(&a, mech_constraint, 3);
  for (int c = 0; c < 3; c++) {
    mech_constraint *k = &m.cons[c];
    k->name = c == 0 ? "shoulder" : c == 1 ? "elbow" : "elbow_twin";
    k->type = RT_HINGE;
    k->a = c == 0 ? MECH_WORLD : 0;
    k->b = c == 0 ? 0 : 1;
    k->target = -1;
    k->anchor_a[2] = k->anchor_b[2] = c == 0 ? 0.0 : -1.0;
    k->axis_a[1] = k->axis_b[1] = 1.0;
  }
  program_options o;
  program_default_options(&o);
  program pr;
  diag_list d;
  diag_init(&d);
  assert_int_equal(program_build(&a, &m, &o, &pr, &d), GEN_OK);
  diag_free(&d);
  test_rng r = {8};
  static const double eps[3] = {1e-6, 1e-4, 1e-3};
  for (int k = 0; k < 3; k++) {
    outcome out;
    run(&pr, eps[k], &r, &out);
    print_message("duplicate hinges eps %-6g cond %.1e: residual double %.2e float %.2e (float status %d)\n", eps[k],
                  out.cond, out.residual[RT_DOUBLE], out.residual[RT_FLOAT], out.status[RT_FLOAT]);
    /* run() checked that every solution is finite */
    check_bounds("duplicate_hinges", &out);
    assert_true(out.residual[RT_DOUBLE] < DOUBLE_TOL);
    if (eps[k] >= 1e-3) assert_int_equal(out.status[RT_FLOAT], -1);
  }
  arena_free(&a);
}

/* A zero Jacobian with epsilon 0 gives an all-zero H~: the factorization
 * reports pivot 0 instead of dividing by zero. */
static void test_zero_jacobian_fails(void **state) {
  (void)state;
  arena a;
  arena_init(&a);
  mech m;
  load_sample(&a, "chain", &m);
  program_options o;
  program_default_options(&o);
  program pr;
  diag_list d;
  diag_init(&d);
  assert_int_equal(program_build(&a, &m, &o, &pr, &d), GEN_OK);
  diag_free(&d);
  numeric num;
  numeric_build(&a, &pr, &num);
  memset(num.J, 0, sizeof *num.J * 12 * (size_t)num.dim);
  for (int prec = 0; prec < 2; prec++) {
    rt_program p;
    rtprog_build(&a, &pr, (rt_precision)prec, &p);
    size_t sz = prec == RT_FLOAT ? sizeof(float) : sizeof(double);
    unsigned char *w = malloc(sz * (size_t)p.work_size), *t = malloc(sz * (size_t)p.temp_size);
    memset(w, 0xff, sz * (size_t)p.work_size); /* NaN garbage: assembly overwrites all of it */
    rt_assemble(&p, num.J, num.inv_mass, num.inv_inertia, 0.0, w);
    for (size_t i = 0; i < sz * (size_t)p.work_size; i++) assert_int_equal(w[i], 0);
    assert_int_equal(rt_program_factor(&p, w, t), 0);
    /* the same with only pivot 3's constraint zeroed: earlier pivots factor */
    numeric ok;
    numeric_build(&a, &pr, &ok);
    int c3 = p.piv_cons[3];
    memset(ok.J + 12 * (size_t)ok.row[c3], 0, sizeof *ok.J * 12 * (size_t)p.cons_degree[c3]);
    rt_assemble(&p, ok.J, ok.inv_mass, ok.inv_inertia, 0.0, w);
    assert_int_equal(rt_program_factor(&p, w, t), 3);
    free(w);
    free(t);
  }
  arena_free(&a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_random_mechanisms),     cmocka_unit_test(test_samples),
      cmocka_unit_test(test_multi_wheel_shattered), cmocka_unit_test(test_duplicate_hinges),
      cmocka_unit_test(test_zero_jacobian_fails),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
