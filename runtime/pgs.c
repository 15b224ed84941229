/* pgs.c -- the impulse solver's inner loops: projected Gauss-Seidel sweeps
 * over constraint rows with velocity changes (docs/DESIGN.md section 3),
 * and applying impulses to velocities. It works on rows and velocities
 * alone and calls no other module. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "rtmath.h"
#include "world.h"

/* Vector forms with GCC or Clang: rt_sweep.h's side of six velocities in
 * 2-lane vectors and its products (the generated sweeps' kernels), whose
 * lanes are the scalar IEEE operations (no contraction under
 * -ffp-contract=off), so they give the bits of the scalar code; sums of
 * products still add the products one by one in order. */
#include "rt_sweep.h"
#if RT_SWEEP_VECTOR && !defined(PGS_SCALAR) /* PGS_SCALAR: make check-bitwise */
#define PGS_INLINE SWEEP_INLINE
#define PGS_VECTOR 1
#else
#define PGS_INLINE static inline
#define PGS_VECTOR 0
#endif

#if PGS_VECTOR
/* J v of a row: side a's six products, then side b's, added one by one from
 * 0.0 (a side on the world, NULL, contributes nothing). */
PGS_INLINE double row_dot(const double *J, const double *va, const double *vb) {
  double s = 0.0;
  if (va != NULL) {
    const sweep_side a = sweep_load(va);
    s = sweep_dot(J, &a, s);
  }
  if (vb != NULL) {
    const sweep_side b = sweep_load(vb);
    s = sweep_dot(J + 6, &b, s);
  }
  return s;
}

/* v += (W J^T) dl on side a, then on side b (which may be the same body). */
PGS_INLINE void row_axpy(const double *WJ, double dl, double *va, double *vb) {
  if (va != NULL) {
    sweep_side v = sweep_load(va);
    sweep_axpy(WJ, dl, &v);
    sweep_store(va, v);
  }
  if (vb != NULL) {
    sweep_side v = sweep_load(vb);
    sweep_axpy(WJ + 6, dl, &v);
    sweep_store(vb, v);
  }
}
#else
static double row_dot(const double *J, const double *va, const double *vb) {
  double s = 0.0;
  if (va != NULL)
    for (int k = 0; k < 6; k++) s += J[k] * va[k];
  if (vb != NULL)
    for (int k = 0; k < 6; k++) s += J[6 + k] * vb[k];
  return s;
}

static void row_axpy(const double *WJ, double dl, double *va, double *vb) {
  if (va != NULL)
    for (int k = 0; k < 6; k++) va[k] += WJ[k] * dl;
  if (vb != NULL)
    for (int k = 0; k < 6; k++) vb[k] += WJ[6 + k] * dl;
}
#endif


static double *body_vel(double *vel, int b) { return b == RT_WORLD ? NULL : vel + 6 * (size_t)b; }

double rt__pgs_row_velocity(const rt__rows *r, int i, const double *vel) {
  return row_dot(r->J + 12 * (size_t)i, body_vel((double *)vel, r->a[i]), body_vel((double *)vel, r->b[i]));
}

/*---- the sweep -------------------------------------------------------------
 * The same operations in the same order as row_dot and row_axpy, so the
 * results are bitwise those of the plain loop (tests/test_pgs.c and make
 * check-bitwise compare them): J v summed term by term from 0.0 (side a,
 * then side b), the clamp, each velocity += (W J^T)_k dl. What changes is
 * the instructions that do it:
 *   - rows come in runs on the same two sides (a joint's rows, a contact's
 *     three); on two dynamic bodies (distinct, no friction row) a run keeps
 *     the 12 velocities in registers from its first row to its last,
 *     instead of a store and a load between rows;
 *   - two consecutive runs on disjoint bodies are interleaved row by row
 *     (rt__pgs_sweep);
 *   - with GCC or Clang, products and the axpy are 2-lane vector
 *     operations: each lane is the scalar IEEE operation (no contraction
 *     under -ffp-contract=off), and J v still sums its products one by one
 *     in the reference order. Other compilers run the plain row. */

