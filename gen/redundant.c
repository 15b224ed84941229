/* redundant.c -- see redundant.h. */
#include "redundant.h"

#include <string.h>

#include "diag.h"
#include "rtprog.h"

/* J of the solver view at the initial pose (a shard weld is the body's
 * centre with identity frames), and unit masses and inertias for every
 * dynamic solver body: the rank of J W J^T is the rank of J for any
 * positive definite W, and with W = I the test does not see the masses'
 * conditioning (mass ratios of 10^4 pushed an independent row's pivot
 * below the tolerance of the test with the bodies' own masses: random
 * mechanism 422). */
static void initial_rows(const program *p, const rt_program *tp, double *J, double *inv_mass, double *inv_inertia) {
  const smech *s = &p->s;
  const mech *m = p->m;
  for (int b = 0; b < s->nbody; b++) {
    if (m->bodies[s->body_orig[b]].fixed) continue; /* zero (the caller's arrays are zeroed) */
    inv_mass[b] = 1.0;
    for (int i = 0; i < 3; i++) inv_inertia[9 * (size_t)b + 4 * (size_t)i] = 1.0;
  }
  for (int c = 0; c < s->ncons; c++) {
    const int ba = s->cons_a[c] == MECH_WORLD ? MECH_WORLD : s->body_orig[s->cons_a[c]];
    const int bb = s->cons_b[c] == MECH_WORLD ? MECH_WORLD : s->body_orig[s->cons_b[c]];
    rt_joint_desc jd;
    if (s->cons_orig[c] >= 0)
      mech_joint_desc(m, s->cons_orig[c], &jd);
    else
      rt_shard_weld_desc(ba, &jd);
    rt_pose pa, pb;
    mech_body_pose(m, ba, &pa);
    mech_body_pose(m, bb, &pb);
    double val[RT_MAX_DEGREE];
    rt_joint_eval(&jd, ba == MECH_WORLD ? NULL : &pa, bb == MECH_WORLD ? NULL : &pb, val,
                  J + 12 * (size_t)tp->cons_row[c]);
  }
}

/* H~ = H + eps diag(H) of J and the masses assembled into work and
 * factored: whether the factorization went through. */
static int factored(const rt_program *tp, const double *J, const double *inv_mass, const double *inv_inertia,
                    double eps, double *work, double *temp) {
  rt_assemble(tp, J, inv_mass, inv_inertia, eps, work);
  return rt_program_factor(tp, work, temp) < 0;
}

/* The rank test on p's own solver view, in p's pivot order. */
static int rank_rows(arena *a, const program *p, redundant *out) {
  memset(out, 0, sizeof *out);
  const int dim = p->s.dim, nc = p->s.ncons;
  out->dim = out->rank = dim;
  out->cons = ARENA_ARRAY(a, int, nc + 1);
  out->rows = ARENA_ARRAY(a, unsigned, nc + 1);
  if (dim == 0) return 0;
  arena t;
  arena_init(&t);
  rt_program tp;
  rtprog_build(&t, p, RT_DOUBLE, &tp);
  double *J = ARENA_ARRAY(&t, double, 12 * (size_t)dim + 1);
  double *inv_mass = ARENA_ARRAY(&t, double, p->s.nbody + 1);
  double *inv_inertia = ARENA_ARRAY(&t, double, 9 * (size_t)p->s.nbody + 1);
  double *work = ARENA_ARRAY(&t, double, 2 * (size_t)tp.work_size + 1), *more = work + tp.work_size;
  double *temp = ARENA_ARRAY(&t, double, (size_t)tp.temp_size + 1);
  memset(J, 0, sizeof *J * 12 * (size_t)dim);
  memset(inv_mass, 0, sizeof *inv_mass * (size_t)p->s.nbody);
  memset(inv_inertia, 0, sizeof *inv_inertia * 9 * (size_t)p->s.nbody);
  initial_rows(p, &tp, J, inv_mass, inv_inertia);
  int ok = 0;
  for (int attempt = 0, scale = 1; attempt < 3 && !ok; attempt++, scale *= 100)
    ok = factored(&tp, J, inv_mass, inv_inertia, RED_EPSILON * scale, work, temp) &&
         factored(&tp, J, inv_mass, inv_inertia, RED_EPSILON * RED_EPSILON_STEP * scale, more, temp);
  if (!ok) {
    arena_free(&t);
    return -1;
  }
  /* each row's D_i at both regularizations, constraint by constraint */
  unsigned *mask = ARENA_ARRAY(&t, unsigned, nc + 1);
  memset(mask, 0, sizeof *mask * (size_t)nc);
  for (int k = 0; k < nc; k++) {
    const int c = tp.piv_cons[k], d = tp.cons_degree[c];
    for (int i = 0; i < d; i++) {
      const int64_t at = tp.piv_node[k] + i * d + i;
      if (more[at] > RED_GROWTH * work[at]) {
        mask[c] |= 1u << i;
        out->rank--;
      }
    }
  }
  for (int c = 0; c < nc; c++)
    if (mask[c]) {
      out->cons[out->ncons] = c;
      out->rows[out->ncons++] = mask[c];
    }
  arena_free(&t);
  return 0;
}

