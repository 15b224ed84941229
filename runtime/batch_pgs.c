/* batch_pgs.c -- PGS sweeps over N copies of one mechanism at once, one
 * copy per lane (lanes.h). Every lane does what pgs.c's sweep does to that
 * copy alone, in the same order, so the results are its bits: J v summed
 * term by term from 0.0 (side a, then side b), the impulse, the clamp, then
 * each velocity += (W J^T)_k dl, side a before side b (which may be the
 * same body). An inert row (inv_diag 0) changes nothing in its lane, and a
 * side on the world takes no part: both are selects, never a product with
 * zero (-0.0 + 0.0 is not -0.0).
 *
 * With GCC or Clang each row is one vector operation per scalar operation
 * of pgs.c (batch_pgs_row.h, vector extensions of N doubles: two AVX-512
 * registers for 16 lanes, four AVX ones, eight SSE ones, as the build's
 * ARCH allows). The copies' rows are placed into the lanes' slots
 * (place: the mechanism's rows by index, the contacts merged by their
 * bodies where that pays). A slot on the same bodies in every copy loads
 * and stores its velocities as whole vectors; a slot whose bodies differ
 * between copies gathers each lane's. Other compilers sweep lane by lane
 * (lane_row). It calls no other module. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lanes.h"
#include "rtmath.h"

int rt__lanes_alloc(rt__lanes *l, int N, int cap, int nsbody, int dim, const unsigned char *letter) {
  memset(l, 0, sizeof *l);
  l->N = N;
  l->nsbody = nsbody;
  l->dim = dim;
  l->cap = cap;
  l->slots = 2 * cap;
  const size_t rows = (size_t)l->slots * (size_t)N;
  int fail = 0;
  l->row = rt__alloc(rows, sizeof(int), &fail);
  l->slot = rt__alloc((size_t)N * (size_t)cap, sizeof(int), &fail);
  l->letter = rt__alloc((size_t)dim, 1, &fail);
  l->jat = rt__alloc((size_t)dim + 1, sizeof(int), &fail);
  l->wat = rt__alloc((size_t)dim + 1, sizeof(int), &fail);
  if (!fail) {
    memcpy(l->letter, letter, (size_t)dim);
    l->jat[0] = l->wat[0] = 0;
    for (int i = 0; i < dim; i++) {
      int jm, wm;
      rt__lanes_masks(letter[i], &jm, &wm);
      l->jat[i + 1] = l->jat[i] + 2 * rt__popcount6(jm);
      l->wat[i + 1] = l->wat[i] + 2 * rt__popcount6(wm);
    }
    l->eqJ = rt__alloc_lines((size_t)l->jat[dim] * (size_t)N, sizeof(double), &fail);
    l->eqWJ = rt__alloc_lines((size_t)l->wat[dim] * (size_t)N, sizeof(double), &fail);
  }
  l->nrow = rt__alloc((size_t)N, sizeof(int), &fail);
  l->a = rt__alloc(rows, sizeof(int), &fail);
  l->b = rt__alloc(rows, sizeof(int), &fail);
  l->normal = rt__alloc(rows, sizeof(int), &fail);
  l->side = 6 * rows;
  l->J = rt__alloc_lines(12 * rows, sizeof(double), &fail);
  l->WJ = rt__alloc_lines(12 * rows, sizeof(double), &fail);
  l->rhs = rt__alloc_lines(rows, sizeof(double), &fail);
  l->inv_diag = rt__alloc_lines(rows, sizeof(double), &fail);
  l->lambda = rt__alloc_lines(rows, sizeof(double), &fail);
  l->lo = rt__alloc_lines(rows, sizeof(double), &fail);
  l->hi = rt__alloc_lines(rows, sizeof(double), &fail);
  l->mu = rt__alloc_lines(rows, sizeof(double), &fail);
  l->soft = rt__alloc_lines(rows, sizeof(double), &fail);
  l->uniform = rt__alloc((size_t)l->slots, 1, &fail);
  l->run_end = rt__alloc((size_t)l->slots, sizeof(int), &fail);
  l->kind = rt__alloc((size_t)l->slots, sizeof(int), &fail);
  l->vel = rt__alloc_lines(6 * (size_t)nsbody * (size_t)N, sizeof(double), &fail);
  return fail ? -1 : 0;
}

/* per row and lane: a, b, normal; J, WJ; rhs, inv_diag, lambda, lo, hi,
 * mu, soft; per row: uniform, kind, run_end (rt__lanes_alloc) */
