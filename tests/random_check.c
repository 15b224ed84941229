/* random_check.c -- the check of one random mechanism's generated programs,
 * linked by tests/random_sweep.sh with the programs it generated for a seed
 * (--prefix rnd_float and rnd_double, unrolled): each against the
 * interpreter bit for bit and to its precision's residual bound
 * (program_check.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "program_check.h"

extern const rt_program rnd_float_program, rnd_double_program;

static void test_float(void **state) {
  (void)state;
  check_program(&rnd_float_program);
}

static void test_double(void **state) {
  (void)state;
  check_program(&rnd_double_program);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_float),
      cmocka_unit_test(test_double),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