/* out's constraints in mechanism order: the mechanism's by their index,
 * then shard welds. */
static void mechanism_order(const program *p, redundant *out) {
  for (int i = 1; i < out->ncons; i++)
    for (int j = i; j > 0; j--) {
      const int x = p->s.cons_orig[out->cons[j - 1]], y = p->s.cons_orig[out->cons[j]];
      if (!(y >= 0 && (x < 0 || x > y))) break;
      const int tc = out->cons[j];
      const unsigned tr = out->rows[j];
      out->cons[j] = out->cons[j - 1];
      out->rows[j] = out->rows[j - 1];
      out->cons[j - 1] = tc;
      out->rows[j - 1] = tr;
    }
}

/* A shattered program's rows are tested on the mechanism unshattered, when
 * that factor costs at most this many times the program's (or these few
 * flops, x3), else on the program's own view. */
#define RED_UNSHATTERED_RATIO 16
#define RED_UNSHATTERED_FLOPS3 ((int64_t)30000000)

/* The rank test on the mechanism unshattered, its constraints taken back
 * to p's: 0, or -1 if it cannot be built or factored (then the caller tests
 * p's own view). */
static int unshattered_rows(arena *a, const program *p, redundant *out) {
  const int64_t flops3 = (int64_t)symbolic_flops(&p->sym) * 3;
  if (p->unshattered_flops3 > RED_UNSHATTERED_RATIO * flops3 && p->unshattered_flops3 > RED_UNSHATTERED_FLOPS3)
    return -1;
  arena t;
  arena_init(&t);
  diag_list d;
  diag_init(&d);
  program_options o;
  program_default_options(&o);
  o.shatter = 0;
  o.order = p->order;
  program u;
  redundant r;
  int ok = program_build(&t, p->m, &o, &u, &d) == GEN_OK && rank_rows(&t, &u, &r) == 0;
  if (ok) {
    int *at = ARENA_ARRAY(&t, int, p->m->ncons + 1); /* mechanism constraint -> p's */
    for (int c = 0; c < p->s.ncons; c++)
      if (p->s.cons_orig[c] >= 0) at[p->s.cons_orig[c]] = c;
    out->dim = p->s.dim;
    out->rank = p->s.dim - (r.dim - r.rank);
    out->cons = ARENA_ARRAY(a, int, r.ncons + 1);
    out->rows = ARENA_ARRAY(a, unsigned, r.ncons + 1);
    out->ncons = r.ncons;
    for (int i = 0; i < r.ncons; i++) {
      out->cons[i] = at[u.s.cons_orig[r.cons[i]]];
      out->rows[i] = r.rows[i];
    }
  }
  diag_free(&d);
  arena_free(&t);
  return ok ? 0 : -1;
}

int redundant_analyze(arena *a, const program *p, redundant *out) {
  if (p->s.nshards == 0 || unshattered_rows(a, p, out) != 0) {
    const int st = rank_rows(a, p, out);
    if (st != 0) return st;
  }
  mechanism_order(p, out);
  return 0;
}

/* Row layouts (docs/DESIGN.md section 3): ball rows 0-2 for ball, hinge,
 * universal and weld; angular rows 3-4 (hinge), 3 (universal), 3-5 (weld),
 * 2-4 (prismatic: after its two linear rows). */
static const char *drop(int *drops, int n, const char *phrase) {
  *drops = n;
  return phrase;
}

const char *redundant_suggestion(rt_joint_type t, unsigned rows, int degree, int *drops) {
  *drops = 0;
  if (degree > 0 && redundant_count(rows) == degree)
    return drop(drops, degree, "the others already impose all of its rows: it could be left out");
  switch (t) {
  case RT_HINGE: {
    const int ang = redundant_count(rows & 0x18u);
    if (ang == 2)
      return drop(drops, 2, "a ball joint would drop its two angular rows (the others already keep the axis)");
    if (ang == 1) return drop(drops, 1, "a universal joint would drop one of its angular rows");
    return NULL;
  }
  case RT_WELD: {
    const int ang = redundant_count(rows & 0x38u);
    if (ang == 3) return drop(drops, 3, "a ball joint would drop its three angular rows");
    if (ang == 2) return drop(drops, 2, "a universal joint would drop two of its angular rows");
    if (ang == 1) return drop(drops, 1, "a hinge would drop one of its angular rows");
    return NULL;
  }
  case RT_UNIVERSAL:
    return rows & 0x8u ? drop(drops, 1, "a ball joint would drop its angular row") : NULL;
  case RT_PRISMATIC:
    if (!(rows & 0x1cu)) return NULL;
    return drop(drops, 1, "a cylindrical joint would drop one of its angular rows (the turn about the axis)");
  default:
    return NULL;
  }
}
