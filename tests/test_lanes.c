/* test_lanes.c -- the batch's PGS sweep over N copies in lanes
 * (runtime/batch_pgs.c, lanes.h) against pgs.c's sweep of each copy alone,
 * bit for bit.
 *
 * Random rows built to take every path of the lanes' sweep: rows on the
 * same bodies in every copy and rows whose bodies differ (in two or more
 * pairs of bodies among the lanes), sides on the world and both sides one
 * body; plain rows, soft rows, friction rows on the same normal row in
 * every copy, and rows whose kind differs between the copies; inert rows;
 * copies with fewer rows (padded lanes); lanes left out of a sweep. Each
 * copy's rows and velocities are gathered into the lanes, swept there a
 * few times (with and without each lane's change measured) and scattered
 * back, and must be what rt__pgs_sweep_change and rt__pgs_sweep give that
 * copy alone: impulses, friction bounds, velocities and changes. Both
 * forms of the lanes' gather and sweep: the runtime's (GCC/Clang vector
 * extensions, batch_pgs_row.h) and the plain C one other compilers get,
 * compiled here from the same source with LDLPGS_NO_VECTOR under other
 * names. The copies' rows are placed into the lanes' slots as
 * batch_pgs.c's place does (contacts on the same bodies merged, or by
 * index), and the impulses and velocities taken again (refresh) and rows
 * of one copy masked out before further sweeps. The block step's
 * residual and correction in lanes too, on rows on the same bodies in
 * every copy. The mechanism's rows come in runs on the same sides, as a
 * joint's do, which the lanes keep in registers from row to row. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* batch_pgs.c's plain C form (lanes.h's transposes too), its functions
 * renamed plain_* (declared by their definitions: lanes.h is in already,
 * under the runtime's names) */
#define LDLPGS_NO_VECTOR 1
#include "../runtime/lanes.h"

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#endif
#define rt__lanes_alloc plain_lanes_alloc
#define rt__lanes_bytes plain_lanes_bytes
#define rt__lanes_free plain_lanes_free
#define rt__lanes_gather plain_lanes_gather
#define rt__lanes_gather_before plain_lanes_gather_before
#define rt__lanes_sweep plain_lanes_sweep
#define rt__lanes_first_pass plain_lanes_first_pass
#define rt__lanes_refresh plain_lanes_refresh
#define rt__lanes_mask plain_lanes_mask
#define rt__lanes_residual plain_lanes_residual
#define rt__lanes_correct plain_lanes_correct
#define rt__lanes_scatter plain_lanes_scatter
#include "../runtime/batch_pgs.c"
#undef LDLPGS_NO_VECTOR
#undef rt__lanes_alloc
#undef rt__lanes_bytes
#undef rt__lanes_free
#undef rt__lanes_gather
#undef rt__lanes_gather_before
#undef rt__lanes_sweep
#undef rt__lanes_first_pass
#undef rt__lanes_refresh
#undef rt__lanes_mask
#undef rt__lanes_residual
#undef rt__lanes_correct
#undef rt__lanes_scatter
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

/* The two forms of the lanes' functions: the runtime's and the plain C. */
typedef struct lanes_ops {
  int (*alloc)(rt__lanes *, int, int, int, int, const unsigned char *);
  void (*free)(rt__lanes *);
  void (*gather)(rt__lanes *, rt_world *const *, const unsigned char *, int);
  void (*gather_before)(rt__lanes *, rt_world *const *);
  void (*sweep)(rt__lanes *, int, const long long *, double *);
  void (*first_pass)(rt__lanes *, int, int, const long long *, double, const double *, double *);
  void (*refresh)(rt__lanes *, rt_world *const *, const unsigned char *);
  void (*mask)(rt__lanes *, int, const int *, int);
  void (*residual)(const rt__lanes *, int, double *, int, double *);
  void (*correct)(rt__lanes *, int, const double *, int, const unsigned char *);
  void (*scatter)(const rt__lanes *, rt_world *const *, const unsigned char *);
} lanes_ops;

