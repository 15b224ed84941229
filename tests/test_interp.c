/* test_interp.c -- the program interpreter (runtime/interp.c) and the
 * program entry points (runtime/program.c), on programs built from random
 * constraint graphs with random SPD matrices of their block pattern.
 *
 * What is checked:
 * - bitwise: the interpreter's factor and solve, in float and in double,
 *   against an independent transcription of rt.h's REFERENCE ARITHMETIC (one
 *   rounding per operation, in the stated order). The transcription computes
 *   in double and rounds every result to the precision under test; for
 *   float that is exact, since double has more than 2*24+2 bits, so each
 *   +, -, *, / rounded twice equals the correctly rounded float operation;
 * - accuracy: relative residual against a dense solve (double < 1e-12,
 *   float < 1e-5 on these diagonally dominant matrices);
 * - failure: a non-positive or NaN pivot anywhere is reported as the index
 *   of its pivot (an all-zero workspace as pivot 0), through
 *   rt_interp_factor and rt_program_factor, in both precisions;
 * - dispatch: rt_program_factor/solve call a program's unrolled entry points
 *   when it has them and the interpreter otherwise. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "order.h"
#include "rt.h"
#include "symbolic.h"
#include "test_util.h"

/*---- a program from a graph and its symbolic factorization ------------------*/

typedef struct tprog {
  arena a;
  cgraph g;
  symbolic s;
  rt_program p;
} tprog;

static void tprog_build(tprog *t, test_rng *r, int chordal, order_kind kind, rt_precision prec) {
  arena_init(&t->a);
  int n = 1 + rng_int(r, 25);
  if (chordal)
    random_chordal_graph(&t->a, r, n, 1 + rng_int(r, 12), &t->g);
  else
    random_graph(&t->a, r, n, 5 + rng_int(r, 40), &t->g);
  int *perm = ARENA_ARRAY(&t->a, int, t->g.n + 1);
  order_compute(&t->g, kind, perm, NULL);
  symbolic_build(&t->a, &t->g, perm, &t->s);
  rt_program *p = &t->p;
  memset(p, 0, sizeof *p);
  p->name = "random";
  p->precision = prec;
  p->ncons = t->s.n;
  p->dim = t->s.dim;
  p->work_size = t->s.work_size;
  p->temp_size = t->s.max_col > 0 ? t->s.max_col : 1;
  p->nblk = t->s.nblock;
  p->nrsi = t->s.nrsi;
  /* graph node c = solver constraint c, rows in node order */
  p->cons_degree = t->g.degree;
  int *row = ARENA_ARRAY(&t->a, int, t->g.n + 1);
  for (int c = 0, k = 0; c < t->g.n; c++) {
    row[c] = k;
    k += t->g.degree[c];
  }
  p->cons_row = row;
  p->piv_cons = t->s.perm;
  p->piv_node = t->s.node_off;
  p->piv_edge = t->s.edge_off;
  p->piv_height = t->s.height;
  p->piv_blk_adr = t->s.col_adr;
  p->blk_piv = t->s.col_piv;
  p->blk_off = t->s.col_off;
  p->blk_fill = t->s.col_fill;
  p->piv_rsi_adr = t->s.rsi_adr;
  p->rsi = t->s.rsi;
}

/* Dense SPD matrix (constraint-row order) with the block pattern of g,
 * diagonally dominant; every value representable in float. With scaled,
 * rows and columns are scaled by powers of two in 2^-8 .. 2^8 (an exactly
 * representable, badly scaled but equally well conditioned matrix). */
