/* test_symbolic.c -- symbolic factorization: RSI structure, the flop
 * convention, fill against a brute-force dense symbolic Cholesky, and a
 * numerical block LDL^T through the packed layout and RSI checked against a
 * dense solve. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "order.h"
#include "symbolic.h"
#include "test_util.h"

/* RSI of every pivot: h(h+1)/2 entries, each inside the workspace, inside a
 * block of the trailing matrix that is on or below the diagonal, no two the
 * same. */
static void check_rsi(const symbolic *s) {
  /* owner of every workspace slot: pivot column, and the local (row, col)
   * for node blocks; -1 = edge block of column owner_piv */
  int *owner = calloc((size_t)s->work_size + 1, sizeof *owner);
  int *lrow = calloc((size_t)s->work_size + 1, sizeof *lrow);
  int *lcol = calloc((size_t)s->work_size + 1, sizeof *lcol);
  unsigned char *is_node = calloc((size_t)s->work_size + 1, 1);
  int *hit = calloc((size_t)s->work_size + 1, sizeof *hit);
  assert_non_null(owner);
  for (int p = 0; p < s->n; p++) {
    int d = s->degree[p];
    for (int r = 0; r < d; r++)
      for (int c = 0; c < d; c++) {
        int o = s->node_off[p] + r * d + c;
        owner[o] = p;
        lrow[o] = r;
        lcol[o] = c;
        is_node[o] = 1;
      }
    for (int k = 0; k < s->height[p] * d; k++) owner[s->edge_off[p] + k] = p;
  }
  for (int p = 0; p < s->n; p++) {
    int64_t h = s->height[p];
    assert_int_equal(s->rsi_adr[p + 1] - s->rsi_adr[p], h * (h + 1) / 2);
    for (int64_t k = s->rsi_adr[p]; k < s->rsi_adr[p + 1]; k++) {
      int o = s->rsi[k];
      assert_true(o >= 0 && o < s->work_size);
      assert_true(owner[o] > p);              /* in the trailing matrix S_p */
      if (is_node[o]) assert_true(lcol[o] <= lrow[o]); /* lower triangle */
      assert_int_not_equal(hit[o], p + 1);    /* no duplicate within p */
      hit[o] = p + 1;
    }
  }
  free(owner);
  free(lrow);
  free(lcol);
  free(is_node);
  free(hit);
}

/* Dense LDL^T of the d x d row-major block n in place (L strictly below the
 * diagonal, D on it). */
static void dense_ldl(double *n, int d) {
  for (int j = 0; j < d; j++) {
    double dj = n[j * d + j];
    for (int k = 0; k < j; k++) dj -= n[j * d + k] * n[j * d + k] * n[k * d + k];
    n[j * d + j] = dj;
    for (int i = j + 1; i < d; i++) {
      double v = n[i * d + j];
      for (int k = 0; k < j; k++) v -= n[i * d + k] * n[j * d + k] * n[k * d + k];
      n[i * d + j] = v / dj;
    }
  }
}

/* x <- N^-1 x with N factored by dense_ldl. */
static void dense_ldl_solve(const double *n, int d, double *x) {
  for (int i = 0; i < d; i++)
    for (int k = 0; k < i; k++) x[i] -= n[i * d + k] * x[k];
  for (int i = 0; i < d; i++) x[i] /= n[i * d + i];
  for (int i = d - 1; i >= 0; i--)
    for (int k = i + 1; k < d; k++) x[i] -= n[k * d + i] * x[k];
}

/* Block LDL^T through the layout and RSI, as docs/DESIGN.md section 3 states. */
static void block_factor(const symbolic *s, double *w) {
  double *tmp = malloc(sizeof *tmp * (size_t)(s->max_col + 1));
  for (int p = 0; p < s->n; p++) {
    int d = s->degree[p], h = s->height[p];
    double *nb = w + s->node_off[p], *e = w + s->edge_off[p];
    dense_ldl(nb, d);
    for (int r = 0; r < h; r++) {
      memcpy(tmp + r * d, e + r * d, sizeof *tmp * (size_t)d);
      dense_ldl_solve(nb, d, tmp + r * d);
    }
    const int32_t *rsi = s->rsi + s->rsi_adr[p];
    for (int r = 0; r < h; r++)
      for (int c = 0; c <= r; c++) {
        double dot = 0;
        for (int k = 0; k < d; k++) dot += e[r * d + k] * tmp[c * d + k];
        w[*rsi++] -= dot;
      }
    memcpy(e, tmp, sizeof *tmp * (size_t)(h * d));
  }
  free(tmp);
}

