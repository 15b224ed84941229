/* schur.c -- LDL-PGS's joint inequality rows (motors, springs, ropes,
 * limits) solved against the block: the Schur complement of the equality
 * rows (docs/DESIGN.md section 9).
 *
 * The block step solves the equality rows E exactly given the impulses of
 * the other rows I, but PGS sees only an I row's own diagonal J W J^T, not
 * the coupling through E: a motor holding a boom under a heavy load pushes
 * on one hinge while the whole arm answers, and the block step undoes most
 * of every push. Eliminating E gives the I rows the matrix they really face,
 *     S = A_II - A_IE H~^-1 A_EI,
 * and a small box-constrained problem on it, solved exactly; the block step
 * then gives E the response S assumed.
 *
 * The coupled set C is the first coupled_rows joint rows after the block
 * that take part this step (rows.c leaves a limit inert while its bound is
 * out of reach, so C holds the candidates of the active set: motors,
 * springs, ropes and limits at or near their bounds); contacts and rows
 * beyond the cap keep the outer passes of step.c (choose() says why).
 *   - S (rt__schur_build): with H~ = L D L^T the step's factor (reused: no
 *     refactorization), y_c = D^-1 L^-1 A_Ec by a forward solve that runs
 *     only along the elimination-tree paths of the few equality rows that
 *     share a body with row c, and S_ij = A_ij - y_i^T D y_j. No backward
 *     solve.
 *   - the rows on S (rt__schur_step): the primal active-set method (which
 *     rows sit at a bound -- a limit pushed onto its stop, a saturated
 *     motor -- and which are free; the free ones solved by Cholesky), with
 *     iterative refinement against the unregularized S, and projected
 *     Gauss-Seidel on S only if the method's cap stopped it.
 *   - the split first block step (step.c, rt__step_split_block): built
 *     with the forward half z of the equality rows' solve, the rows of C
 *     take the equality rows' response (D y_c)^T z into their residuals,
 *     and after the solve rt__schur_response makes z the forward half for
 *     the residual after C's impulses, z - Y x_C, for the backward half.
 *
 * It reads the step's factor (w->work) through the program's tables, and
 * calls pgs.c (row velocities, impulses onto velocities). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rtmath.h"
#include "world.h"

/* Helpers inlined where they are called (GCC, Clang): axpy's loops are
 * short, and the loops over a group's columns below are written for any
 * count and called with a constant one, which the compiler unrolls. The
 * vector loops over short lengths (C's rows, a path's rows) twice
 * unrolled (SCHUR_UNROLL2), whose loop control was as many instructions
 * as their arithmetic (make bench-cg's window, the lift's step: 4.6k
 * instructions fewer; 4 times unrolled, 3.7k). */
#if defined(__GNUC__) || defined(__clang__)
#define SCHUR_INLINE static inline __attribute__((always_inline))
#define SCHUR_UNROLL2 _Pragma("GCC unroll 2")
#else
#define SCHUR_INLINE static inline
#define SCHUR_UNROLL2
#endif

/* y[i] += x[i] a for i < n, each the scalar IEEE operation; with GCC or
 * Clang two at a time in vector lanes, which give the same bits (no
 * contraction under -ffp-contract=off). y -= x a is axpy with -a: the same
 * bits, as negation is exact. */
#if defined(__GNUC__) || defined(__clang__)
typedef double schur_v2 __attribute__((vector_size(16)));
SCHUR_INLINE void axpy(double *restrict y, const double *restrict x, double a, int n) {
  const schur_v2 av = {a, a};
  int i = 0;
  SCHUR_UNROLL2 for (; i + 2 <= n; i += 2) {
    schur_v2 yv, xv;
    memcpy(&yv, y + i, sizeof yv);
    memcpy(&xv, x + i, sizeof xv);
    yv += xv * av;
    memcpy(y + i, &yv, sizeof yv);
  }
  if (i < n) y[i] += x[i] * a;
}
#else
SCHUR_INLINE void axpy(double *restrict y, const double *restrict x, double a, int n) {
  for (int i = 0; i < n; i++) y[i] += x[i] * a;
}
#endif

/* A row of C is settled when a sweep over S changes its velocity by less
 * than this (m/s, rad/s); and the sweeps stop after RT__SCHUR_SWEEPS. */
#define RT__SCHUR_TOLERANCE 1e-9
/* The most memory the coupled contacts' columns of Y take. */
#define RT__SCHUR_CONTACT_BYTES ((size_t)16 << 20)
#define RT__SCHUR_SWEEPS 20
/* The active-set method runs again for friction while a bound moved by
 * more than this (m/s, times the row's diagonal of S), and the sweeps that
 * finish friction stop at it. */
#define RT__FRICTION_TOLERANCE 1e-5
/* The most rows of C built together (rt__schur_build): two contacts' rows
 * on the same wheel. */
#define RT__SCHUR_GROUP 6

/* The rows of C: the joints' rows after the block that take part (motors,
 * springs, ropes, limits near their bounds), at most coupled_rows; then
 * the contacts, each its normal and both friction rows, if all of them
 * fit in coupled_contacts (and C), else none: coupled in part, which
 * contacts met the block exactly would depend on their order, and the
 * rest still need the contact passes (the tank's 252 contacts ran to the
 * passes' cap with 16 of them coupled, at 2.3x the instructions a step).
 * Friction goes with its normal: with the normal rows coupled alone,
 * solved exactly while friction lagged, which of a wheel's redundant
 * contact points carried the load came to depend on their order (the
 * sample buggy, driven straight, veered 9 cm in 4 s). */
/* Whether a sweep would change no contact row's velocity by more than
 * RT__CONTACTS_SETTLED after the block step: then coupling the contacts
 * buys nothing (a vehicle at rest or rolling steadily), and the step costs
 * what it did without them. Measured (instructions a step in make
 * bench-cg's window; the float scissor lift's kinetic energy after 30 s
 * at beta 0.19-0.21): coupled always, buggy 620k, car 754k, lift 1.6e-4 J;
 * at 1e-9 car 701k; at 1e-7 buggy 274k, car 332k, lift 3.8e-4 J; at 1e-5
 * lift 0.03 J; at the contact passes' 1e-3 the lift swayed again (0.3 J). */
#define RT__CONTACTS_SETTLED 1e-7
static int contacts_settled(const rt_world *w, const rt__rows *r) {
  return rt__pgs_rows_settled(r, w->nfixed_rows, r->n, w->vel, RT__CONTACTS_SETTLED);
}

/* A step's first block step is split around S with the contacts in C
 * (rt__schur_expects) once S held them in this many steps in a row: where
 * contacts come and go the split's guess that they will be coupled again
 * costs the build of their columns whenever they have settled, and the
 * sweeps that skip the equality rows then (step.c) keep them from
 * settling. Measured (make bench-batch's driven buggy, scalar side,
 * instructions of its 24 steps; ldlsim --json with the drive scripts, the
 * car's largest held-motor slip in 10 s): unsplit 4.04M, 3.75e-7 rad; split
 * after 1 such step 4.47M, 5.5e-7; after 2, 3.90M, 2.2e-6; after 3 or 8,
 * 3.90M, 2.1e-7 (the slip moves by chance with any change). The lift's
 * contacts are coupled in every step: its figures are the same for all. */
#define RT__SPLIT_RUN 3
/* The joints' rows of C (into row, if not NULL); returns how many. */
static int joint_rows(const rt_world *w, const rt__rows *r, int *row) {
  int k = 0;
  for (int i = w->dim; i < w->nfixed_rows && k < w->set.coupled_rows && k < w->schur.cap; i++)
    if (r->inv_diag[i] > 0.0) {
      if (row) row[k] = i;
      k++;
    }
  return k;
}