static const lanes_ops forms[2] = {
    {rt__lanes_alloc, rt__lanes_free, rt__lanes_gather, rt__lanes_gather_before, rt__lanes_sweep,
     rt__lanes_first_pass, rt__lanes_refresh, rt__lanes_mask, rt__lanes_residual, rt__lanes_correct,
     rt__lanes_scatter},
    {plain_lanes_alloc, plain_lanes_free, plain_lanes_gather, plain_lanes_gather_before, plain_lanes_sweep,
     plain_lanes_first_pass, plain_lanes_refresh, plain_lanes_mask, plain_lanes_residual, plain_lanes_correct,
     plain_lanes_scatter},
};

#define NSBODY 5
#define MAXROWS 40
#define SWEEPS 4

static uint64_t rng;
static double uniform(void) { /* [0, 1) */
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (double)(rng >> 11) / 9007199254740992.0;
}
static int below(int n) { return (int)(uniform() * n); }
static double between(double lo, double hi) { return lo + (hi - lo) * uniform(); }

/* One copy: its rows and velocities, in a world as far as the lanes read
 * it (rows and vel). */
typedef struct copy {
  rt_world w;
  double vel[6 * NSBODY];
} copy;

static void rows_alloc(rt__rows *r, int n) {
  memset(r, 0, sizeof *r);
  r->n = n;
  r->a = calloc(MAXROWS, sizeof *r->a);
  r->b = calloc(MAXROWS, sizeof *r->b);
  r->normal = calloc(MAXROWS, sizeof *r->normal);
  r->J = calloc(12 * MAXROWS, sizeof *r->J);
  r->WJ = calloc(12 * MAXROWS, sizeof *r->WJ);
  r->rhs = calloc(MAXROWS, sizeof *r->rhs);
  r->inv_diag = calloc(MAXROWS, sizeof *r->inv_diag);
  r->lambda = calloc(MAXROWS, sizeof *r->lambda);
  r->lo = calloc(MAXROWS, sizeof *r->lo);
  r->hi = calloc(MAXROWS, sizeof *r->hi);
  r->mu = calloc(MAXROWS, sizeof *r->mu);
  r->soft = calloc(MAXROWS, sizeof *r->soft);
  assert_true(r->a && r->b && r->normal && r->J && r->WJ && r->rhs && r->inv_diag && r->lambda && r->lo && r->hi &&
              r->mu && r->soft);
}

static void rows_free(rt__rows *r) {
  free(r->a);
  free(r->b);
  free(r->normal);
  free(r->J);
  free(r->WJ);
  free(r->rhs);
  free(r->inv_diag);
  free(r->lambda);
  free(r->lo);
  free(r->hi);
  free(r->mu);
  free(r->soft);
}

/* dst = src, row for row (both allocated for MAXROWS). */
static void rows_copy(rt__rows *dst, const rt__rows *src) {
  dst->n = src->n;
  memcpy(dst->a, src->a, MAXROWS * sizeof *dst->a);
  memcpy(dst->b, src->b, MAXROWS * sizeof *dst->b);
  memcpy(dst->normal, src->normal, MAXROWS * sizeof *dst->normal);
  memcpy(dst->J, src->J, 12 * MAXROWS * sizeof *dst->J);
  memcpy(dst->WJ, src->WJ, 12 * MAXROWS * sizeof *dst->WJ);
  memcpy(dst->rhs, src->rhs, MAXROWS * sizeof *dst->rhs);
  memcpy(dst->inv_diag, src->inv_diag, MAXROWS * sizeof *dst->inv_diag);
  memcpy(dst->lambda, src->lambda, MAXROWS * sizeof *dst->lambda);
  memcpy(dst->lo, src->lo, MAXROWS * sizeof *dst->lo);
  memcpy(dst->hi, src->hi, MAXROWS * sizeof *dst->hi);
  memcpy(dst->mu, src->mu, MAXROWS * sizeof *dst->mu);
  memcpy(dst->soft, src->soft, MAXROWS * sizeof *dst->soft);
}

enum { PLAIN, SOFT, FRICTION, KINDS };

/* Random sides: a body or the world, and now and then one body on both. */
static void random_sides(int *a, int *b) {
  *a = below(NSBODY + 1) - 1;
  *b = below(4) == 0 ? *a : below(NSBODY + 1) - 1;
  if (*a == RT_WORLD && *b == RT_WORLD) *a = below(NSBODY);
}

/* Sides for n rows in runs of 1 to 5 rows on the same sides, as a
 * joint's rows are (the sweeps keep a run's velocities in registers). */