static double *random_spd(test_rng *r, const tprog *t, int scaled) {
  const rt_program *p = &t->p;
  int n = p->dim;
  double *h = calloc((size_t)n * n + 1, sizeof *h);
  double *scale = calloc((size_t)n + 1, sizeof *scale);
  assert_non_null(h);
  for (int u = 0; u < p->ncons; u++)
    for (int v = 0; v <= u; v++) {
      if (u != v && !cgraph_adjacent(&t->g, u, v)) continue;
      for (int i = 0; i < p->cons_degree[u]; i++)
        for (int j = 0; j < p->cons_degree[v]; j++) {
          int ri = p->cons_row[u] + i, cj = p->cons_row[v] + j;
          if (u == v && cj >= ri) continue;
          double x = (double)(float)(2 * rng_unit(r) - 1);
          h[(size_t)ri * n + cj] = h[(size_t)cj * n + ri] = x;
        }
    }
  for (int i = 0; i < n; i++) {
    double s = 1;
    for (int j = 0; j < n; j++) s += fabs(h[(size_t)i * n + j]);
    h[(size_t)i * n + i] = (double)(float)s;
    scale[i] = scaled ? ldexp(1.0, rng_int(r, 17) - 8) : 1.0;
  }
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) h[(size_t)i * n + j] *= scale[i] * scale[j];
  free(scale);
  return h;
}

/* Packs the dense matrix into a double workspace (fill-in blocks zero). */
static void pack(const rt_program *p, const double *h, double *w) {
  int n = p->dim;
  memset(w, 0, sizeof *w * (size_t)p->work_size);
  for (int piv = 0; piv < p->ncons; piv++) {
    int cp = p->piv_cons[piv], d = p->cons_degree[cp], rp = p->cons_row[cp];
    for (int i = 0; i < d; i++)
      for (int j = 0; j < d; j++) w[p->piv_node[piv] + i * d + j] = h[(size_t)(rp + i) * n + rp + j];
    for (int k = p->piv_blk_adr[piv]; k < p->piv_blk_adr[piv + 1]; k++) {
      int cq = p->piv_cons[p->blk_piv[k]], rq = p->cons_row[cq];
      for (int i = 0; i < p->cons_degree[cq]; i++)
        for (int j = 0; j < d; j++) w[p->blk_off[k] + i * d + j] = h[(size_t)(rq + i) * n + rp + j];
    }
  }
}

/*---- the reference arithmetic, transcribed from rt.h -----------------------*/

static int ref_float; /* 1: round every operation to float */

static double rd(double v) { return ref_float ? (double)(float)v : v; }

/* sum(a[k*sa] * b[k*sb], k = 0..n-1), n >= 1, left to right */
static double ref_sum(int n, const double *a, int sa, const double *b, int sb) {
  double s = rd(a[0] * b[0]);
  for (int k = 1; k < n; k++) s = rd(s + rd(a[k * sa] * b[k * sb]));
  return s;
}

#define AT(m, d, i, j) ((m)[(i) * (d) + (j)])

/* v = l^-1 v (rt.h: forward substitution with a node block's unit lower l) */
static void ref_node_forward(const double *nb, int d, double *v) {
  for (int i = 0; i < d; i++)
    for (int k = 0; k < i; k++) v[i] = rd(v[i] - rd(AT(nb, d, i, k) * v[k]));
}

/* v = l^-T v (rt.h: backward substitution with l^T, from the last row) */
static void ref_node_backward(const double *nb, int d, double *v) {
  for (int i = d - 1; i >= 0; i--)
    for (int k = d - 1; k > i; k--) v[i] = rd(v[i] - rd(AT(nb, d, k, i) * v[k]));
}

