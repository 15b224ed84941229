/* test_samples.c -- the sample mechanisms reproduce the talk's figures, and
 * the symbolic phase behaves on them as docs/DESIGN.md section 3 requires. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "load.h"
#include "program.h"

typedef struct sample {
  arena a;
  mech m;
  program p;
} sample;

static void build(sample *s, const char *name, order_kind order, int shatter) {
  char path[512];
  snprintf(path, sizeof path, "%s/mechanisms/%s.lua", SRC_DIR, name);
  arena_init(&s->a);
  diag_list d;
  diag_init(&d);
  gen_status st = load_mech(&s->a, path, NULL, &s->m, &d);
  if (st != GEN_OK) diag_print(&d, stderr);
  assert_int_equal(st, GEN_OK);
  program_options o;
  program_default_options(&o);
  o.order = order;
  o.shatter = shatter;
  assert_int_equal(program_build(&s->a, &s->m, &o, &s->p, &d), GEN_OK);
  diag_free(&d);
}

static void release(sample *s) { arena_free(&s->a); }

static void assert_within(double value, double target, double rel) {
  if (fabs(value - target) > rel * target) fail_msg("%g is not within %g%% of %g", value, 100 * rel, target);
}

static long long flops(const program *p) { return symbolic_flops(&p->sym); }

/* The talk: a track of 40 plates, dim 200, density 7.5%, 43k flops. */
static void test_track_figures(void **state) {
  (void)state;
  sample s;
  build(&s, "track", ORDER_BEST, PROGRAM_SHATTER_FROM_MECH);
  assert_int_equal(s.m.nbody, 40);
  assert_int_equal(s.p.s.ncons, 40);
  assert_int_equal(s.p.sym.dim, 200);
  assert_within(s.p.density, 0.075, 0.10);
  assert_within((double)flops(&s.p), 43000, 0.10);
  release(&s);
}

/* The talk: 20 constraints on one body, dim 88, 100% dense, 250k flops;
 * shattered, 29 constraints, dim 142, 17.5%, 35k flops. */
static void test_multi_wheel_figures(void **state) {
  (void)state;
  sample s;
  build(&s, "multi_wheel", ORDER_BEST, 0);
  assert_int_equal(s.p.s.ncons, 20);
  assert_int_equal(s.p.sym.dim, 88);
  assert_true(s.p.density == 1.0);
  assert_within((double)flops(&s.p), 250000, 0.10);
  release(&s);

  build(&s, "multi_wheel", ORDER_BEST, PROGRAM_SHATTER_FROM_MECH);
  assert_int_equal(s.p.s.ncons, 29);
  assert_int_equal(s.p.sym.dim, 142);
  assert_int_equal(s.p.s.nshattered, 1);
  assert_int_equal(s.p.s.shard_num[mech_find_body(&s.m, "chassis")], 10);
  assert_within(s.p.density, 0.175, 0.10);
  assert_within((double)flops(&s.p), 35000, 0.10);
  assert_true(flops(&s.p) < 45000);
  release(&s);
}

/* The talk: a scissor lift on a platform with wheels, ~50 constraints,
 * mostly hinges, dim 246, density 12%, 90k flops. */
static void test_scissor_lift_figures(void **state) {
  (void)state;
  sample s;
  build(&s, "scissor_lift", ORDER_BEST, PROGRAM_SHATTER_FROM_MECH);
  assert_int_equal(s.p.sym.dim, 246);
  assert_within(s.p.s.ncons, 50, 0.10);
  int hinges = 0;
  for (int c = 0; c < s.p.s.ncons; c++)
    hinges += s.p.s.cons_orig[c] >= 0 && s.m.cons[s.p.s.cons_orig[c]].type == RT_HINGE;
  assert_true(2 * hinges > s.p.s.ncons);
  assert_within(s.p.density, 0.12, 0.10);
  assert_within((double)flops(&s.p), 90000, 0.10);
  release(&s);
}

/* The talk's dune buggy: body, four wheels, two knuckles, a steering rack. */
static void test_buggy_parts(void **state) {
  (void)state;
  sample s;
  build(&s, "buggy", ORDER_BEST, PROGRAM_SHATTER_FROM_MECH);
  static const char *parts[] = {"body", "frontL", "frontR", "rearL", "rearR", "knuckleL", "knuckleR", "rack"};
  for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) assert_true(mech_find_body(&s.m, parts[i]) >= 0);
  assert_int_equal(s.m.nbody, 8);
  release(&s);
}

/* Chain: 10 links of 0.1 kg and a 100 kg weight (mass ratio 1000:1). */
static void test_chain_mass_ratio(void **state) {
  (void)state;
  sample s;
  build(&s, "chain", ORDER_BEST, PROGRAM_SHATTER_FROM_MECH);
  int links = 0;
  double heavy = 0, light = 1e30;
  for (int i = 0; i < s.m.nbody; i++) {
    if (strncmp(s.m.bodies[i].name, "link", 4) == 0) {
      links++;
      light = fmin(light, s.m.bodies[i].mass);
    } else {
      heavy = fmax(heavy, s.m.bodies[i].mass);
    }
  }
  assert_int_equal(links, 10);
  assert_true(light == 0.1 && heavy == 100.0);
  release(&s);
}

/* The talk's 5-node example: eliminating 0 first fills 4 blocks, the order
 * 1, 3, 0, 2, 4 none, and meca finds a perfect order. The talk numbers the
 * constraints as the file declares them; the mechanism numbers them by name
 * (canon.h), so node[k] is the talk's node k. */