static void block_solve(const symbolic *s, const double *w, double *x) {
  for (int p = 0; p < s->n; p++) {
    int d = s->degree[p];
    for (int k = s->col_adr[p]; k < s->col_adr[p + 1]; k++) {
      int q = s->col_piv[k], dq = s->degree[q];
      const double *l = w + s->col_off[k];
      for (int r = 0; r < dq; r++)
        for (int c = 0; c < d; c++) x[s->row_off[q] + r] -= l[r * d + c] * x[s->row_off[p] + c];
    }
  }
  for (int p = 0; p < s->n; p++) dense_ldl_solve(w + s->node_off[p], s->degree[p], x + s->row_off[p]);
  for (int p = s->n - 1; p >= 0; p--) {
    int d = s->degree[p];
    for (int k = s->col_adr[p]; k < s->col_adr[p + 1]; k++) {
      int q = s->col_piv[k], dq = s->degree[q];
      const double *l = w + s->col_off[k];
      for (int r = 0; r < dq; r++)
        for (int c = 0; c < d; c++) x[s->row_off[p] + c] -= l[r * d + c] * x[s->row_off[q] + r];
    }
  }
}

/* Random SPD matrix (pivot order, dense) with the block pattern of g. */
static double *random_spd(test_rng *r, const cgraph *g, const symbolic *s) {
  int n = s->dim;
  double *hm = calloc((size_t)n * n, sizeof *hm);
  for (int p = 0; p < s->n; p++)
    for (int q = 0; q <= p; q++) {
      int u = s->perm[p], v = s->perm[q];
      if (p != q && !cgraph_adjacent(g, u, v)) continue;
      for (int i = 0; i < s->degree[p]; i++)
        for (int j = 0; j < s->degree[q]; j++) {
          int ri = s->row_off[p] + i, cj = s->row_off[q] + j;
          if (ri <= cj && p == q) continue;
          double v2 = 2 * rng_unit(r) - 1;
          hm[ri * n + cj] = hm[cj * n + ri] = v2;
        }
    }
  for (int i = 0; i < n; i++) {
    double sum = 1;
    for (int j = 0; j < n; j++) sum += fabs(hm[i * n + j]);
    hm[i * n + i] = sum;
  }
  return hm;
}

static void pack(const symbolic *s, const double *hm, double *w) {
  int n = s->dim;
  memset(w, 0, sizeof *w * (size_t)s->work_size);
  for (int p = 0; p < s->n; p++) {
    int d = s->degree[p], rp = s->row_off[p];
    for (int i = 0; i < d; i++)
      for (int j = 0; j < d; j++) w[s->node_off[p] + i * d + j] = hm[(rp + i) * n + rp + j];
    for (int k = s->col_adr[p]; k < s->col_adr[p + 1]; k++) {
      int q = s->col_piv[k];
      for (int i = 0; i < s->degree[q]; i++)
        for (int j = 0; j < d; j++) w[s->col_off[k] + i * d + j] = hm[(s->row_off[q] + i) * n + rp + j];
    }
  }
}

static void test_block_ldl_matches_dense_solve(void **state) {
  (void)state;
  test_rng r = {1234};
  for (int trial = 0; trial < 60; trial++) {
    arena a;
    arena_init(&a);
    cgraph g;
    random_graph(&a, &r, 1 + rng_int(&r, 30), 5 + rng_int(&r, 40), &g);
    int *perm = ARENA_ARRAY(&a, int, g.n);
    order_compute(&g, (order_kind)(trial % ORDER_NKINDS), perm, NULL);
    symbolic s;
    symbolic_build(&a, &g, perm, &s);
    check_rsi(&s);
    double *hm = random_spd(&r, &g, &s);
    double *w = malloc(sizeof *w * (size_t)(s.work_size + 1));
    pack(&s, hm, w);
    block_factor(&s, w);
    int n = s.dim;
    double *b = malloc(sizeof *b * (size_t)n), *x = malloc(sizeof *x * (size_t)n);
    for (int i = 0; i < n; i++) x[i] = b[i] = 2 * rng_unit(&r) - 1;
    block_solve(&s, w, x);
    double rn = 0, bn = 0;
    for (int i = 0; i < n; i++) {
      double ax = 0;
      for (int j = 0; j < n; j++) ax += hm[i * n + j] * x[j];
      rn += (ax - b[i]) * (ax - b[i]);
      bn += b[i] * b[i];
    }
    assert_true(sqrt(rn) <= 1e-12 * sqrt(bn));
    free(hm);
    free(w);
    free(b);
    free(x);
    arena_free(&a);
  }
}

/* Fill of the block elimination = fill of a dense symbolic Cholesky of the
 * scalar pattern, eliminated row by row in the same order. */