static int ref_factor(const rt_program *p, double *w) {
  double *t = calloc((size_t)p->temp_size + 1, sizeof *t);
  const int32_t *rsi = p->rsi;
  double rinv[RT_MAX_DEGREE];
  for (int piv = 0; piv < p->ncons; piv++) {
    int d = p->cons_degree[p->piv_cons[piv]], h = p->piv_height[piv];
    double *nb = w + p->piv_node[piv], *e = w + p->piv_edge[piv];
    for (int j = 0; j < d; j++) {
      double dj = AT(nb, d, j, j), u[RT_MAX_DEGREE];
      if (!(dj > 0)) {
        free(t);
        return piv;
      }
      rinv[j] = rd(1 / dj);
      for (int i = j + 1; i < d; i++) {
        u[i] = AT(nb, d, i, j);
        AT(nb, d, i, j) = rd(u[i] * rinv[j]);
      }
      for (int i = j + 1; i < d; i++) {
        AT(nb, d, i, i) = rd(AT(nb, d, i, i) - rd(rd(u[i] * u[i]) * rinv[j]));
        for (int k = j + 1; k < i; k++) AT(nb, d, i, k) = rd(AT(nb, d, i, k) - rd(AT(nb, d, i, j) * u[k]));
      }
    }
    /* Y (in t) = E l^-T, then E = Y D^-1 */
    for (int r = 0; r < h; r++) {
      memcpy(t + r * d, e + r * d, sizeof *t * (size_t)d);
      ref_node_forward(nb, d, t + r * d);
      for (int i = 0; i < d; i++) e[r * d + i] = rd(t[r * d + i] * rinv[i]);
    }
    int64_t at = p->piv_rsi_adr[piv];
    for (int r = 0; r < h; r++)
      for (int c = 0; c <= r; c++) {
        int32_t o = rsi[at++];
        w[o] = rd(w[o] - ref_sum(d, e + r * d, 1, t + c * d, 1)); /* k = 0..d-1 */
      }
    assert_true(at == p->piv_rsi_adr[piv + 1]);
  }
  free(t);
  return -1;
}

static void ref_solve(const rt_program *p, const double *w, double *x) {
  int np = p->ncons;
  for (int piv = 0; piv < np; piv++) {
    int cp = p->piv_cons[piv], dp = p->cons_degree[cp], rp = p->cons_row[cp];
    const double *nb = w + p->piv_node[piv];
    ref_node_forward(nb, dp, x + rp);
    for (int k = p->piv_blk_adr[piv]; k < p->piv_blk_adr[piv + 1]; k++) {
      int cq = p->piv_cons[p->blk_piv[k]], rq = p->cons_row[cq];
      for (int r = 0; r < p->cons_degree[cq]; r++)
        x[rq + r] = rd(x[rq + r] - ref_sum(dp, w + p->blk_off[k] + r * dp, 1, x + rp, 1));
    }
    for (int i = 0; i < dp; i++) x[rp + i] = rd(x[rp + i] / AT(nb, dp, i, i));
  }
  for (int piv = np - 1; piv >= 0; piv--) {
    int cp = p->piv_cons[piv], dp = p->cons_degree[cp], rp = p->cons_row[cp];
    int h = p->piv_height[piv];
    if (h == 0) {
      ref_node_backward(w + p->piv_node[piv], dp, x + rp);
      continue;
    }
    /* gather the pairs (L_k[r][c], x[R_q + r]) in rt.h's order (blocks and
     * rows from the last), then sum */
    double *lv = calloc((size_t)h, sizeof *lv), *xv = calloc((size_t)h, sizeof *xv);
    for (int c = 0; c < dp; c++) {
      int m = 0;
      for (int k = p->piv_blk_adr[piv + 1] - 1; k >= p->piv_blk_adr[piv]; k--) {
        int cq = p->piv_cons[p->blk_piv[k]], rq = p->cons_row[cq];
        for (int r = p->cons_degree[cq] - 1; r >= 0; r--) {
          lv[m] = w[p->blk_off[k] + r * dp + c];
          xv[m] = x[rq + r];
          m++;
        }
      }
      assert_int_equal(m, h);
      x[rp + c] = rd(x[rp + c] - ref_sum(h, lv, 1, xv, 1));
    }
    free(lv);
    free(xv);
    ref_node_backward(w + p->piv_node[piv], dp, x + rp);
  }
}

/*---- helpers -------------------------------------------------------------------*/

static void *scalars(const rt_program *p, size_t n) {
  void *v = calloc(n + 1, p->precision == RT_FLOAT ? sizeof(float) : sizeof(double));
  assert_non_null(v);
  return v;
}