size_t rt__lanes_bytes(int N, int rows, int nsbody) {
  const size_t lane_row = 3 * sizeof(int) + (24 + 7) * sizeof(double);
  return (size_t)rows * ((size_t)N * lane_row + 1 + 2 * sizeof(int)) + 6 * (size_t)nsbody * (size_t)N * sizeof(double);
}

void rt__lanes_free(rt__lanes *l) {
  free(l->row);
  free(l->slot);
  free(l->letter);
  free(l->jat);
  free(l->wat);
  rt__free_lines(l->eqJ);
  rt__free_lines(l->eqWJ);
  free(l->nrow);
  free(l->a);
  free(l->b);
  free(l->normal);
  rt__free_lines(l->J);
  rt__free_lines(l->WJ);
  rt__free_lines(l->rhs);
  rt__free_lines(l->inv_diag);
  rt__free_lines(l->lambda);
  rt__free_lines(l->lo);
  rt__free_lines(l->hi);
  rt__free_lines(l->mu);
  rt__free_lines(l->soft);
  free(l->uniform);
  free(l->run_end);
  free(l->kind);
  rt__free_lines(l->vel);
  memset(l, 0, sizeof *l);
}

/* Row i of copy j (r; NULL: none, an inert row on the world) into slot s
 * of lane j, but for J and W J^T (gather_jw); its normal row as a slot. */
static void gather_row(rt__lanes *l, const rt__rows *r, int i, int s, int j) {
  const int N = l->N;
  const size_t d = (size_t)s * (size_t)N + (size_t)j;
  if (r == NULL) {
    l->a[d] = l->b[d] = RT_WORLD;
    l->normal[d] = -1;
    l->inv_diag[d] = l->lambda[d] = l->rhs[d] = l->lo[d] = l->hi[d] = l->mu[d] = l->soft[d] = 0.0;
    return;
  }
  l->a[d] = r->a[i];
  l->b[d] = r->b[i];
  l->normal[d] = r->normal[i] >= 0 ? l->slot[(size_t)j * (size_t)l->cap + (size_t)r->normal[i]] : r->normal[i];
  l->rhs[d] = r->rhs[i];
  l->inv_diag[d] = r->inv_diag[i];
  l->lambda[d] = r->lambda[i];
  l->lo[d] = r->lo[i];
  l->hi[d] = r->hi[i];
  l->mu[d] = r->mu[i];
  l->soft[d] = r->soft[i];
}

/* Entries k .. k + 4 of one side's J or W J^T of four copies (p_c at
 * entry k) into their lanes j .. j + 4 at the four destinations d_m,
 * entry k + m at d_m. */
static void transpose_into(const double *const *p, int k, double *const *d) {
  rt__transpose4_double(p[0] + k, p[1] + k, p[2] + k, p[3] + k, d[0], d[1], d[2], d[3]);
}

/* J and W J^T of slot i's rows of every copy into the lanes (zeros in a
 * lane without one), 4 copies and 4 entries at a time (rt__transpose4_double:
 * entry by entry, the tank's batch of 8 stepped 1.11-1.12x as fast as its
 * copies one by one, now 1.22-1.23x); an equality row's entries by its
 * letter, through a row of all twelve in lanes. */