/* Row i on the velocities in memory va, vb (NULL: the world), as row_dot
 * and row_axpy do it; friction rows take their bounds from their normal
 * row's current impulse; a soft row's update also takes gamma lambda off
 * its residual. */
/* Returns the change of the row's velocity the row made, |delta lambda| /
 * inv_diag (0 for an inert row). */
/* Row i's impulse after its update from J v = jv (inv_diag != 0), within
 * its bounds, which it leaves in *lo and *hi (a friction row's: mu times
 * its normal's impulse as it is now). */
PGS_INLINE double row_update(const rt__rows *r, int i, double jv, double *lo, double *hi) {
  const double id = r->inv_diag[i], old = r->lambda[i];
  double l = old + (r->rhs[i] - jv) * id;
  *lo = r->lo[i];
  *hi = r->hi[i];
  if (r->normal[i] >= 0) {
    *hi = r->mu[i] * r->lambda[r->normal[i]];
    *lo = -*hi;
  } else if (r->normal[i] == RT__ROW_SOFT) {
    l -= r->soft[i] * old * id;
  }
  if (l < *lo) l = *lo;
  if (l > *hi) l = *hi;
  return l;
}

static double gs_row(rt__rows *r, int i, double *va, double *vb) {
  const double id = r->inv_diag[i];
  if (id == 0.0) return 0.0;
  const double old = r->lambda[i];
  double lo, hi;
  const double l = row_update(r, i, row_dot(r->J + 12 * (size_t)i, va, vb), &lo, &hi);
  if (r->normal[i] >= 0) {
    r->lo[i] = lo;
    r->hi[i] = hi;
  }
  r->lambda[i] = l;
  row_axpy(r->WJ + 12 * (size_t)i, l - old, va, vb);
  return fabs(l - old) / id;
}

/* What gs_row would change row i's velocity by from vel (|delta lambda|
 * / inv_diag), changing nothing. */
double rt__pgs_row_change(const rt__rows *r, int i, const double *vel) {
  return r->inv_diag[i] == 0.0 ? 0.0 : rt__pgs_row_change_at(r, i, rt__pgs_row_velocity(r, i, vel));
}

double rt__pgs_row_change_at(const rt__rows *r, int i, double jv) {
  const double id = r->inv_diag[i];
  if (id == 0.0) return 0.0;
  double lo, hi;
  return fabs(row_update(r, i, jv, &lo, &hi) - r->lambda[i]) / id;
}

int rt__pgs_rows_settled(const rt__rows *r, int first, int last, const double *vel, double tol) {
  for (int i = first; i < last; i++)
    if (rt__pgs_row_change(r, i, vel) > tol) return 0;
  return 1;
}

/* A run: rows [s, e) on the same two sides and their velocities; fast: both
 * sides dynamic and distinct, and no friction or soft row (every row's
 * bounds are fixed for the sweep, and its impulse is old + (rhs - J v)
 * inv_diag). */
typedef struct run {
  int s, e;
  double *va, *vb;
  int fast;
} run;

PGS_INLINE run scan_run(const rt__rows *r, int i, int last, double *vel) {
  const int a = r->a[i], b = r->b[i];
  run u = {i, i, body_vel(vel, a), body_vel(vel, b), a != b && a != RT_WORLD && b != RT_WORLD};
  int friction = 0;
  do
    friction |= r->normal[u.e] != -1;
  while (++u.e < last && r->a[u.e] == a && r->b[u.e] == b);
  if (friction) u.fast = 0;
  return u;
}

PGS_INLINE int shares_body(const rt__rows *r, int i, int k) {
  const int a0 = r->a[i], b0 = r->b[i], a1 = r->a[k], b1 = r->b[k];
  return (a0 != RT_WORLD && (a0 == a1 || a0 == b1)) || (b0 != RT_WORLD && (b0 == a1 || b0 == b1));
}

