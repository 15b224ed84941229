/* test_order.c -- elimination orderings: the talk's 5-node example, chordal
 * graphs, permutations, best <= every heuristic, name tie-breaking; every
 * heuristic against a reference (the greedy rule evaluated from scratch on
 * a dense adjacency matrix at every step, as ldlgen did before it kept
 * counts), the work budget, and work that grows linearly on chains, rings
 * and ladders. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "order.h"
#include "shatter.h"
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
    /* the natural order (declaration order) wins only by more than the
     * margin, so best may exceed it by up to that */
    int64_t natural = order_compute(&g, ORDER_NATURAL, perm, NULL);
    assert_true(best * (100 - ORDER_NATURAL_MARGIN) <= natural * 100);
    for (int k = ORDER_MDA; k <= ORDER_MECA; k++) assert_true(best <= order_compute(&g, (order_kind)k, perm, NULL));
    /* balanced: as few flops as every greedy heuristic, the level variants
     * too (best leaves those out, and beats balanced only by the natural
     * order, which neither takes unless it saves more than the margin) */
    const char *chosen = NULL;
    int64_t balanced = order_compute(&g, ORDER_BALANCED, perm, &chosen);
    assert_int_equal(balanced, symbolic_count(&g, perm, NULL));
    assert_true(balanced * (100 - ORDER_NATURAL_MARGIN) <= natural * 100);
    if (strcmp(chosen, "natural") != 0) assert_true(balanced <= best);
    for (int h = 1; h < order_nheuristics(); h++) {
      order_by_heuristic(&g, h, perm);
      const int64_t f = symbolic_count(&g, perm, NULL);
      if (strstr(order_heuristic_name(h), "-level") == NULL) assert_true(best <= f);
      if (strcmp(chosen, "natural") != 0) assert_true(balanced <= f);
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

//---- the reference: every key from scratch, every step ---------------------------

/* Key terms by heuristic, the table of order.c (same order), and whether
 * ties go by the level in the elimination tree first. */
enum { R_NONE, R_DEG, R_HGT, R_FILL, R_AREA, R_FLOPS };
static const int ref_keys[][3] = {{R_NONE, R_NONE, 0},  {R_DEG, R_NONE, 0},   {R_FILL, R_DEG, 0},
                                  {R_HGT, R_NONE, 0},   {R_FILL, R_HGT, 0},   {R_AREA, R_HGT, 0},
                                  {R_FILL, R_FLOPS, 0}, {R_AREA, R_FLOPS, 0}, {R_FLOPS, R_FILL, 0},
                                  {R_DEG, R_NONE, 1},   {R_FILL, R_DEG, 1}};

static int64_t ref_term(const cgraph *g, const unsigned char *adj, const unsigned char *done, int v, int t) {
  int n = g->n;
  int64_t deg = 0, h = 0, fill = 0, area = 0;
  for (int u = 0; u < n; u++) {
    if (done[u] || !adj[v * n + u]) continue;
    deg++;
    h += g->degree[u];
    for (int w = u + 1; w < n; w++)
      if (!done[w] && adj[v * n + w] && !adj[u * n + w]) {
        fill++;
        area += (int64_t)g->degree[u] * g->degree[w];
      }
  }
  switch (t) {
  case R_DEG: return deg;
  case R_HGT: return h;
  case R_FILL: return fill;
  case R_AREA: return area;
  case R_FLOPS: return symbolic_pivot_flops3(g->degree[v], h);
  }
  return 0;
}

static void ref_order(const cgraph *g, int hi, int *perm) {
  int n = g->n;
  unsigned char *adj = calloc((size_t)n * n + 1, 1), *done = calloc((size_t)n + 1, 1);
  int *level = calloc((size_t)n + 1, sizeof *level); /* the longest chain of pivots below */
  assert_non_null(adj);
  assert_non_null(level);
  for (int i = 0; i < n; i++)
    for (int k = g->adr[i]; k < g->adr[i + 1]; k++) adj[i * n + g->adj[k]] = 1;
  for (int p = 0; p < n; p++) {
    int best = -1;
    int64_t b0 = 0, b1 = 0;
    for (int v = 0; v < n; v++) {
      if (done[v]) continue;
      if (ref_keys[hi][0] == R_NONE) {
        best = v;
        break;
      }
      int64_t k0 = ref_term(g, adj, done, v, ref_keys[hi][0]), k1 = ref_term(g, adj, done, v, ref_keys[hi][1]);
      const int lv = ref_keys[hi][2] ? level[v] : 0, lb = best < 0 ? 0 : ref_keys[hi][2] ? level[best] : 0;
      if (best < 0 || k0 < b0 ||
          (k0 == b0 && (k1 < b1 || (k1 == b1 && (lv < lb || (lv == lb && g->rank[v] < g->rank[best])))))) {
        best = v;
        b0 = k0;
        b1 = k1;
      }
    }
    perm[p] = best;
    for (int u = 0; u < n; u++)
      if (!done[u] && u != best && adj[best * n + u] && level[u] < level[best] + 1) level[u] = level[best] + 1;
    for (int u = 0; u < n; u++)
      for (int w = 0; w < n; w++)
        if (u != w && !done[u] && !done[w] && adj[best * n + u] && adj[best * n + w]) adj[u * n + w] = 1;
    done[best] = 1;
  }
  free(adj);
  free(done);
  free(level);
}

/* A random mechanism's constraint graph through cgraph_build: bodies (a few
 * fixed), constraints between random pairs of bodies or a body and the
 * world, hubs and parallel constraints included. Elements are then bodies. */
static void random_mechanism_graph(arena *a, test_rng *r, int nbody, int ncons, cgraph *g) {
  smech s;
  memset(&s, 0, sizeof s);
  s.nbody = nbody;
  s.body_fixed = ARENA_ARRAY(a, unsigned char, nbody + 1);
  for (int b = 0; b < nbody; b++) s.body_fixed[b] = rng_int(r, 8) == 0;
  s.ncons = ncons;
  s.cons_a = ARENA_ARRAY(a, int, ncons + 1);
  s.cons_b = ARENA_ARRAY(a, int, ncons + 1);
  s.cons_degree = ARENA_ARRAY(a, int, ncons + 1);
  s.cons_name = ARENA_ARRAY(a, const char *, ncons + 1);
  int hub = rng_int(r, nbody);
  for (int c = 0; c < ncons; c++) {
    int x = rng_int(r, 3) == 0 ? hub : rng_int(r, nbody), y = rng_int(r, nbody + 1) - 1;
    if (y == x) y = -1;
    s.cons_a[c] = y;
    s.cons_b[c] = x;
    s.cons_degree[c] = 1 + rng_int(r, 6);
    char buf[32];
    snprintf(buf, sizeof buf, "k%d", (int)(rng_next(r) % 1000));
    s.cons_name[c] = arena_strdup(a, buf);
  }
  cgraph_build(a, &s, g);
}

static void check_against_reference(const cgraph *g) {
  int *perm = malloc(sizeof *perm * (size_t)(g->n + 1)), *ref = malloc(sizeof *ref * (size_t)(g->n + 1));
  for (int h = 0; h < order_nheuristics(); h++) {
    order_by_heuristic(g, h, perm);
    ref_order(g, h, ref);
    for (int p = 0; p < g->n; p++)
      if (perm[p] != ref[p])
        fail_msg("heuristic %s, n %d: pivot %d is %s, the reference has %s", order_heuristic_name(h), g->n, p,
                 g->name[perm[p]], g->name[ref[p]]);
  }
  free(perm);
  free(ref);
}

/* Every heuristic gives the reference's order, pivot for pivot: on random
 * graphs (elements = edges), chordal graphs and mechanism graphs (elements =
 * bodies, overlapping where constraints are parallel). */
static void test_heuristics_match_the_reference(void **state) {
  (void)state;
  test_rng r = {2024};
  /* the reference is O(n^4): mostly small graphs (valgrind), a few of 45
   * nodes, where approximate degrees would differ from exact ones */
  for (int trial = 0; trial < 40; trial++) {
    arena a;
    arena_init(&a);
    cgraph g;
    random_graph(&a, &r, 1 + rng_int(&r, trial < 10 ? 45 : 30), rng_int(&r, 40), &g);
    check_against_reference(&g);
    random_chordal_graph(&a, &r, 2 + rng_int(&r, 30), 1 + rng_int(&r, 15), &g);
    check_against_reference(&g);
    random_mechanism_graph(&a, &r, 2 + rng_int(&r, 20), 1 + rng_int(&r, 36), &g);
    check_against_reference(&g);
    arena_free(&a);
  }
}

/* A clique of 200 nodes: its triangles alone are over the fill heuristics'
 * budget, so they are left out; --order meca is minimum degree then, and
 * best still returns a permutation with the fewest flops it found. */
static void test_budget_cuts_fill_heuristics(void **state) {
  (void)state;
  arena a;
  arena_init(&a);
  enum { N = 200 };
  int *deg = ARENA_ARRAY(&a, int, N), *eu = ARENA_ARRAY(&a, int, N * N), *ev = ARENA_ARRAY(&a, int, N * N);
  int ne = 0;
  for (int i = 0; i < N; i++) {
    deg[i] = 1 + i % 6;
    for (int j = i + 1; j < N; j++) {
      eu[ne] = i;
      ev[ne++] = j;
    }
  }
  cgraph g;
  cgraph_from_edges(&a, N, deg, NULL, ne, eu, ev, &g);
  int *perm = ARENA_ARRAY(&a, int, N);
  order_result r;
  order_run(&g, ORDER_MECA, perm, &r);
  assert_true(r.cut > 0);
  assert_string_equal(r.heuristic, "mda");
  assert_true(order_is_permutation(perm, N));
  assert_int_equal(r.flops3[ORDER_MECA], r.flops3[ORDER_MDA]);
  order_run(&g, ORDER_BEST, perm, &r);
  assert_true(order_is_permutation(perm, N));
  assert_int_equal(r.totals.flops3, r.flops3[ORDER_BEST]);
  assert_int_equal(r.totals.flops3, symbolic_count(&g, perm, NULL));
  assert_true(r.flops3[ORDER_BEST] <= r.flops3[ORDER_MDA] && r.flops3[ORDER_BEST] <= r.flops3[ORDER_NATURAL]);
  arena_free(&a);
}

/* Chains, rings and ladders (two chains with rungs) of n and 4n nodes: all
 * of the ordering work (every kind) grows at most linearly, give or take
 * 10 %. Names are shuffled so that ties fall all over the graph. */
static int64_t work_of(int shape, int n) {
  arena a;
  arena_init(&a);
  int *deg = ARENA_ARRAY(&a, int, n), *eu = ARENA_ARRAY(&a, int, 2 * n), *ev = ARENA_ARRAY(&a, int, 2 * n);
  const char **names = ARENA_ARRAY(&a, const char *, n);
  test_rng r = {(uint64_t)n};
  int ne = 0;
  for (int i = 0; i < n; i++) {
    deg[i] = 1 + i % 6;
    char buf[32];
    snprintf(buf, sizeof buf, "c%llu", (unsigned long long)(rng_next(&r) % 100000000));
    names[i] = arena_strdup(&a, buf);
    if (shape == 2) { /* ladder: i-(i+2), and a rung every other pair */
      if (i + 2 < n) eu[ne] = i, ev[ne++] = i + 2;
      if (i % 4 == 0 && i + 1 < n) eu[ne] = i, ev[ne++] = i + 1;
    } else if (i + 1 < n || shape == 1) {
      eu[ne] = i;
      ev[ne++] = (i + 1) % n;
    }
  }
  cgraph g;
  cgraph_from_edges(&a, n, deg, names, ne, eu, ev, &g);
  int *perm = ARENA_ARRAY(&a, int, n);
  order_result res;
  order_run(&g, ORDER_BEST, perm, &res);
  assert_int_equal(res.cut, 0);
  arena_free(&a);
  return res.work;
}

/* A path of 11 equal nodes named along it (a hanging chain): minimum degree
 * with ties by name walks it from one end, a critical path of all 11
 * pivots, and so does best (one part added at an end moves no other
 * pivot); balanced takes as many flops from both ends at once, which
 * halves the path the factor must follow (symbolic_totals.span3). */
static void test_balanced_takes_the_shorter_critical_path(void **state) {
  (void)state;
  arena a;
  arena_init(&a);
  enum { N = 11 };
  int deg[N], eu[N - 1], ev[N - 1];
  const char *names[N];
  char buf[N][16];
  for (int i = 0; i < N; i++) {
    deg[i] = 3;
    snprintf(buf[i], sizeof buf[i], "n%02d", i);
    names[i] = buf[i];
    if (i + 1 < N) {
      eu[i] = i;
      ev[i] = i + 1;
    }
  }
  cgraph g;
  cgraph_from_edges(&a, N, deg, names, N - 1, eu, ev, &g);
  int best[N], bal[N];
  const char *chosen = NULL;
  const int64_t f_best = order_compute(&g, ORDER_BEST, best, NULL);
  const int64_t f_bal = order_compute(&g, ORDER_BALANCED, bal, &chosen);
  assert_int_equal(f_bal, f_best);
  symbolic_totals t_best, t_bal;
  symbolic_totals_of(&g, best, &t_best);
  symbolic_totals_of(&g, bal, &t_bal);
  for (int p = 0; p < N; p++) assert_int_equal(best[p], p); /* one end to the other */
  assert_int_equal(t_best.span3, t_best.flops3);            /* every pivot on the path */
  assert_true(2 * t_bal.span3 <= t_best.span3 + t_best.flops3 / N);
  assert_string_equal(chosen, "mda-level");
  assert_true((bal[0] == 0 && bal[1] == N - 1) || (bal[0] == N - 1 && bal[1] == 0));
  order_result r;
  order_run(&g, ORDER_BALANCED, bal, &r);
  assert_int_equal(r.flops3[ORDER_BALANCED], f_bal);
  assert_int_equal(r.flops3[ORDER_BEST], f_best);
  order_run(&g, ORDER_BEST, best, &r);
  assert_int_equal(r.flops3[ORDER_BALANCED], -1); /* not run unless asked for */
  arena_free(&a);
}

static void test_work_grows_linearly(void **state) {
  (void)state;
  for (int shape = 0; shape < 3; shape++) {
    int64_t w1 = work_of(shape, 5000), w4 = work_of(shape, 20000);
    if (w4 > 4.4 * (double)w1) fail_msg("shape %d: work %lld for 5000 nodes, %lld for 20000", shape, (long long)w1, (long long)w4);
  }
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
      cmocka_unit_test(test_balanced_takes_the_shorter_critical_path),
      cmocka_unit_test(test_kind_names),
      cmocka_unit_test(test_heuristics_match_the_reference),
      cmocka_unit_test(test_budget_cuts_fill_heuristics),
      cmocka_unit_test(test_work_grows_linearly),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