static void gather_jw(rt__lanes *l, rt_world *const *w, int i) {
  static const double zero[12];
  const int N = l->N, packed = i < l->dim;
  const int *row = l->row + (size_t)i * (size_t)N; /* slot i's rows */
  double tj[12 * RT__LANES_MAX], tw[12 * RT__LANES_MAX]; /* a packed row's entry k of lane j at k N + j */
  for (int j = 0; j < N; j += 4) {
    const double *J[4], *WJ[4];
    for (int c = 0; c < 4; c++) {
      const int k = row[j + c];
      J[c] = k >= 0 ? w[j + c]->rows.J + 12 * (size_t)k : zero;
      WJ[c] = k >= 0 ? w[j + c]->rows.WJ + 12 * (size_t)k : zero;
    }
    for (int k = 0; k < 12; k += 4) {
      double *dj[4], *dw[4];
      for (int m = 0; m < 4; m++) {
        const size_t e = packed ? (size_t)(k + m) * (size_t)N + (size_t)j : rt__lanes_at(l, i, k + m) + (size_t)j;
        dj[m] = (packed ? tj : l->J) + e;
        dw[m] = (packed ? tw : l->WJ) + e;
      }
      transpose_into(J, k, dj);
      transpose_into(WJ, k, dw);
    }
  }
  if (!packed) return;
  int jm, wm;
  rt__lanes_masks(l->letter[i], &jm, &wm);
  double *pj = l->eqJ + (size_t)l->jat[i] * (size_t)N, *pw = l->eqWJ + (size_t)l->wat[i] * (size_t)N;
  for (int k = 0; k < 12; k++) {
    const size_t bytes = sizeof(double) * (size_t)N;
    if (jm >> (k % 6) & 1) memcpy(pj, tj + (size_t)k * (size_t)N, bytes), pj += N;
    if (wm >> (k % 6) & 1) memcpy(pw, tw + (size_t)k * (size_t)N, bytes), pw += N;
  }
}

/* Whether slot i is on the same bodies in every copy that has a row there
 * (the other lanes then take those bodies too: inert, they only read
 * them), and its kind: its normal in every such copy, or RT__LANES_MIXED. */
static void mark(rt__lanes *l, int i) {
  const int N = l->N;
  const size_t r = (size_t)i * (size_t)N;
  int ref = -1, uniform = 1, kind = -1;
  for (int j = 0; j < N; j++) {
    if (l->row[r + j] < 0) continue;
    if (ref < 0) {
      ref = j;
      kind = l->normal[r + j];
      continue;
    }
    if (l->normal[r + j] != kind) kind = RT__LANES_MIXED;
    if (l->a[r + j] != l->a[r + ref] || l->b[r + j] != l->b[r + ref]) uniform = 0;
  }
  if (uniform && ref >= 0)
    for (int j = 0; j < N; j++)
      if (l->row[r + j] < 0) {
        l->a[r + j] = l->a[r + ref];
        l->b[r + j] = l->b[r + ref];
      }
  l->uniform[i] = (unsigned char)uniform;
  l->kind[i] = kind;
}

/* Slots [lo, hi) of the copies taken (the others: inert rows). */
static void gather_rows(rt__lanes *l, rt_world *const *w, int lo, int hi) {
  /* slot by slot, so that each write fills the lanes of one cache line
   * (copy by copy, the writes strode over the whole array N times: the
   * gather cost as much as the sweeps) */
  for (int i = lo; i < hi; i++) {
    for (int j = 0; j < l->N; j++) {
      const int k = l->row[(size_t)i * (size_t)l->N + (size_t)j];
      gather_row(l, k >= 0 ? &w[j]->rows : NULL, k, i, j);
    }
    gather_jw(l, w, i);
    mark(l, i);
  }
}

/* Measured (the sample tank's batch of 8 copies, each driven its own way
 * for 400 steps: 720 contact rows by index, all gathered rows, against
 * 1,780 slots merged, all vector rows; their batch steps 5.8 and 7.3 ms,
 * and 3.9 ms while the copies' contacts were all on the same bodies). */
#define RT__LANES_GATHERED 2

/* Row i's bodies as one key ordered as (side a, side b) (RT_WORLD first),
 * its run's index above them: a copy's contacts in the order of their
 * keys, merged. */
static uint64_t row_key(const int *a, const int *b, int i, int run) {
  return (uint64_t)run << 42 | (uint64_t)(uint32_t)(a[i] + 1) << 21 | (uint64_t)(uint32_t)(b[i] + 1);
}
#define NO_KEY UINT64_MAX

