/* test_sym3.c -- the positive semidefinite part of a symmetric 3x3 matrix
 * (runtime/sym3.c), which the geometric stiffness keeps of each solver
 * body's load.
 *
 * What is checked, against K = R diag(l) R^T built from known eigenvalues
 * l and a random rotation R (so the answer R diag(max(l, 0)) R^T is known
 * without an eigensolver of the test's own):
 * - random spectra with one, two and three negative eigenvalues, scaled
 *   from 1e-6 to 1e6: the result within 1e-12 |K| of the answer (so its
 *   eigenvalues are >= -1e-12 |K|), and symmetric to the bit;
 * - the spectra where the closed form is weakest: two equal eigenvalues
 *   (negative pair, positive pair), an eigenvalue at 0 or just below it,
 *   eigenvalues 1e-12 apart, and a negative multiple of the identity;
 * - a positive semidefinite K is returned bit for bit; a NaN gives 0. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../runtime/sym3.h"

static uint64_t rng = 0x9e3779b97f4a7c15u;
static double uniform(void) { /* [0, 1) */
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (double)(rng >> 11) / 9007199254740992.0;
}

/* A random rotation matrix (row-major) from a random unit quaternion. */
static void random_rotation(double R[9]) {
  double q[4], n = 0.0;
  do {
    n = 0.0;
    for (int k = 0; k < 4; k++) {
      q[k] = 2.0 * uniform() - 1.0;
      n += q[k] * q[k];
    }
  } while (n < 1e-3 || n > 1.0);
  n = sqrt(n);
  for (int k = 0; k < 4; k++) q[k] /= n;
  const double w = q[0], x = q[1], y = q[2], z = q[3];
  const double M[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
                       2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                       2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
  memcpy(R, M, sizeof M);
}

/* out = R diag(l) R^T, symmetric to the bit. */
static void compose(const double R[9], const double l[3], double out[9]) {
  for (int i = 0; i < 3; i++)
    for (int j = i; j < 3; j++) {
      double s = 0.0;
      for (int k = 0; k < 3; k++) s += R[3 * i + k] * l[k] * R[3 * j + k];
      out[3 * i + j] = out[3 * j + i] = s;
    }
}

static double frob(const double A[9]) {
  double s = 0.0;
  for (int i = 0; i < 9; i++) s += A[i] * A[i];
  return sqrt(s);
}

/* Whether A's diagonal, 2x2 principal minors and determinant are all >= 0,
 * as computed: a positive semidefinite K that sym3.c keeps as it is. */
static int minors_nonnegative(const double A[9]) {
  const double m01 = A[0] * A[4] - A[1] * A[3], m02 = A[0] * A[8] - A[2] * A[6], m12 = A[4] * A[8] - A[5] * A[7];
  const double det = A[0] * m12 - A[1] * (A[3] * A[8] - A[5] * A[6]) + A[2] * (A[3] * A[7] - A[4] * A[6]);
  return A[0] >= 0 && A[4] >= 0 && A[8] >= 0 && m01 >= 0 && m02 >= 0 && m12 >= 0 && det >= 0;
}

/* K with eigenvalues l in a random frame: the result against the answer. */
static void check_spectrum(const double l[3], double rel) {
  double R[9], K[9], want[9], lp[3];
  random_rotation(R);
  compose(R, l, K);
  for (int k = 0; k < 3; k++) lp[k] = l[k] > 0 ? l[k] : 0.0;
  compose(R, lp, want);
  const double scale = frob(K);
  rt__sym3_positive_part(K);
  double err[9];
  for (int i = 0; i < 9; i++) err[i] = K[i] - want[i];
  const double e = frob(err) / scale;
  if (!(e <= rel)) fail_msg("eigenvalues %.17g %.17g %.17g: error %.3g of |K| (allowed %.3g)", l[0], l[1], l[2], e, rel);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) assert_true(K[3 * i + j] == K[3 * j + i]);
}

static void test_random_spectra(void **state) {
  (void)state;
  for (int t = 0; t < 3000; t++) {
    const double scale = pow(10.0, 12.0 * uniform() - 6.0);
    double l[3];
    const int negatives = 1 + t % 3;
    for (int k = 0; k < 3; k++) l[k] = scale * (0.05 + uniform()) * (k < negatives ? -1.0 : 1.0);
    check_spectrum(l, 1e-12);
  }
}

static void test_hard_spectra(void **state) {
  (void)state;
  static const double cases[][3] = {
      {-1.0, -1.0, 2.0},   /* a negative pair */
      {-1.0, 2.0, 2.0},    /* a positive pair */
      {-1.0, 0.0, 0.0},    /* the rest at 0 */
      {-1.0, -1e-300, 3.0}, /* the middle one just below 0 */
      {-1e-17, 1.0, 1.0},  /* a tiny negative one beside a pair */
      {-1.0, 1.0, 1.0 + 1e-12},
      {-1.0 - 1e-12, -1.0, 1.0},
      {-2.0, -2.0, -2.0},  /* a negative multiple of the identity */
      {-3.0, -2.0, -1.0},  /* all negative */
      {-5.0, 4.9999999, 5.0},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
    for (int t = 0; t < 200; t++) check_spectrum(cases[c], 1e-12);
}

static void test_semidefinite_kept_and_nan(void **state) {
  (void)state;
  int kept = 0;
  for (int t = 0; t < 500; t++) {
    double R[9], K[9], l[3];
    random_rotation(R);
    for (int k = 0; k < 3; k++) l[k] = (k == 0 && t % 2) ? 0.0 : 0.1 + uniform();
    compose(R, l, K);
    if (!minors_nonnegative(K)) continue; /* rounding made a minor of a rank-2 K negative */
    double before[9];
    memcpy(before, K, sizeof before);
    rt__sym3_positive_part(K);
    assert_memory_equal(K, before, sizeof before);
    kept++;
  }
  assert_true(kept >= 250); /* every full-rank one, at least */
  double K[9] = {1, 0, 0, 0, -1, 0, 0, 0, NAN};
  rt__sym3_positive_part(K);
  for (int i = 0; i < 9; i++) assert_true(K[i] == 0.0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_random_spectra),
      cmocka_unit_test(test_hard_spectra),
      cmocka_unit_test(test_semidefinite_kept_and_nan),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