#if PGS_VECTOR
/* Row i of a fast run, on velocities held in registers. */
PGS_INLINE void fast_row(rt__rows *r, int i, sweep_side *va, sweep_side *vb) {
  const double id = r->inv_diag[i];
  if (id == 0.0) return;
  const double *restrict j = r->J + 12 * (size_t)i;
  const double jv = sweep_dot(j + 6, vb, sweep_dot(j, va, 0.0));
  const double old = r->lambda[i];
  double l = old + (r->rhs[i] - jv) * id;
  if (l < r->lo[i]) l = r->lo[i];
  if (l > r->hi[i]) l = r->hi[i];
  r->lambda[i] = l;
  const double dl = l - old;
  const double *restrict w = r->WJ + 12 * (size_t)i;
  sweep_axpy(w, dl, va);
  sweep_axpy(w + 6, dl, vb);
}

/* Row i as gs_row does it (the same operations in the same order:
 * friction bounds from the normal row's impulse in memory, a soft row's
 * gamma lambda), on velocities held in registers; sa, sb: whether side a,
 * side b is a body (a side on the world contributes nothing). The callers
 * pass constants, so each side pattern compiles to its own loop. Returns
 * the change of the row's velocity, as gs_row. */
PGS_INLINE double general_row(rt__rows *r, int i, sweep_side *va, sweep_side *vb, int sa, int sb) {
  const double id = r->inv_diag[i];
  if (id == 0.0) return 0.0;
  const double *restrict j = r->J + 12 * (size_t)i;
  double jv = 0.0;
  if (sa) jv = sweep_dot(j, va, jv);
  if (sb) jv = sweep_dot(j + 6, vb, jv);
  const double old = r->lambda[i];
  double lo, hi;
  const double l = row_update(r, i, jv, &lo, &hi);
  if (r->normal[i] >= 0) {
    r->lo[i] = lo;
    r->hi[i] = hi;
  }
  r->lambda[i] = l;
  const double dl = l - old;
  const double *restrict w = r->WJ + 12 * (size_t)i;
  if (sa) sweep_axpy(w, dl, va);
  if (sb) sweep_axpy(w + 6, dl, vb);
  return fabs(dl) / id;
}

/* Rows [s, e) on the sides va, vb (NULL: the world; not the same body) as
 * gs_row row after row, with the sides' velocities in registers from
 * the first row to the last; returns the largest change. A contact's three
 * rows (a body against the ground, friction bounds from the normal row)
 * took 78 instructions a row through gs_row in the tank's contact
 * passes. */
static double general_run(rt__rows *r, int s, int e, double *va, double *vb) {
  double change = 0.0;
  if (va != NULL && vb != NULL) {
    sweep_side a = sweep_load(va), b = sweep_load(vb);
    for (int i = s; i < e; i++) change = rt__most(change, general_row(r, i, &a, &b, 1, 1));
    sweep_store(va, a);
    sweep_store(vb, b);
  } else if (va != NULL) {
    sweep_side a = sweep_load(va), b = a;
    for (int i = s; i < e; i++) change = rt__most(change, general_row(r, i, &a, &b, 1, 0));
    sweep_store(va, a);
  } else if (vb != NULL) {
    sweep_side b = sweep_load(vb), a = b;
    for (int i = s; i < e; i++) change = rt__most(change, general_row(r, i, &a, &b, 0, 1));
    sweep_store(vb, b);
  } else {
    for (int i = s; i < e; i++) change = rt__most(change, gs_row(r, i, NULL, NULL));
  }
  return change;
}

/* Whether general_run takes the run: its sides are not one body. */
PGS_INLINE int general_ok(const run *u) { return u->va == NULL || u->va != u->vb; }