/* The copies' rows into slots (rt__lanes): row s of each copy in slot s
 * below fixed (the equality rows, and the joints' rows: the copies'
 * nfixed_rows), then the copies' further rows (contacts) merged. A copy's
 * contacts come in runs ordered by their bodies (a world lists its
 * contacts with the ground body by body, then those between bodies pair
 * by pair): each row's key is its run's index in the copy's list, then
 * its bodies. Each slot takes, of every copy whose next row has the least
 * key among the copies' next rows, that row, and is inert in the other
 * lanes: so the copies' contacts on the same bodies share a slot wherever
 * the copies list them alike, and each copy's rows keep their order in
 * any case. If the merge would take more slots than the rows by index
 * cost (a row whose bodies differ between the copies is a gathered row,
 * batch_pgs_row.h, which costs about RT__LANES_GATHERED vector rows), or
 * more than l->slots, row i of each copy goes to slot i instead. (The
 * keys as integers, the copies' arrays in locals: with the bodies
 * compared through each copy's rows row by row, the merge of 8 tanks'
 * contacts took 55 us a batch step, a third of the lanes' gather; now 19
 * us. Bodies past 2^21 would order wrongly, which only merges worse: each
 * copy's rows keep their order whatever the keys.) */
static void place(rt__lanes *l, rt_world *const *w) {
  const int N = l->N;
  int fixed = l->dim, most = 0, head[RT__LANES_MAX], run[RT__LANES_MAX] = {0};
  const int *A[RT__LANES_MAX], *B[RT__LANES_MAX];
  uint64_t key[RT__LANES_MAX];
  for (int j = 0; j < N; j++) {
    A[j] = w[j]->rows.a;
    B[j] = w[j]->rows.b;
    if (l->nrow[j] > 0 && w[j]->nfixed_rows > fixed) fixed = w[j]->nfixed_rows;
    if (l->nrow[j] > most) most = l->nrow[j];
  }
  int s = fixed < most ? fixed : most;
  for (int i = 0; i < s; i++)
    for (int j = 0; j < N; j++) l->row[(size_t)i * (size_t)N + (size_t)j] = i < l->nrow[j] ? i : -1;
  /* what the rows cost by index: a gathered row as RT__LANES_GATHERED
   * vector rows; the merge may take as many slots */
  int room = s;
  for (int i = s; i < most; i++) {
    int ref = -1, same = 1;
    for (int j = 0; j < N; j++) {
      if (i >= l->nrow[j]) continue;
      if (ref < 0)
        ref = j;
      else if (A[j][i] != A[ref][i] || B[j][i] != B[ref][i])
        same = 0;
    }
    room += same ? 1 : RT__LANES_GATHERED;
  }
  if (room > l->slots) room = l->slots;
  for (int j = 0; j < N; j++) {
    head[j] = s;
    key[j] = head[j] < l->nrow[j] ? row_key(A[j], B[j], head[j], 0) : NO_KEY;
  }
  for (;;) {
    uint64_t least = NO_KEY;
    for (int j = 0; j < N; j++) least = key[j] < least ? key[j] : least;
    if (least == NO_KEY) break;
    if (s == room) { /* the merge costs more: by index */
      for (s = fixed; s < most; s++)
        for (int j = 0; j < N; j++) l->row[(size_t)s * (size_t)N + (size_t)j] = s < l->nrow[j] ? s : -1;
      break;
    }
    for (int j = 0; j < N; j++) {
      int *slot_row = &l->row[(size_t)s * (size_t)N + (size_t)j];
      *slot_row = -1;
      if (key[j] != least) continue;
      const int k = *slot_row = head[j]++;
      if (head[j] >= l->nrow[j]) {
        key[j] = NO_KEY;
        continue;
      }
      /* a row on bodies before the last one's begins the copy's next run */
      if (A[j][head[j]] != A[j][k] ? A[j][head[j]] < A[j][k] : B[j][head[j]] < B[j][k]) run[j]++;
      key[j] = row_key(A[j], B[j], head[j], run[j]);
    }
    s++;
  }
  l->n = s;
  for (int i = 0; i < s; i++)
    for (int j = 0; j < N; j++) {
      const int k = l->row[(size_t)i * (size_t)N + (size_t)j];
      if (k >= 0) l->slot[(size_t)j * (size_t)l->cap + (size_t)k] = i;
    }
}

/* run_end of the slots [0, n), from the last: each slot's run goes on
 * through the next one's if that is uniform and on the same bodies (the
 * sweeps found each run's end slot by slot, 3.5 % of 8 tanks' batch
 * instructions in the avx2 build). */
