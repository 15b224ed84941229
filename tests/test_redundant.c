/* test_redundant.c -- the rank of the equality rows (gen/redundant.c)
 * against a dense rank of J with complete pivoting, on every sample and on
 * small loops whose redundancy is known by hand; the joint types it
 * suggests; and that the generated program does not depend on it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load.h"
#include "numeric.h"
#include "program.h"
#include "redundant.h"

typedef struct built {
  arena a;
  mech m;
  program p;
} built;

static void build_from(built *b, const char *path, const char *src) {
  arena_init(&b->a);
  diag_list d;
  diag_init(&d);
  program_options o;
  program_default_options(&o);
  gen_status st = src ? load_mech_string(&b->a, path, src, NULL, &b->m, &d) : load_mech(&b->a, path, NULL, &b->m, &d);
  if (st == GEN_OK) st = program_build(&b->a, &b->m, &o, &b->p, &d);
  if (st != GEN_OK) diag_print(&d, stderr);
  diag_free(&d);
  assert_int_equal(st, GEN_OK);
}

/* Rank of the dim x (6 x dynamic solver bodies) Jacobian at the initial
 * pose by Gaussian elimination with complete pivoting: the rank of
 * J W J^T, W being positive definite on the dynamic bodies. */
static int dense_rank(const program *p) {
  arena a;
  arena_init(&a);
  numeric num;
  numeric_build(&a, p, &num);
  const smech *s = &p->s;
  const int rows = s->dim, cols = 6 * s->nbody;
  double *A = calloc((size_t)rows * (size_t)cols + 1, sizeof *A);
  assert_non_null(A);
  for (int c = 0; c < s->ncons; c++)
    for (int r = 0; r < s->cons_degree[c]; r++) {
      const double *j = num.J + 12 * (size_t)(num.row[c] + r);
      const int side[2] = {s->cons_a[c], s->cons_b[c]};
      for (int k = 0; k < 2; k++) {
        if (side[k] == MECH_WORLD || s->body_fixed[side[k]]) continue;
        for (int q = 0; q < 6; q++) A[(size_t)(num.row[c] + r) * cols + 6 * side[k] + q] += j[6 * k + q];
      }
    }
  double amax = 0.0;
  for (size_t i = 0; i < (size_t)rows * cols; i++) amax = fmax(amax, fabs(A[i]));
  int rank = 0;
  for (int k = 0; k < rows && k < cols; k++) {
    int pr = -1, pc = -1;
    double best = 0.0;
    for (int i = k; i < rows; i++)
      for (int j = k; j < cols; j++)
        if (fabs(A[(size_t)i * cols + j]) > best) {
          best = fabs(A[(size_t)i * cols + j]);
          pr = i;
          pc = j;
        }
    if (!(best > 1e-9 * amax)) break;
    for (int j = 0; j < cols; j++) { /* swap rows k, pr */
      const double t = A[(size_t)k * cols + j];
      A[(size_t)k * cols + j] = A[(size_t)pr * cols + j];
      A[(size_t)pr * cols + j] = t;
    }
    for (int i = 0; i < rows; i++) { /* swap columns k, pc */
      const double t = A[(size_t)i * cols + k];
      A[(size_t)i * cols + k] = A[(size_t)i * cols + pc];
      A[(size_t)i * cols + pc] = t;
    }
    for (int i = k + 1; i < rows; i++) {
      const double f = A[(size_t)i * cols + k] / A[(size_t)k * cols + k];
      for (int j = k; j < cols; j++) A[(size_t)i * cols + j] -= f * A[(size_t)k * cols + j];
    }
    rank++;
  }
  free(A);
  arena_free(&a);
  return rank;
}

/* r's rank against the dense rank of J, the rows it lists against the
 * rank, in mechanism order, with no shard weld among them. */
static void expect_rank(const char *what, const built *b, const redundant *r) {
  const int dense = dense_rank(&b->p);
  if (r->rank != dense) fail_msg("%s: rank %d, dense rank %d", what, r->rank, dense);
  int listed = 0;
  for (int k = 0; k < r->ncons; k++) {
    listed += redundant_count(r->rows[k]);
    const int orig = b->p.s.cons_orig[r->cons[k]];
    if (orig < 0) fail_msg("%s: shard weld '%s' named", what, b->p.s.cons_name[r->cons[k]]);
    if (k > 0 && !(b->p.s.cons_orig[r->cons[k - 1]] < orig)) fail_msg("%s: not in mechanism order", what);
  }
  assert_int_equal(listed, r->dim - r->rank);
}