static void joint_sides(int *a, int *b, int n) {
  for (int i = 0; i < n;) {
    int e = i + 1 + below(5);
    random_sides(&a[i], &b[i]);
    for (int k = i + 1; k < e && k < n; k++) a[k] = a[i], b[k] = b[i];
    i = e;
  }
}

/* Runs of two or more rows from first on the same sides in every lane:
 * on two sides (one may be the world), into runs[0], on one body on both
 * sides into runs[1]; rows whose sides differ between the lanes, each lane
 * on the same sides in the run's rows, into runs[2]. */
static void count_runs(const rt__lanes *l, int first, long runs[3]) {
  const int N = l->N;
  for (int i = first; i + 1 < l->n; i++) {
    const int *a = l->a + i * N, *b = l->b + i * N;
    const int same_next = memcmp(a, a + N, N * sizeof *a) == 0 && memcmp(b, b + N, N * sizeof *b) == 0 &&
                          l->uniform[i] == l->uniform[i + 1];
    const int same_before = i > first && memcmp(a, a - N, N * sizeof *a) == 0 &&
                            memcmp(b, b - N, N * sizeof *b) == 0 && l->uniform[i] == l->uniform[i - 1];
    if (!same_next || same_before) continue;
    if (l->uniform[i])
      runs[a[0] == b[0]]++;
    else
      runs[2]++;
  }
}

/* Runs of rows from max(first, dim) on the same body and the world in
 * every lane (contacts with the ground) followed at once by such a run on
 * another body: the sweep takes the two in turn, row by row. */
static long count_ground_pairs(const rt__lanes *l, int first) {
  const int N = l->N;
  long pairs = 0;
  int start = first > l->dim ? first : l->dim;
  for (int i = start; i < l->n;) {
    int e = i + 1;
    while (e < l->n && l->uniform[e] == l->uniform[i] && l->a[e * N] == l->a[i * N] && l->b[e * N] == l->b[i * N])
      e++;
    const int ground = l->uniform[i] && l->a[i * N] != RT_WORLD && l->b[i * N] == RT_WORLD;
    const int next = e < l->n && l->uniform[e] && l->a[e * N] != RT_WORLD && l->b[e * N] == RT_WORLD &&
                     l->a[e * N] != l->a[i * N];
    pairs += ground && next;
    i = e;
  }
  return pairs;
}

/* Row i of r: its sides, and a kind (a friction row on row normal, an
 * earlier row). */
static void random_row(rt__rows *r, int i, int a, int b, int kind, int normal) {
  r->a[i] = a;
  r->b[i] = b;
  for (int k = 0; k < 12; k++) {
    r->J[12 * i + k] = between(-1.0, 1.0);
    r->WJ[12 * i + k] = between(-1.0, 1.0);
  }
  r->rhs[i] = between(-1.0, 1.0);
  r->inv_diag[i] = below(8) == 0 ? 0.0 : between(0.5, 2.0);
  r->lambda[i] = between(-0.5, 0.5);
  r->mu[i] = between(0.2, 1.0);
  r->soft[i] = 0.0;
  r->normal[i] = -1;
  r->lo[i] = below(2) ? -INFINITY : between(-1.0, 0.0);
  r->hi[i] = below(2) ? INFINITY : between(0.0, 1.0);
  if (kind == SOFT) {
    r->normal[i] = RT__ROW_SOFT;
    r->soft[i] = between(0.0, 1.0);
  } else if (kind == FRICTION) {
    r->normal[i] = normal;
    r->lo[i] = r->hi[i] = 0.0; /* the sweep sets them */
  }
}

/* The entries of one side of J an equality row's letter can have nonzero
 * (bit k: entry k), as rt__pgs_residual's dot_x, dot_y, dot_z and
 * dot_angular read them; written here apart from lanes.h's masks, which
 * these tests check. */
static int j_entries(unsigned char c) {
  switch (c) {
  case 'x': return 1 << 0 | 1 << 4 | 1 << 5;
  case 'y': return 1 << 1 | 1 << 3 | 1 << 5;
  case 'z': return 1 << 2 | 1 << 3 | 1 << 4;
  case 'a': return 1 << 3 | 1 << 4 | 1 << 5;
  default: return 0x3f;
  }
}

/* The solver bodies' inverse masses and world inverse inertias the
 * equality rows' W J^T come from. */