static void runs(rt__lanes *l) {
  const size_t N = (size_t)l->N;
  for (int i = l->n - 1; i >= 0; i--) {
    const int e = i + 1;
    l->run_end[i] = e < l->n && l->uniform[e] && l->a[e * N] == l->a[i * N] && l->b[e * N] == l->b[i * N]
                        ? l->run_end[e]
                        : e;
  }
}

void rt__lanes_gather(rt__lanes *l, rt_world *const *w, const unsigned char *take, int first) {
  const int N = l->N;
  for (int j = 0; j < N; j++) l->nrow[j] = take[j] ? w[j]->rows.n : 0;
  place(l, w);
  l->from = first < l->n ? first : l->n;
  gather_rows(l, w, l->from, l->n);
  runs(l);
  for (size_t k = 0; k < 6 * (size_t)l->nsbody; k++)
    for (int j = 0; j < N; j++)
      if (take[j]) l->vel[k * N + j] = w[j]->vel[k];
}

void rt__lanes_gather_before(rt__lanes *l, rt_world *const *w) {
  gather_rows(l, w, 0, l->from);
  l->from = 0;
  runs(l);
}

void rt__lanes_scatter(const rt__lanes *l, rt_world *const *w, const unsigned char *take) {
  const int N = l->N;
  for (int i = l->from; i < l->n; i++)
    for (int j = 0; j < N; j++) {
      const size_t d = (size_t)i * (size_t)N + (size_t)j;
      const int k = l->row[d];
      if (!take[j] || k < 0) continue;
      rt__rows *r = &w[j]->rows;
      r->lambda[k] = l->lambda[d];
      r->lo[k] = l->lo[d];
      r->hi[k] = l->hi[d];
    }
  for (size_t k = 0; k < 6 * (size_t)l->nsbody; k++)
    for (int j = 0; j < N; j++)
      if (take[j]) w[j]->vel[k] = l->vel[k * N + j];
}

void rt__lanes_mask(rt__lanes *l, int j, const int *rows, int k) {
  for (int t = 0; t < k; t++)
    if (rows[t] >= l->from && rows[t] < l->nrow[j])
      l->inv_diag[(size_t)l->slot[(size_t)j * (size_t)l->cap + (size_t)rows[t]] * (size_t)l->N + (size_t)j] = 0.0;
}

void rt__lanes_refresh(rt__lanes *l, rt_world *const *w, const unsigned char *take) {
  const int N = l->N;
  for (int i = l->from; i < l->n; i++)
    for (int j = 0; j < N; j++) {
      const size_t d = (size_t)i * (size_t)N + (size_t)j;
      const int k = l->row[d];
      if (!take[j] || k < 0) continue;
      const rt__rows *r = &w[j]->rows;
      l->lambda[d] = r->lambda[k];
      l->lo[d] = r->lo[k];
      l->hi[d] = r->hi[k];
    }
  for (size_t k = 0; k < 6 * (size_t)l->nsbody; k++)
    for (int j = 0; j < N; j++)
      if (take[j]) l->vel[k * N + j] = w[j]->vel[k];
}

/*---- one row in one lane ---------------------------------------------------*/

/* Row i's J and W J^T in lane j, all twelve entries of each (those an
 * equality row's letter leaves out +0), and its masks. */
static void lane_entries(const rt__lanes *l, int i, int j, double *J, double *WJ, int *jm, int *wm) {
  const int N = l->N;
  if (i >= l->dim) {
    *jm = *wm = 0x3f;
    for (int k = 0; k < 12; k++) {
      J[k] = l->J[rt__lanes_at(l, i, k) + (size_t)j];
      WJ[k] = l->WJ[rt__lanes_at(l, i, k) + (size_t)j];
    }
    return;
  }
  rt__lanes_masks(l->letter[i], jm, wm);
  const double *pj = l->eqJ + (size_t)l->jat[i] * N + j, *pw = l->eqWJ + (size_t)l->wat[i] * N + j;
  for (int k = 0; k < 12; k++) {
    J[k] = *jm >> (k % 6) & 1 ? (pj += N)[-N] : 0.0;
    WJ[k] = *wm >> (k % 6) & 1 ? (pw += N)[-N] : 0.0;
  }
}

