/* rt_sweep.h -- the kernels of generated programs' sweeps of their
 * equality rows (rt_sweep_fn of rt.h; templates/sweep.tpl writes the
 * schedule, one line per constraint or pair, that calls them): one
 * projected Gauss-Seidel row with its sides' velocities in registers, and
 * a constraint's rows alone (sweep_one) or two constraints' rows
 * interleaved (sweep_two), with the operations of the runtime's generic
 * sweep, so its bits. Shared by every program, so kept here once (issue
 * 18: generated files hold only the mechanism's own code). With GCC or
 * Clang the products and updates are 2-lane vector operations, each lane
 * the scalar IEEE operation; plain C (LDLPGS_NO_VECTOR, other compilers)
 * gives the same bits. */
#ifndef RT_SWEEP_H
#define RT_SWEEP_H

#include <string.h>

#if defined(LDLPGS_NO_VECTOR) || !defined(__GNUC__)
#define RT_SWEEP_VECTOR 0
#define SWEEP_INLINE static inline
typedef struct sweep_side {
  double x[6];
} sweep_side;
SWEEP_INLINE sweep_side sweep_load(const double *p) {
  sweep_side v;
  memcpy(v.x, p, sizeof v.x);
  return v;
}
SWEEP_INLINE void sweep_store(double *p, sweep_side v) { memcpy(p, v.x, sizeof v.x); }
/* s + j_0 v_0 + ... + j_5 v_5, added one by one in that order */
SWEEP_INLINE double sweep_dot(const double *j, const sweep_side *v, double s) {
  for (int k = 0; k < 6; k++) s += j[k] * v->x[k];
  return s;
}
SWEEP_INLINE void sweep_axpy(const double *w, double dl, sweep_side *v) {
  for (int k = 0; k < 6; k++) v->x[k] += w[k] * dl;
}
#else
#define RT_SWEEP_VECTOR 1
#define SWEEP_INLINE static inline __attribute__((always_inline))
typedef double sweep_v2 __attribute__((vector_size(16)));
typedef struct sweep_side {
  sweep_v2 x0, x1, x2;
} sweep_side;
SWEEP_INLINE sweep_v2 sweep_load2(const double *p) {
  sweep_v2 v;
  memcpy(&v, p, sizeof v);
  return v;
}
SWEEP_INLINE void sweep_store2(double *p, sweep_v2 v) { memcpy(p, &v, sizeof v); }
SWEEP_INLINE sweep_side sweep_load(const double *p) {
  const sweep_side v = {sweep_load2(p), sweep_load2(p + 2), sweep_load2(p + 4)};
  return v;
}
SWEEP_INLINE void sweep_store(double *p, sweep_side v) {
  sweep_store2(p, v.x0);
  sweep_store2(p + 2, v.x1);
  sweep_store2(p + 4, v.x2);
}
/* s + j_0 v_0 + ... + j_5 v_5, added one by one in that order */
SWEEP_INLINE double sweep_dot(const double *j, const sweep_side *v, double s) {
  const sweep_v2 p0 = sweep_load2(j) * v->x0, p1 = sweep_load2(j + 2) * v->x1, p2 = sweep_load2(j + 4) * v->x2;
  s += p0[0];
  s += p0[1];
  s += p1[0];
  s += p1[1];
  s += p2[0];
  s += p2[1];
  return s;
}
SWEEP_INLINE void sweep_axpy(const double *w, double dl, sweep_side *v) {
  const sweep_v2 d = {dl, dl};
  v->x0 += sweep_load2(w) * d;
  v->x1 += sweep_load2(w + 2) * d;
  v->x2 += sweep_load2(w + 4) * d;
}
#endif

/* The rows' arrays (rt_sweep_rows), none overlapping another. */
typedef struct sweep_rows {
  const double *restrict J, *restrict WJ, *restrict rhs, *restrict inv_diag;
  double *restrict lambda;
} sweep_rows;

/* Row i on sides a, b in registers; sa, sb (constants): whether the side is
 * a body (a side on the world contributes nothing). */
SWEEP_INLINE void sweep_row(sweep_rows r, int i, sweep_side *a, sweep_side *b, int sa, int sb) {
  const double *restrict j = r.J + 12 * i;
  double jv = 0.0;
  if (sa) jv = sweep_dot(j, a, jv);
  if (sb) jv = sweep_dot(j + 6, b, jv);
  const double old = r.lambda[i];
  const double l = old + (r.rhs[i] - jv) * r.inv_diag[i];
  r.lambda[i] = l;
  const double dl = l - old;
  const double *restrict w = r.WJ + 12 * i;
  if (sa) sweep_axpy(w, dl, a);
  if (sb) sweep_axpy(w + 6, dl, b);
}

/* The schedule's kernels (unused: a schedule may call only one): a
 * constraint's rows [row, row + n) on the sides' bodies a and b
 * (SWEEP_WORLD: the world) with their velocities in registers; the
 * callers' arguments are constants. */
#define SWEEP_WORLD (-1)
#if defined(__GNUC__)
#define SWEEP_UNUSED __attribute__((unused))
#else
#define SWEEP_UNUSED
#endif
SWEEP_INLINE SWEEP_UNUSED void sweep_one(sweep_rows r, double *restrict v, int row, int n, int a, int b) {
  sweep_side x = sweep_load(v + 6 * (a >= 0 ? a : 0)), y = sweep_load(v + 6 * (b >= 0 ? b : 0));
  for (int i = row; i < row + n; i++) sweep_row(r, i, &x, &y, a >= 0, b >= 0);
  if (a >= 0) sweep_store(v + 6 * a, x);
  if (b >= 0) sweep_store(v + 6 * b, y);
}

/* Two constraints that share no body, their rows interleaved row by row
 * (the bits of one after the other), then the rest of the longer. */
SWEEP_INLINE SWEEP_UNUSED void sweep_two(sweep_rows r, double *restrict v, int row1, int n1, int a1, int b1,
                                         int row2, int n2, int a2, int b2) {
  sweep_side x1 = sweep_load(v + 6 * (a1 >= 0 ? a1 : 0)), y1 = sweep_load(v + 6 * (b1 >= 0 ? b1 : 0));
  sweep_side x2 = sweep_load(v + 6 * (a2 >= 0 ? a2 : 0)), y2 = sweep_load(v + 6 * (b2 >= 0 ? b2 : 0));
  int k = 0;
  for (; k < n1 && k < n2; k++) {
    sweep_row(r, row1 + k, &x1, &y1, a1 >= 0, b1 >= 0);
    sweep_row(r, row2 + k, &x2, &y2, a2 >= 0, b2 >= 0);
  }
  for (int i = k; i < n1; i++) sweep_row(r, row1 + i, &x1, &y1, a1 >= 0, b1 >= 0);
  for (int i = k; i < n2; i++) sweep_row(r, row2 + i, &x2, &y2, a2 >= 0, b2 >= 0);
  if (a1 >= 0) sweep_store(v + 6 * a1, x1);
  if (b1 >= 0) sweep_store(v + 6 * b1, y1);
  if (a2 >= 0) sweep_store(v + 6 * a2, x2);
  if (b2 >= 0) sweep_store(v + 6 * b2, y2);
}

#endif /* RT_SWEEP_H */