static double inv_mass[NSBODY], inv_inertia[9 * NSBODY];

static void random_masses(void) {
  for (int s = 0; s < NSBODY; s++) {
    inv_mass[s] = between(0.5, 2.0);
    for (int k = 0; k < 9; k++) inv_inertia[9 * s + k] = between(-1.0, 1.0);
  }
}

/* Row i (its sides set) as an equality row of letter c: the entries of J
 * its letter leaves out +-0, as at every pose, and W J^T as the runtime's
 * rows have it (rows.c's rt__rows_cons_wj: the entries the letter leaves
 * out +0). */
static void letter_row(rt__rows *r, int i, unsigned char c) {
  const int jm = j_entries(c);
  for (int k = 0; k < 12; k++)
    if (!(jm >> (k % 6) & 1)) r->J[12 * i + k] = below(2) ? 0.0 : -0.0;
  double diag;
  rt__rows_cons_wj(r->J + 12 * i, r->a[i], r->b[i], &c, 1, inv_mass, inv_inertia, r->WJ + 12 * i, &diag);
}

/* Random letters for dim equality rows. */
static void random_letters(unsigned char *letter, int dim) {
  static const char letters[] = "xyzag";
  for (int i = 0; i < dim; i++) letter[i] = (unsigned char)letters[below(5)];
}

/* N copies of random rows: row index by row index, the same sides in
 * every copy or sides of their own (from a few pairs, so that pairs repeat
 * between lanes), the same kind or kinds of their own; copy j has
 * nrow[j] rows. A friction row's normal is one of the two rows before it,
 * and it is on that row's sides (as a contact's rows are: pgs.c's sweep
 * counts on it). */
/* Rows fixed .. nrow[j] of each copy as contacts, each a normal row and
 * its two friction rows on a body and the world, the bodies in order
 * (as a world lists its contacts with the ground), each copy from a body
 * of its own and with its own count a body: the merge of batch_pgs.c's
 * place puts the copies' contacts on one body in one slot. */
static void sorted_contacts(copy *c, int N, const int *nrow, int fixed) {
  for (int j = 0; j < N; j++) {
    rt__rows *r = &c[j].w.rows;
    int body = below(3), left = 1 + below(3);
    for (int i = fixed; i + 3 <= nrow[j]; i += 3) {
      random_row(r, i, body, RT_WORLD, PLAIN, -1);
      random_row(r, i + 1, body, RT_WORLD, FRICTION, i);
      random_row(r, i + 2, body, RT_WORLD, FRICTION, i);
      if (--left == 0 && body < NSBODY - 1) body++, left = 1 + below(3);
    }
    for (int i = fixed + (nrow[j] - fixed) / 3 * 3; i < nrow[j]; i++) random_row(r, i, body, RT_WORLD, PLAIN, -1);
  }
}

static void random_copies(copy *c, int N, const int *nrow, int dim, const unsigned char *letter, int fixed) {
  int n = 0;
  for (int j = 0; j < N; j++) n = nrow[j] > n ? nrow[j] : n;
  int sa[MAXROWS], sb[MAXROWS];
  joint_sides(sa, sb, dim);
  for (int i = 0; i < dim && i < n; i++) { /* the equality rows: plain, the same sides everywhere */
    for (int j = 0; j < N; j++) {
      if (i >= nrow[j]) continue;
      random_row(&c[j].w.rows, i, sa[i], sb[i], PLAIN, -1);
      letter_row(&c[j].w.rows, i, letter[i]);
    }
  }
  for (int i = dim; i < n; i++) {
    const int same_sides = below(2), same_kind = below(4) != 0;
    int pa[3], pb[3];
    for (int p = 0; p < 3; p++) random_sides(&pa[p], &pb[p]);
    const int kind = below(KINDS), normal = i - 1 - below(2);
    for (int j = 0; j < N; j++) {
      if (i >= nrow[j]) continue;
      rt__rows *r = &c[j].w.rows;
      const int p = same_sides ? 0 : below(3);
      const int k = same_kind ? kind : below(KINDS);
      const int nr = same_kind ? normal : i - 1 - below(2);
      if (k == FRICTION && nr >= dim) /* a friction row's normal is a contact's: beyond the block */
        random_row(r, i, r->a[nr], r->b[nr], k, nr);
      else
        random_row(r, i, pa[p], pb[p], k == FRICTION ? PLAIN : k, -1);
    }
  }
  if (below(2)) sorted_contacts(c, N, nrow, fixed);
  for (int j = 0; j < N; j++)
    for (int k = 0; k < 6 * NSBODY; k++) c[j].vel[k] = below(16) == 0 ? -0.0 : between(-1.0, 1.0);
}