/* Row i's J v in lane j (J and W J^T into J, WJ), summed as pgs.c's
 * row_dot: side a's products from 0.0, then side b's (a side on the world
 * skipped; an equality row's by its letter, as rt__pgs_residual). */
static double lane_jv(const rt__lanes *l, int i, int j, double *J, double *WJ) {
  const int N = l->N;
  const size_t r = (size_t)i * (size_t)N + (size_t)j;
  const int a = l->a[r], b = l->b[r];
  int jm, wm;
  lane_entries(l, i, j, J, WJ, &jm, &wm);
  double jv = 0.0;
  if (a != RT_WORLD)
    for (int k = 0; k < 6; k++)
      if (jm >> k & 1) jv += J[k] * l->vel[(6 * (size_t)a + (size_t)k) * N + j];
  if (b != RT_WORLD)
    for (int k = 0; k < 6; k++)
      if (jm >> k & 1) jv += J[6 + k] * l->vel[(6 * (size_t)b + (size_t)k) * N + j];
  return jv;
}

/* Row i's impulse in lane j from its J v (inv_diag != 0), within its
 * bounds, which go to *lo and *hi (a friction row's from its normal's
 * impulse as it is now): pgs.c's row_update. */
static double lane_update(const rt__lanes *l, int i, int j, double jv, double *lo, double *hi) {
  const int N = l->N;
  const size_t r = (size_t)i * (size_t)N + (size_t)j;
  const double id = l->inv_diag[r], old = l->lambda[r];
  double x = old + (l->rhs[r] - jv) * id;
  *lo = l->lo[r];
  *hi = l->hi[r];
  if (l->normal[r] >= 0) {
    *hi = l->mu[r] * l->lambda[(size_t)l->normal[r] * N + j];
    *lo = -*hi;
  } else if (l->normal[r] == RT__ROW_SOFT) {
    x -= l->soft[r] * old * id;
  }
  if (x < *lo) x = *lo;
  if (x > *hi) x = *hi;
  return x;
}

/* Whether no row of slots first .. n in lane j would change its velocity
 * by more than tol (|delta lambda| / inv_diag), changing nothing: pgs.c's
 * rt__pgs_rows_settled of that copy. */
static int lane_settled(const rt__lanes *l, int j, int first, double tol) {
  for (int i = first; i < l->n; i++) {
    const size_t r = (size_t)i * (size_t)l->N + (size_t)j;
    const double id = l->inv_diag[r];
    if (id == 0.0) continue;
    double J[12], WJ[12], lo, hi;
    if (fabs(lane_update(l, i, j, lane_jv(l, i, j, J, WJ), &lo, &hi) - l->lambda[r]) / id > tol) return 0;
  }
  return 1;
}

#if defined(__GNUC__) && !defined(LDLPGS_NO_VECTOR)
#define LN 4
#include "batch_pgs_row.h"
#undef LN
#define LN 8
#include "batch_pgs_row.h"
#undef LN
#define LN 16
#include "batch_pgs_row.h"
#undef LN

/* Slots first .. last. */
static void sweep_slots(rt__lanes *l, int first, int last, const long long *act, double *change) {
  switch (l->N) {
  case 4: sweep_4(l, first, last, act, change); break;
  case 8: sweep_8(l, first, last, act, change); break;
  default: sweep_16(l, first, last, act, change); break;
  }
}

void rt__lanes_residual(const rt__lanes *l, int dim, double *res, int stride, double *most) {
  switch (l->N) {
  case 4: residual_4(l, dim, res, (size_t)stride, most); break;
  case 8: residual_8(l, dim, res, (size_t)stride, most); break;
  default: residual_16(l, dim, res, (size_t)stride, most); break;
  }
}

void rt__lanes_correct(rt__lanes *l, int dim, const double *delta, int stride, const unsigned char *act) {
  switch (l->N) {
  case 4: correct_4(l, dim, delta, (size_t)stride, act); break;
  case 8: correct_8(l, dim, delta, (size_t)stride, act); break;
  default: correct_16(l, dim, delta, (size_t)stride, act); break;
  }
}
#else
/* Rows 0 .. dim are the mechanism's equality rows, on the same bodies in
 * every copy: each lane's J v summed as pgs.c's rt__pgs_residual does, by
 * the rows' letters. */