/* Whether the step has contacts and all of them fit C after k rows. */
static int contacts_fit(const rt_world *w, int k) {
  return w->ncontact > 0 && w->ncontact <= w->set.coupled_contacts && k + 3 * w->ncontact <= w->schur.cap;
}

/* C's rows: the joints', then the contacts if they fit and (split: held
 * in the last RT__SPLIT_RUN steps, to be checked with z) they are not
 * settled. */
static int choose(rt_world *w, const rt__rows *r, int split) {
  rt__schur *s = &w->schur;
  int k = joint_rows(w, r, s->row);
  if (!contacts_fit(w, k) || (split ? s->contacts_run < RT__SPLIT_RUN : contacts_settled(w, r))) return k;
  for (int c = 0; c < w->ncontact; c++)
    for (int t = 0; t < 3; t++) s->row[k++] = w->nfixed_rows + 3 * c + t;
  return k;
}

int rt__schur_expects(const rt_world *w) {
  if (w->set.coupled_rows == 0 && w->set.coupled_contacts == 0) return 0;
  const int k = joint_rows(w, &w->rows, NULL);
  if (w->ncontact > 0) return contacts_fit(w, k) && w->schur.contacts_run >= RT__SPLIT_RUN;
  return k > 0;
}

/* The split's contacts check (choose): whether no contact row of C (the
 * last 3 ncontact) would change its velocity by more than
 * RT__CONTACTS_SETTLED in a sweep, with the equality rows' response resp. */
static int contacts_settled_with(const rt_world *w, const rt__rows *r, int k) {
  const rt__schur *s = &w->schur;
  for (int c = k - 3 * w->ncontact; c < k; c++) {
    const int i = s->row[c];
    if (rt__pgs_row_change_at(r, i, rt__pgs_row_velocity(r, i, w->vel) + s->resp[c]) > RT__CONTACTS_SETTLED) return 0;
  }
  return 1;
}

int rt__schur_covers(const rt_world *w) {
  int k = 0;
  for (int i = w->dim; i < w->nfixed_rows; i++) k += w->rows.inv_diag[i] > 0.0;
  return k <= w->set.coupled_rows && w->ncontact <= w->set.coupled_contacts && k + 3 * w->ncontact <= w->schur.cap;
}

int rt__schur_has_contacts(const rt_world *w) {
  return w->schur.k > 0 && w->schur.row[w->schur.k - 1] >= w->nfixed_rows;
}

int rt__schur_let_go(const rt_world *w) {
  return contacts_fit(w, joint_rows(w, &w->rows, NULL)) && !rt__schur_has_contacts(w);
}

void rt__schur_mask(rt_world *w) {
  rt__schur *s = &w->schur;
  for (int c = 0; c < s->k; c++) {
    s->kept[c] = w->rows.inv_diag[s->row[c]];
    w->rows.inv_diag[s->row[c]] = 0.0;
  }
}

void rt__schur_unmask(rt_world *w) {
  rt__schur *s = &w->schur;
  for (int c = 0; c < s->k; c++) w->rows.inv_diag[s->row[c]] = s->kept[c];
}

int rt__schur_alloc(rt_world *w) {
  rt__schur *s = &w->schur;
  const rt_program *p = w->prog;
  const int dim = p->dim, ns = p->nsbody;
  int fail = 0;
  const int joint_rows = w->nfixed_rows - dim; /* C's candidates (choose) */
  int contacts = w->set.max_contacts < RT_MAX_COUPLED_CONTACTS ? w->set.max_contacts : RT_MAX_COUPLED_CONTACTS;
  /* a contact's three columns of Y, within RT__SCHUR_CONTACT_BYTES: a
   * mechanism of 100,000 rows couples 6 contacts, not 64 (154 MB) */
  const size_t per = 3 * (size_t)dim * sizeof(double);
  if (per > 0 && (size_t)contacts > RT__SCHUR_CONTACT_BYTES / per) contacts = (int)(RT__SCHUR_CONTACT_BYTES / per);
  s->cap = (joint_rows < RT_MAX_COUPLED_ROWS ? joint_rows : RT_MAX_COUPLED_ROWS) + 3 * contacts;
  const size_t cap = (size_t)s->cap;
  s->row = rt__alloc(cap, sizeof(int), &fail);
  s->S = rt__alloc(cap * cap, sizeof(double), &fail);
  s->M = rt__alloc(cap * cap, sizeof(double), &fail);
  s->minv = rt__alloc(cap, sizeof(double), &fail);
  s->reg = rt__alloc(cap, sizeof(double), &fail);
  s->y = rt__alloc(cap, sizeof(double), &fail);
  s->res = rt__alloc(cap, sizeof(double), &fail);
  s->b = rt__alloc(cap, sizeof(double), &fail);
  s->xs = rt__alloc(cap, sizeof(double), &fail);
  s->xn = rt__alloc(cap, sizeof(double), &fail);
  s->z = rt__alloc(cap, sizeof(double), &fail);
  s->state = rt__alloc(cap, sizeof(int), &fail);
  s->free = rt__alloc(cap, sizeof(int), &fail);
  s->nz = rt__alloc(cap, sizeof(int), &fail);
  s->zk = rt__alloc(cap, sizeof(double), &fail);
  s->kept = rt__alloc(cap, sizeof(double), &fail);
  s->dl = rt__alloc((size_t)w->nfixed_rows + 3 * (size_t)contacts, sizeof(double), &fail);
  s->Y = rt__alloc(cap * (size_t)dim, sizeof(double), &fail);
  s->path = rt__alloc((size_t)p->ncons + 1, sizeof(int), &fail);
  s->D = rt__alloc((size_t)dim, sizeof(double), &fail);
  s->yd = rt__alloc(RT__SCHUR_GROUP * ((size_t)dim + 1), sizeof(double), &fail);
  s->z6 = rt__alloc(RT__SCHUR_GROUP * (size_t)dim, sizeof(double), &fail);
  s->at = rt__alloc((size_t)dim + 1, sizeof(int), &fail);
  s->reach = rt__alloc((size_t)p->ncons, 1, &fail);
  s->row_piv = rt__alloc((size_t)dim, sizeof(int), &fail);
  /* the equality rows on each solver body (CSR) */
  s->adj_adr = rt__alloc((size_t)ns + 1, sizeof(int), &fail);
  s->adj = rt__alloc(2 * (size_t)dim, sizeof(int), &fail);
  s->resp = rt__alloc(cap, sizeof(double), &fail);
  s->ureach = rt__alloc((size_t)p->ncons, 1, &fail);
  s->upath = rt__alloc((size_t)p->ncons + 1, sizeof(int), &fail);
  if (fail) return -1;
  for (int c = 0; c < p->ncons; c++)
    for (int side = 0; side < 2; side++) {
      const int b = side ? p->cons_b[c] : p->cons_a[c];
      if (b != RT_WORLD) s->adj_adr[b + 1] += p->cons_degree[c];
    }
  for (int b = 0; b < ns; b++) s->adj_adr[b + 1] += s->adj_adr[b];
  for (int piv = 0; p->piv_cons != NULL && piv < p->ncons; piv++) { /* a world's own view has no order */
    const int c = p->piv_cons[piv];
    for (int r = p->cons_row[c]; r < p->cons_row[c] + p->cons_degree[c]; r++) s->row_piv[r] = piv;
  }
  int *fill = rt__alloc((size_t)ns, sizeof(int), &fail);
  if (fail) return -1;
  for (int c = 0; c < p->ncons; c++)
    for (int side = 0; side < 2; side++) {
      const int b = side ? p->cons_b[c] : p->cons_a[c];
      if (b == RT_WORLD) continue;
      for (int r = p->cons_row[c]; r < p->cons_row[c] + p->cons_degree[c]; r++) s->adj[s->adj_adr[b] + fill[b]++] = r;
    }
  free(fill);
  return 0;
}