static void test_fill_matches_dense_symbolic_cholesky(void **state) {
  (void)state;
  test_rng r = {555};
  for (int trial = 0; trial < 100; trial++) {
    arena a;
    arena_init(&a);
    cgraph g;
    random_graph(&a, &r, 1 + rng_int(&r, 16), rng_int(&r, 50), &g);
    int *perm = ARENA_ARRAY(&a, int, g.n);
    order_compute(&g, (order_kind)(trial % ORDER_NKINDS), perm, NULL);
    symbolic s;
    symbolic_build(&a, &g, perm, &s);
    int n = s.dim;
    unsigned char *nz = calloc((size_t)n * n, 1);
    int *blk = malloc(sizeof *blk * (size_t)n);
    for (int p = 0; p < s.n; p++)
      for (int i = 0; i < s.degree[p]; i++) blk[s.row_off[p] + i] = p;
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        nz[i * n + j] = blk[i] == blk[j] || cgraph_adjacent(&g, s.perm[blk[i]], s.perm[blk[j]]);
    for (int k = 0; k < n; k++)
      for (int i = k + 1; i < n; i++)
        if (nz[i * n + k])
          for (int j = k + 1; j < n; j++)
            if (nz[j * n + k]) nz[i * n + j] = 1;
    /* block (q, p), q after p, is stored iff any scalar L entry is nonzero */
    int fill = 0;
    for (int p = 0; p < s.n; p++)
      for (int q = p + 1; q < s.n; q++) {
        int any = 0;
        for (int i = 0; i < s.degree[q]; i++)
          for (int j = 0; j < s.degree[p]; j++) any |= nz[(s.row_off[q] + i) * n + s.row_off[p] + j];
        int stored = -1;
        for (int k = s.col_adr[p]; k < s.col_adr[p + 1]; k++)
          if (s.col_piv[k] == q) stored = k;
        assert_int_equal(any, stored >= 0);
        if (stored >= 0) {
          int orig = cgraph_adjacent(&g, s.perm[p], s.perm[q]);
          assert_int_equal(s.col_fill[stored], !orig);
          fill += !orig;
        }
      }
    assert_int_equal(fill, s.nfill);
    int fill2;
    symbolic_count(&g, perm, &fill2);
    assert_int_equal(fill2, s.nfill);
    free(nz);
    free(blk);
    arena_free(&a);
  }
}

/* The talk's flop convention on a closed loop of 40 hinges (dim 200): about
 * 43k flops, computed here by hand from the formula for the order that
 * eliminates around the ring. */
static void test_flop_convention(void **state) {
  (void)state;
  assert_int_equal(symbolic_pivot_flops3(5, 0), 125);
  assert_int_equal(symbolic_pivot_flops3(5, 10), 125 + 6 * 10 * 25 + 3 * 5 * 10 * 11);
  arena a;
  arena_init(&a);
  int deg[40], eu[40], ev[40];
  for (int i = 0; i < 40; i++) {
    deg[i] = 5;
    eu[i] = i;
    ev[i] = (i + 1) % 40;
  }
  cgraph g;
  cgraph_from_edges(&a, 40, deg, NULL, 40, eu, ev, &g);
  int perm[40];
  for (int i = 0; i < 40; i++) perm[i] = i;
  /* eliminating 0, 1, 2, ... around the ring: every column but the last two
   * has two row blocks (the next hinge and the fill to the last one) */
  int64_t expect3 = 0;
  for (int p = 0; p < 40; p++) {
    int h = p < 38 ? 10 : p == 38 ? 5 : 0;
    expect3 += symbolic_pivot_flops3(5, h);
  }
  assert_int_equal(symbolic_count(&g, perm, NULL), expect3);
  symbolic s;
  symbolic_build(&a, &g, perm, &s);
  assert_int_equal(s.flops3, expect3);
  assert_int_equal(s.dim, 200);
  long long flops = symbolic_flops(&s);
  assert_true(flops > 43000 * 0.9 && flops < 43000 * 1.1);
  arena_free(&a);
}

/* Random order of a random graph: the counts (elimination tree and column
 * counts, no elimination) give what the layout built by eliminating has:
 * flops, edge blocks, RSI entries, workspace; on random, chordal and dense
 * graphs, with shuffled orders (deep elimination trees, heavy fill). */
static void test_counts_match_the_layout(void **state) {
  (void)state;
  test_rng r = {4242};
  for (int trial = 0; trial < 300; trial++) {
    arena a;
    arena_init(&a);
    cgraph g;
    if (trial % 3 == 0)
      random_graph(&a, &r, 1 + rng_int(&r, 60), rng_int(&r, 30), &g);
    else if (trial % 3 == 1)
      random_chordal_graph(&a, &r, 2 + rng_int(&r, 50), 1 + rng_int(&r, 25), &g);
    else
      random_graph(&a, &r, 1 + rng_int(&r, 30), 50 + rng_int(&r, 50), &g);
    int *perm = ARENA_ARRAY(&a, int, g.n + 1);
    for (int i = 0; i < g.n; i++) perm[i] = i;
    for (int i = g.n - 1; i > 0; i--) {
      int j = rng_int(&r, i + 1), t = perm[i];
      perm[i] = perm[j];
      perm[j] = t;
    }
    symbolic_totals t;
    symbolic_totals_of(&g, perm, &t);
    symbolic s;
    symbolic_build(&a, &g, perm, &s);
    assert_int_equal(t.flops3, s.flops3);
    assert_int_equal(t.nblock, s.nblock);
    assert_int_equal(t.nrsi, s.nrsi);
    assert_int_equal(t.work, s.work_size);
    arena_free(&a);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_counts_match_the_layout),
      cmocka_unit_test(test_flop_convention),
      cmocka_unit_test(test_block_ldl_matches_dense_solve),
      cmocka_unit_test(test_fill_matches_dense_symbolic_cholesky),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