void rt__lanes_residual(const rt__lanes *l, int dim, double *res, int stride, double *most) {
  const int N = l->N;
  for (int j = 0; j < N; j++) most[j] = 0.0;
  for (int i = 0; i < dim; i++)
    for (int j = 0; j < N; j++) {
      const size_t r = (size_t)i * (size_t)N + (size_t)j, o = (size_t)i * (size_t)stride + (size_t)j;
      double J[12], WJ[12];
      res[o] = l->rhs[r] - lane_jv(l, i, j, J, WJ);
      most[j] = rt__most(most[j], fabs(res[o]));
    }
}

/* block.c's lambda += delta and pgs.c's rt__pgs_apply (a row whose delta
 * is 0 moves nothing) in the lanes of act. */
void rt__lanes_correct(rt__lanes *l, int dim, const double *delta, int stride, const unsigned char *act) {
  const int N = l->N;
  for (int i = 0; i < dim; i++)
    for (int j = 0; j < N; j++) {
      const size_t r = (size_t)i * (size_t)N + (size_t)j;
      const double d = delta[(size_t)i * (size_t)stride + (size_t)j];
      if (!act[j]) continue;
      l->lambda[r] += d;
      if (d == 0.0) continue;
      const int a = l->a[r], b = l->b[r];
      double J[12], WJ[12];
      int jm, wm;
      lane_entries(l, i, j, J, WJ, &jm, &wm);
      if (a != RT_WORLD)
        for (int k = 0; k < 6; k++) l->vel[(6 * (size_t)a + (size_t)k) * N + j] += WJ[k] * d;
      if (b != RT_WORLD)
        for (int k = 0; k < 6; k++) l->vel[(6 * (size_t)b + (size_t)k) * N + j] += WJ[6 + k] * d;
    }
}

/* Row i in lane j alone: pgs.c's sweep_row on the lanes' layout; returns
 * how much it changed the row's velocity. */
static double lane_row(rt__lanes *l, int i, int j) {
  const int N = l->N;
  const size_t r = (size_t)i * (size_t)N + (size_t)j;
  const double id = l->inv_diag[r];
  if (id == 0.0) return 0.0;
  double J[12], WJ[12], lo, hi;
  const double old = l->lambda[r], x = lane_update(l, i, j, lane_jv(l, i, j, J, WJ), &lo, &hi);
  if (l->normal[r] >= 0) {
    l->lo[r] = lo;
    l->hi[r] = hi;
  }
  l->lambda[r] = x;
  const double d = x - old;
  const int a = l->a[r], b = l->b[r];
  if (a != RT_WORLD)
    for (int k = 0; k < 6; k++) l->vel[(6 * (size_t)a + (size_t)k) * N + j] += WJ[k] * d;
  if (b != RT_WORLD)
    for (int k = 0; k < 6; k++) l->vel[(6 * (size_t)b + (size_t)k) * N + j] += WJ[6 + k] * d;
  return fabs(d) / id;
}

/* Slots first .. last. */
static void sweep_slots(rt__lanes *l, int first, int last, const long long *act, double *change) {
  for (int j = 0; j < l->N; j++) {
    double c = 0.0;
    if (act[j])
      for (int i = first; i < last; i++) c = rt__most(c, lane_row(l, i, j));
    if (change) change[j] = c;
  }
}
#endif

void rt__lanes_sweep(rt__lanes *l, int first, const long long *act, double *change) {
  sweep_slots(l, first, l->n, act, change);
}

void rt__lanes_first_pass(rt__lanes *l, int dim, int fixed, const long long *act, double tol, const double *ctol,
                          double *change) {
  double joints[RT__LANES_MAX] = {0}, contacts[RT__LANES_MAX] = {0};
  long long rest[RT__LANES_MAX] = {0};
  sweep_slots(l, dim, fixed, act, joints);
  for (int j = 0; j < l->N; j++) rest[j] = act[j] && !(joints[j] <= tol && lane_settled(l, j, fixed, ctol[j])) ? -1 : 0;
  sweep_slots(l, fixed, l->n, rest, contacts);
  for (int j = 0; j < l->N; j++) change[j] = rest[j] ? rt__most(joints[j], contacts[j] * (tol / ctol[j])) : joints[j];
}