void rt__schur_free(rt__schur *s) {
  void *ptrs[] = {s->row, s->S, s->M, s->minv, s->reg, s->y, s->res, s->b, s->xs, s->xn, s->z, s->state, s->free, s->nz, s->zk, s->kept, s->dl,
                  s->Y, s->path, s->D, s->yd, s->z6, s->at, s->reach, s->row_piv, s->adj_adr, s->adj,
                  s->resp, s->ureach, s->upath};
  for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++) free(ptrs[i]);
}

/* s + the six products of a and b, added one by one. */
static inline double dot6(const double *a, const double *b, double s) {
  for (int m = 0; m < 6; m++) s += a[m] * b[m];
  return s;
}

/* J_i W J_j^T of rows i and j of r: their products on the solver bodies
 * they share (i's side a, then b; within each, j's side a, then b). */
SCHUR_INLINE double coupling(const rt__rows *r, int i, int j) {
  const int ai = r->a[i], bi = r->b[i], aj = r->a[j], bj = r->b[j];
  const double *ji = r->J + 12 * (size_t)i, *wj = r->WJ + 12 * (size_t)j;
  double sum = 0.0;
  if (ai != RT_WORLD) {
    if (ai == aj) sum = dot6(ji, wj, sum);
    if (ai == bj) sum = dot6(ji, wj + 6, sum);
  }
  if (bi != RT_WORLD) {
    if (bi == aj) sum = dot6(ji + 6, wj, sum);
    if (bi == bj) sum = dot6(ji + 6, wj + 6, sum);
  }
  return sum;
}

/* z_j = D^-1 L^-1 z_j for the g columns of z, row-interleaved (entry i of
 * column j at z[i g + j]), with the factor in work, visiting
 * only the pivots reach marks: the caller's, whose rows start nonzero, and
 * those a visited pivot's blocks reach (the paths of their rows to the
 * root of the elimination tree; each flag is cleared as its pivot is
 * visited); that list into path (ending with -1). Each column sees the
 * operations of its own solve in their order: on a pivot only another
 * column needs, its zeros stay zeros. Columns solved together share the
 * loops and the factor's loads, and row by row their entries lie side by
 * side, so the loops over the columns run in vector lanes (the same bits:
 * no contraction under -ffp-contract=off). (Testing every pivot's values
 * for zeros instead cost a quarter of the solve: the sample lift's 48
 * pivots, 30 values each, for every group. Columns y + j n apart, one
 * column at a time in the inner loops: 1.4x the instructions of this on
 * the lift's groups of 6.) Written once per precision of the factor. */
#define RT__SCHUR_FORWARD(NAME, REAL)                                                                                  \
  /* xq_j -= l v_j for a block l (dq x dp) and the pivot's values v */                                                 \
  SCHUR_INLINE void NAME##_block(const REAL *l, int dq, const int dp, const int g,                                     \
                                 const double (*v)[RT__SCHUR_GROUP], double *xq) {                                     \
    for (int r = 0; r < dq; r++) {                                                                                     \
      double *x = xq + (size_t)r * (size_t)g, acc[RT__SCHUR_GROUP];                                                    \
      for (int j = 0; j < g; j++) acc[j] = x[j];                                                                       \
      for (int c = 0; c < dp; c++) {                                                                                   \
        const double lc = (double)l[r * dp + c];                                                                       \
        for (int j = 0; j < g; j++) acc[j] -= lc * v[c][j];                                                            \
      }                                                                                                                \
      for (int j = 0; j < g; j++) x[j] = acc[j];                                                                       \
    }                                                                                                                  \
  }                                                                                                                    \
  SCHUR_INLINE void NAME##_g(const rt_program *p, const REAL *work, double *z, const int g, int *path,                 \
                             unsigned char *reach) {                                                                   \
    for (int piv = 0; piv < p->ncons; piv++) {                                                                         \
      const int cp = p->piv_cons[piv], dp = p->cons_degree[cp];                                                        \
      if (!reach[piv]) continue;                                                                                       \
      reach[piv] = 0;                                                                                                  \
      double *xp = z + (size_t)p->cons_row[cp] * (size_t)g;                                                            \
      *path++ = piv;                                                                                                   \
      const REAL *n = work + p->piv_node[piv];                                                                         \
      double v[RT_MAX_DEGREE][RT__SCHUR_GROUP];                                                                        \
      const double(*vc)[RT__SCHUR_GROUP] = (const double(*)[RT__SCHUR_GROUP])v; /* the blocks read v */                \
      for (int i = 0; i < dp; i++) {                                                                                   \
        double acc[RT__SCHUR_GROUP];                                                                                   \
        for (int j = 0; j < g; j++) acc[j] = xp[i * g + j];                                                            \
        for (int m = 0; m < i; m++) {                                                                                  \
          const double nm = (double)n[i * dp + m];                                                                     \
          for (int j = 0; j < g; j++) acc[j] -= nm * v[m][j];                                                          \
        }                                                                                                              \
        for (int j = 0; j < g; j++) v[i][j] = acc[j];                                                                  \
      }                                                                                                                \
      for (int k = p->piv_blk_adr[piv]; k < p->piv_blk_adr[piv + 1]; k++) {                                            \
        const int dq = p->cons_degree[p->piv_cons[p->blk_piv[k]]];                                                     \
        const REAL *l = work + p->blk_off[k];                                                                          \
        double *xq = z + (size_t)p->cons_row[p->piv_cons[p->blk_piv[k]]] * (size_t)g;                                  \
        reach[p->blk_piv[k]] = 1;                                                                                      \
        switch (dp) {                                                                                                  \
        case 1: NAME##_block(l, dq, 1, g, vc, xq); break;                                                              \
        case 2: NAME##_block(l, dq, 2, g, vc, xq); break;                                                              \
        case 3: NAME##_block(l, dq, 3, g, vc, xq); break;                                                              \
        case 4: NAME##_block(l, dq, 4, g, vc, xq); break;                                                              \
        case 5: NAME##_block(l, dq, 5, g, vc, xq); break;                                                              \
        default: NAME##_block(l, dq, 6, g, vc, xq); break;                                                             \
        }                                                                                                              \
      }                                                                                                                \
      for (int i = 0; i < dp; i++) {                                                                                   \
        const double d = (double)n[i * dp + i];                                                                        \
        for (int j = 0; j < g; j++) xp[i * g + j] = v[i][j] / d;                                                       \
      }                                                                                                                \
    }                                                                                                                  \
    *path = -1;                                                                                                        \
  }                                                                                                                    \
  static void NAME(const rt_program *p, const REAL *work, double *z, int g, int *path, unsigned char *reach) {         \
    switch (g) {                                                                                                       \
    case 1: NAME##_g(p, work, z, 1, path, reach); break;                                                               \
    case 2: NAME##_g(p, work, z, 2, path, reach); break;                                                               \
    case 3: NAME##_g(p, work, z, 3, path, reach); break;                                                               \
    case 4: NAME##_g(p, work, z, 4, path, reach); break;                                                               \
    case 5: NAME##_g(p, work, z, 5, path, reach); break;                                                               \
    default: NAME##_g(p, work, z, 6, path, reach); break;                                                              \
    }                                                                                                                  \
  }