/* The N copies in lanes and alone, and their rows. */
static void free_copies(copy *lane, copy *alone, int N) {
  for (int j = 0; j < N; j++) {
    rows_free(&lane[j].w.rows);
    rows_free(&alone[j].w.rows);
  }
  free(lane);
  free(alone);
}

static void same_bits(const void *x, const void *y, size_t n, const char *what, int j, uint64_t seed) {
  if (memcmp(x, y, n) != 0) fail_msg("seed %llu, copy %d: %s differ", (unsigned long long)seed, j, what);
}

/* One scenario: N copies swept SWEEPS times in lanes (the vector form, or
 * the plain one) and alone, compared. Counts into paths[] the lanes' rows
 * that take the paths named above, as batch_pgs.c's mark classifies them:
 * rows on other bodies in two copies, friction rows on one normal row in
 * every copy, soft rows, and rows of mixed kinds; the equality rows (the
 * first few, packed by their letters) of each letter; scenarios whose
 * contacts the merge placed (more slots than rows, some shared by copies)
 * and scenarios placed by index; runs of rows on the same two sides, on
 * one body on both sides, and runs of rows on other sides in each lane;
 * runs of contacts with the ground on one body followed by such a run on
 * another (swept in turn, row by row). Now and then the first sweep is
 * the contact passes' first (rt__lanes_first_pass, against step.c's
 * rt__step_contacts_first made of pgs.c's functions): lanes whose
 * contacts it left settled, and lanes where it swept them. */