static void sweep_run(rt__rows *r, const run *u) {
  if (!u->fast) {
    if (general_ok(u))
      general_run(r, u->s, u->e, u->va, u->vb);
    else
      for (int i = u->s; i < u->e; i++) gs_row(r, i, u->va, u->vb);
    return;
  }
  sweep_side a = sweep_load(u->va), b = sweep_load(u->vb);
  for (int i = u->s; i < u->e; i++) fast_row(r, i, &a, &b);
  sweep_store(u->va, a);
  sweep_store(u->vb, b);
}

/* Runs u and w (disjoint bodies) row by row, then the rest of the longer. */
static void sweep_pair(rt__rows *r, const run *u, const run *w) {
  if (!u->fast || !w->fast) {
    if (general_ok(u) && general_ok(w)) { /* one after the other: the same bits (rt__pgs_sweep) */
      sweep_run(r, u);
      sweep_run(r, w);
      return;
    }
    int x = u->s, y = w->s;
    for (; x < u->e || y < w->e; x++, y++) {
      if (x < u->e) gs_row(r, x, u->va, u->vb);
      if (y < w->e) gs_row(r, y, w->va, w->vb);
    }
    return;
  }
  sweep_side a = sweep_load(u->va), b = sweep_load(u->vb), c = sweep_load(w->va), d = sweep_load(w->vb);
  int x = u->s, y = w->s;
  for (; x < u->e && y < w->e; x++, y++) {
    fast_row(r, x, &a, &b);
    fast_row(r, y, &c, &d);
  }
  for (; x < u->e; x++) fast_row(r, x, &a, &b);
  for (; y < w->e; y++) fast_row(r, y, &c, &d);
  sweep_store(u->va, a);
  sweep_store(u->vb, b);
  sweep_store(w->va, c);
  sweep_store(w->vb, d);
}
#else
static void sweep_run(rt__rows *r, const run *u) {
  for (int i = u->s; i < u->e; i++) gs_row(r, i, u->va, u->vb);
}

static void sweep_pair(rt__rows *r, const run *u, const run *w) {
  int x = u->s, y = w->s;
  for (; x < u->e || y < w->e; x++, y++) {
    if (x < u->e) gs_row(r, x, u->va, u->vb);
    if (y < w->e) gs_row(r, y, w->va, w->vb);
  }
}
#endif

/* Two runs on disjoint bodies touch disjoint velocities and impulses (a
 * friction row reads the normal row of its own contact, in its own run), so
 * each row of one commutes with every row of the other: interleaving them
 * row by row gives bitwise the results of the first run followed by the
 * second, while their two dependency chains (dot, clamp, axpy on the same
 * bodies) overlap in the processor. */
void rt__pgs_sweep(rt__rows *r, int first, int last, double *vel) {
  int i = first;
  while (i < last) {
    const run u = scan_run(r, i, last, vel);
    if (u.e < last && !shares_body(r, u.s, u.e)) {
      const run w = scan_run(r, u.e, last, vel);
      sweep_pair(r, &u, &w);
      i = w.e;
    } else {
      sweep_run(r, &u);
      i = u.e;
    }
  }
}

/*---- the program's generated sweep ------------------------------------------
 * Generated code (rt_sweep_fn, rt.h) runs the equality rows constraint by
 * constraint with their sides' offsets as constants, no scan for runs and
 * no per-row test of kind or bounds: the operations of fast_row and
 * general_row on an unbounded row, so the bits of rt__pgs_sweep. What it
 * takes for granted is checked here once per step. */
int rt__pgs_program_fits(const rt_program *p, const rt__rows *r) {
  if (p->sweep == NULL || p->sweep_side == NULL || r->n < p->dim) return 0;
  for (int c = 0; c < p->ncons; c++) {
    const int a = p->sweep_side[2 * c], b = p->sweep_side[2 * c + 1];
    if (a != RT_WORLD && a == b) return 0; /* the generic sweep runs such rows through memory */
    for (int i = p->cons_row[c]; i < p->cons_row[c] + p->cons_degree[c]; i++)
      if (r->a[i] != a || r->b[i] != b || r->normal[i] != -1 || r->inv_diag[i] == 0.0 || r->lo[i] != -INFINITY ||
          r->hi[i] != INFINITY)
        return 0;
  }
  return 1;
}