RT__SCHUR_FORWARD(forward_f, float)
RT__SCHUR_FORWARD(forward_d, double)
#undef RT__SCHUR_FORWARD

/* sum[j] = sum over t < np of yd[t G + j] ym[at[t]] for j < G (a group's
 * columns, row-interleaved; G their count, rounded up to even past 1: the
 * pad lane holds zeros and its sum is not used), each added in the order of
 * t from +0. One pass over the path for all G sums, which share the
 * gathered ym; with GCC or Clang two sums in the lanes of a vector, the same
 * bits (no contraction under -ffp-contract=off). Three columns a pass, as
 * before, rt__schur_build took 4k instructions a step more on the sample
 * lift (54k; its step 756k, make bench-cg's window); a lone column stays
 * scalar (a padded pair cost the car 5k more). */
#if defined(__GNUC__) || defined(__clang__)
SCHUR_INLINE void products_g(const double *yd, const int *at, int np, const double *ym, const int G, double *sum) {
  schur_v2 acc[RT__SCHUR_GROUP / 2];
  for (int j = 0; j < G / 2; j++) acc[j] = (schur_v2){0.0, 0.0};
  SCHUR_UNROLL2 for (int t = 0; t < np; t++) {
    const double v = ym[at[t]];
    const schur_v2 vv = {v, v};
    for (int j = 0; j < G / 2; j++) {
      schur_v2 y;
      memcpy(&y, yd + (size_t)t * (size_t)G + 2 * (size_t)j, sizeof y);
      acc[j] += y * vv;
    }
  }
  for (int j = 0; j < G / 2; j++) memcpy(sum + 2 * j, &acc[j], sizeof acc[j]);
}
#else
SCHUR_INLINE void products_g(const double *yd, const int *at, int np, const double *ym, const int G, double *sum) {
  for (int j = 0; j < G; j++) sum[j] = 0.0;
  for (int t = 0; t < np; t++) {
    const double v = ym[at[t]];
    for (int j = 0; j < G; j++) sum[j] += yd[(size_t)t * (size_t)G + (size_t)j] * v;
  }
}
#endif

static void products(const double *yd, const int *at, int np, const double *ym, int G, double *sum) {
  switch (G) {
  case 1: {
    double s0 = 0.0;
    for (int t = 0; t < np; t++) s0 += yd[t] * ym[at[t]];
    sum[0] = s0;
    break;
  }
  case 2: products_g(yd, at, np, ym, 2, sum); break;
  case 4: products_g(yd, at, np, ym, 4, sum); break;
  default: products_g(yd, at, np, ym, 6, sum); break;
  }
}

/* Rows [row0, row1) of a group of g columns (forward-solved in z6,
 * row-interleaved) into their columns of Y (y0, n apart) and, times D,
 * into the gathered yd's rows from np on (G apart, a pad lane zero); z6
 * zero again. */
SCHUR_INLINE void gather_rows(rt__schur *s, double *y0, int n, int row0, int row1, const int g, const int G, int np) {
  const double *D = s->D;
  for (int i = row0; i < row1; i++, np++) {
    double *yrow = s->yd + (size_t)np * (size_t)G, *z = s->z6 + (size_t)i * (size_t)g;
    const double d = D[i];
    for (int j = 0; j < g; j++) {
      y0[(size_t)j * (size_t)n + (size_t)i] = z[j];
      yrow[j] = z[j] * d;
      z[j] = 0.0;
    }
    if (g < G) yrow[g] = 0.0;
    s->at[np] = i;
  }
}

/* D, the factor's diagonal, row by row. */
static void factor_diagonal(rt_world *w) {
  const rt_program *p = w->prog;
  for (int piv = 0; piv < p->ncons; piv++) {
    const int cp = p->piv_cons[piv], dp = p->cons_degree[cp];
    for (int i = 0; i < dp; i++) {
      const int at = p->piv_node[piv] + i * dp + i;
      w->schur.D[p->cons_row[cp] + i] =
          p->precision == RT_FLOAT ? (double)((const float *)w->work)[at] : ((const double *)w->work)[at];
    }
  }
}

/* S = A_CC - A_CE H~^-1 A_EC with H~ = L D L^T the step's factor:
 * y_c = D^-1 L^-1 A_Ec for each row c of C (A_Ec = J_E W J_c^T is zero but
 * on the equality rows that share a solver body with c; the forward solve
 * runs only along their paths to the root), then S_ij = A_ij - y_i^T D y_j,
 * summed over the pivots of y_i's path. No backward solve is needed. */
