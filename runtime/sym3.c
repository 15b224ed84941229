/* sym3.c -- the positive semidefinite part of a symmetric 3x3 matrix
 * (sym3.h), for the geometric stiffness of each solver body (stiffness.c).
 *
 * The eigenvalues l1 <= l2 <= l3 of K come from the trigonometric solution
 * of its characteristic cubic: with q = tr K / 3, p^2 = |K - q I|_F^2 / 6
 * and r = det((K - q I) / p) / 2 (in [-1, 1]), phi = acos(r) / 3 gives
 * l3 = q + 2 p cos phi and l1 = q + 2 p cos(phi + 2 pi / 3). Then
 *
 *   l2 > 0:   one negative eigenvalue, taken away: K - l1 v1 v1^T;
 *   l2 <= 0:  one positive left: l3 v3 v3^T (0 if l3 <= 0 too),
 *
 * with the eigenvector v as the largest cross product of two rows of
 * K - l I, and the eigenvalue taken again as v^T K v (the Rayleigh
 * quotient: its error is second order in v's). acos loses accuracy where
 * two eigenvalues meet (about eps |K|^2 / gap); each case's eigenvector is
 * that of an end of the spectrum whose error, about eps |K| / gap, is
 * multiplied by an eigenvalue no larger than the gap, and where the pair
 * at the other end meets at 0, the Rayleigh quotient finds the 0 that the
 * formula missed (eigenvalues -1, 0, 0: 4e-9 of |K| from the formula's
 * eigenvalue, rounding from the quotient's). What the middle eigenvalue's
 * sign decides then changes the result by no more than that eigenvalue.
 *
 * The cyclic Jacobi method it replaces took 2-4 sweeps of three rotations
 * each: 7 % of the sample scissor lift's step, 2 % with this (callgrind). */
#include "sym3.h"

#include <math.h>
#include <stddef.h>

/* A unit eigenvector of K for eigenvalue l into v; 0 if K - l I is 0. */
static int eigenvector(const double *K, double l, double v[3]) {
  const double m[3][3] = {{K[0] - l, K[1], K[2]}, {K[3], K[4] - l, K[5]}, {K[6], K[7], K[8] - l}};
  double best = 0.0;
  for (int i = 0; i < 2; i++)
    for (int j = i + 1; j < 3; j++) {
      const double c[3] = {m[i][1] * m[j][2] - m[i][2] * m[j][1], m[i][2] * m[j][0] - m[i][0] * m[j][2],
                           m[i][0] * m[j][1] - m[i][1] * m[j][0]};
      const double n = c[0] * c[0] + c[1] * c[1] + c[2] * c[2];
      if (n > best) {
        best = n;
        for (int k = 0; k < 3; k++) v[k] = c[k];
      }
    }
  if (!(best > 0.0)) return 0;
  const double s = 1.0 / sqrt(best);
  for (int k = 0; k < 3; k++) v[k] *= s;
  return 1;
}

/* v^T K v for a unit v: the eigenvalue, to second order in v's error. */
static double rayleigh(const double *K, const double v[3]) {
  double s = 0.0;
  for (int i = 0; i < 3; i++) s += v[i] * (K[3 * i] * v[0] + K[3 * i + 1] * v[1] + K[3 * i + 2] * v[2]);
  return s;
}

/* K = base + l v v^T (base NULL: 0), symmetric to the bit. */
static void add_outer(double *K, const double *base, double l, const double v[3]) {
  for (int i = 0; i < 3; i++)
    for (int j = i; j < 3; j++) K[3 * i + j] = K[3 * j + i] = (base ? base[3 * i + j] : 0.0) + l * v[i] * v[j];
}

static void set_zero(double *K) {
  for (int i = 0; i < 9; i++) K[i] = 0.0;
}

void rt__sym3_positive_part(double K[9]) {
  /* already positive semidefinite (no compression; most bodies): kept */
  const double m01 = K[0] * K[4] - K[1] * K[3], m02 = K[0] * K[8] - K[2] * K[6], m12 = K[4] * K[8] - K[5] * K[7];
  const double det = K[0] * m12 - K[1] * (K[3] * K[8] - K[5] * K[6]) + K[2] * (K[3] * K[7] - K[4] * K[6]);
  if (K[0] >= 0 && K[4] >= 0 && K[8] >= 0 && m01 >= 0 && m02 >= 0 && m12 >= 0 && det >= 0) return;
  const double q = (K[0] + K[4] + K[8]) / 3.0;
  const double a = K[0] - q, b = K[4] - q, c = K[8] - q;
  const double off = K[1] * K[1] + K[2] * K[2] + K[5] * K[5];
  const double p2 = (a * a + b * b + c * c + 2.0 * off) / 6.0;
  if (!(p2 > 0.0)) { /* q I, q < 0 (else kept above); or a NaN */
    set_zero(K);
    return;
  }
  const double p = sqrt(p2);
  /* det(K - q I) / (2 p^3) */
  const double dB = a * (b * c - K[5] * K[5]) - K[1] * (K[1] * c - K[5] * K[2]) + K[2] * (K[1] * K[5] - b * K[2]);
  double r = dB / (2.0 * p2 * p);
  r = r < -1.0 ? -1.0 : r > 1.0 ? 1.0 : r;
  const double phi = acos(r) / 3.0, cs = cos(phi), sn = sin(phi);
  const double l3 = q + 2.0 * p * cs;
  const double l1 = q + 2.0 * p * (-0.5 * cs - 0.8660254037844386 * sn); /* cos(phi + 2 pi / 3) */
  const double l2 = 3.0 * q - l1 - l3;
  double v[3], base[9];
  if (!(l3 > 0.0)) {
    set_zero(K);
  } else if (!(l2 > 0.0)) { /* one positive eigenvalue */
    const double l = eigenvector(K, l3, v) ? rayleigh(K, v) : 0.0;
    if (l > 0.0)
      add_outer(K, NULL, l, v);
    else
      set_zero(K);
  } else if (eigenvector(K, l1, v)) { /* one negative eigenvalue */
    const double l = rayleigh(K, v);
    if (l < 0.0) {
      for (int i = 0; i < 9; i++) base[i] = K[i];
      add_outer(K, base, -l, v);
    }
  }
}
