/* test_order.c -- elimination orderings: the talk's 5-node example, chordal
 * graphs, permutations, best <= every heuristic, name tie-breaking. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "order.h"
#include "symbolic.h"
#include "test_util.h"

/* The talk's example: node 0 touches every other node; 1-3 and 2-4.
 * Eliminating 0 first creates 4 edges; 1, 3, 0, 2, 4 creates none. */
static void talk_example(arena *a, cgraph *g) {
  static const int deg[5] = {1, 5, 5, 3, 3};
  static const int eu[6] = {0, 0, 0, 0, 1, 2}, ev[6] = {1, 2, 3, 4, 3, 4};
  cgraph_from_edges(a, 5, deg, NULL, 6, eu, ev, g);
}

static void test_talk_example_fill(void **state) {
  (void)state;
  arena a;
  arena_init(&a);
  cgraph g;
  talk_example(&a, &g);
  int fill;
  const int zero_first[5] = {0, 1, 2, 3, 4};
  symbolic_count(&g, zero_first, &fill);
  assert_int_equal(fill, 4);
  const int perfect[5] = {1, 3, 0, 2, 4};
  symbolic_count(&g, perfect, &fill);
  assert_int_equal(fill, 0);
  int perm[5];
  order_compute(&g, ORDER_MECA, perm, NULL);
  symbolic_count(&g, perm, &fill);
  assert_int_equal(fill, 0);
  assert_true(order_is_permutation(perm, 5));
  arena_free(&a);
}

static void test_meca_no_fill_on_chordal_graphs(void **state) {
  (void)state;
  test_rng r = {42};
  for (int trial = 0; trial < 200; trial++) {
    arena a;
    arena_init(&a);
    cgraph g;
    random_chordal_graph(&a, &r, 2 + rng_int(&r, 60), 1 + rng_int(&r, 30), &g);
    int *perm = ARENA_ARRAY(&a, int, g.n);
    order_compute(&g, ORDER_MECA, perm, NULL);
    int fill = -1;
    symbolic_count(&g, perm, &fill);
    assert_int_equal(fill, 0);
    arena_free(&a);
  }
}

static void test_every_order_is_a_permutation(void **state) {
  (void)state;
  test_rng r = {7};
  for (int trial = 0; trial < 100; trial++) {
    arena a;
    arena_init(&a);
    cgraph g;
    random_graph(&a, &r, 1 + rng_int(&r, 50), rng_int(&r, 40), &g);
    int *perm = ARENA_ARRAY(&a, int, g.n);
    for (int h = 0; h < order_nheuristics(); h++) {
      memset(perm, 0xff, sizeof *perm * (size_t)g.n);
      order_by_heuristic(&g, h, perm);
      assert_true(order_is_permutation(perm, g.n));
    }
    for (int k = 0; k < ORDER_NKINDS; k++) {
      order_compute(&g, (order_kind)k, perm, NULL);
      assert_true(order_is_permutation(perm, g.n));
    }
    arena_free(&a);
  }
  const int bad[3] = {0, 2, 2};
  assert_false(order_is_permutation(bad, 3));
}

static void test_best_never_worse(void **state) {
  (void)state;
  test_rng r = {99};
  for (int trial = 0; trial < 100; trial++) {
    arena a;
    arena_init(&a);
    cgraph g;
    random_graph(&a, &r, 2 + rng_int(&r, 40), 5 + rng_int(&r, 30), &g);
    int *perm = ARENA_ARRAY(&a, int, g.n);
    int64_t best = order_compute(&g, ORDER_BEST, perm, NULL);
    assert_int_equal(best, symbolic_count(&g, perm, NULL));
    for (int k = 0; k < ORDER_NKINDS; k++) assert_true(best <= order_compute(&g, (order_kind)k, perm, NULL));
    for (int h = 0; h < order_nheuristics(); h++) {
      order_by_heuristic(&g, h, perm);
      assert_true(best <= symbolic_count(&g, perm, NULL));
    }
    arena_free(&a);
  }
}

/* A ring of equal nodes: every node ties, so the order is decided by names
 * alone -- renaming changes it, renumbering (same names) does not. */
static void test_ties_break_by_name(void **state) {
  (void)state;
  arena a;
  arena_init(&a);
  static const int deg[4] = {5, 5, 5, 5};
  static const int eu[4] = {0, 1, 2, 3}, ev[4] = {1, 2, 3, 0};
  const char *names[4] = {"d", "b", "c", "a"};
  cgraph g;
  cgraph_from_edges(&a, 4, deg, names, 4, eu, ev, &g);
  int perm[4];
  order_compute(&g, ORDER_MECA, perm, NULL);
  assert_string_equal(names[perm[0]], "a");
  /* the same ring with the nodes numbered the other way round */
  const char *names2[4] = {"a", "c", "b", "d"};
  cgraph g2;
  cgraph_from_edges(&a, 4, deg, names2, 4, eu, ev, &g2);
  int perm2[4];
  order_compute(&g2, ORDER_MECA, perm2, NULL);
  for (int p = 0; p < 4; p++) assert_string_equal(names[perm[p]], names2[perm2[p]]);
  arena_free(&a);
}

static void test_kind_names(void **state) {
  (void)state;
  for (int k = 0; k < ORDER_NKINDS; k++) assert_int_equal(order_parse(order_kind_name((order_kind)k)), k);
  assert_int_equal(order_parse("amd"), -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_talk_example_fill),
      cmocka_unit_test(test_meca_no_fill_on_chordal_graphs),
      cmocka_unit_test(test_every_order_is_a_permutation),
      cmocka_unit_test(test_best_never_worse),
      cmocka_unit_test(test_ties_break_by_name),
      cmocka_unit_test(test_kind_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
