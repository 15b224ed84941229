/* test_rt_lanes.c -- rt_lanes.h's groups, as a generated batch file of
 * 16 double lanes sees them (RT_LANES_GROUPED): a group as wide as one
 * register of this build's target (16 bytes without AVX, 32 with AVX, 64
 * with AVX-512F; plain C: all 16 lanes), entries of 16 lanes of which a
 * group's pointer reads and writes only its own, and failures recorded in
 * the group's lanes. test_batch holds whole programs in groups to the
 * scalar programs; this holds the header's parts to what its comment says. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#define RT_LANES_DOUBLE 1
#define RT_LANES_N 16
#define RT_LANES_GROUPED 1
#include "rt_lanes.h"

/* The group width the header's comment promises for this build. */
static int expected_group(void) {
#if !RT_LANES_VECTOR
  return 16;
#elif defined(__AVX512F__)
  return 8;
#elif defined(__AVX__)
  return 4;
#else
  return 2;
#endif
}

/* Lane j of x = v, in either implementation. */
static void lane_set(rt_lane *x, int j, double v) {
#if RT_LANES_VECTOR
  (*x)[j] = v;
#else
  x->v[j] = v;
#endif
}

static void test_group_width(void **state) {
  (void)state;
  assert_int_equal(RT_LANES_G, expected_group());
  assert_int_equal(sizeof(rt_lane), RT_LANES_G * sizeof(double));
  assert_int_equal(sizeof(rt_lane_entry), RT_LANES_N * sizeof(double));
}

enum { ENTRIES = 5 };

/* Each group in turn computes entry k = entry k-1 * 2 - 1 in its lanes
 * through its own pointer: every lane gets its own result, and an exact
 * one, and no write reaches another group's lanes or past the array (the
 * last group's last entry ends at the array's end: ASan). */
static void test_groups_touch_their_lanes(void **state) {
  (void)state;
  double *a = malloc(sizeof *a * ENTRIES * RT_LANES_N);
  assert_non_null(a);
  for (int j = 0; j < RT_LANES_N; j++) a[j] = j + 3;
  for (int k = 1; k < ENTRIES; k++)
    for (int j = 0; j < RT_LANES_N; j++) a[k * RT_LANES_N + j] = -1000.0 - j; /* not yet written */
  for (int h = 0; h < RT_LANES_N; h += RT_LANES_G) {
    rt_lane_entry *e = rt_lane_group(a, h);
    rt_lane two, one;
    for (int j = 0; j < RT_LANES_G; j++) {
      lane_set(&two, j, 2.0);
      lane_set(&one, j, 1.0);
    }
    for (int k = 1; k < ENTRIES; k++) e[k].v = rt_lane_sub(rt_lane_mul(e[k - 1].v, two), one);
    /* the groups after this one: untouched so far */
    for (int k = 1; k < ENTRIES; k++)
      for (int j = h + RT_LANES_G; j < RT_LANES_N; j++) assert_true(a[k * RT_LANES_N + j] == -1000.0 - j);
  }
  for (int j = 0; j < RT_LANES_N; j++) {
    double x = j + 3;
    for (int k = 1; k < ENTRIES; k++) {
      x = 2 * x - 1;
      assert_true(a[k * RT_LANES_N + j] == x);
    }
  }
  free(a);
}

/* rt_lane_record through a group's part of fail: the failing lanes of
 * that group, each keeping its first failure; the other groups' lanes
 * untouched. */
static void test_record_group(void **state) {
  (void)state;
  int fail[RT_LANES_N];
  for (int j = 0; j < RT_LANES_N; j++) fail[j] = -1;
  const int h = RT_LANES_N - RT_LANES_G; /* the last group */
  rt_lane x;
  for (int j = 0; j < RT_LANES_G; j++) lane_set(&x, j, j % 2 ? -1.0 : 1.0);
  rt_lane_mask m = rt_lane_not_positive(x);
  rt_lane_record(fail + h, 7, m);
  rt_lane_record(fail + h, 9, m); /* later pivots do not overwrite */
  for (int j = 0; j < RT_LANES_N; j++) {
    const int in_group = j >= h, odd = (j - h) % 2 != 0;
    assert_int_equal(fail[j], in_group && odd ? 7 : -1);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_group_width),
      cmocka_unit_test(test_groups_touch_their_lanes),
      cmocka_unit_test(test_record_group),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