static void to_prec(const rt_program *p, const double *src, void *dst, int n) {
  for (int i = 0; i < n; i++) {
    if (p->precision == RT_FLOAT)
      ((float *)dst)[i] = (float)src[i];
    else
      ((double *)dst)[i] = src[i];
  }
}

static double get(const rt_program *p, const void *v, int i) {
  return p->precision == RT_FLOAT ? (double)((const float *)v)[i] : ((const double *)v)[i];
}

/* 1 if v (program precision) equals ref (double holding rounded values)
 * bit for bit. */
static int same_bits(const rt_program *p, const void *v, const double *ref, int n) {
  for (int i = 0; i < n; i++) {
    if (p->precision == RT_FLOAT) {
      float a = ((const float *)v)[i], b = (float)ref[i];
      if (memcmp(&a, &b, sizeof a) != 0) return 0;
    } else if (memcmp((const double *)v + i, ref + i, sizeof(double)) != 0) {
      return 0;
    }
  }
  return 1;
}

static void dense_solve(const double *h, int n, const double *b, double *x) {
  double *a = malloc(sizeof *a * ((size_t)n * n + 1));
  assert_non_null(a);
  memcpy(a, h, sizeof *a * (size_t)n * n);
  for (int j = 0; j < n; j++) {
    double d = a[(size_t)j * n + j];
    for (int k = 0; k < j; k++) d -= a[(size_t)j * n + k] * a[(size_t)j * n + k] * a[(size_t)k * n + k];
    assert_true(d > 0);
    a[(size_t)j * n + j] = d;
    for (int i = j + 1; i < n; i++) {
      double v = a[(size_t)i * n + j];
      for (int k = 0; k < j; k++) v -= a[(size_t)i * n + k] * a[(size_t)j * n + k] * a[(size_t)k * n + k];
      a[(size_t)i * n + j] = v / d;
    }
  }
  memcpy(x, b, sizeof *x * (size_t)n);
  for (int i = 0; i < n; i++)
    for (int k = 0; k < i; k++) x[i] -= a[(size_t)i * n + k] * x[k];
  for (int i = 0; i < n; i++) x[i] /= a[(size_t)i * n + i];
  for (int i = n - 1; i >= 0; i--)
    for (int k = i + 1; k < n; k++) x[i] -= a[(size_t)k * n + i] * x[k];
  free(a);
}

/*---- tests ---------------------------------------------------------------------*/

/* Interpreter == reference arithmetic, bit for bit, and accurate. */
static void test_bitwise_reference_and_accuracy(void **state) {
  (void)state;
  test_rng r = {20240601};
  double worst[2] = {0, 0};
  for (int trial = 0; trial < 160; trial++) {
    rt_precision prec = (rt_precision)(trial & 1);
    int scaled = (trial >> 1) & 1;
    tprog t;
    tprog_build(&t, &r, (trial >> 2) & 1, (order_kind)((trial >> 3) % ORDER_NKINDS), prec);
    const rt_program *p = &t.p;
    int n = p->dim;
    double *h = random_spd(&r, &t, scaled);
    double *w = calloc((size_t)p->work_size + 1, sizeof *w);
    pack(p, h, w);
    void *work = scalars(p, (size_t)p->work_size), *temp = scalars(p, (size_t)p->temp_size);
    to_prec(p, w, work, p->work_size);
    for (int i = 0; i < p->work_size; i++) w[i] = get(p, work, i); /* the reference starts from the same values */

    ref_float = prec == RT_FLOAT;
    assert_int_equal(ref_factor(p, w), -1);
    assert_int_equal(rt_interp_factor(p, work, temp), -1);
    assert_true(same_bits(p, work, w, p->work_size));

    double *b = calloc((size_t)n + 1, sizeof *b), *x = calloc((size_t)n + 1, sizeof *x);
    double *xd = calloc((size_t)n + 1, sizeof *xd);
    void *xs = scalars(p, (size_t)n);
    for (int i = 0; i < n; i++) b[i] = (double)(float)(2 * rng_unit(&r) - 1);
    to_prec(p, b, xs, n);
    memcpy(x, b, sizeof *x * (size_t)n);
    ref_solve(p, w, x);
    rt_interp_solve(p, work, xs);
    assert_true(same_bits(p, xs, x, n));

    /* accuracy against a dense solve of the (unscaled) matrix */
    if (!scaled) {
      for (int i = 0; i < n; i++) x[i] = get(p, xs, i);
      dense_solve(h, n, b, xd);
      double res = rel_residual(h, n, x, b);
      worst[prec] = fmax(worst[prec], res);
      assert_true(res < (prec == RT_FLOAT ? 1e-5 : 1e-12));
      assert_true(rel_residual(h, n, xd, b) < 1e-12);
    }
    free(h);
    free(w);
    free(work);
    free(temp);
    free(b);
    free(x);
    free(xd);
    free(xs);
    arena_free(&t.a);
  }
  print_message("largest relative residual: float %.3g, double %.3g\n", worst[RT_FLOAT], worst[RT_DOUBLE]);
}

