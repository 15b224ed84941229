/* inertia.c -- the world-frame inverse inertia of a body or shard (rt.h). */
#include "rt.h"
#include "rtmath.h"

void rt_inv_inertia_world(const double q[4], const double inertia[3], double scale, double out[9]) {
  double R[3][3];
  for (int j = 0; j < 3; j++) {
    double e[3] = {0, 0, 0}, col[3];
    e[j] = 1.0;
    rt__q_rotate(col, q, e);
    for (int r = 0; r < 3; r++) R[r][j] = col[r];
  }
  /* the three quotients once (the same values as in the sum each time) */
  const double s[3] = {scale / inertia[0], scale / inertia[1], scale / inertia[2]};
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) {
      double acc = 0.0;
      for (int k = 0; k < 3; k++) acc += R[r][k] * s[k] * R[c][k];
      out[3 * r + c] = acc;
    }
}
