/* rtmath.h -- small vector and quaternion helpers shared by runtime files.
 *
 * Runtime-internal (not part of rt.h): every name carries the rt__ marker.
 * Vectors are double[3]; quaternions are double[4] = (w, x, y, z), and a unit
 * quaternion q rotates a vector v as q (0, v) q*. Every helper computes its
 * result into locals before storing it, so an output may alias an input.
 * The operations are written out in a fixed order (the build forbids FMA
 * contraction), so results are bitwise the same on every machine. */
#ifndef LDLPGS_RUNTIME_RTMATH_H
#define LDLPGS_RUNTIME_RTMATH_H

#include <math.h>

/* The larger of a running maximum m (never NaN) and x, ignoring a NaN x as
 * fmax does. Hot loops use it instead of fmax, which compiles to a call into
 * libm: in the AVX-512 build (make ARCH=avx512) that call, in the block
 * step's and the contact passes' loops, took 37 % of the tank's step and
 * made the step 4-5 times slower than the portable build's (perf, 8 tanks
 * in motion). */
static inline double rt__most(double m, double x) { return x > m ? x : m; }

/* fmin(fmax(x, lo), hi) without the two calls into libm (in the warm
 * start, the velocity bias and S's clamps they and their calls' overhead
 * were 1.2 % of the sample scissor lift's instructions): each bound as glibc's
 * x86-64 fmax and fmin give it (maxsd, minsd: of two numbers the second
 * unless the first is larger, resp. smaller -- so of two zeros the
 * second; a NaN loses to a number), so the same values bit for bit there. */
static inline double rt__clamp(double x, double lo, double hi) {
  const double m = x > lo || lo != lo ? x : lo;
  return m < hi || hi != hi ? m : hi;
}

static inline void rt__v3_set(double out[3], double x, double y, double z) {
  out[0] = x;
  out[1] = y;
  out[2] = z;
}

static inline void rt__v3_copy(double out[3], const double a[3]) {
  rt__v3_set(out, a[0], a[1], a[2]);
}

static inline void rt__v3_add(double out[3], const double a[3], const double b[3]) {
  rt__v3_set(out, a[0] + b[0], a[1] + b[1], a[2] + b[2]);
}

static inline void rt__v3_sub(double out[3], const double a[3], const double b[3]) {
  rt__v3_set(out, a[0] - b[0], a[1] - b[1], a[2] - b[2]);
}

static inline void rt__v3_scale(double out[3], const double a[3], double s) {
  rt__v3_set(out, a[0] * s, a[1] * s, a[2] * s);
}

static inline double rt__v3_dot(const double a[3], const double b[3]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* out = a x b */
static inline void rt__v3_cross(double out[3], const double a[3], const double b[3]) {
  rt__v3_set(out, a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
             a[0] * b[1] - a[1] * b[0]);
}

static inline double rt__v3_norm(const double a[3]) { return sqrt(rt__v3_dot(a, a)); }

/* Scales a to unit length and returns its former length; a zero (or NaN)
 * vector is left unchanged. */
static inline double rt__v3_normalize(double a[3]) {
  double n = rt__v3_norm(a);
  if (n > 0.0) rt__v3_scale(a, a, 1.0 / n);
  return n;
}

/* out = a (x) b, the Hamilton product: rotating by out = rotating by b, then by a. */
static inline void rt__q_mul(double out[4], const double a[4], const double b[4]) {
  double w = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
  double x = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
  double y = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
  double z = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
  out[0] = w;
  out[1] = x;
  out[2] = y;
  out[3] = z;
}

/* Scales q to unit length and returns its former length; a zero quaternion
 * is left unchanged. */
static inline double rt__q_normalize(double q[4]) {
  double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (n > 0.0) {
    double s = 1.0 / n;
    for (int k = 0; k < 4; k++) q[k] *= s;
  }
  return n;
}

/* out = R(q) v for a unit quaternion q = (w, u):
 * t = 2 u x v, R v = v + w t + u x t. */
static inline void rt__q_rotate(double out[3], const double q[4], const double v[3]) {
  double u[3] = {q[1], q[2], q[3]}, t[3], ut[3];
  rt__v3_cross(t, u, v);
  rt__v3_scale(t, t, 2.0);
  rt__v3_cross(ut, u, t);
  rt__v3_set(out, v[0] + q[0] * t[0] + ut[0], v[1] + q[0] * t[1] + ut[1],
             v[2] + q[0] * t[2] + ut[2]);
}

/* out = R(q)^T v, rotation by the conjugate of a unit quaternion q. */
static inline void rt__q_rotate_inv(double out[3], const double q[4], const double v[3]) {
  double qc[4] = {q[0], -q[1], -q[2], -q[3]};
  rt__q_rotate(out, qc, v);
}

static inline int rt__v3_finite(const double v[3]) { return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]); }

/* out = m v for a row-major 3x3 m. */
static inline void rt__m3_vec(double out[3], const double m[9], const double v[3]) {
  double x = m[0] * v[0] + m[1] * v[1] + m[2] * v[2];
  double y = m[3] * v[0] + m[4] * v[1] + m[5] * v[2];
  double z = m[6] * v[0] + m[7] * v[1] + m[8] * v[2];
  rt__v3_set(out, x, y, z);
}

#endif