static void check(int N, uint64_t seed, int plain, long paths[17]) {
  const lanes_ops *o = &forms[plain];
  rng = seed * 0x9e3779b97f4a7c15u + 1;
  random_masses();
  copy *lane = calloc((size_t)N, sizeof *lane), *alone = calloc((size_t)N, sizeof *alone);
  assert_non_null(lane);
  assert_non_null(alone);
  int nrow[RT__LANES_MAX] = {0};
  for (int j = 0; j < N; j++) {
    nrow[j] = below(4) == 0 ? 1 + below(MAXROWS) : MAXROWS; /* some copies with fewer rows */
    rows_alloc(&lane[j].w.rows, nrow[j]);
    rows_alloc(&alone[j].w.rows, nrow[j]);
  }
  unsigned char letter[MAXROWS];
  const int dim = below(MAXROWS / 2), fixed = dim + below(3);
  random_letters(letter, dim);
  random_copies(lane, N, nrow, dim, letter, fixed);
  rt_world *w[RT__LANES_MAX];
  unsigned char take[RT__LANES_MAX];
  for (int j = 0; j < N; j++) {
    rows_copy(&alone[j].w.rows, &lane[j].w.rows);
    memcpy(alone[j].vel, lane[j].vel, sizeof alone[j].vel);
    lane[j].w.vel = lane[j].vel;
    lane[j].w.nfixed_rows = fixed;
    w[j] = &lane[j].w;
    take[j] = 1;
  }
  rt__lanes l;
  assert_int_equal(o->alloc(&l, N, MAXROWS, NSBODY, dim, letter), 0);
  /* as the contact passes gather when the sweeps before the block step
   * ran copy by copy: the rows beyond the block first, the block's later */
  const int first = below(2) ? 0 : dim;
  o->gather(&l, w, take, first);
  for (int i = first; i < l.n; i++) {
    paths[0] += !l.uniform[i];
    paths[1] += l.kind[i] >= 0;
    paths[2] += l.kind[i] == RT__ROW_SOFT;
    paths[3] += l.kind[i] == RT__LANES_MIXED;
  }
  for (int i = 0; i < dim; i++) paths[4 + (int)(strchr("xyzag", letter[i]) - "xyzag")]++;
  int most = 0, shared = 0;
  for (int j = 0; j < N; j++) most = nrow[j] > most ? nrow[j] : most;
  for (int i = fixed; i < l.n; i++) {
    int live = 0;
    for (int j = 0; j < N; j++) live += l.row[i * N + j] >= 0;
    shared += l.uniform[i] && live > 1;
  }
  paths[9] += l.n > most && shared > 0; /* merged: more slots than rows, contacts of copies sharing slots */
  paths[10] += l.n == most;              /* by index */
  count_runs(&l, first, paths + 11);
  paths[14] += count_ground_pairs(&l, first);
  const int first_pass = below(2);
  for (int s = 0; s < SWEEPS; s++) {
    long long act[RT__LANES_MAX];
    for (int j = 0; j < N; j++) act[j] = s == 0 || below(4) != 0 ? -1 : 0; /* now and then a lane left out */
    const int measure = s % 2 == 0;
    double change[RT__LANES_MAX];
    if (s == 0 && first_pass) {
      /* the joints' tolerance, and each lane's contacts' (the same, or
       * tighter as for contacts S let go: step.c's
       * rt__step_contacts_tolerance) */
      const double tol = below(3) == 0 ? 1e-300 : below(2) ? 1e-2 : 1e30;
      double ctol[RT__LANES_MAX];
      for (int j = 0; j < N; j++) ctol[j] = below(2) ? tol : tol * 1e-7;
      o->first_pass(&l, dim, fixed, act, tol, ctol, change);
      for (int j = 0; j < N; j++) {
        rt__rows *r = &alone[j].w.rows;
        const int f = fixed < r->n ? fixed : r->n;
        const double joints = dim < f ? rt__pgs_sweep_change(r, dim, f, alone[j].vel) : 0.0;
        double want = joints;
        if (joints <= tol && rt__pgs_rows_settled(r, f, r->n, alone[j].vel, ctol[j]))
          paths[15]++;
        else
          want = rt__most(joints, (f < r->n ? rt__pgs_sweep_change(r, f, r->n, alone[j].vel) : 0.0) * (tol / ctol[j])),
          paths[16]++;
        same_bits(&change[j], &want, sizeof want, "the first pass's changes", j, seed);
      }
      continue;
    }
    o->sweep(&l, first, act, measure ? change : NULL);
    for (int j = 0; j < N; j++) {
      if (!act[j]) continue;
      rt__rows *r = &alone[j].w.rows;
      if (measure) {
        const double want = r->n > first ? rt__pgs_sweep_change(r, first, r->n, alone[j].vel) : 0.0;
        same_bits(&change[j], &want, sizeof want, "the changes", j, seed);
      } else if (r->n > first) {
        rt__pgs_sweep(r, first, r->n, alone[j].vel);
      }
    }
  }
  o->scatter(&l, w, take);
  /* then, as a batch's contact passes do: the copies' impulses and
   * velocities changed outside the lanes and taken again (refresh), a few
   * rows of one copy out of its sweeps (mask; the copy alone: their
   * inverse diagonals 0), and two more sweeps */
  const int out = below(N), nout = below(4);
  int rows_out[4];
  for (int t = 0; t < nout; t++) rows_out[t] = below(nrow[out]);
  for (int j = 0; j < N; j++) {
    for (int i = 0; i < nrow[j]; i++)
      if (below(4) == 0) lane[j].w.rows.lambda[i] = alone[j].w.rows.lambda[i] = between(-0.5, 0.5);
    for (int k = 0; k < 6 * NSBODY; k++)
      if (below(4) == 0) lane[j].vel[k] = alone[j].vel[k] = between(-1.0, 1.0);
  }
  for (int t = 0; t < nout; t++) alone[out].w.rows.inv_diag[rows_out[t]] = 0.0;
  o->refresh(&l, w, take);
  o->gather_before(&l, w);
  o->mask(&l, out, rows_out, nout);
  for (int s = 0; s < 2; s++) {
    long long act[RT__LANES_MAX];
    for (int j = 0; j < N; j++) act[j] = -1;
    o->sweep(&l, 0, act, NULL);
    for (int j = 0; j < N; j++) rt__pgs_sweep(&alone[j].w.rows, 0, nrow[j], alone[j].vel);
  }
  o->scatter(&l, w, take);
  for (int j = 0; j < N; j++) {
    const rt__rows *x = &lane[j].w.rows, *y = &alone[j].w.rows;
    same_bits(x->lambda, y->lambda, sizeof *x->lambda * (size_t)nrow[j], "the impulses", j, seed);
    same_bits(x->lo, y->lo, sizeof *x->lo * (size_t)nrow[j], "the lower bounds", j, seed);
    same_bits(x->hi, y->hi, sizeof *x->hi * (size_t)nrow[j], "the upper bounds", j, seed);
    same_bits(lane[j].vel, alone[j].vel, sizeof lane[j].vel, "the velocities", j, seed);
  }
  o->free(&l);
  free_copies(lane, alone, N);
}