int rt__schur_build(rt_world *w, const double *fwd) {
  rt__schur *s = &w->schur;
  rt__rows *r = &w->rows;
  const rt_program *p = w->prog;
  const int n = w->dim;
  int k = choose(w, r, fwd != NULL);
  const int run = s->contacts_run;
  s->k = 0;
  s->contacts_run = 0;
  /* Y zero again where the last build wrote it: its columns on the rows of
   * their paths, where those are few (the lift's 26 of 246: a memset of
   * every column was 47 KiB a step), else whole (the car's paths cover its
   * 36 rows: the rows one by one cost it 2k instructions a step more) */
  if (2 * s->nurows < n) {
    for (int u = 0; u < s->nupath; u++) {
      const int cp = p->piv_cons[s->upath[u]], row0 = p->cons_row[cp], row1 = row0 + p->cons_degree[cp];
      for (int c = 0; c < s->kbuilt; c++)
        for (int i = row0; i < row1; i++) s->Y[(size_t)c * (size_t)n + (size_t)i] = 0.0;
    }
  } else {
    for (int c = 0; c < s->kbuilt; c++) memset(s->Y + (size_t)c * (size_t)n, 0, sizeof *s->Y * (size_t)n);
  }
  s->kbuilt = s->nupath = s->nurows = 0;
  if (k == 0) return 0;
  factor_diagonal(w);
  for (int c0 = 0; c0 < k;) {
    /* a group: rows of C on the same two bodies (a contact's three), whose
     * columns of Y start on the same equality rows and share their path */
    int g = 1;
    while (g < RT__SCHUR_GROUP && c0 + g < k && r->a[s->row[c0 + g]] == r->a[s->row[c0]] &&
           r->b[s->row[c0 + g]] == r->b[s->row[c0]])
      g++;
    /* the forward solve's columns: a lone column in place in Y (stride 1
     * is its own layout), a group's in z6 */
    double *y0 = s->Y + (size_t)c0 * (size_t)n, *z0 = g == 1 ? y0 : s->z6;
    for (int c = c0; c < c0 + g; c++) {
      const int j = s->row[c];
      double *y = s->Y + (size_t)c * (size_t)n, *z = z0 + (c - c0);
      for (int side = 0; side < 2; side++) {
        const int b = side ? r->b[j] : r->a[j];
        if (b == RT_WORLD || (side && b == r->a[j])) continue;
        for (int t = s->adj_adr[b]; t < s->adj_adr[b + 1]; t++) {
          const int e = s->adj[t];
          if (y[e] == 0.0) z[(size_t)e * (size_t)g] = y[e] = coupling(r, e, j);
          s->reach[s->row_piv[e]] = 1;
        }
      }
    }
    int *path = s->path;
    if (p->precision == RT_FLOAT)
      forward_f(p, w->work, z0, g, path, s->reach);
    else
      forward_d(p, w->work, z0, g, path, s->reach);
    /* the group's columns of Y, and y_c D on the rows of its path, gathered
     * (y_c is zero off it, and so is y_m off its own: a product off either
     * adds nothing); z6 zero again */
    const int G = g == 1 ? 1 : (g + 1) & ~1; /* yd's row stride */
    int np = 0;
    for (const int *q = path; *q >= 0; q++) {
      const int cp = p->piv_cons[*q], row0 = p->cons_row[cp], row1 = row0 + p->cons_degree[cp];
      s->ureach[*q] = 1;
      if (g == 1) {
        for (int i = row0; i < row1; i++) {
          s->yd[np] = y0[i] * s->D[i];
          s->at[np++] = i;
        }
        continue;
      }
      switch (g) { /* a contact's rows, two contacts': the loops over the columns unrolled */
      case 3: gather_rows(s, y0, n, row0, row1, 3, G, np); break;
      case 6: gather_rows(s, y0, n, row0, row1, 6, G, np); break;
      default: gather_rows(s, y0, n, row0, row1, g, G, np); break;
      }
      np += row1 - row0;
    }
    /* S_cm = A_cm - y_c^T D y_m for m <= c (within the group, the sums of
     * its columns before m are taken and not used) */
    for (int m = 0; m < c0 + g; m++) {
      const double *ym = s->Y + (size_t)m * (size_t)n;
      const int j0 = m > c0 ? m - c0 : 0;
      double sum[RT__SCHUR_GROUP];
      products(s->yd, s->at, np, ym, G, sum);
      for (int j = j0; j < g; j++) {
        const int c = c0 + j;
        const double v = coupling(r, s->row[c], s->row[m]) - sum[j];
        s->S[(size_t)c * (size_t)k + (size_t)m] = s->S[(size_t)m * (size_t)k + (size_t)c] = v;
      }
    }
    for (int c = c0; c < c0 + g; c++) {
      /* the row's own regularization and compliance, as its PGS diagonal
       * has them: 1 / inv_diag = (1 + epsilon) J W J^T + gamma */
      const int i = s->row[c];
      s->reg[c] = 1.0 / r->inv_diag[i] - coupling(r, i, i);
    }
    /* the response A_cE H~^-1 R_E = (D y_c)^T fwd to the residual whose
     * forward half fwd is (0 without one) */
    double sum[RT__SCHUR_GROUP] = {0.0};
    if (fwd) products(s->yd, s->at, np, fwd, G, sum);
    for (int j = 0; j < g; j++) s->resp[c0 + j] = sum[j];
    c0 += g;
  }
  for (int piv = 0; piv < p->ncons; piv++)
    if (s->ureach[piv]) {
      s->ureach[piv] = 0;
      s->upath[s->nupath++] = piv;
      s->nurows += p->cons_degree[p->piv_cons[piv]];
    }
  s->kbuilt = k;
  if (fwd) {
    if (s->row[k - 1] >= w->nfixed_rows && contacts_settled_with(w, r, k)) {
      /* the contacts leave C, and S (k apart) keeps its leading block */
      const int kj = k - 3 * w->ncontact;
      for (int c = 1; c < kj; c++) memmove(s->S + (size_t)c * (size_t)kj, s->S + (size_t)c * (size_t)k, sizeof *s->S * (size_t)kj);
      k = kj;
    }
  }
  s->k = k;
  s->contacts_run = k > 0 && s->row[k - 1] >= w->nfixed_rows ? (run < RT__SPLIT_RUN ? run + 1 : run) : 0;
  return k;
}

/* Row c of C in r: whether it takes part, and its bounds on the change
 * of its impulse. */
static int takes_part(const rt__schur *s, const rt__rows *r, int c) {
  return r->inv_diag[s->row[c]] != 0.0 && s->S[(size_t)c * (size_t)s->k + (size_t)c] + s->reg[c] > 0.0;
}

static double lower(const rt__schur *s, const rt__rows *r, int c) { return r->lo[s->row[c]] - r->lambda[s->row[c]]; }
static double upper(const rt__schur *s, const rt__rows *r, int c) { return r->hi[s->row[c]] - r->lambda[s->row[c]]; }

/* A = S + diag(reg): S with each row's regularization and compliance. */
static double a_at(const rt__schur *s, int i, int j) {
  return s->S[(size_t)i * (size_t)s->k + (size_t)j] + (i == j ? s->reg[i] : 0.0);
}

/* z = (L L^T)^-1 z with the Cholesky factor L in M (n x n, rows ld apart):
 * its lower triangle, and L^T in the upper (mirror), so that both solves
 * run by contiguous columns: once z_i is known it is taken from every z_m
 * it enters, updates independent of each other (in vector lanes), where a
 * row's dot product would be a chain of dependent additions (the solves
 * ran at a third of the speed). */
static void chol_solve(const double *M, const double *minv, int n, int ld, double *z) {
  for (int i = 0; i < n; i++) {
    const double *mi = M + (size_t)i * (size_t)ld;
    const double zi = z[i] *= minv[i];
    axpy(z + i + 1, mi + i + 1, -zi, n - i - 1); /* column i of L: row i of L^T */
  }
  for (int i = n - 1; i >= 0; i--) {
    const double *mi = M + (size_t)i * (size_t)ld;
    const double zi = z[i] *= minv[i];
    axpy(z, mi, -zi, i);
  }
}

/* Rows [from, n) of L in M copied into the upper triangle as L^T. */
static void mirror(double *M, int from, int n, int ld) {
  for (int j = from; j < n; j++)
    for (int m = 0; m < j; m++) M[(size_t)m * (size_t)ld + (size_t)j] = M[(size_t)j * (size_t)ld + (size_t)m];
}

/* The rows c of C with x[c] != 0 into s->nz, only the held ones if held;
 * returns how many. Sums over C's rows of products with x skip the others:
 * a product with a zero adds nothing (the rows out, at 0, are many: a
 * friction row under a normal that pushes nothing). */
static int nonzero(rt__schur *s, const double *x, int held) {
  int n = 0;
  for (int c = 0; c < s->k; c++)
    if (x[c] != 0.0 && (!held || s->state[c] != 0)) s->nz[n++] = c;
  return n;
}

/* z[a] -= sum of S_fc x_c over the n rows c in s->nz, for each free row
 * f = s->free[a]: by columns (S is symmetric), for every row of C at once
 * (whole columns, in vector lanes) and the free rows' taken from them;
 * each sum is still added in the order of s->nz. */
static void take_products(rt__schur *s, const double *x, int n, double *z) {
  const int k = s->k, nf = s->nfree;
  double *zk = s->zk;
  memset(zk, 0, sizeof *zk * (size_t)k);
  for (int a = 0; a < nf; a++) zk[s->free[a]] = z[a];
  for (int t = 0; t < n; t++) axpy(zk, s->S + (size_t)s->nz[t] * (size_t)k, -x[s->nz[t]], k);
  for (int a = 0; a < nf; a++) z[a] = zk[s->free[a]];
}

/* The free rows F are s->free[0, nfree) in the order they were freed, and
 * the rows [0, nfact) of s->M (k apart) hold the Cholesky factor of A_FF
 * for their first nfact: a row freed is appended, and only it needs
 * factoring (row j of L depends on rows 0..j alone); a row held at
 * position p is taken out of the factor (drop_factor_row). A pass of the
 * active-set method so costs O(|F|^2) per row it adds or holds, not a
 * factorization. */
static void free_row(rt__schur *s, int c) {
  s->state[c] = 0;
  s->free[s->nfree++] = c;
}

/* Takes row and column p out of the factor L of rows [0, nfact) of M.
 * The rows after p move up one without their column p, x; the block of A
 * they form is L_22 L_22^T + x x^T, so their factor is L_22's rank-one
 * update by x (rotations, O((nfact - p)^2)) instead of a new one. */
