/* test_flopcount.c -- the benchmark's flop conventions (bench/flopcount.c):
 * the block convention agrees with the symbolic phase's flop count, and
 * CHOLMOD's convention (sum of squared column counts) agrees with a dense
 * factor and with the scalar column counts of a block factor. Needs none of
 * the benchmark's libraries. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>

#include "../bench/flopcount.h"
#include "order.h"
#include "symbolic.h"
#include "test_util.h"

/* The fields of an rt_program the flop counts read, from a symbolic
 * factorization of g (solver constraint i = graph node i). */
static rt_program program_of(const cgraph *g, const symbolic *s) {
  rt_program p = {0};
  p.ncons = s->n;
  p.dim = s->dim;
  p.cons_degree = g->degree;
  p.piv_cons = s->perm;
  p.piv_height = s->height;
  return p;
}

static void test_dense(void **state) {
  (void)state;
  assert_true(fc_chol_dense(1) == 1.0);
  assert_true(fc_chol_dense(3) == 14.0); /* 1 + 4 + 9 */
  const long long counts[3] = {3, 2, 1};
  assert_true(fc_chol_counts(counts, 3) == 14.0);
  /* one pivot of degree 6: a dense 6 x 6 factor, no edge column */
  static const int deg[1] = {6};
  static const int zero[1] = {0};
  rt_program p = {0};
  p.ncons = 1;
  p.cons_degree = deg;
  p.piv_cons = zero;
  p.piv_height = zero;
  assert_true(fc_chol_program(&p) == fc_chol_dense(6));
  assert_int_equal(fc_lnz_program(&p), 21);
  assert_true(fabs(fc_block(&p) - 2.0 * 216.0 / 6.0) < 1e-9);
}

static void test_block_matches_symbolic(void **state) {
  (void)state;
  test_rng r = {7};
  for (int trial = 0; trial < 20; trial++) {
    arena a;
    arena_init(&a);
    cgraph g;
    random_graph(&a, &r, 5 + rng_int(&r, 40), 5 + rng_int(&r, 30), &g);
    int *perm = ARENA_ARRAY(&a, int, g.n + 1);
    order_compute(&g, ORDER_BEST, perm, NULL);
    symbolic s;
    symbolic_build(&a, &g, perm, &s);
    rt_program p = program_of(&g, &s);
    assert_true(fabs(fc_block(&p) - (double)s.flops3 / 3.0) <= 1e-9 * (double)s.flops3);
    /* nnz(L) and CHOLMOD's count from the scalar column counts of the
     * block factor: column c of a degree-d pivot holds d - c + h entries */
    long long *count = calloc((size_t)s.dim + 1, sizeof *count), nnz = 0;
    assert_non_null(count);
    for (int q = 0, j = 0; q < s.n; q++)
      for (int c = 0; c < s.degree[q]; c++, j++) {
        count[j] = s.degree[q] - c + s.height[q];
        nnz += count[j];
      }
    assert_true(fc_chol_program(&p) == fc_chol_counts(count, s.dim));
    assert_int_equal(fc_lnz_program(&p), nnz);
    free(count);
    arena_free(&a);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dense),
      cmocka_unit_test(test_block_matches_symbolic),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