#define SEEDS 200

/* Every seed for 4, 8 and 16 lanes, each path taken. */
static void check_all(int plain) {
  static const int lanes[] = {4, 8, 16};
  for (size_t k = 0; k < sizeof lanes / sizeof lanes[0]; k++) {
    long paths[17] = {0};
    for (uint64_t seed = 1; seed <= SEEDS; seed++) check(lanes[k], seed, plain, paths);
    for (int p = 0; p < 17; p++) assert_true(paths[p] > 0);
  }
}

/* The block step's rows in lanes: N copies' rows, on the same bodies in
 * every copy as the mechanism's equality rows are, gathered; the
 * residual rhs - J v of each lane against rt__pgs_row_velocity's J v of
 * that copy alone, and its largest |residual|; then lambda += delta and
 * the velocities' response in the lanes of act (some deltas 0) against
 * rt__pgs_apply of each copy taken alone. Bit for bit, both forms. Odd
 * seeds lay the residual and delta out as the second group of a batch of
 * 2N lanes (stride 2N, from lane N), as batch.c does with two groups. */
static void check_block(int N, uint64_t seed, int plain, long runs[3]) {
  const lanes_ops *o = &forms[plain];
  rng = seed * 0x9e3779b97f4a7c15u + 7;
  random_masses();
  copy *lane = calloc((size_t)N, sizeof *lane), *alone = calloc((size_t)N, sizeof *alone);
  assert_non_null(lane);
  assert_non_null(alone);
  int sa[MAXROWS], sb[MAXROWS];
  unsigned char letter[MAXROWS];
  joint_sides(sa, sb, MAXROWS);
  random_letters(letter, MAXROWS);
  rt_world *w[RT__LANES_MAX];
  unsigned char take[RT__LANES_MAX], act[RT__LANES_MAX];
  for (int j = 0; j < N; j++) {
    rows_alloc(&lane[j].w.rows, MAXROWS);
    rows_alloc(&alone[j].w.rows, MAXROWS);
    for (int i = 0; i < MAXROWS; i++) {
      random_row(&lane[j].w.rows, i, sa[i], sb[i], PLAIN, -1);
      letter_row(&lane[j].w.rows, i, letter[i]);
    }
    /* some velocities -0.0: a row with delta 0 must leave them so */
    for (int k = 0; k < 6 * NSBODY; k++) lane[j].vel[k] = below(8) == 0 ? -0.0 : between(-1.0, 1.0);
    rows_copy(&alone[j].w.rows, &lane[j].w.rows);
    memcpy(alone[j].vel, lane[j].vel, sizeof alone[j].vel);
    lane[j].w.vel = lane[j].vel;
    w[j] = &lane[j].w;
    take[j] = 1;
    act[j] = below(4) != 0;
  }
  rt__lanes l;
  assert_int_equal(o->alloc(&l, N, MAXROWS, NSBODY, MAXROWS, letter), 0);
  double res_all[2 * MAXROWS * RT__LANES_MAX], most[RT__LANES_MAX], delta_all[2 * MAXROWS * RT__LANES_MAX];
  const int stride = seed & 1 ? 2 * N : N;
  double *res = res_all + (stride - N), *delta = delta_all + (stride - N);
  o->gather(&l, w, take, 0);
  count_runs(&l, 0, runs);
  o->residual(&l, MAXROWS, res, stride, most);
  for (int j = 0; j < N; j++) {
    const rt__rows *r = &alone[j].w.rows;
    double want_most = 0.0, dl[MAXROWS];
    for (int i = 0; i < MAXROWS; i++) {
      const double want = r->rhs[i] - rt__pgs_row_velocity(r, i, alone[j].vel);
      same_bits(&res[i * stride + j], &want, sizeof want, "the residuals", j, seed);
      want_most = rt__most(want_most, fabs(want));
      dl[i] = delta[i * stride + j] = below(4) == 0 ? 0.0 : between(-1.0, 1.0);
    }
    same_bits(&most[j], &want_most, sizeof want_most, "the largest residuals", j, seed);
    if (!act[j]) continue;
    for (int i = 0; i < MAXROWS; i++) alone[j].w.rows.lambda[i] += dl[i];
    rt__pgs_apply(&alone[j].w.rows, 0, MAXROWS, dl, alone[j].vel);
  }
  o->correct(&l, MAXROWS, delta, stride, act);
  o->scatter(&l, w, take);
  for (int j = 0; j < N; j++) {
    same_bits(lane[j].w.rows.lambda, alone[j].w.rows.lambda, sizeof(double) * MAXROWS, "the corrected impulses", j,
              seed);
    same_bits(lane[j].vel, alone[j].vel, sizeof lane[j].vel, "the corrected velocities", j, seed);
  }
  o->free(&l);
  free_copies(lane, alone, N);
}