static void drop_factor_row(rt__schur *s, int p) {
  const int k = s->k, n = s->nfact;
  double *M = s->M, *x = s->z;
  for (int j = p + 1; j < n; j++) {
    const double *from = M + (size_t)j * (size_t)k;
    double *to = M + (size_t)(j - 1) * (size_t)k;
    x[j - 1] = from[p];
    memmove(to, from, sizeof *to * (size_t)p);
    memmove(to + p, from + p + 1, sizeof *to * (size_t)(j - p));
  }
  for (int i = p; i < n - 1; i++) {
    double *mi = M + (size_t)i * (size_t)k;
    const double d = mi[i], r = sqrt(d * d + x[i] * x[i]), c = r / d, sn = x[i] / d, ic = d / r;
    mi[i] = r;
    s->minv[i] = 1.0 / r;
    for (int j = i + 1; j < n - 1; j++) {
      double *lji = M + (size_t)j * (size_t)k + (size_t)i;
      *lji = (*lji + sn * x[j]) * ic;
      x[j] = c * x[j] - sn * *lji;
    }
  }
  mirror(M, p, n - 1, k);
  s->nfact = n - 1;
}

static void hold_row(rt__schur *s, int c, int state) {
  s->state[c] = state;
  int p = 0;
  while (s->free[p] != c) p++;
  memmove(s->free + p, s->free + p + 1, sizeof *s->free * (size_t)(s->nfree - p - 1));
  s->nfree--;
  if (p < s->nfact) drop_factor_row(s, p);
}

/* L_jm = (A_jm - sum over t < m of L_jt L_mt) / L_mm for m < j, into row
 * j of M from A's row sj (row m of L is M's row m; its mirror holds L_mt
 * in row t). With GCC or Clang two entries at a time: L_jm and L_j,m+1
 * sum their products over t < m side by side in the lanes of a vector
 * (L_mt and L_m+1,t lie side by side in the mirror's row t), then
 * L_j,m+1 takes its t = m product once L_jm is known: each entry's
 * subtractions in the order of t, the bits of one at a time (the sample
 * lift's 24 x 24 factor: 19.2k -> 16.1k instructions a step, make bench-cg's
 * window). */
#if defined(__GNUC__) || defined(__clang__)
SCHUR_INLINE int factor_pairs(rt__schur *s, const int *f, int j, const double *sj) {
  const int k = s->k;
  double *M = s->M, *mj = M + (size_t)j * (size_t)k;
  int m = 0;
  for (; m + 2 <= j; m += 2) {
    schur_v2 acc = {sj[f[m]], sj[f[m + 1]]}; /* f[m] != f[j]: no regularization off the diagonal */
    for (int t = 0; t < m; t++) {
      schur_v2 l;
      memcpy(&l, M + (size_t)t * (size_t)k + (size_t)m, sizeof l);
      const schur_v2 a = {mj[t], mj[t]};
      acc -= a * l;
    }
    mj[m] = acc[0] * s->minv[m];
    mj[m + 1] = (acc[1] - mj[m] * M[(size_t)m * (size_t)k + (size_t)m + 1]) * s->minv[m + 1];
  }
  return m;
}
#else
SCHUR_INLINE int factor_pairs(rt__schur *s, const int *f, int j, const double *sj) {
  (void)s, (void)f, (void)j, (void)sj;
  return 0;
}
#endif

/* Rows [from, n) of the Cholesky factor of A over C's rows f[0, n) into M
 * (rows k apart; those before from are there already: row j of L depends
 * on rows 0..j alone), each mirrored as it is done. A pivot that is not
 * positive -- rows of C that are redundant with each other and with the
 * block, with epsilon 0 -- is floored at a tiny fraction of its diagonal,
 * so the solve stays finite (the least-squares sense of GS's answer). */
static void factor_rows(rt__schur *s, const int *f, int from, int n) {
  const int k = s->k;
  double *M = s->M;
  for (int j = from; j < n; j++) {
    double *mj = M + (size_t)j * (size_t)k;
    const double *sj = s->S + (size_t)f[j] * (size_t)k;
    for (int m = factor_pairs(s, f, j, sj); m < j; m++) {
      const double *mm = M + (size_t)m * (size_t)k;
      double v = sj[f[m]];
      for (int t = 0; t < m; t++) v -= mj[t] * mm[t];
      mj[m] = v * s->minv[m];
    }
    double d = a_at(s, f[j], f[j]);
    for (int t = 0; t < j; t++) d -= mj[t] * mj[t];
    const double floor = 1e-12 * a_at(s, f[j], f[j]);
    mj[j] = sqrt(d > floor ? d : floor);
    s->minv[j] = 1.0 / mj[j];
    mirror(M, j, j + 1, k);
  }
}

/* Solves A_FF x_F = b_F - A_FC x_C for the free rows F (state 0), the
 * others held at x; the rows of A_FF's Cholesky factor not yet in s->M
 * first. */
static void solve_free(rt__schur *s, double *x) {
  const int k = s->k, nf = s->nfree;
  const int *f = s->free;
  double *M = s->M, *z = s->z;
  factor_rows(s, f, s->nfact, nf);
  s->nfact = nf;
  for (int a = 0; a < nf; a++) z[a] = s->b[f[a]];
  take_products(s, x, nonzero(s, x, 1), z); /* held: off the diagonal */
  chol_solve(M, s->minv, nf, k, z);
  for (int a = 0; a < nf; a++) x[f[a]] = z[a];
}

/* Iterative refinement of the free rows' solution: their residual with S
 * as it is (no epsilon; soft rows keep their compliance, which is theirs),
 * solved with A_FF's factor, which solve_free left. Then x is clamped to
 * the bounds it may have crossed. The regularization so leaves an error of
 * (epsilon kappa)^3 instead of epsilon kappa: a speed-0 motor holding a
 * 250:1 load would otherwise creep by epsilon times its impulse.
 *
 * One pass, (epsilon kappa)^2, when C holds contacts (their triples end
 * C): friction's bounds follow the normals, so the method runs again
 * while they move, and sweeps on S (rt__schur_step) take the result to
 * their tolerance on the unregularized S. Measured, two passes -> one:
 * make bench-cg's window, the lift's step 771k -> 756k instructions (car,
 * buggy, multi_wheel within 0.1 %); ldlsim --json with the drive scripts,
 * 2,400 steps: the car's largest hold slip 1.6e-5 -> 5.6e-7, the buggy's
 * 9.8e-6 -> 3.8e-6, joint errors, limits and motor slips the same to two
 * digits. */
static int refine_passes(const rt__schur *s, const rt__rows *r) { return r->normal[s->row[s->k - 1]] >= 0 ? 1 : 2; }

static void refine_free(rt__schur *s, rt__rows *r, double *x) {
  const int k = s->k, nf = s->nfree, passes = refine_passes(s, r);
  const int *f = s->free;
  double *z = s->z;
  for (int pass = 0; pass < passes; pass++) {
    for (int a = 0; a < nf; a++) {
      const int i = s->row[f[a]];
      z[a] = s->b[f[a]] - (r->normal[i] == RT__ROW_SOFT ? r->soft[i] * x[f[a]] : 0.0);
    }
    take_products(s, x, nonzero(s, x, 0), z);
    chol_solve(s->M, s->minv, nf, k, z);
    for (int a = 0; a < nf; a++) x[f[a]] += z[a];
  }
  for (int a = 0; a < nf; a++) x[f[a]] = rt__clamp(x[f[a]], lower(s, r, f[a]), upper(s, r, f[a]));
}

