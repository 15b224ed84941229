/* bodies.c -- the bodies' stages of a step (step.c sequences them): the
 * forces and the gyroscopic term, the solver bodies (shards) taking and
 * giving back their bodies' velocities, and integration. It reads and
 * writes the world's bodies and solver-body arrays and calls no other
 * module of the step. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "rtmath.h"
#include "world.h"

/* The gyroscopic term w x (I w) taken implicitly: in the body frame, one
 * Newton step on f(w) = I (w - w0) + dt w x (I w) = 0 from w0. Unlike the
 * explicit term it does not add energy to a spinning body while w dt is
 * small; past a radian a step the one Newton step can (a box of random
 * mechanism seed 31, spun up by a fight of its joints, went from 176 to
 * 3483 rad/s in one step at w dt = 2.9, and exploded). The term does no
 * work, so a step that would leave more rotational energy than w0 had is
 * scaled back to w0's. */
static void gyroscopic(rt_body_desc *b, double dt) {
  double w[3], Iw[3];
  rt__q_rotate_inv(w, b->pose.q, b->angvel);
  for (int k = 0; k < 3; k++) Iw[k] = b->inertia[k] * w[k];
  double f[3];
  rt__v3_cross(f, w, Iw);
  rt__v3_scale(f, f, dt);
  /* Jacobian I + dt ([w]x I - [I w]x) */
  const double *I = b->inertia;
  double A[3][3] = {
      {I[0], -dt * w[2] * I[1] + dt * Iw[2], dt * w[1] * I[2] - dt * Iw[1]},
      {dt * w[2] * I[0] - dt * Iw[2], I[1], -dt * w[0] * I[2] + dt * Iw[0]},
      {-dt * w[1] * I[0] + dt * Iw[1], dt * w[0] * I[1] - dt * Iw[0], I[2]},
  };
  /* solve A x = f by Cramer's rule */
  double c0[3], c1[3], c2[3];
  const double r0[3] = {A[0][0], A[0][1], A[0][2]}, r1[3] = {A[1][0], A[1][1], A[1][2]},
               r2[3] = {A[2][0], A[2][1], A[2][2]};
  rt__v3_cross(c0, r1, r2);
  rt__v3_cross(c1, r2, r0);
  rt__v3_cross(c2, r0, r1);
  const double det = rt__v3_dot(r0, c0);
  if (!(fabs(det) > 0.0)) return;
  /* A^-1 = [c0 c1 c2] / det (columns) */
  double x[3];
  for (int k = 0; k < 3; k++) x[k] = (c0[k] * f[0] + c1[k] * f[1] + c2[k] * f[2]) / det;
  double w1[3];
  rt__v3_sub(w1, w, x);
  const double e0 = I[0] * w[0] * w[0] + I[1] * w[1] * w[1] + I[2] * w[2] * w[2];
  const double e1 = I[0] * w1[0] * w1[0] + I[1] * w1[1] * w1[1] + I[2] * w1[2] * w1[2];
  if (e1 > e0) rt__v3_scale(w1, w1, sqrt(e0 / e1));
  rt__q_rotate(b->angvel, b->pose.q, w1);
}

void rt__bodies_apply_forces(rt_world *w) {
  const double dt = w->set.dt;
  for (int i = 0; i < w->nbody; i++) {
    rt_body_desc *b = &w->body[i];
    if (b->fixed) continue;
    for (int k = 0; k < 3; k++) b->vel[k] += dt * (w->set.gravity[k] + w->force[3 * i + k] / b->mass);
    const double *t = w->torque + 3 * i;
    if (t[0] != 0.0 || t[1] != 0.0 || t[2] != 0.0) { /* most bodies have none: no world inertia then */
      double ii[9], dw[3];
      rt_inv_inertia_world(b->pose.q, b->inertia, 1.0, ii);
      rt__m3_vec(dw, ii, t);
      for (int k = 0; k < 3; k++) b->angvel[k] += dt * dw[k];
    }
    gyroscopic(b, dt);
  }
}

