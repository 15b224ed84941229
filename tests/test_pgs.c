/* test_pgs.c -- the PGS sweep (runtime/pgs.c) against the plain loop it
 * replaces, bit for bit: the reference below is the sweep as docs/DESIGN.md
 * section 3 states it (rows in order; J v summed term by term from 0.0;
 * friction bounds from the current normal impulse; clamp; each velocity +=
 * (W J^T)_k dl). The runtime's sweep unrolls it, runs the axpy as 2-lane
 * vectors and interleaves runs of rows on disjoint bodies; none of that may
 * change a bit. Checked on random rows (world sides, inert rows, friction
 * rows, both sides one body, runs of every length) and on the rows of every
 * sample's world over a few steps, whole and in slices. bitwise_main.c
 * repeats the samples under gcc and clang at -O0..-O3 (make check-bitwise).
 * And when the runtime may hand the equality rows to a program's generated
 * sweep (test_generated compares that sweep's bits with these). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../runtime/world.h" /* rt__pgs_program_fits, rt__pgs_sweep_program */
#include "pgs_check.h"

static void test_random_rows(void **state) {
  (void)state;
  for (uint64_t seed = 1; seed <= 300; seed++) {
    char why[256];
    if (pgs_check_random(seed, why, sizeof why) != 0) fail_msg("seed %llu: %s", (unsigned long long)seed, why);
  }
}

static void test_sample_rows(void **state) {
  (void)state;
  static const char *const names[] = {"buggy", "chain", "elimination_example", "multi_wheel", "scissor_lift", "tank",
                                      "track"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    char path[1024], why[256];
    snprintf(path, sizeof path, "%s/mechanisms/%s.lua", SRC_DIR, names[i]);
    uint64_t hash = 0;
    if (pgs_check_mechanism(path, 6, &hash, why, sizeof why) != 0) fail_msg("%s: %s", names[i], why);
  }
}

/* A program's generated sweep runs only on rows that fit what it takes for
 * granted (rt__pgs_program_fits), and rt__pgs_sweep_program calls it only
 * then: two constraints (rows 0..1 on bodies 0 - 1, row 2 on the world -
 * body 2), every way of breaking the fit, and a sweep that counts its
 * calls. */
static int sweep_calls;
static void counting_sweep(const rt_sweep_rows *rows, double *vel) {
  (void)rows;
  (void)vel;
  sweep_calls++;
}

static void test_program_sweep_fits(void **state) {
  (void)state;
  static const int cons_a[] = {0, RT_WORLD}, cons_b[] = {1, 2}, cons_degree[] = {2, 1}, cons_row[] = {0, 2};
  static const int side[] = {0, 1, RT_WORLD, 2};
  rt_program p;
  memset(&p, 0, sizeof p);
  p.ncons = 2;
  p.dim = 3;
  p.nsbody = 3;
  p.cons_a = cons_a;
  p.cons_b = cons_b;
  p.cons_degree = cons_degree;
  p.cons_row = cons_row;
  p.sweep = counting_sweep;
  p.sweep_side = side;
  enum { N = 4 }; /* the equality rows and one contact row after them */
  int a[N] = {0, 0, RT_WORLD, RT_WORLD}, b[N] = {1, 1, 2, 2}, normal[N] = {-1, -1, -1, -1};
  double J[12 * N] = {0}, WJ[12 * N] = {0}, rhs[N] = {0}, inv_diag[N] = {1, 1, 1, 1}, lambda[N] = {0};
  double lo[N] = {-INFINITY, -INFINITY, -INFINITY, 0}, hi[N] = {INFINITY, INFINITY, INFINITY, INFINITY};
  double mu[N] = {0}, soft[N] = {0}, vel[18] = {0};
  rt__rows r = {N, a, b, J, WJ, rhs, inv_diag, lambda, lo, hi, normal, mu, soft};
  assert_true(rt__pgs_program_fits(&p, &r));
  sweep_calls = 0;
  rt__pgs_sweep_program(&p, 1, &r, vel);
  assert_int_equal(sweep_calls, 1);
  rt__pgs_sweep_program(&p, 0, &r, vel);
  assert_int_equal(sweep_calls, 1);
  /* each break of the fit, one at a time */
  a[1] = RT_WORLD; /* body 0 fixed at run time */
  assert_false(rt__pgs_program_fits(&p, &r));
  a[1] = 0;
  b[2] = RT_WORLD;
  assert_false(rt__pgs_program_fits(&p, &r));
  b[2] = 2;
  inv_diag[1] = 0.0; /* an inert row: the generic sweep skips it */
  assert_false(rt__pgs_program_fits(&p, &r));
  inv_diag[1] = 1.0;
  normal[0] = RT__ROW_SOFT;
  assert_false(rt__pgs_program_fits(&p, &r));
  normal[0] = -1;
  lo[2] = -1.0; /* bounded */
  assert_false(rt__pgs_program_fits(&p, &r));
  lo[2] = -INFINITY;
  hi[0] = 5.0;
  assert_false(rt__pgs_program_fits(&p, &r));
  hi[0] = INFINITY;
  r.n = 2; /* fewer rows than the program's */
  assert_false(rt__pgs_program_fits(&p, &r));
  r.n = N;
  p.sweep = NULL;
  assert_false(rt__pgs_program_fits(&p, &r));
  p.sweep = counting_sweep;
  assert_true(rt__pgs_program_fits(&p, &r)); /* the contact row after dim is not the sweep's */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_random_rows),
      cmocka_unit_test(test_sample_rows),
      cmocka_unit_test(test_program_sweep_fits),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