static void test_samples_match_dense_rank(void **state) {
  (void)state;
  static const char *const names[] = {"buggy", "chain", "elimination_example", "multi_wheel", "scissor_lift", "tank",
                                      "track"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/mechanisms/%s.lua", SRC_DIR, names[i]);
    built b;
    build_from(&b, path, NULL);
    redundant r;
    assert_int_equal(redundant_analyze(&b.a, &b.p, &r), 0);
    expect_rank(names[i], &b, &r);
    arena_free(&b.a);
  }
}

/* A closed loop of n hinges with parallel axes (a planar n-bar ring,
 * floating): out-of-plane translation and the two tilts are imposed n
 * times: 3 redundant rows, on the hinge eliminated last. */
static void test_planar_ring(void **state) {
  (void)state;
  static const char src[] =
      "local m = { name = 'ring', bodies = {}, constraints = {} }\n"
      "local n = 6\n"
      "for i = 1, n do\n"
      "  local a = 2 * math.pi * (i - 0.5) / n\n"
      "  m.bodies[i] = { name = 'link' .. i, mass = 1 + i, box = { 0.1, 0.1, 0.4 },\n"
      "                  pos = { math.cos(a), 0, math.sin(a) } }\n"
      "end\n"
      "for i = 1, n do\n"
      "  local a = 2 * math.pi * i / n\n"
      "  m.constraints[i] = { name = 'pin' .. i, type = 'hinge', a = 'link' .. i,\n"
      "    b = 'link' .. (i % n + 1), anchor = { math.cos(a), 0, math.sin(a) }, axis = { 0, 1, 0 } }\n"
      "end\n"
      "return m\n";
  built b;
  build_from(&b, "ring.lua", src);
  redundant r;
  assert_int_equal(redundant_analyze(&b.a, &b.p, &r), 0);
  assert_int_equal(r.dim, 30);
  assert_int_equal(r.rank, 27);
  assert_int_equal(dense_rank(&b.p), 27);
  assert_int_equal(r.ncons, 1);
  assert_int_equal(redundant_count(r.rows[0]), 3);
  arena_free(&b.a);
}

/* A tree has no redundant rows, whatever its mass ratios. */
static void test_tree_has_none(void **state) {
  (void)state;
  char path[1024];
  snprintf(path, sizeof path, "%s/mechanisms/chain.lua", SRC_DIR);
  built b;
  build_from(&b, path, NULL);
  redundant r;
  assert_int_equal(redundant_analyze(&b.a, &b.p, &r), 0);
  assert_int_equal(r.rank, r.dim);
  assert_int_equal(r.ncons, 0);
  arena_free(&b.a);
}

/* The random mechanism of the sweep's seed (tests/data/random_mechanism.lua
 * with SEED = seed) built into b. */
static void build_random(built *b, int seed) {
  char path[1024];
  snprintf(path, sizeof path, "%s/tests/data/random_mechanism.lua", SRC_DIR);
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  static char src[1 << 16];
  const int head = snprintf(src, sizeof src, "SEED = %d\n", seed);
  const size_t n = fread(src + head, 1, sizeof src - (size_t)head - 1, f);
  fclose(f);
  src[(size_t)head + n] = '\0';
  snprintf(path, sizeof path, "random%d.lua", seed);
  build_from(b, path, src);
}

/* A shattered body's shard welds are the solver's, not the author's: the
 * rows are tested on the mechanism unshattered, so the dependent rows fall
 * on the mechanism's constraints (the rank is the same: welds that tie k
 * shards in a tree add 6 (k - 1) independent rows). Random mechanism 422:
 * a hub of 7 shards with 22 joints to 11 bodies. In the shattered
 * program's own order its shard welds came last and were named for 26 of
 * its redundant rows; and with the bodies' masses (ratios up to 10^4) in
 * the test, one independent row's pivot fell below the tolerance: 38
 * redundant rows where the dense rank of J finds 37. */
static void test_shattered_names_mechanism_constraints(void **state) {
  (void)state;
  built b;
  build_random(&b, 422);
  assert_true(b.p.s.nshards > 0);
  redundant r;
  assert_int_equal(redundant_analyze(&b.a, &b.p, &r), 0);
  assert_int_equal(r.dim - r.rank, 37);
  expect_rank("random422", &b, &r);
  arena_free(&b.a);
}