void rt__pgs_sweep_program(const rt_program *p, int fits, rt__rows *r, double *vel) {
  if (!fits) {
    rt__pgs_sweep(r, 0, r->n, vel);
    return;
  }
  const rt_sweep_rows rows = {r->J, r->WJ, r->rhs, r->inv_diag, r->lambda};
  p->sweep(&rows, vel);
  rt__pgs_sweep(r, p->dim, r->n, vel);
}

/* Runs of rows on the same two distinct dynamic bodies keep the bodies'
 * velocities in registers, as the sweep does; the same operations in the
 * same order as row_axpy row after row. */
void rt__pgs_apply(const rt__rows *r, int first, int last, const double *dl, double *vel) {
  int i = first;
  while (i < last) {
    const int a = r->a[i], b = r->b[i];
    int e = i + 1;
    while (e < last && r->a[e] == a && r->b[e] == b) e++;
#if PGS_VECTOR
    if (a != b && a != RT_WORLD && b != RT_WORLD) {
      double *pa = vel + 6 * (size_t)a, *pb = vel + 6 * (size_t)b;
      sweep_side va = sweep_load(pa), vb = sweep_load(pb);
      for (; i < e; i++) {
        if (dl[i] == 0.0) continue;
        const double *w = r->WJ + 12 * (size_t)i;
        sweep_axpy(w, dl[i], &va);
        sweep_axpy(w + 6, dl[i], &vb);
      }
      sweep_store(pa, va);
      sweep_store(pb, vb);
      continue;
    }
#endif
    for (; i < e; i++)
      if (dl[i] != 0.0) row_axpy(r->WJ + 12 * (size_t)i, dl[i], body_vel(vel, a), body_vel(vel, b));
  }
}

/* The slices' prefetches walk [f, f + bytes) line by line, however
 * aligned. Slicing a sweep changes no bit: the rows are visited in the
 * same order. */
void rt__pgs_sweep_prefetch(rt__rows *r, int first, double *vel, const void *data, size_t bytes) {
  enum { LINE = 64, LINES_PER_SLICE = 8 };
  if (data == NULL) {
    rt__pgs_sweep(r, first, r->n, vel);
    return;
  }
  const char *f = data;
  const size_t nline = (bytes + LINE - 1) / LINE + 1;
  const size_t nslice = (nline + LINES_PER_SLICE - 1) / LINES_PER_SLICE;
  const int m = r->n - first;
  for (size_t k = 0; k < nslice; k++) {
    rt__pgs_sweep(r, first + (int)(m * k / nslice), first + (int)(m * (k + 1) / nslice), vel);
#if defined(__GNUC__)
    for (size_t i = k * LINES_PER_SLICE; i < nline && i < (k + 1) * LINES_PER_SLICE; i++)
      __builtin_prefetch(f + i * LINE, 0, 2);
#else
    (void)f; /* a hint only: compilers without it (tcc) sweep the same rows */
#endif
  }
}

/* The plain loop of rt__pgs_sweep (the same bits: test_pgs), watching
 * how much each row changes its velocity; runs on the same two sides keep
 * their velocities in registers (general_run): the tank's contact passes
 * 92 -> 72 instructions a row (gs_row was 78 of them). */
double rt__pgs_sweep_change(rt__rows *r, int first, int last, double *vel) {
  double change = 0.0;
#if PGS_VECTOR
  int i = first;
  while (i < last) {
    const int a = r->a[i], b = r->b[i];
    int e = i + 1;
    while (e < last && r->a[e] == a && r->b[e] == b) e++;
    double *va = body_vel(vel, a), *vb = body_vel(vel, b);
    if (va == NULL || va != vb)
      change = rt__most(change, general_run(r, i, e, va, vb));
    else
      for (int k = i; k < e; k++) change = rt__most(change, gs_row(r, k, va, vb));
    i = e;
  }
#else
  for (int i = first; i < last; i++)
    change = rt__most(change, gs_row(r, i, body_vel(vel, r->a[i]), body_vel(vel, r->b[i])));
#endif
  return change;
}