/* The coupled rows' box-constrained problem: minimize 1/2 x^T A x - b^T x
 * over lo <= x <= hi (b = the rows' residuals R - J V - gamma lambda), by
 * the primal active-set method: from a feasible x (0: the impulses are
 * within their bounds), solve with the bound rows held (solve_free); step
 * towards that solution until a free row meets a bound, which then holds
 * it; once the solution is feasible, free the held rows whose
 * multipliers have the wrong sign (all of them at once), until none has.
 * Each pass holds one row or frees some; rows start held where their
 * impulse is at a bound (a separated contact, an idle limit), so a step
 * like the last takes one pass or two. warm: from the last call's x and
 * rows (friction's boxes moved since). Returns the passes, negated if the
 * cap stopped it. */
static int active_set(rt__schur *s, rt__rows *r, double *x, int warm) {
  const int k = s->k;
  double *xn = s->xn;
  for (int c = 0; c < k; c++) {
    /* from the impulses as they are (warm: from the last solve's x, the
     * rows it held at their bounds held at the new ones), brought within
     * their bounds (a friction row whose normal now pushes less); a row
     * that does not take part, or cannot move (friction under a normal
     * that pushes nothing), is out */
    const double lo = lower(s, r, c), hi = upper(s, r, c);
    double v = !warm ? 0.0 : s->state[c] == 1 ? lo : s->state[c] == 2 ? hi : x[c];
    v = v < lo ? lo : v > hi ? hi : v;
    const int part = takes_part(s, r, c);
    x[c] = part ? v : 0.0;
    const int state = !part || lo == hi ? 3 : v == lo ? 1 : v == hi ? 2 : 0;
    if (warm && s->state[c] == 0 && state != 0) /* the free rows keep their factor */
      hold_row(s, c, state);
    else if (warm && s->state[c] != 0 && state == 0)
      free_row(s, c);
    else
      s->state[c] = state;
  }
  if (!warm) {
    s->nfree = s->nfact = 0;
    for (int c = 0; c < k; c++)
      if (s->state[c] == 0) free_row(s, c);
  }
  for (int pass = 1; pass <= 4 * k + 8; pass++) {
    memcpy(xn, x, sizeof *x * (size_t)k);
    solve_free(s, xn);
    double t = 1.0;
    int block = -1, block_state = 0;
    for (int c = 0; c < k; c++) {
      if (s->state[c] != 0) continue;
      const double lo = lower(s, r, c), hi = upper(s, r, c), step = xn[c] - x[c];
      if (xn[c] < lo && step < 0.0 && (lo - x[c]) / step < t) {
        t = (lo - x[c]) / step;
        block = c;
        block_state = 1;
      } else if (xn[c] > hi && step > 0.0 && (hi - x[c]) / step < t) {
        t = (hi - x[c]) / step;
        block = c;
        block_state = 2;
      }
    }
    t = t > 0.0 ? t : 0.0;
    for (int c = 0; c < k; c++)
      if (s->state[c] == 0) x[c] += t * (xn[c] - x[c]);
    if (block >= 0) { /* a free row met its bound: it holds there */
      x[block] = block_state == 1 ? lower(s, r, block) : upper(s, r, block);
      hold_row(s, block, block_state);
      continue;
    }
    /* feasible and optimal on the free rows: a held row whose gradient
     * (A x - b) points into its box would lower the objective if freed;
     * all such rows are freed at once */
    int freed = 0;
    const int nx = nonzero(s, x, 0);
    for (int c = 0; c < k; c++) {
      if (s->state[c] != 1 && s->state[c] != 2) continue;
      double g = -s->b[c];
      for (int h = 0; h < nx; h++) g += a_at(s, c, s->nz[h]) * x[s->nz[h]];
      const double wrong = s->state[c] == 1 ? -g : g; /* > 0: wants to move inwards */
      if (wrong > 1e-14 * a_at(s, c, c)) {
        free_row(s, c);
        freed++;
      }
    }
    if (freed == 0) {
      refine_free(s, r, x);
      return pass;
    }
  }
  return -(4 * k + 8);
}

/* Friction row c's bound on its impulse: mu times its normal's impulse
 * with the normal's change x[c - t] (the triples of a contact lie together
 * in C: normal, then its two friction rows). */
static double friction_bound(const rt__schur *s, const rt__rows *r, int c, const double *x) {
  const int i = s->row[c], n = r->normal[i];
  return r->mu[i] * (r->lambda[n] + x[c - (i - n)]);
}

/* The coupled friction rows' boxes from their normals' impulses with the
 * changes x (the active-set method takes its bounds as fixed). Returns how
 * far the solve that gave x was from what the new bounds allow, as a
 * velocity (the change of a bound times the row's diagonal of S). */
static double friction_boxes(const rt__schur *s, rt__rows *r, const double *x) {
  double moved = 0.0;
  for (int c = 0; c < s->k; c++) {
    const int i = s->row[c];
    if (r->normal[i] < 0) continue;
    const double hi = friction_bound(s, r, c, x);
    moved = rt__most(moved, fabs(hi - r->hi[i]) * a_at(s, c, c));
    r->hi[i] = hi;
    r->lo[i] = -hi;
  }
  return moved;
}

/* Whether the active-set method, run again from x within friction's new
 * boxes, would solve the problem it solved: every row free and strictly
 * within its box, or out and still out -- none held at a bound, none
 * changing state -- so the same free rows and right-hand side give x
 * again (to rounding), and x is within the boxes its own normals give.
 * Then friction is not solved again; and when C's rows are all
 * contacts', nor swept: what the sweeps still do then is take C's
 * joints' rows (a held motor) from the one refinement pass on towards
 * the unregularized S (the car's held motors slipped 1e-5 rad instead of
 * 2e-7 without them). The sample lift at rest on its wheels: an
 * active-set pass (two Cholesky solves) and a sweep a step fewer, 20k
 * instructions in make bench-cg's window; its coupled rows' largest gap
 * to their box problem the same (test_world,
 * test_coupled_contacts_meet_their_boxes), ldlsim --json's figures the
 * same to three digits but the car's (angle error 9.92e-8 -> 9.99e-8 rad,
 * hold slip 2.07e-7 -> 2.04e-7). */
static int boxes_hold(const rt__schur *s, const rt__rows *r, const double *x) {
  for (int c = 0; c < s->k; c++) {
    const double lo = lower(s, r, c), hi = upper(s, r, c);
    const int out = !takes_part(s, r, c) || lo == hi;
    if (s->state[c] == 3 ? !out : s->state[c] != 0 || out || !(x[c] > lo && x[c] < hi)) return 0;
  }
  return 1;
}

/* Projected Gauss-Seidel sweeps on S from x until no row changes its
 * velocity by more than tol, friction bounded by its normal as it
 * changes: the finish of a problem the active-set method's cap stopped
 * (tol RT__SCHUR_TOLERANCE), or whose friction bounds moved under it
 * (RT__FRICTION_TOLERANCE: GS on S stalls near 1e-5 m/s there, and ran
 * all its sweeps in a third of the car's steps at 1e-9). */