/* A pivot whose node block is not positive definite is reported by index. */
static void test_failing_pivot_reported(void **state) {
  (void)state;
  test_rng r = {777};
  for (int trial = 0; trial < 80; trial++) {
    rt_precision prec = (rt_precision)(trial & 1);
    tprog t;
    tprog_build(&t, &r, (trial >> 1) & 1, ORDER_BEST, prec);
    const rt_program *p = &t.p;
    double *h = random_spd(&r, &t, 0);
    double *w = calloc((size_t)p->work_size + 1, sizeof *w);
    void *work = scalars(p, (size_t)p->work_size), *temp = scalars(p, (size_t)p->temp_size);

    /* all zero: the first pivot's first D is 0 */
    to_prec(p, w, work, p->work_size);
    assert_int_equal(rt_interp_factor(p, work, temp), 0);
    assert_int_equal(rt_program_factor(p, work, temp), 0);
    for (int i = 0; i < p->work_size; i++) assert_true(isfinite(get(p, work, i)));

    /* pivot k broken at column j (negative, zero or NaN diagonal): earlier
     * pivots never read N_k's diagonal, and everything subtracted from it
     * (Schur updates E N^-1 E^T, then l^2 D within the block) is >= 0 */
    int k = rng_int(&r, p->ncons);
    int d = p->cons_degree[p->piv_cons[k]], j = rng_int(&r, d);
    static const double bad[3] = {-1e30, 0.0, NAN};
    double v = bad[trial % 3];
    pack(p, h, w);
    w[p->piv_node[k] + j * d + j] = v;
    to_prec(p, w, work, p->work_size);
    assert_int_equal(rt_interp_factor(p, work, temp), k);
    to_prec(p, w, work, p->work_size);
    assert_int_equal(rt_program_factor(p, work, temp), k);

    /* an indefinite 2x2 leading minor: D_1 = 1 - 4 < 0 */
    if (d >= 2) {
      pack(p, h, w);
      int o = p->piv_node[k];
      w[o] = 1;
      w[o + 1] = w[o + d] = 2;
      w[o + d + 1] = 1;
      to_prec(p, w, work, p->work_size);
      assert_int_equal(rt_interp_factor(p, work, temp), k);
    }
    free(h);
    free(w);
    free(work);
    free(temp);
    arena_free(&t.a);
  }
}