/* J v of the rows of the equality constraints, with only the products
 * that can be nonzero by the rows' letters (rt_joint_type_def.rows): a
 * ball row along x, y or z, an angular row, a general one. The two sides'
 * velocities (zero on the world) are held in registers, side a's products
 * added one by one from +0, then side b's, in the order of the six. The
 * products left out, and a world side's, are +-0 (the entries of J are
 * +-0 at every pose, the velocity 0), and a sum from +0 is never -0: the
 * bits of rt__pgs_row_velocity while the velocities are finite. */
typedef struct sides {
  double a0, a1, a2, a3, a4, a5, b0, b1, b2, b3, b4, b5;
} sides;

PGS_INLINE sides sides_of(const double *vel, int a, int b) {
  sides v = {0};
  if (a != RT_WORLD) {
    const double *p = vel + 6 * (size_t)a;
    v.a0 = p[0], v.a1 = p[1], v.a2 = p[2], v.a3 = p[3], v.a4 = p[4], v.a5 = p[5];
  }
  if (b != RT_WORLD) {
    const double *p = vel + 6 * (size_t)b;
    v.b0 = p[0], v.b1 = p[1], v.b2 = p[2], v.b3 = p[3], v.b4 = p[4], v.b5 = p[5];
  }
  return v;
}

PGS_INLINE double dot_x(const double *j, const sides *v) {
  return 0.0 + j[0] * v->a0 + j[4] * v->a4 + j[5] * v->a5 + j[6] * v->b0 + j[10] * v->b4 + j[11] * v->b5;
}
PGS_INLINE double dot_y(const double *j, const sides *v) {
  return 0.0 + j[1] * v->a1 + j[3] * v->a3 + j[5] * v->a5 + j[7] * v->b1 + j[9] * v->b3 + j[11] * v->b5;
}
PGS_INLINE double dot_z(const double *j, const sides *v) {
  return 0.0 + j[2] * v->a2 + j[3] * v->a3 + j[4] * v->a4 + j[8] * v->b2 + j[9] * v->b3 + j[10] * v->b4;
}
PGS_INLINE double dot_angular(const double *j, const sides *v) {
  return 0.0 + j[3] * v->a3 + j[4] * v->a4 + j[5] * v->a5 + j[9] * v->b3 + j[10] * v->b4 + j[11] * v->b5;
}
PGS_INLINE double dot_general(const double *j, const sides *v) {
  return 0.0 + j[0] * v->a0 + j[1] * v->a1 + j[2] * v->a2 + j[3] * v->a3 + j[4] * v->a4 + j[5] * v->a5 +
         j[6] * v->b0 + j[7] * v->b1 + j[8] * v->b2 + j[9] * v->b3 + j[10] * v->b4 + j[11] * v->b5;
}

/* res[i] = rhs[i] - J v of the equality rows, the products by the rows'
 * letters (the bits of rhs[i] - rt__pgs_row_velocity); returns the largest
 * |res[i]|. It walks the program's constraints, whose rows
 * [cons_row[c], cons_row[c] + cons_degree[c]) lie on the same two sides,
 * so runs need no scan; a constraint's ball rows come first (x, y, z),
 * then its angular ones. One call per row cost the scissor lift's block
 * steps 41 instructions a row; all 12 products in vector lanes 32; the
 * letters' 6 products 26. */