static void test_elimination_example(void **state) {
  (void)state;
  sample s;
  build(&s, "elimination_example", ORDER_MECA, PROGRAM_SHATTER_FROM_MECH);
  assert_int_equal(s.p.g.n, 5);
  assert_int_equal(s.p.sym.nfill, 0);
  assert_int_equal(cgraph_nedges(&s.p.g), 6);
  const char *talk[5] = {"coupler", "pivot_left", "pivot_right", "bob_left", "bob_right"};
  int node[5];
  for (int k = 0; k < 5; k++) {
    node[k] = mech_find_constraint(&s.m, talk[k]);
    assert_true(node[k] >= 0);
    assert_int_equal(s.m.cons[node[k]].decl, k);
  }
  for (int j = 1; j < 5; j++) assert_true(cgraph_adjacent(&s.p.g, node[0], node[j]));
  assert_true(cgraph_adjacent(&s.p.g, node[1], node[3]) && cgraph_adjacent(&s.p.g, node[2], node[4]));
  int fill;
  const int zero_first[5] = {0, 1, 2, 3, 4}, perfect[5] = {1, 3, 0, 2, 4};
  int perm[5];
  for (int k = 0; k < 5; k++) perm[k] = node[zero_first[k]];
  symbolic_count(&s.p.g, perm, &fill);
  assert_int_equal(fill, 4);
  for (int k = 0; k < 5; k++) perm[k] = node[perfect[k]];
  symbolic_count(&s.p.g, perm, &fill);
  assert_int_equal(fill, 0);
  release(&s);
  /* --order natural is still the file's order */
  build(&s, "elimination_example", ORDER_NATURAL, PROGRAM_SHATTER_FROM_MECH);
  for (int k = 0; k < 5; k++) assert_int_equal(s.p.sym.perm[k], node[k]);
  assert_int_equal(s.p.sym.nfill, 4);
  release(&s);
}

static const char *samples[] = {"track", "multi_wheel", "scissor_lift", "buggy", "chain", "elimination_example"};
enum { NSAMPLES = sizeof samples / sizeof samples[0] };

/* best never costs more than mda or meca; shattering is kept only when it
 * lowers flops. */
static void test_best_and_shattering_pay(void **state) {
  (void)state;
  for (int i = 0; i < NSAMPLES; i++) {
    sample s;
    build(&s, samples[i], ORDER_BEST, PROGRAM_SHATTER_FROM_MECH);
    const int64_t *f = s.p.flops3_by_order;
    assert_true(f[ORDER_BEST] <= f[ORDER_MDA] && f[ORDER_BEST] <= f[ORDER_MECA] && f[ORDER_BEST] <= f[ORDER_NATURAL]);
    /* the program's order is best's, or best's with the pivots the Schur
     * complement starts on last, at more factor flops (test_couple.c) */
    if (s.p.deferred_pivots == 0)
      assert_int_equal(f[ORDER_BEST], s.p.sym.flops3);
    else
      assert_true(f[ORDER_BEST] < s.p.sym.flops3);
    if (s.p.s.nshattered > 0)
      assert_true(f[ORDER_BEST] < s.p.unshattered_flops3);
    else
      assert_int_equal(f[ORDER_BEST], s.p.unshattered_flops3);
    release(&s);
  }
}

/* Numeric data (masses, anchors) and the names of unrelated bodies do not
 * change the pivot order. */
static void test_order_stable_under_unrelated_edits(void **state) {
  (void)state;
  for (int i = 0; i < NSAMPLES; i++) {
    sample s, t;
    build(&s, samples[i], ORDER_BEST, PROGRAM_SHATTER_FROM_MECH);
    build(&t, samples[i], ORDER_BEST, PROGRAM_SHATTER_FROM_MECH);
    /* edit t's mechanism: heavier bodies, moved anchors, a renamed body */
    for (int b = 0; b < t.m.nbody; b++) t.m.bodies[b].mass *= 3.0;
    for (int c = 0; c < t.m.ncons; c++) t.m.cons[c].anchor_a[0] += 0.01;
    t.m.bodies[t.m.nbody - 1].name = "zz_renamed_body";
    program_options o;
    program_default_options(&o);
    diag_list d;
    diag_init(&d);
    program p2;
    assert_int_equal(program_build(&t.a, &t.m, &o, &p2, &d), GEN_OK);
    diag_free(&d);
    assert_int_equal(p2.sym.n, s.p.sym.n);
    for (int k = 0; k < p2.sym.n; k++)
      assert_string_equal(p2.g.name[p2.sym.perm[k]], s.p.g.name[s.p.sym.perm[k]]);
    assert_true(p2.hash == s.p.hash);
    release(&s);
    release(&t);
  }
}

/* The structure hash changes with structure (a body made fixed), not with
 * numbers. */
static void test_structure_hash(void **state) {
  (void)state;
  sample s;
  build(&s, "chain", ORDER_BEST, PROGRAM_SHATTER_FROM_MECH);
  uint64_t h = mech_structure_hash(&s.m, &s.a);
  assert_true(h == s.p.hash);
  s.m.bodies[0].mass = 7;
  assert_true(mech_structure_hash(&s.m, &s.a) == h);
  s.m.bodies[0].fixed = 1;
  assert_true(mech_structure_hash(&s.m, &s.a) != h);
  release(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_track_figures),
      cmocka_unit_test(test_multi_wheel_figures),
      cmocka_unit_test(test_scissor_lift_figures),
      cmocka_unit_test(test_buggy_parts),
      cmocka_unit_test(test_chain_mass_ratio),
      cmocka_unit_test(test_elimination_example),
      cmocka_unit_test(test_best_and_shattering_pay),
      cmocka_unit_test(test_order_stable_under_unrelated_edits),
      cmocka_unit_test(test_structure_hash),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