static int sweeps(rt__schur *s, rt__rows *r, double *x, double tol) {
  const int k = s->k;
  double *y = s->y;
  memset(y, 0, sizeof *y * (size_t)k);
  for (int c = 0; c < k; c++) { /* y = S x */
    if (x[c] == 0.0) continue;
    const double *col = s->S + (size_t)c * (size_t)k;
    axpy(y, col, x[c], k);
  }
  int sweep = 0;
  while (sweep++ < RT__SCHUR_SWEEPS) {
    double change = 0.0;
    for (int c = 0; c < k; c++) {
      if (!takes_part(s, r, c)) continue;
      const int i = s->row[c];
      const double *col = s->S + (size_t)c * (size_t)k; /* S symmetric: column c is row c */
      const double diag = col[c] + s->reg[c];
      double gap = s->res[c] - y[c];
      if (r->normal[i] == RT__ROW_SOFT) gap -= r->soft[i] * (r->lambda[i] + x[c]);
      double lo = lower(s, r, c), hi = upper(s, r, c);
      if (r->normal[i] >= 0) {
        const double bound = friction_bound(s, r, c, x);
        lo = -bound - r->lambda[i];
        hi = bound - r->lambda[i];
      }
      const double l = rt__clamp(x[c] + gap / diag, lo, hi), delta = l - x[c];
      if (delta == 0.0) continue;
      x[c] = l;
      axpy(y, col, delta, k);
      change = rt__most(change, fabs(delta) * diag);
    }
    if (!(change > tol)) break;
  }
  return sweep;
}

/* C's rows of r (w->rows, or the position pass's) on S from the
 * velocities vel: the active-set solve, finished by sweeps if its cap
 * stopped it; then their impulses onto lambda and vel. Rows r does not let
 * take part (inv_diag 0: the position pass's motors and springs) stay. */
int rt__schur_step(rt_world *w, rt__rows *r, double *vel) {
  rt__schur *s = &w->schur;
  const int k = s->k;
  s->moved = 0;
  if (k == 0) return 0;
  double *x = s->xs;
  for (int c = 0; c < k; c++) {
    const int i = s->row[c];
    s->res[c] = r->rhs[i] - rt__pgs_row_velocity(r, i, vel) - s->resp[c];
    s->b[c] = s->res[c] - (r->normal[i] == RT__ROW_SOFT ? r->soft[i] * r->lambda[i] : 0.0);
    s->resp[c] = 0.0; /* taken */
  }
  /* friction's boxes follow the normals: solved again while they moved
   * (but where x solves the problem within them already: boxes_hold),
   * then finished by sweeps whose bounds follow them exactly (not needed
   * then by contacts alone) */
  int passes = 0, capped = 0, friction = 0, solved = 0;
  memset(x, 0, sizeof *x * (size_t)k);
  for (int f = 0; f < RT__FRICTION_SOLVES; f++) {
    const double moved = friction_boxes(s, r, x);
    if (f > 0 && !(moved > RT__FRICTION_TOLERANCE)) break;
    if (f > 0 && !capped && boxes_hold(s, r, x)) {
      solved = s->row[0] >= w->nfixed_rows; /* C's rows all contacts' */
      break;
    }
    const int p = active_set(s, r, x, f > 0);
    passes += p < 0 ? -p : p;
    capped |= p < 0;
    for (int c = 0; c < k && !friction; c++) friction = r->normal[s->row[c]] >= 0 && s->state[c] != 3;
    if (!friction) break;
  }
  if (capped || (friction && !solved)) passes += sweeps(s, r, x, friction ? RT__FRICTION_TOLERANCE : RT__SCHUR_TOLERANCE);
  /* the impulses onto vel in one pass over C's rows (ascending: the
   * joints' rows, then the contacts'), the rows between them with dl 0 */
  for (int c = 0; c < k; c++) {
    const int i = s->row[c];
    if (x[c] == 0.0) continue;
    s->moved++;
    r->lambda[i] += x[c];
    s->dl[i] = x[c];
  }
  rt__pgs_apply(r, s->row[0], s->row[k - 1] + 1, s->dl, vel);
  for (int c = 0; c < k; c++) s->dl[s->row[c]] = 0.0;
  return passes;
}

/* A motor that held in the step's solve (its impulse strictly within its
 * bounds: rows with a finite box on both sides, neither friction nor soft)
 * holds in the projection too: post-stabilization (stabilize.c) closes the
 * joints by shift = W J_E^T H~^-1 (-c), which moves the bodies along every
 * axis the equality rows leave free, a motor's axis among them -- the rear
 * toe motors of the sample car turned 1 mrad in the step their wheels met
 * the bump, with their impulse at a third of its bound. So the held motors
 * M of C get x_M = -(S_MM + reg)^-1 J_M shift, added to shift as
 * W J_M^T x_M; the caller then solves the equality rows again for their
 * response (the S of this step: the projection's J and factor are the
 * step's). A move along the motors below RT__HOLD_TOLERANCE is left.
 * Returns how many motors it held, 0 if it changed nothing. */
#define RT__HOLD_TOLERANCE 1e-9
int rt__schur_hold(rt_world *w, double *shift) {
  rt__schur *s = &w->schur;
  const rt__rows *r = &w->rows;
  int m = 0, moved = 0;
  for (int c = 0; c < s->k; c++) {
    const int i = s->row[c];
    const int motor = r->normal[i] == -1 && r->lo[i] < 0.0 && r->hi[i] > 0.0 && isfinite(r->lo[i]) &&
                      isfinite(r->hi[i]);
    if (!motor || !(r->lambda[i] > r->lo[i] && r->lambda[i] < r->hi[i]) || !takes_part(s, r, c)) continue;
    s->nz[m] = c;
    s->z[m] = -rt__pgs_row_velocity(r, i, shift);
    moved |= fabs(s->z[m]) > RT__HOLD_TOLERANCE;
    m++;
  }
  if (!moved) return 0;
  /* (S_MM + reg) x = z by Cholesky into s->M (the step's solves are done) */
  factor_rows(s, s->nz, 0, m);
  chol_solve(s->M, s->minv, m, s->k, s->z);
  s->nfact = 0; /* M no longer holds the active set's factor */
  for (int t = 0; t < m; t++) {
    const int i = s->row[s->nz[t]];
    s->dl[i] = s->z[t];
    rt__pgs_apply(r, i, i + 1, s->dl, shift);
    s->dl[i] = 0.0;
  }
  return m;
}

/* z -= Y x over the rows of the columns' paths (Y is 0 off them), x the
 * impulses of C's rows that S's solve applied, each row's sum over C in
 * C's order from +0. */
void rt__schur_response(rt_world *w, double *z) {
  rt__schur *s = &w->schur;
  const rt_program *p = w->prog;
  const int n = w->dim, nx = s->k > 0 ? nonzero(s, s->xs, 0) : 0;
  if (nx == 0) return;
  if (2 * s->nurows >= n) { /* the paths cover most rows: whole columns (Y is 0 off them, +0 sums stay +0) */
    double *acc = s->yd;       /* scratch: dim sums */
    memset(acc, 0, sizeof *acc * (size_t)n);
    for (int t = 0; t < nx; t++) axpy(acc, s->Y + (size_t)s->nz[t] * (size_t)n, s->xs[s->nz[t]], n);
    for (int i = 0; i < n; i++) z[i] -= acc[i];
    return;
  }
  /* row by row of the paths (the lift's 26 of 246), each sum over C in
   * C's order as above, reading Y across its columns */
  double *x = s->zk; /* scratch: C's nonzero impulses (C's size; yd's may be smaller) */
  for (int t = 0; t < nx; t++) x[t] = s->xs[s->nz[t]];
  for (int u = 0; u < s->nupath; u++) {
    const int cp = p->piv_cons[s->upath[u]], row0 = p->cons_row[cp], row1 = row0 + p->cons_degree[cp];
    for (int i = row0; i < row1; i++) {
      const double *y = s->Y + i;
      double sum = 0.0;
      for (int t = 0; t < nx; t++) sum += y[(size_t)s->nz[t] * (size_t)n] * x[t];
      z[i] -= sum;
    }
  }
}