static void check_block_all(int plain) {
  static const int lanes[] = {4, 8, 16};
  for (size_t k = 0; k < sizeof lanes / sizeof lanes[0]; k++) {
    long runs[3] = {0};
    for (uint64_t seed = 1; seed <= SEEDS; seed++) check_block(lanes[k], seed, plain, runs);
    assert_true(runs[0] > 0 && runs[1] > 0);
  }
}

static void test_lanes_block(void **state) {
  (void)state;
  check_block_all(0);
}

static void test_plain_block(void **state) {
  (void)state;
  check_block_all(1);
}

static void test_lanes_sweep(void **state) {
  (void)state;
  check_all(0);
}

static void test_plain_sweep(void **state) {
  (void)state;
  check_all(1);
}

/* rt__alloc_lines: zeroed memory at a 64-byte line for any count and size
 * (a block of one item for none), NULL and *fail set when the bytes
 * overflow, released by rt__free_lines (ASan and valgrind see a leak or a
 * bad free otherwise). */
static void test_alloc_lines(void **state) {
  (void)state;
  static const size_t sizes[] = {1, 4, 8, 12, 24, 64, 100};
  for (size_t n = 0; n < 300; n += 7)
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
      int fail = 0;
      unsigned char *p = rt__alloc_lines(n, sizes[k], &fail);
      assert_false(fail);
      assert_non_null(p);
      assert_int_equal((uintptr_t)p % 64, 0);
      const size_t bytes = (n ? n : 1) * sizes[k];
      for (size_t b = 0; b < bytes; b++) assert_int_equal(p[b], 0);
      memset(p, 0xa5, bytes); /* all of it is the caller's */
      rt__free_lines(p);
    }
  int fail = 0;
  assert_null(rt__alloc_lines(SIZE_MAX / 8, 16, &fail));
  assert_true(fail);
  rt__free_lines(NULL);
}

/* The lanes' arrays of vectors start at a 64-byte line (rt__alloc_lines):
 * every slot's vector of 8 doubles is then one line, never two. */
static void test_lanes_on_lines(void **state) {
  (void)state;
  static const int lanes[] = {4, 8, 16};
  unsigned char letter[MAXROWS];
  memset(letter, 'x', sizeof letter);
  for (size_t k = 0; k < sizeof lanes / sizeof lanes[0]; k++) {
    rt__lanes l;
    assert_int_equal(rt__lanes_alloc(&l, lanes[k], MAXROWS, NSBODY, 3, letter), 0);
    const double *vectors[] = {l.eqJ, l.eqWJ, l.J, l.WJ, l.rhs, l.inv_diag, l.lambda, l.lo, l.hi, l.mu, l.soft, l.vel};
    for (size_t a = 0; a < sizeof vectors / sizeof vectors[0]; a++) assert_int_equal((uintptr_t)vectors[a] % 64, 0);
    assert_int_equal(rt__lanes_at(&l, 5, 7) * sizeof(double) % (size_t)(lanes[k] * 8), 0);
    rt__lanes_free(&l);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_alloc_lines),
      cmocka_unit_test(test_lanes_on_lines),
      cmocka_unit_test(test_lanes_sweep),
      cmocka_unit_test(test_plain_sweep),
      cmocka_unit_test(test_lanes_block),
      cmocka_unit_test(test_plain_block),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
