/* test_couple.c -- the Schur complement's sources and cost (gen/couple.c)
 * and the order that defers their pivots: counted by hand on a pendulum
 * whose bob rests on the ground, on the sample scissor lift (its wheels'
 * hinges go last), and on mechanisms that couple nothing or too many
 * contacts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "couple.h"
#include "load.h"
#include "program.h"

typedef struct built {
  arena a;
  mech m;
  program p;
} built;

static void build_with(built *b, const char *path, const char *src, const program_options *o) {
  arena_init(&b->a);
  diag_list d;
  diag_init(&d);
  gen_status st = src ? load_mech_string(&b->a, path, src, NULL, &b->m, &d) : load_mech(&b->a, path, NULL, &b->m, &d);
  if (st == GEN_OK) st = program_build(&b->a, &b->m, o, &b->p, &d);
  if (st != GEN_OK) diag_print(&d, stderr);
  diag_free(&d);
  assert_int_equal(st, GEN_OK);
}

static void build_from(built *b, const char *path, const char *src, order_kind order) {
  program_options o;
  program_default_options(&o);
  o.order = order;
  build_with(b, path, src, &o);
}

static void sample_path(const char *name, char *path, size_t size) {
  snprintf(path, size, "%s/mechanisms/%s.lua", SRC_DIR, name);
}

static void build_sample(built *b, const char *name, order_kind order) {
  char path[1024];
  sample_path(name, path, sizeof path);
  build_from(b, path, NULL, order);
}

static const char *pivot_name(const built *b, int p) { return b->p.g.name[b->p.sym.perm[p]]; }

/* A hinge 'arm' (d 5) from the world to a link, a ball 'tip' (d 3) from
 * the link to a bob with a sphere on the ground: one contact, 3 columns
 * of Y, all starting on 'tip'. Minimum degree takes the smaller block
 * first, [tip, arm]: the factor costs 3 x (27 + 6*5*9 + 3*3*5*6) + 3 x 125
 * = 692 (x3), and tip's columns run up through arm: forward 3 columns x
 * (3^2 + 2*3*5 + 5^2) = 192, products 6 pairs x 8 rows x 2 = 96, x3: 864.
 * Deferred, [arm, tip]: the factor 125 + 6*3*25 + 3*5*3*4 + 27 = 782, the
 * columns only tip's own rows: 3 x 9 + 6 x 3 x 2 = 63, x3: 189. */
static const char pendulum[] =
    "return { name = 'bob', settings = { ground = { height = 0 } },\n"
    "  bodies = { { name = 'link', mass = 1, box = { 0.1, 0.1, 1 }, pos = { 0, 0, 1.5 } },\n"
    "             { name = 'bob', mass = 5, sphere = 0.1, shape = { sphere = 0.1 }, pos = { 0, 0, 0.1 } } },\n"
    "  constraints = {\n"
    "    { name = 'arm', type = 'hinge', a = 'world', b = 'link', anchor = { 0, 0, 2 }, axis = { 0, 1, 0 } },\n"
    "    { name = 'tip', type = 'ball', a = 'link', b = 'bob', anchor = { 0, 0, 1 } } } }\n";

static void test_hand_counted(void **state) {
  (void)state;
  built b;
  build_from(&b, "bob.lua", pendulum, ORDER_MDA);
  couple_set c;
  couple_sources(&b.a, &b.p.s, &c);
  assert_int_equal(c.n, 1);
  assert_int_equal(c.cols[0], 3);
  assert_int_equal(c.contact[0], 1);
  assert_int_equal(c.adr[1] - c.adr[0], 1);
  assert_string_equal(b.p.g.name[c.node[0]], "tip");
  /* an explicit heuristic keeps its order */
  assert_int_equal(b.p.deferred_pivots, 0);
  assert_string_equal(pivot_name(&b, 0), "tip");
  assert_int_equal(b.p.sym.flops3, 692);
  assert_int_equal(b.p.schur_flops3, 864);
  assert_int_equal(couple_flops3(&b.p.g, &c, b.p.sym.perm), 864);
  /* couple_order on it: the deferred order costs less in all */
  int perm[2] = {b.p.sym.perm[0], b.p.sym.perm[1]};
  symbolic_totals t;
  symbolic_totals_of(&b.p.g, perm, &t);
  assert_int_equal(t.flops3, 692);
  int64_t s3;
  assert_int_equal(couple_order(&b.p.g, &c, perm, &t, &s3), 1);
  assert_string_equal(b.p.g.name[perm[0]], "arm");
  assert_int_equal(t.flops3, 782);
  assert_int_equal(s3, 189);
  arena_free(&b.a);
  /* best: the same, through program_build */
  build_from(&b, "bob.lua", pendulum, ORDER_BEST);
  assert_int_equal(b.p.deferred_pivots, 1);
  assert_string_equal(pivot_name(&b, 0), "arm");
  assert_string_equal(pivot_name(&b, 1), "tip");
  assert_int_equal(b.p.sym.flops3, 782);
  assert_int_equal(b.p.schur_flops3, 189);
  arena_free(&b.a);
}

