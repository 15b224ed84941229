/* inertia.c -- the world-frame inverse inertia of a body or shard (rt.h). */
#include "rt.h"
#include "rtmath.h"

/* Entry (r, c): R[r][k] s_k R[c][k] summed from +0 over k = 0, 1, 2. */
static inline double entry(const double R[3][3], const double s[3], int r, int c) {
  double acc = 0.0;
  acc += R[r][0] * s[0] * R[c][0];
  acc += R[r][1] * s[1] * R[c][1];
  acc += R[r][2] * s[2] * R[c][2];
  return acc;
}

void rt_inv_inertia_world(const double q[4], const double inertia[3], double scale, double out[9]) {
  /* the columns of R: the rotated unit vectors */
  static const double e[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  double col[3][3];
  rt__q_rotate(col[0], q, e[0]);
  rt__q_rotate(col[1], q, e[1]);
  rt__q_rotate(col[2], q, e[2]);
  const double R[3][3] = {{col[0][0], col[1][0], col[2][0]},
                          {col[0][1], col[1][1], col[2][1]},
                          {col[0][2], col[1][2], col[2][2]}};
  /* the three quotients once (the same values as in the sum each time);
   * every entry computed, none mirrored (R s R^T's two halves round alike
   * only entry by entry) */
  const double s[3] = {scale / inertia[0], scale / inertia[1], scale / inertia[2]};
  out[0] = entry(R, s, 0, 0);
  out[1] = entry(R, s, 0, 1);
  out[2] = entry(R, s, 0, 2);
  out[3] = entry(R, s, 1, 0);
  out[4] = entry(R, s, 1, 1);
  out[5] = entry(R, s, 1, 2);
  out[6] = entry(R, s, 2, 0);
  out[7] = entry(R, s, 2, 1);
  out[8] = entry(R, s, 2, 2);
}