/* A single pivot with no edge column (h = 0) and a 1x1 block. */
static void test_small_programs(void **state) {
  (void)state;
  arena a;
  arena_init(&a);
  const int deg[2] = {1, 6};
  for (int which = 0; which < 2; which++) {
    cgraph g;
    cgraph_from_edges(&a, 1, deg + which, NULL, 0, NULL, NULL, &g);
    int perm[1] = {0};
    symbolic s;
    symbolic_build(&a, &g, perm, &s);
    assert_int_equal(s.height[0], 0);
    int d = deg[which];
    double w[36], x[6], b[6];
    for (int i = 0; i < d; i++)
      for (int j = 0; j < d; j++) w[i * d + j] = i == j ? 4.0 + i : 1.0 / (1 + i + j);
    double h[36];
    memcpy(h, w, sizeof h);
    rt_program p;
    memset(&p, 0, sizeof p);
    int row0 = 0;
    p.precision = RT_DOUBLE;
    p.ncons = 1;
    p.dim = d;
    p.work_size = s.work_size;
    p.temp_size = 1;
    p.cons_degree = g.degree;
    p.cons_row = &row0;
    p.piv_cons = s.perm;
    p.piv_node = s.node_off;
    p.piv_edge = s.edge_off;
    p.piv_height = s.height;
    p.piv_blk_adr = s.col_adr;
    p.blk_piv = s.col_piv;
    p.blk_off = s.col_off;
    p.piv_rsi_adr = s.rsi_adr;
    p.rsi = s.rsi;
    double temp[1];
    assert_int_equal(rt_program_factor(&p, w, temp), -1);
    for (int i = 0; i < d; i++) x[i] = b[i] = 1.0 + i;
    rt_program_solve(&p, w, x);
    assert_true(rel_residual(h, d, x, b) < 1e-14);
  }
  arena_free(&a);
}

/*---- dispatch ------------------------------------------------------------------*/

static int fake_factor_calls, fake_solve_calls;

static int fake_factor(void *work, void *temp) {
  (void)temp;
  fake_factor_calls++;
  ((double *)work)[0] = 123.0;
  return 5;
}

static void fake_solve(const void *work, void *x) {
  (void)work;
  fake_solve_calls++;
  ((double *)x)[0] = 42.0;
}

static void test_program_dispatch(void **state) {
  (void)state;
  test_rng r = {99};
  tprog t;
  tprog_build(&t, &r, 0, ORDER_BEST, RT_DOUBLE);
  rt_program *p = &t.p;
  int n = p->dim;
  double *h = random_spd(&r, &t, 0);
  double *w1 = calloc((size_t)p->work_size + 1, sizeof *w1), *w2 = calloc((size_t)p->work_size + 1, sizeof *w2);
  double *temp = calloc((size_t)p->temp_size + 1, sizeof *temp);
  double *x1 = calloc((size_t)n + 1, sizeof *x1), *x2 = calloc((size_t)n + 1, sizeof *x2);
  pack(p, h, w1);
  memcpy(w2, w1, sizeof *w1 * (size_t)p->work_size);
  /* no entry points: the interpreter */
  assert_int_equal(rt_program_factor(p, w1, temp), -1);
  assert_int_equal(rt_interp_factor(p, w2, temp), -1);
  assert_memory_equal(w1, w2, sizeof *w1 * (size_t)p->work_size);
  for (int i = 0; i < n; i++) x1[i] = x2[i] = rng_unit(&r);
  rt_program_solve(p, w1, x1);
  rt_interp_solve(p, w2, x2);
  assert_memory_equal(x1, x2, sizeof *x1 * (size_t)n);
  /* unrolled entry points are preferred */
  p->factor = fake_factor;
  p->solve = fake_solve;
  assert_int_equal(rt_program_factor(p, w1, temp), 5);
  assert_true(w1[0] == 123.0);
  rt_program_solve(p, w1, x1);
  assert_true(x1[0] == 42.0);
  assert_int_equal(fake_factor_calls, 1);
  assert_int_equal(fake_solve_calls, 1);
  free(h);
  free(w1);
  free(w2);
  free(temp);
  free(x1);
  free(x2);
  arena_free(&t.a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bitwise_reference_and_accuracy),
      cmocka_unit_test(test_failing_pivot_reported),
      cmocka_unit_test(test_small_programs),
      cmocka_unit_test(test_program_dispatch),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