double rt__pgs_residual(const rt__rows *r, const rt_program *p, const unsigned char *letter, const double *vel,
                        double *res) {
  double most = 0.0;
  for (int c = 0; c < p->ncons; c++) {
    int i = p->cons_row[c];
    const int e = i + p->cons_degree[c];
    const sides v = sides_of(vel, r->a[i], r->b[i]);
    const double *J = r->J + 12 * (size_t)i;
    if (e - i >= 3 && letter[i] == 'x' && letter[i + 1] == 'y' && letter[i + 2] == 'z') {
      res[i] = r->rhs[i] - dot_x(J, &v);
      res[i + 1] = r->rhs[i + 1] - dot_y(J + 12, &v);
      res[i + 2] = r->rhs[i + 2] - dot_z(J + 24, &v);
      most = rt__most(rt__most(rt__most(most, fabs(res[i])), fabs(res[i + 1])), fabs(res[i + 2]));
      i += 3, J += 36;
    }
    for (; i < e; i++, J += 12) {
      res[i] = r->rhs[i] - (letter[i] == 'a' ? dot_angular(J, &v) : dot_general(J, &v));
      most = rt__most(most, fabs(res[i]));
    }
  }
  return most;
}

/* The same walk for J v alone (one inline walk for both, with rhs or
 * without, cost the block steps' residuals 5 % more instructions). */
void rt__pgs_velocities(const rt__rows *r, const rt_program *p, const unsigned char *letter, const double *vel,
                        double *out) {
  for (int c = 0; c < p->ncons; c++) {
    int i = p->cons_row[c];
    const int e = i + p->cons_degree[c];
    const sides v = sides_of(vel, r->a[i], r->b[i]);
    const double *J = r->J + 12 * (size_t)i;
    if (e - i >= 3 && letter[i] == 'x' && letter[i + 1] == 'y' && letter[i + 2] == 'z') {
      out[i] = dot_x(J, &v);
      out[i + 1] = dot_y(J + 12, &v);
      out[i + 2] = dot_z(J + 24, &v);
      i += 3, J += 36;
    }
    for (; i < e; i++, J += 12) out[i] = letter[i] == 'a' ? dot_angular(J, &v) : dot_general(J, &v);
  }
}

/* rt__pgs_apply over the equality rows (the same operations in the same
 * order: the program's constraints hold rows 0, 1, ... in turn), each
 * constraint's sides in registers, with no scan for runs (5 instructions a
 * row of the scissor lift's block steps). */
void rt__pgs_apply_equality(const rt__rows *r, const rt_program *p, const double *dl, double *vel) {
#if PGS_VECTOR
  for (int c = 0; c < p->ncons; c++) {
    int i = p->cons_row[c];
    const int e = i + p->cons_degree[c], a = r->a[i], b = r->b[i];
    const double *w = r->WJ + 12 * (size_t)i;
    if (a != b && a != RT_WORLD && b != RT_WORLD) {
      double *pa = vel + 6 * (size_t)a, *pb = vel + 6 * (size_t)b;
      sweep_side va = sweep_load(pa), vb = sweep_load(pb);
      for (; i < e; i++, w += 12) {
        if (dl[i] == 0.0) continue;
        sweep_axpy(w, dl[i], &va);
        sweep_axpy(w + 6, dl[i], &vb);
      }
      sweep_store(pa, va);
      sweep_store(pb, vb);
    } else if (a != RT_WORLD && b == RT_WORLD) {
      double *pa = vel + 6 * (size_t)a;
      sweep_side va = sweep_load(pa);
      for (; i < e; i++, w += 12) {
        if (dl[i] == 0.0) continue;
        sweep_axpy(w, dl[i], &va);
      }
      sweep_store(pa, va);
    } else if (a == RT_WORLD && b != RT_WORLD) {
      double *pb = vel + 6 * (size_t)b;
      sweep_side vb = sweep_load(pb);
      for (; i < e; i++, w += 12) {
        if (dl[i] == 0.0) continue;
        sweep_axpy(w + 6, dl[i], &vb);
      }
      sweep_store(pb, vb);
    } else {
      for (; i < e; i++, w += 12)
        if (dl[i] != 0.0) row_axpy(w, dl[i], body_vel(vel, a), body_vel(vel, b));
    }
  }
#else
  rt__pgs_apply(r, 0, p->dim, dl, vel);
#endif
}