/* Without a ground the bob touches nothing: no source, the order kept. */
static void test_no_ground_no_sources(void **state) {
  (void)state;
  char src[sizeof pendulum];
  snprintf(src, sizeof src, "%s", pendulum);
  char *g = strstr(src, "settings = { ground = { height = 0 } },");
  assert_non_null(g);
  memset(g, ' ', strlen("settings = { ground = { height = 0 } },"));
  built b;
  build_from(&b, "bob.lua", src, ORDER_BEST);
  couple_set c;
  couple_sources(&b.a, &b.p.s, &c);
  assert_int_equal(c.n, 0);
  assert_int_equal(b.p.deferred_pivots, 0);
  assert_int_equal(b.p.schur_flops3, 0);
  assert_string_equal(pivot_name(&b, 0), "tip");
  arena_free(&b.a);
}

/* The sample lift: its four wheels' hinges (and the chassis shard weld
 * next to them) go last; the factor and S together cost fewer flops than
 * in the order of `meca`, the heuristic best chose. */
static void test_lift_defers_its_wheels(void **state) {
  (void)state;
  built best, meca;
  build_sample(&best, "scissor_lift", ORDER_BEST);
  build_sample(&meca, "scissor_lift", ORDER_MECA);
  assert_string_equal(best.p.heuristic, "meca");
  assert_true(best.p.deferred_pivots >= 4);
  const int n = best.p.sym.n;
  int axles = 0;
  for (int p = n - best.p.deferred_pivots; p < n; p++) axles += strncmp(pivot_name(&best, p), "axle", 4) == 0;
  assert_int_equal(axles, 4);
  assert_int_equal(meca.p.deferred_pivots, 0);
  assert_true(best.p.schur_flops3 < meca.p.schur_flops3 / 2);
  assert_true(best.p.sym.flops3 + best.p.schur_flops3 < meca.p.sym.flops3 + meca.p.schur_flops3);
  /* the generated file's banner says so, for its reviewers */
  char path[1024], line[512], want[128];
  snprintf(path, sizeof path, "%s/generated/scissor_lift.c", SRC_DIR);
  snprintf(want, sizeof want, "then %d pivots moved last for the Schur complement", best.p.deferred_pivots);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  int found = 0;
  while (!found && fgets(line, sizeof line, f))
    found = strstr(line, " *   order ") == line && strstr(line, want) != NULL;
  fclose(f);
  assert_true(found);
  arena_free(&best.a);
  arena_free(&meca.a);
}

/* --keep-order weighs S too: the lift's order from before the deferral
 * (meca's, its axles first) costs the factor 5 % less but S three times
 * as much, so the fresh order is taken; kept from the deferred program
 * itself, its order stays. */
static void test_keep_order_counts_s(void **state) {
  (void)state;
  built meca, b, again;
  build_sample(&meca, "scissor_lift", ORDER_MECA);
  const char *names[256];
  assert_true(meca.p.sym.n <= 256);
  for (int k = 0; k < meca.p.sym.n; k++) names[k] = pivot_name(&meca, k);
  char path[1024];
  sample_path("scissor_lift", path, sizeof path);
  for (int round = 0; round < 2; round++) {
    built *out = round == 0 ? &b : &again;
    program_options o;
    program_default_options(&o);
    o.keep = names;
    o.nkeep = meca.p.sym.n;
    build_with(out, path, NULL, &o);
    assert_int_equal(out->p.fresh_flops3, out->p.sym.flops3 + out->p.schur_flops3);
    if (round == 0) { /* the old order refused: the deferred one is the program */
      assert_false(out->p.keep_taken);
      assert_true(out->p.keep_flops3 > out->p.fresh_flops3);
      assert_true(out->p.deferred_pivots >= 4);
      for (int k = 0; k < b.p.sym.n; k++) names[k] = pivot_name(&b, k);
    } else { /* the deferred order kept as it is */
      assert_true(out->p.keep_taken);
      assert_int_equal(out->p.keep_flops3, out->p.fresh_flops3);
      for (int k = 0; k < again.p.sym.n; k++) assert_string_equal(pivot_name(&again, k), pivot_name(&b, k));
    }
  }
  arena_free(&meca.a);
  arena_free(&b.a);
  arena_free(&again.a);
}

/* The tank rests on more contacts than the runtime couples (all or none):
 * its sources are its joints' rows alone, and its order is best's. A
 * chain has neither. */
static void test_too_many_contacts_and_none(void **state) {
  (void)state;
  built b;
  build_sample(&b, "tank", ORDER_BEST);
  couple_set c;
  couple_sources(&b.a, &b.p.s, &c);
  assert_true(c.n > 0);
  for (int i = 0; i < c.n; i++) assert_int_equal(c.contact[i], 0);
  arena_free(&b.a);
  build_sample(&b, "chain", ORDER_BEST);
  couple_sources(&b.a, &b.p.s, &c);
  assert_int_equal(c.n, 0);
  assert_int_equal(b.p.deferred_pivots, 0);
  assert_int_equal(b.p.schur_flops3, 0);
  arena_free(&b.a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_hand_counted),
      cmocka_unit_test(test_no_ground_no_sources),
      cmocka_unit_test(test_lift_defers_its_wheels),
      cmocka_unit_test(test_keep_order_counts_s),
      cmocka_unit_test(test_too_many_contacts_and_none),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