/* The same on the sweep's random mechanisms 1-300 (1-40 under valgrind
 * and the sanitizers, LDLPGS_TEST_SHORT): trees with loops, rings,
 * shattered hubs, masses over four decades (redundant.h: 49 of them
 * differed from the dense rank with the earlier test). */
static void test_random_match_dense_rank(void **state) {
  (void)state;
  const int seeds = getenv("LDLPGS_TEST_SHORT") ? 40 : 300;
  for (int seed = 1; seed <= seeds; seed++) {
    built b;
    build_random(&b, seed);
    redundant r;
    char what[32];
    snprintf(what, sizeof what, "random%d", seed);
    if (redundant_analyze(&b.a, &b.p, &r) != 0) fail_msg("%s: the rank test's factorization failed", what);
    expect_rank(what, &b, &r);
    arena_free(&b.a);
  }
}

/* suggestion(t, rows) naming `want`, dropping `drops` of the rows. */
static void expect_suggestion(rt_joint_type t, unsigned rows, int degree, const char *want, int drops) {
  int n = -1;
  const char *s = redundant_suggestion(t, rows, degree, &n);
  if (want == NULL)
    assert_null(s);
  else
    assert_non_null(strstr(s, want));
  assert_int_equal(n, drops);
}

static void test_suggestions(void **state) {
  (void)state;
  expect_suggestion(RT_HINGE, 0x18u, 5, "ball", 2);
  expect_suggestion(RT_HINGE, 0x1au, 5, "ball", 2); /* and a positional row the ball keeps */
  expect_suggestion(RT_HINGE, 0x08u, 5, "universal", 1);
  expect_suggestion(RT_HINGE, 0x02u, 5, NULL, 0); /* positional only */
  expect_suggestion(RT_WELD, 0x38u, 6, "ball", 3);
  expect_suggestion(RT_WELD, 0x20u, 6, "hinge", 1);
  expect_suggestion(RT_UNIVERSAL, 0x08u, 4, "ball", 1);
  expect_suggestion(RT_PRISMATIC, 0x04u, 5, "cylindrical", 1);
  expect_suggestion(RT_BALL, 0x01u, 3, NULL, 0);
  expect_suggestion(RT_WELD, 0x3fu, 6, "left out", 6); /* a second weld of the same two bodies */
  expect_suggestion(RT_ROD, 0x01u, 1, "left out", 1);
  assert_int_equal(redundant_count(0x1du), 4);
}

/* ldlgen prints the note on stderr; the generated program is the same
 * bytes with or without it (the note comes after the output). */
static void test_ldlgen_note(void **state) {
  (void)state;
  char cmd[2048], line[1024];
  snprintf(cmd, sizeof cmd, "%s %s/mechanisms/track.lua --stats 2>&1 >/dev/null", LDLGEN_PATH, SRC_DIR);
  FILE *f = popen(cmd, "r");
  assert_non_null(f);
  int summary = 0, named = 0;
  while (fgets(line, sizeof line, f)) {
    summary |= strstr(line, "note: 3 of the 200 equality rows are redundant") != NULL;
    /* the loop's closing pin: its two angular rows and the positional row
     * across the track's plane, which a ball joint would still have */
    named |= strstr(line, "(hinge): 3 of its 5 rows are redundant; a ball joint") != NULL &&
             strstr(line, "keep the axis); 1 of its redundant rows would remain\n") != NULL;
  }
  assert_int_equal(pclose(f), 0);
  assert_true(summary);
  assert_true(named);
  snprintf(cmd, sizeof cmd, "%s %s/mechanisms/track.lua --stats 2>/dev/null", LDLGEN_PATH, SRC_DIR);
  f = popen(cmd, "r");
  assert_non_null(f);
  int key = 0;
  while (fgets(line, sizeof line, f)) key |= strstr(line, "\"redundant_rows\": 3,") != NULL;
  assert_int_equal(pclose(f), 0);
  assert_true(key);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_samples_match_dense_rank),
      cmocka_unit_test(test_planar_ring),
      cmocka_unit_test(test_tree_has_none),
      cmocka_unit_test(test_shattered_names_mechanism_constraints),
      cmocka_unit_test(test_random_match_dense_rank),
      cmocka_unit_test(test_suggestions),
      cmocka_unit_test(test_ldlgen_note),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