void rt__bodies_clear_forces(rt_world *w) {
  memset(w->force, 0, 3 * sizeof *w->force * (size_t)w->nbody);
  memset(w->torque, 0, 3 * sizeof *w->torque * (size_t)w->nbody);
}

/* x * 0 is a zero for a finite x and NaN for an infinite or NaN one, so a
 * body's sum of them is zero exactly when all its numbers are finite, in
 * whatever order they are added: with GCC or Clang two at a time in the
 * lanes of a vector, the pose, velocity and angular velocity as the 13
 * doubles they are in a row (the sample lift's two checks a step: 10k ->
 * 4k -> 2.5k instructions, make bench-cg's window). */
#if defined(__GNUC__) || defined(__clang__)
typedef double bodies_v2 __attribute__((vector_size(16)));
static double zeros(const double *x, int n) {
  bodies_v2 acc = {0.0, 0.0};
  int k = 0;
  for (; k + 2 <= n; k += 2) {
    bodies_v2 v;
    memcpy(&v, x + k, sizeof v);
    acc += v * 0.0;
  }
  return acc[0] + acc[1] + (k < n ? x[k] * 0.0 : 0.0);
}
#else
static double zeros(const double *x, int n) {
  double zero = 0.0;
  for (int k = 0; k < n; k++) zero += x[k] * 0.0;
  return zero;
}
#endif

_Static_assert(offsetof(rt_body_desc, vel) == offsetof(rt_body_desc, pose) + 7 * sizeof(double) &&
                   offsetof(rt_body_desc, angvel) == offsetof(rt_body_desc, vel) + 3 * sizeof(double),
               "a body's pose, vel and angvel are 13 doubles in a row");

int rt__bodies_finite(const rt_world *w) {
  for (int i = 0; i < w->nbody; i++) {
    const rt_body_desc *b = &w->body[i];
    const double *state = (const double *)(const void *)((const char *)b + offsetof(rt_body_desc, pose));
    if (zeros(state, 13) + zeros(w->force + 3 * i, 3) + zeros(w->torque + 3 * i, 3) != 0.0) return 0;
  }
  return 1;
}

void rt__bodies_solver_masses(const rt_world *w, const rt_body_desc *body, double *inv_mass, double *inv_inertia,
                              double *inertia) {
  const rt_program *p = w->prog;
  for (int s = 0; s < w->nsbody; s++) {
    const rt_body_desc *b = &body[p->sbody_body[s]];
    double *ii = inv_inertia + 9 * s;
    if (b->fixed) {
      inv_mass[s] = 0.0;
      memset(ii, 0, 9 * sizeof *ii);
      if (inertia) memset(inertia + 9 * s, 0, 9 * sizeof *inertia);
      continue;
    }
    const double k = (double)p->shard_num[p->sbody_body[s]];
    inv_mass[s] = k / b->mass;
    /* R diag(I / k) R^T (+ G) */
    const double inv[3] = {1.0 / b->inertia[0], 1.0 / b->inertia[1], 1.0 / b->inertia[2]};
    double A[9];
    if (inertia || w->set.geometric_stiffness) rt_inv_inertia_world(b->pose.q, inv, 1.0 / k, A);
    if (w->set.geometric_stiffness) {
      const double *G = w->gstiff + 9 * (size_t)s;
      for (int i = 0; i < 9; i++) A[i] += G[i];
    }
    if (inertia) memcpy(inertia + 9 * s, A, sizeof A);
    if (!w->set.geometric_stiffness) {
      rt_inv_inertia_world(b->pose.q, b->inertia, k, ii);
      continue;
    }
    /* (R diag(I / k) R^T + G)^-1, by Cramer's rule */
    double c0[3], c1[3], c2[3];
    rt__v3_cross(c0, A + 3, A + 6);
    rt__v3_cross(c1, A + 6, A);
    rt__v3_cross(c2, A, A + 3);
    const double det = rt__v3_dot(A, c0);
    for (int i = 0; i < 3; i++) {
      ii[3 * i + 0] = c0[i] / det;
      ii[3 * i + 1] = c1[i] / det;
      ii[3 * i + 2] = c2[i] / det;
    }
  }
}

