/* test_pgs.c -- the PGS sweep (runtime/pgs.c) against the plain loop it
 * replaces, bit for bit: the reference below is the sweep as docs/DESIGN.md
 * section 3 states it (rows in order; J v summed term by term from 0.0;
 * friction bounds from the current normal impulse; clamp; each velocity +=
 * (W J^T)_k dl). The runtime's sweep unrolls it, runs the axpy as 2-lane
 * vectors and interleaves runs of rows on disjoint bodies; none of that may
 * change a bit. Checked on random rows (world sides, inert rows, friction
 * rows, both sides one body, runs of every length) and on the rows of every
 * sample's world over a few steps, whole and in slices. bitwise_main.c
 * repeats the samples under gcc and clang at -O0..-O3 (make check-bitwise). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_random_rows),
      cmocka_unit_test(test_sample_rows),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