void rt__bodies_split(rt_world *w) {
  const rt_program *p = w->prog;
  rt__bodies_solver_masses(w, w->body, w->inv_mass, w->inv_inertia, w->inertia);
  for (int s = 0; s < w->nsbody; s++) {
    const rt_body_desc *b = &w->body[p->sbody_body[s]];
    double *v = w->vel + 6 * s;
    if (b->fixed) {
      memset(v, 0, 6 * sizeof *v);
      continue;
    }
    rt__v3_copy(v, b->vel);
    rt__v3_copy(v + 3, b->angvel);
  }
}

/* Shards have equal masses and inertias at one pose, so the mean of their
 * velocities conserves the body's momentum and angular momentum. */
void rt__bodies_merge(rt_world *w) {
  const rt_program *p = w->prog;
  for (int i = 0; i < w->nbody; i++) {
    rt_body_desc *b = &w->body[i];
    if (b->fixed) continue;
    const int first = p->shard_adr[i], k = p->shard_num[i];
    double acc[6] = {0, 0, 0, 0, 0, 0};
    for (int s = first; s < first + k; s++)
      for (int j = 0; j < 6; j++) acc[j] += w->vel[6 * s + j];
    for (int j = 0; j < 3; j++) {
      b->vel[j] = acc[j] / k;
      b->angvel[j] = acc[3 + j] / k;
    }
  }
}

/* The position pass turns a body by at most this much in a step (rad,
 * 8 degrees): it is linear in the rotation, and a light, slender body (a
 * chain link whose inertia is tiny beside its neighbours') would be asked
 * to turn by radians to close a gap of a few centimetres -- which opens
 * more gaps than it closes. Measured on a 12-link chain released
 * horizontal at dt 1/60 (LDL-PGS): unclamped it came apart (20 m between
 * its joints); clamped at 0.05, 0.1, 0.25, 0.5 rad: 0.22, 0.13, 0.48,
 * 1.4 m. */
#define RT__MAX_CORRECTION_TURN 0.14

void rt__bodies_integrate(rt_world *w, int pass) {
  const rt_program *p = w->prog;
  const double dt = w->set.dt;
  for (int i = 0; i < w->nbody; i++) {
    rt_body_desc *b = &w->body[i];
    if (b->fixed) continue;
    const int first = p->shard_adr[i], nshard = p->shard_num[i];
    double pv[6] = {0, 0, 0, 0, 0, 0};
    for (int s = first; s < first + nshard && pass; s++)
      for (int j = 0; j < 6; j++) pv[j] += w->pvel[6 * s + j];
    for (int j = 0; j < 6; j++) pv[j] /= nshard;
    const double turn = dt * rt__v3_norm(pv + 3);
    if (turn > RT__MAX_CORRECTION_TURN) rt__v3_scale(pv + 3, pv + 3, RT__MAX_CORRECTION_TURN / turn);
    double v[6];
    for (int j = 0; j < 3; j++) {
      v[j] = b->vel[j] + pv[j];
      v[3 + j] = b->angvel[j] + pv[3 + j];
    }
    for (int s = first; s < first + nshard; s++) memcpy(w->dvel + 6 * s, v, sizeof v);
    for (int j = 0; j < 3; j++) b->pose.p[j] += dt * v[j];
    const double wq[4] = {0.0, v[3], v[4], v[5]};
    double dq[4];
    rt__q_mul(dq, wq, b->pose.q);
    for (int k = 0; k < 4; k++) b->pose.q[k] += 0.5 * dt * dq[k];
    rt__q_normalize(b->pose.q);
  }
}
