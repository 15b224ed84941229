/* test_joint.c -- rt_joint_eval (runtime/joint.c) and the rtmath.h helpers.
 * (Over 600 lines: the finite-difference harness, random poses and frames
 * are shared by every type's checks.)
 *
 * What is checked:
 * - every equality type's Jacobian against central finite differences of its
 *   constraint function, at random poses, anchors and frames, for body-body,
 *   world-body and body-world joints, along random velocities and along each
 *   of the 12 unit velocities;
 * - c = 0 at the initial pose for joints built by mech_joint_desc from
 *   world-frame anchors and axes, and c stays 0 under the motions the joint
 *   allows (and not under one it forbids, with the expected sign/value);
 * - the rank of J at rest (degree, also per body), and the rank deficiency of
 *   a universal joint with parallel axes;
 * - return values (degree; -1 for inequality types), NULL J, NULL = identity;
 * - rt__clamp (rtmath.h) against fmin(fmax()) on numbers, zeros,
 *   infinities and NaNs;
 * - rt_joint_axis_eval, the free coordinate of hinge, cylindrical and
 *   prismatic joints (motors and limits act on it): 0 at the initial pose,
 *   equal to the angle or travel of a motion along the joint, and its
 *   Jacobian row against central finite differences.
 * The test does its own pose arithmetic (quaternion product, rotation matrix)
 * so a mistake in rtmath.h cannot cancel out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../runtime/rtmath.h"
#include "mech.h"
#include "rt.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define NTRIAL 25    /* random configurations per type and side pattern */
#define NVEL 4       /* random velocities per configuration */
#define FD_H 1e-6    /* finite-difference step */
#define FD_TOL 1e-6  /* relative tolerance of J.V against the difference */
#define REST_TOL 1e-12

static const rt_joint_type equality_types[] = {RT_BALL,      RT_HINGE,     RT_ROD,  RT_PRISMATIC,
                                               RT_CYLINDRICAL, RT_UNIVERSAL, RT_WELD};
#define NEQ ((int)(sizeof equality_types / sizeof equality_types[0]))

/*---- deterministic RNG (splitmix64) -----------------------------------------*/

static uint64_t rng_state;

static void rng_seed(uint64_t s) { rng_state = s; }

static uint64_t rng_next(void) {
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* uniform in [lo, hi) */
static double rng_uniform(double lo, double hi) {
  return lo + (hi - lo) * ((double)(rng_next() >> 11) * (1.0 / 9007199254740992.0));
}

static void rng_vec(double v[3], double scale) {
  for (int k = 0; k < 3; k++) v[k] = rng_uniform(-scale, scale);
}

/* A unit vector, rejection-sampled from the unit ball. */
static void rng_unit(double v[3]) {
  double n2;
  do {
    rng_vec(v, 1.0);
    n2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
  } while (n2 < 0.01 || n2 > 1.0);
  double s = 1.0 / sqrt(n2);
  for (int k = 0; k < 3; k++) v[k] *= s;
}

static void rng_quat(double q[4]) {
  double n2;
  do {
    for (int k = 0; k < 4; k++) q[k] = rng_uniform(-1.0, 1.0);
    n2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
  } while (n2 < 0.01 || n2 > 1.0);
  double s = 1.0 / sqrt(n2);
  for (int k = 0; k < 4; k++) q[k] *= s;
}

/*---- the test's own pose arithmetic -------------------------------------------*/

static void t_qmul(const double a[4], const double b[4], double o[4]) {
  double r[4] = {
      a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
      a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
      a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
      a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0],
  };
  memcpy(o, r, sizeof r);
}

/* Rotation matrix of a unit quaternion (textbook form, independent of rtmath). */
static void t_qmat(const double q[4], double M[3][3]) {
  double w = q[0], x = q[1], y = q[2], z = q[3];
  M[0][0] = 1 - 2 * (y * y + z * z);
  M[0][1] = 2 * (x * y - w * z);
  M[0][2] = 2 * (x * z + w * y);
  M[1][0] = 2 * (x * y + w * z);
  M[1][1] = 1 - 2 * (x * x + z * z);
  M[1][2] = 2 * (y * z - w * x);
  M[2][0] = 2 * (x * z - w * y);
  M[2][1] = 2 * (y * z + w * x);
  M[2][2] = 1 - 2 * (x * x + y * y);
}

static void t_mv(double M[3][3], const double v[3], double o[3]) {
  double r[3];
  for (int i = 0; i < 3; i++) r[i] = M[i][0] * v[0] + M[i][1] * v[1] + M[i][2] * v[2];
  memcpy(o, r, sizeof r);
}

static void t_cross(const double a[3], const double b[3], double o[3]) {
  double r[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
  memcpy(o, r, sizeof r);
}

static double t_dot(const double a[3], const double b[3]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void t_qnormalize(double q[4]) {
  double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  for (int k = 0; k < 4; k++) q[k] /= n;
}

/* Advances a pose by (v, w) for time h: p += h v, q <- normalize(q + h/2 (0, w) q). */
static void advance(rt_pose *pose, const double v[3], const double w[3], double h) {
  double wq[4] = {0.0, w[0], w[1], w[2]}, dq[4];
  t_qmul(wq, pose->q, dq);
  for (int k = 0; k < 3; k++) pose->p[k] += h * v[k];
  for (int k = 0; k < 4; k++) pose->q[k] += 0.5 * h * dq[k];
  t_qnormalize(pose->q);
}

/* The poses pa, pb (NULL: the world) moved by +-FD_H along the velocity V
 * (v_a, w_a, v_b, w_b): ap/am for a, bp/bm for b (zero for the world). */
static void step_poses(const rt_pose *pa, const rt_pose *pb, const double V[12], rt_pose *ap, rt_pose *am,
                       rt_pose *bp, rt_pose *bm) {
  memset(ap, 0, sizeof *ap);
  *am = *bp = *bm = *ap;
  if (pa) {
    *ap = *am = *pa;
    advance(ap, V, V + 3, FD_H);
    advance(am, V, V + 3, -FD_H);
  }
  if (pb) {
    *bp = *bm = *pb;
    advance(bp, V + 6, V + 9, FD_H);
    advance(bm, V + 6, V + 9, -FD_H);
  }
}

/* Quaternion of a rotation by angle t about unit axis u. */
static void axis_angle(const double u[3], double t, double q[4]) {
  double s = sin(0.5 * t);
  q[0] = cos(0.5 * t);
  q[1] = s * u[0];
  q[2] = s * u[1];
  q[3] = s * u[2];
}

/* Moves a pose rigidly by the rotation qr about the world point P. */
static void rotate_about(rt_pose *pose, const double qr[4], const double P[3]) {
  double M[3][3], rel[3];
  t_qmat(qr, M);
  for (int k = 0; k < 3; k++) rel[k] = pose->p[k] - P[k];
  t_mv(M, rel, rel);
  for (int k = 0; k < 3; k++) pose->p[k] = P[k] + rel[k];
  t_qmul(qr, pose->q, pose->q);
  t_qnormalize(pose->q);
}

static void translate(rt_pose *pose, const double t[3]) {
  for (int k = 0; k < 3; k++) pose->p[k] += t[k];
}

static void rng_pose(rt_pose *pose) {
  rng_vec(pose->p, 2.0);
  rng_quat(pose->q);
}

/* A random right-handed orthonormal frame (rows of a rotation matrix). */
static void rng_frame(double f[3][3]) {
  double q[4];
  rng_quat(q);
  t_qmat(q, f);
}

/* A unit vector perpendicular to unit u. */
static void rng_perp(const double u[3], double p[3]) {
  double s;
  do {
    rng_unit(p);
    s = t_dot(p, u);
    for (int k = 0; k < 3; k++) p[k] -= s * u[k];
  } while (sqrt(t_dot(p, p)) < 0.1);
  s = 1.0 / sqrt(t_dot(p, p));
  for (int k = 0; k < 3; k++) p[k] *= s;
}

/*---- finite-difference check ---------------------------------------------------*/

static double max_fd_err; /* largest normalized error seen, for the log */

/* Checks J.V against (c(+h) - c(-h)) / 2h along V; a NULL pose is the world,
 * whose velocity columns are ignored. */
static void check_fd(const rt_joint_desc *jd, const rt_pose *pa, const rt_pose *pb,
                     const double V[12]) {
  double c0[RT_MAX_DEGREE], cp[RT_MAX_DEGREE], cm[RT_MAX_DEGREE];
  double J[RT_MAX_DEGREE * 12];
  int deg = rt_joint_eval(jd, pa, pb, c0, J);
  assert_int_equal(deg, rt_joint_degree(jd->type));
  rt_pose ap, am, bp, bm;
  step_poses(pa, pb, V, &ap, &am, &bp, &bm);
  assert_int_equal(rt_joint_eval(jd, pa ? &ap : NULL, pb ? &bp : NULL, cp, NULL), deg);
  assert_int_equal(rt_joint_eval(jd, pa ? &am : NULL, pb ? &bm : NULL, cm, NULL), deg);
  for (int i = 0; i < deg; i++) {
    double jv = 0.0, scale = 0.0;
    for (int j = 0; j < 12; j++) {
      if ((j < 6 && !pa) || (j >= 6 && !pb)) continue;
      jv += J[12 * i + j] * V[j];
      scale += fabs(J[12 * i + j] * V[j]);
    }
    double fd = (cp[i] - cm[i]) / (2.0 * FD_H);
    double err = fabs(fd - jv) / (1.0 + scale);
    if (err > max_fd_err) max_fd_err = err;
    if (err > FD_TOL)
      fail_msg("%s row %d: J.V = %.12g, finite difference = %.12g",
               rt_joint_type_name(jd->type), i, jv, fd);
  }
}

static void rng_desc(rt_joint_type type, int a, int b, rt_joint_desc *jd) {
  memset(jd, 0, sizeof *jd);
  jd->type = type;
  jd->body_a = a;
  jd->body_b = b;
  rng_vec(jd->anchor_a, 1.0);
  rng_vec(jd->anchor_b, 1.0);
  rng_frame(jd->frame_a);
  rng_frame(jd->frame_b);
  jd->length = rng_uniform(0.5, 2.0);
}

/* sides: 0 body-body, 1 world-body, 2 body-world */
static void fd_all(int sides) {
  rng_seed(0x10u + (uint64_t)sides);
  max_fd_err = 0.0;
  for (int t = 0; t < NEQ; t++) {
    for (int trial = 0; trial < NTRIAL; trial++) {
      rt_joint_desc jd;
      rt_pose pa, pb;
      rng_desc(equality_types[t], sides == 1 ? RT_WORLD : 0, sides == 2 ? RT_WORLD : 1, &jd);
      rng_pose(&pa);
      rng_pose(&pb);
      const rt_pose *a = sides == 1 ? NULL : &pa, *b = sides == 2 ? NULL : &pb;
      double V[12];
      for (int n = 0; n < NVEL; n++) {
        for (int j = 0; j < 12; j++) V[j] = rng_uniform(-1.0, 1.0);
        check_fd(&jd, a, b, V);
      }
      for (int j = 0; j < 12; j++) {
        memset(V, 0, sizeof V);
        V[j] = 1.0;
        check_fd(&jd, a, b, V);
      }
    }
  }
  print_message("max normalized |J.V - finite difference| = %.3g\n", max_fd_err);
}

static void test_fd_body_body(void **state) {
  (void)state;
  fd_all(0);
}

static void test_fd_world_body(void **state) {
  (void)state;
  fd_all(1);
}

static void test_fd_body_world(void **state) {
  (void)state;
  fd_all(2);
}

/* Near-rest configurations (frames almost equal, anchors almost coincident),
 * where the solver spends its time and where d is small. */
static void test_fd_near_rest(void **state) {
  (void)state;
  rng_seed(0x20);
  for (int t = 0; t < NEQ; t++) {
    for (int trial = 0; trial < NTRIAL; trial++) {
      rt_joint_desc jd;
      rt_pose pa, pb;
      rng_pose(&pa);
      pb = pa;
      double dp[3], qd[4], u[3];
      rng_vec(dp, 1e-3);
      translate(&pb, dp);
      rng_unit(u);
      axis_angle(u, 1e-3, qd);
      t_qmul(qd, pb.q, pb.q);
      memset(&jd, 0, sizeof jd);
      jd.type = equality_types[t];
      jd.body_b = 1;
      rng_vec(jd.anchor_a, 1.0);
      memcpy(jd.anchor_b, jd.anchor_a, sizeof jd.anchor_b);
      rng_frame(jd.frame_a);
      memcpy(jd.frame_b, jd.frame_a, sizeof jd.frame_b);
      if (jd.type == RT_UNIVERSAL) /* b's axis perpendicular to a's at rest */
        for (int r = 0; r < 3; r++)
          memcpy(jd.frame_b[r], jd.frame_a[(r + 1) % 3], sizeof jd.frame_b[r]);
      if (jd.type == RT_ROD) { /* keep |d| away from 0 */
        jd.anchor_b[0] += 0.5;
        jd.length = 0.5;
      }
      double V[12];
      for (int n = 0; n < NVEL; n++) {
        for (int j = 0; j < 12; j++) V[j] = rng_uniform(-1.0, 1.0);
        check_fd(&jd, &pa, &pb, V);
      }
    }
  }
}

/*---- joints built by mech_joint_desc -------------------------------------------*/

/* A two-body mechanism with one constraint at world point P, axis u (and
 * axis_b w for universal joints), as the loader leaves it. */
typedef struct scene {
  mech_body bodies[2];
  mech_constraint con;
  mech m;
  double P[3], u[3], w[3];
} scene;

static void scene_make(scene *s, rt_joint_type type, int a, int b) {
  memset(s, 0, sizeof *s);
  for (int i = 0; i < 2; i++) {
    s->bodies[i].name = i ? "b" : "a";
    s->bodies[i].mass = 1.0;
    rng_vec(s->bodies[i].pos, 2.0);
    rng_quat(s->bodies[i].rot);
  }
  rng_vec(s->P, 2.0);
  rng_unit(s->u);
  rng_perp(s->u, s->w);
  mech_constraint *c = &s->con;
  c->name = "j";
  c->type = type;
  c->a = a;
  c->b = b;
  c->target = -1;
  memcpy(c->anchor_a, s->P, sizeof s->P);
  memcpy(c->anchor_b, s->P, sizeof s->P);
  memcpy(c->axis_a, s->u, sizeof s->u);
  memcpy(c->axis_b, type == RT_UNIVERSAL ? s->w : s->u, sizeof s->u);
  if (type == RT_ROD) {
    /* rod: anchor_b at distance 0.8 from anchor_a along w */
    c->length = 0.8;
    for (int k = 0; k < 3; k++) c->anchor_b[k] = s->P[k] + 0.8 * s->w[k];
  }
  s->m.name = "test";
  s->m.bodies = s->bodies;
  s->m.nbody = 2;
  s->m.cons = &s->con;
  s->m.ncons = 1;
  mech_default_settings(&s->m.settings);
}

static void scene_pose(const scene *s, int body, rt_pose *pose) {
  mech_body_pose(&s->m, body, pose);
}

/* Evaluates the scene's joint at poses pa, pb (NULL for the world side). */
static int scene_eval(const scene *s, const rt_pose *pa, const rt_pose *pb, double *c, double *J) {
  rt_joint_desc jd;
  mech_joint_desc(&s->m, 0, &jd);
  return rt_joint_eval(&jd, s->con.a == RT_WORLD ? NULL : pa, s->con.b == RT_WORLD ? NULL : pb, c,
                       J);
}

static double vmax_abs(const double *c, int n) {
  double m = 0.0;
  for (int i = 0; i < n; i++)
    if (fabs(c[i]) > m) m = fabs(c[i]);
  return m;
}

static const int side_a[3] = {0, RT_WORLD, 0};
static const int side_b[3] = {1, 1, RT_WORLD};

static void test_rest_is_zero(void **state) {
  (void)state;
  rng_seed(0x30);
  for (int t = 0; t < NEQ; t++)
    for (int sides = 0; sides < 3; sides++)
      for (int trial = 0; trial < NTRIAL; trial++) {
        scene s;
        rt_pose pa, pb;
        double c[RT_MAX_DEGREE];
        scene_make(&s, equality_types[t], side_a[sides], side_b[sides]);
        scene_pose(&s, 0, &pa);
        scene_pose(&s, 1, &pb);
        int deg = scene_eval(&s, &pa, &pb, c, NULL);
        assert_int_equal(deg, rt_joint_degree(equality_types[t]));
        if (vmax_abs(c, deg) > REST_TOL)
          fail_msg("%s (sides %d): |c| = %g at the initial pose",
                   rt_joint_type_name(equality_types[t]), sides, vmax_abs(c, deg));
      }
}

/* The same rigid motion applied to both bodies leaves every joint satisfied. */
static void test_rigid_motion_invariance(void **state) {
  (void)state;
  rng_seed(0x31);
  for (int t = 0; t < NEQ; t++)
    for (int trial = 0; trial < NTRIAL; trial++) {
      scene s;
      rt_pose pa, pb;
      double c[RT_MAX_DEGREE], qr[4], P[3], dp[3];
      scene_make(&s, equality_types[t], 0, 1);
      scene_pose(&s, 0, &pa);
      scene_pose(&s, 1, &pb);
      rng_quat(qr);
      rng_vec(P, 3.0);
      rng_vec(dp, 3.0);
      rotate_about(&pa, qr, P);
      rotate_about(&pb, qr, P);
      translate(&pa, dp);
      translate(&pb, dp);
      int deg = scene_eval(&s, &pa, &pb, c, NULL);
      assert_true(vmax_abs(c, deg) < 1e-11);
    }
}

/* Rigid motions of body b relative to the scene's pivot P and axes u, w. */
typedef enum motion { M_ROT_P, M_ROT_U, M_ROT_W, M_ROT_UW, M_SLIDE_U, M_SCREW_U } motion;

static void apply(const scene *s, rt_pose *pb, motion mo, double amount) {
  double q[4], axis[3], t[3];
  switch (mo) {
  case M_ROT_P: /* about a random axis through P */
    rng_unit(axis);
    axis_angle(axis, amount, q);
    rotate_about(pb, q, s->P);
    break;
  case M_ROT_U: /* about u through P */
    axis_angle(s->u, amount, q);
    rotate_about(pb, q, s->P);
    break;
  case M_ROT_W: /* about w (universal: axis_b) through P */
    axis_angle(s->w, amount, q);
    rotate_about(pb, q, s->P);
    break;
  case M_ROT_UW: /* about u x w through P */
    t_cross(s->u, s->w, axis);
    axis_angle(axis, amount, q);
    rotate_about(pb, q, s->P);
    break;
  case M_SLIDE_U:
    for (int k = 0; k < 3; k++) t[k] = amount * s->u[k];
    translate(pb, t);
    break;
  case M_SCREW_U: { /* about the axis line through P + 0.7 u, and along it */
    double Q[3];
    for (int k = 0; k < 3; k++) Q[k] = s->P[k] + 0.7 * s->u[k];
    axis_angle(s->u, amount, q);
    rotate_about(pb, q, Q);
    for (int k = 0; k < 3; k++) t[k] = 0.37 * amount * s->u[k];
    translate(pb, t);
    break;
  }
  }
}

static const struct {
  rt_joint_type type;
  motion allowed[3];
  int nallowed;
} freedoms[] = {
    {RT_BALL, {M_ROT_P, M_ROT_U, M_ROT_W}, 3},
    {RT_HINGE, {M_ROT_U}, 1},
    {RT_ROD, {M_ROT_P, M_ROT_U}, 2}, /* any rotation about anchor_a = P */
    {RT_PRISMATIC, {M_SLIDE_U}, 1},
    {RT_CYLINDRICAL, {M_SLIDE_U, M_ROT_U, M_SCREW_U}, 3},
    {RT_UNIVERSAL, {M_ROT_W, M_ROT_U}, 2}, /* about axis_b first, while it is w */
    {RT_WELD, {M_ROT_P}, 0},
};

/* Each joint keeps c = 0 under the motions it allows, applied in list order
 * (each about fixed world axes, so the universal joint's turn about axis_b
 * must come before the turn about axis_a moves axis_b). */
static void test_allowed_motions(void **state) {
  (void)state;
  rng_seed(0x40);
  for (int f = 0; f < (int)(sizeof freedoms / sizeof freedoms[0]); f++)
    for (int sides = 0; sides < 2; sides++)
      for (int trial = 0; trial < NTRIAL; trial++) {
        scene s;
        rt_pose pa, pb;
        double c[RT_MAX_DEGREE];
        scene_make(&s, freedoms[f].type, side_a[sides], side_b[sides]);
        scene_pose(&s, 0, &pa);
        scene_pose(&s, 1, &pb);
        for (int k = 0; k < freedoms[f].nallowed; k++)
          apply(&s, &pb, freedoms[f].allowed[k], rng_uniform(-2.0, 2.0));
        int deg = scene_eval(&s, &pa, &pb, c, NULL);
        if (vmax_abs(c, deg) > 1e-11)
          fail_msg("%s: |c| = %g after an allowed motion", rt_joint_type_name(freedoms[f].type),
                   vmax_abs(c, deg));
      }
}

/* Forbidden motions give the expected constraint values (signs included). */
static void test_forbidden_motions(void **state) {
  (void)state;
  rng_seed(0x50);
  for (int trial = 0; trial < NTRIAL; trial++) {
    scene s;
    rt_pose pa, pb;
    double c[RT_MAX_DEGREE], t[3], amount = rng_uniform(0.1, 1.0);
    rng_vec(t, 1.0);

    /* ball, weld, hinge, universal: translating b by t gives c[0..2] = -t */
    const rt_joint_type pivots[] = {RT_BALL, RT_HINGE, RT_UNIVERSAL, RT_WELD};
    for (int i = 0; i < 4; i++) {
      scene_make(&s, pivots[i], 0, 1);
      scene_pose(&s, 0, &pa);
      scene_pose(&s, 1, &pb);
      translate(&pb, t);
      scene_eval(&s, &pa, &pb, c, NULL);
      for (int k = 0; k < 3; k++) assert_true(fabs(c[k] + t[k]) < 1e-12);
    }

    /* hinge turned by angle a about a perpendicular axis: |c[3..4]| = |sin a| */
    scene_make(&s, RT_HINGE, 0, 1);
    scene_pose(&s, 0, &pa);
    scene_pose(&s, 1, &pb);
    apply(&s, &pb, M_ROT_W, amount);
    scene_eval(&s, &pa, &pb, c, NULL);
    assert_true(vmax_abs(c, 3) < 1e-12);
    assert_true(fabs(sqrt(c[3] * c[3] + c[4] * c[4]) - fabs(sin(amount))) < 1e-12);

    /* rod: moving b's anchor outward along the rod by s gives c = s */
    scene_make(&s, RT_ROD, 0, 1);
    scene_pose(&s, 0, &pa);
    scene_pose(&s, 1, &pb);
    for (int k = 0; k < 3; k++) t[k] = amount * s.w[k];
    translate(&pb, t);
    scene_eval(&s, &pa, &pb, c, NULL);
    assert_true(fabs(c[0] - amount) < 1e-12);

    /* prismatic and cylindrical: sliding b sideways by t (perpendicular to u)
     * gives (c[0], c[1]) = components of t on perp1, perp2 (norm |t|). */
    const rt_joint_type sliders[] = {RT_PRISMATIC, RT_CYLINDRICAL};
    for (int i = 0; i < 2; i++) {
      scene_make(&s, sliders[i], 0, 1);
      scene_pose(&s, 0, &pa);
      scene_pose(&s, 1, &pb);
      for (int k = 0; k < 3; k++) t[k] = amount * s.w[k];
      translate(&pb, t);
      scene_eval(&s, &pa, &pb, c, NULL);
      assert_true(fabs(sqrt(c[0] * c[0] + c[1] * c[1]) - amount) < 1e-12);
      assert_true(vmax_abs(c + 2, rt_joint_degree(sliders[i]) - 2) < 1e-12);
    }

    /* prismatic turned about its axis: the angular rows see it, |c| = |sin a| */
    scene_make(&s, RT_PRISMATIC, 0, 1);
    scene_pose(&s, 0, &pa);
    scene_pose(&s, 1, &pb);
    apply(&s, &pb, M_ROT_U, amount);
    scene_eval(&s, &pa, &pb, c, NULL);
    assert_true(fabs(vmax_abs(c + 2, 3) - fabs(sin(amount))) < 1e-12);

    /* universal tilted about u x w: c[3] = axis_a . axis_b = -sin a */
    scene_make(&s, RT_UNIVERSAL, 0, 1);
    scene_pose(&s, 0, &pa);
    scene_pose(&s, 1, &pb);
    apply(&s, &pb, M_ROT_UW, amount);
    scene_eval(&s, &pa, &pb, c, NULL);
    assert_true(fabs(c[3] + sin(amount)) < 1e-12);

    /* weld turned about a random axis through the pivot: angular rows nonzero */
    scene_make(&s, RT_WELD, RT_WORLD, 1);
    scene_pose(&s, 1, &pb);
    apply(&s, &pb, M_ROT_P, amount);
    scene_eval(&s, NULL, &pb, c, NULL);
    assert_true(vmax_abs(c, 3) < 1e-12);
    assert_true(vmax_abs(c + 3, 3) > 0.1 * amount);
  }
}

/*---- rank at rest ----------------------------------------------------------------*/

/* Numerical rank of the rows of J (deg x 12) restricted to columns
 * [c0, c0 + nc): pivoted Cholesky of the Gram matrix J J^T. */
static int rank_of(const double *J, int deg, int c0, int nc) {
  double G[RT_MAX_DEGREE][RT_MAX_DEGREE];
  int used[RT_MAX_DEGREE] = {0};
  double tr = 0.0;
  for (int i = 0; i < deg; i++)
    for (int j = 0; j < deg; j++) {
      double s = 0.0;
      for (int k = c0; k < c0 + nc; k++) s += J[12 * i + k] * J[12 * j + k];
      G[i][j] = s;
    }
  for (int i = 0; i < deg; i++) tr += G[i][i];
  int rank = 0;
  for (int step = 0; step < deg; step++) {
    int p = -1;
    for (int i = 0; i < deg; i++)
      if (!used[i] && (p < 0 || G[i][i] > G[p][p])) p = i;
    if (G[p][p] <= 1e-10 * (tr > 0 ? tr : 1.0)) break;
    used[p] = 1;
    rank++;
    /* Schur complement on the unused rows */
    for (int i = 0; i < deg; i++)
      for (int j = 0; j < deg; j++)
        if (!used[i] && !used[j] && i != p && j != p) G[i][j] -= G[i][p] * G[p][j] / G[p][p];
    for (int i = 0; i < deg; i++) G[i][p] = G[p][i] = 0.0;
  }
  return rank;
}

static void test_rank_at_rest(void **state) {
  (void)state;
  rng_seed(0x60);
  for (int t = 0; t < NEQ; t++)
    for (int sides = 0; sides < 3; sides++)
      for (int trial = 0; trial < NTRIAL; trial++) {
        scene s;
        rt_pose pa, pb;
        double c[RT_MAX_DEGREE], J[RT_MAX_DEGREE * 12];
        scene_make(&s, equality_types[t], side_a[sides], side_b[sides]);
        scene_pose(&s, 0, &pa);
        scene_pose(&s, 1, &pb);
        int deg = scene_eval(&s, &pa, &pb, c, J);
        /* full J, and each dynamic body's block on its own */
        assert_int_equal(rank_of(J, deg, 0, 12), deg);
        if (side_a[sides] != RT_WORLD) assert_int_equal(rank_of(J, deg, 0, 6), deg);
        if (side_b[sides] != RT_WORLD) assert_int_equal(rank_of(J, deg, 6, 6), deg);
      }
}

/* A universal joint whose two axes are parallel has a dead dot row (A x B =
 * 0): J loses rank, which the loader's check has to catch. */
static void test_universal_parallel_axes_rank_deficient(void **state) {
  (void)state;
  rng_seed(0x61);
  for (int trial = 0; trial < NTRIAL; trial++) {
    scene s;
    rt_pose pa, pb;
    double c[RT_MAX_DEGREE], J[RT_MAX_DEGREE * 12];
    scene_make(&s, RT_UNIVERSAL, 0, 1);
    memcpy(s.con.axis_b, s.con.axis_a, sizeof s.con.axis_b);
    scene_pose(&s, 0, &pa);
    scene_pose(&s, 1, &pb);
    int deg = scene_eval(&s, &pa, &pb, c, J);
    assert_int_equal(deg, 4);
    assert_int_equal(rank_of(J, deg, 0, 12), 3);
    assert_true(vmax_abs(J + 36, 12) < 1e-12);
    assert_true(fabs(c[3] - 1.0) < 1e-12); /* not even satisfied: A.B = 1 */
  }
}

/* The weld angular block at rest: A x B = A_0, A_1, A_2 (orthonormal rows),
 * no linear part, J_wb = -J_wa. */
static void test_weld_angular_block_orthonormal(void **state) {
  (void)state;
  rng_seed(0x62);
  for (int trial = 0; trial < NTRIAL; trial++) {
    scene s;
    rt_pose pa, pb;
    double c[RT_MAX_DEGREE], J[RT_MAX_DEGREE * 12];
    scene_make(&s, RT_WELD, 0, 1);
    scene_pose(&s, 0, &pa);
    scene_pose(&s, 1, &pb);
    scene_eval(&s, &pa, &pb, c, J);
    for (int i = 3; i < 6; i++)
      for (int j = 3; j < 6; j++) {
        double g = t_dot(J + 12 * i + 3, J + 12 * j + 3);
        assert_true(fabs(g - (i == j ? 1.0 : 0.0)) < 1e-12);
        for (int k = 0; k < 3; k++) {
          assert_true(J[12 * i + k] == 0.0 && J[12 * i + 6 + k] == 0.0);
          assert_true(J[12 * i + 9 + k] == -J[12 * i + 3 + k]);
        }
      }
  }
}

/*---- rt_joint_axis_eval: the free coordinate of a joint ------------------------*/

/* The joints with a free coordinate, whether it is an angle, and the
 * motions that move it (b relative to a; the joint stays satisfied). */
static const struct {
  rt_joint_type type;
  int angular;
  motion mo;
} axis_coords[] = {
    {RT_HINGE, 1, M_ROT_U},      {RT_CYLINDRICAL, 1, M_ROT_U}, {RT_CYLINDRICAL, 0, M_SLIDE_U},
    {RT_PRISMATIC, 0, M_SLIDE_U}, {RT_HINGE, 0, M_ROT_U},      {RT_PRISMATIC, 1, M_SLIDE_U},
};

/* Checks the coordinate's Jacobian row against a central difference along
 * V (NULL pose: the world, its columns ignored). */
static void check_axis_fd(const rt_joint_desc *jd, int angular, const rt_pose *pa, const rt_pose *pb,
                          const double V[12]) {
  double q0, qp, qm, J[12];
  assert_int_equal(rt_joint_axis_eval(jd, angular, pa, pb, &q0, J), 0);
  rt_pose ap, am, bp, bm;
  step_poses(pa, pb, V, &ap, &am, &bp, &bm);
  assert_int_equal(rt_joint_axis_eval(jd, angular, pa ? &ap : NULL, pb ? &bp : NULL, &qp, NULL), 0);
  assert_int_equal(rt_joint_axis_eval(jd, angular, pa ? &am : NULL, pb ? &bm : NULL, &qm, NULL), 0);
  double jv = 0.0, scale = 0.0;
  for (int j = 0; j < 12; j++) {
    if ((j < 6 && !pa) || (j >= 6 && !pb)) continue;
    jv += J[j] * V[j];
    scale += fabs(J[j] * V[j]);
  }
  const double fd = (qp - qm) / (2.0 * FD_H);
  const double err = fabs(fd - jv) / (1.0 + scale);
  if (err > max_fd_err) max_fd_err = err;
  if (err > FD_TOL)
    fail_msg("%s %s coordinate: J.V = %.12g, finite difference = %.12g", rt_joint_type_name(jd->type),
             angular ? "angular" : "linear", jv, fd);
}

/* The coordinate is 0 at the initial pose (joints as the loader builds
 * them), follows the motion along the joint's freedom (angle or travel of
 * b relative to a, so the opposite when a moves), and its Jacobian row
 * matches finite differences there: along random velocities and the 12
 * unit ones, body-body, world-body and body-world. The angular row,
 * (w_b - w_a) . A_0, is the exact rate only where the joint holds (b's
 * perpendicular axis in a's perpendicular plane), which the motions keep. */
static void test_axis_coordinate(void **state) {
  (void)state;
  rng_seed(0x90);
  max_fd_err = 0.0;
  for (size_t t = 0; t < sizeof axis_coords / sizeof axis_coords[0]; t++)
    for (int sides = 0; sides < 3; sides++)
      for (int trial = 0; trial < NTRIAL; trial++) {
        scene s;
        rt_pose pa, pb;
        rt_joint_desc jd;
        scene_make(&s, axis_coords[t].type, side_a[sides], side_b[sides]);
        mech_joint_desc(&s.m, 0, &jd);
        scene_pose(&s, 0, &pa);
        scene_pose(&s, 1, &pb);
        const rt_pose *a = sides == 1 ? NULL : &pa, *b = sides == 2 ? NULL : &pb;
        const int ang = axis_coords[t].angular;
        double q;
        assert_int_equal(rt_joint_axis_eval(&jd, ang, a, b, &q, NULL), 0);
        if (fabs(q) > REST_TOL)
          fail_msg("%s (sides %d): %s coordinate %g at the initial pose", rt_joint_type_name(jd.type), sides,
                   ang ? "angular" : "linear", q);
        /* move the dynamic side along the joint's freedom */
        const double amount = rng_uniform(-2.0, 2.0);
        apply(&s, sides == 2 ? &pa : &pb, axis_coords[t].mo, amount);
        double c[RT_MAX_DEGREE];
        const int deg = rt_joint_eval(&jd, a, b, c, NULL);
        assert_true(vmax_abs(c, deg) < 1e-11); /* still satisfied */
        assert_int_equal(rt_joint_axis_eval(&jd, ang, a, b, &q, NULL), 0);
        /* a turn does not change a travel and a slide does not change an angle */
        const int moves = (axis_coords[t].mo == M_ROT_U) == (ang == 1);
        const double expect = moves ? (sides == 2 ? -amount : amount) : 0.0;
        if (fabs(q - expect) > 1e-11)
          fail_msg("%s (sides %d): %s coordinate %.15g after moving by %.15g", rt_joint_type_name(jd.type), sides,
                   ang ? "angular" : "linear", q, amount);
        double V[12];
        for (int n = 0; n < NVEL; n++) {
          for (int j = 0; j < 12; j++) V[j] = rng_uniform(-1.0, 1.0);
          check_axis_fd(&jd, ang, a, b, V);
        }
        for (int j = 0; j < 12; j++) {
          memset(V, 0, sizeof V);
          V[j] = 1.0;
          check_axis_fd(&jd, ang, a, b, V);
        }
      }
  print_message("max normalized |J.V - finite difference| of the axis coordinates = %.3g\n", max_fd_err);
}

/* The linear coordinate d . A_0 is a linear row: its Jacobian is exact at
 * any pose, joint satisfied or not. */
static void test_axis_linear_fd_any_pose(void **state) {
  (void)state;
  rng_seed(0x91);
  const rt_joint_type types[] = {RT_HINGE, RT_CYLINDRICAL, RT_PRISMATIC};
  for (int t = 0; t < 3; t++)
    for (int sides = 0; sides < 3; sides++)
      for (int trial = 0; trial < NTRIAL; trial++) {
        rt_joint_desc jd;
        rt_pose pa, pb;
        rng_desc(types[t], sides == 1 ? RT_WORLD : 0, sides == 2 ? RT_WORLD : 1, &jd);
        rng_pose(&pa);
        rng_pose(&pb);
        double V[12];
        for (int n = 0; n < NVEL; n++) {
          for (int j = 0; j < 12; j++) V[j] = rng_uniform(-1.0, 1.0);
          check_axis_fd(&jd, 0, sides == 1 ? NULL : &pa, sides == 2 ? NULL : &pb, V);
        }
      }
}

/* Other joint types have no free coordinate. */
static void test_axis_other_types_rejected(void **state) {
  (void)state;
  rt_joint_desc jd;
  memset(&jd, 0, sizeof jd);
  const rt_joint_type none[] = {RT_BALL, RT_ROD, RT_UNIVERSAL, RT_WELD, RT_MOTOR, RT_ROPE};
  for (size_t t = 0; t < sizeof none / sizeof none[0]; t++) {
    jd.type = none[t];
    double q = 42.0;
    assert_int_equal(rt_joint_axis_eval(&jd, 1, NULL, NULL, &q, NULL), -1);
    assert_int_equal(rt_joint_axis_eval(&jd, 0, NULL, NULL, &q, NULL), -1);
    assert_true(q == 42.0);
  }
}

/*---- return values and conventions --------------------------------------------*/

static void test_inequality_types_rejected(void **state) {
  (void)state;
  rt_joint_desc jd;
  double c[RT_MAX_DEGREE], J[RT_MAX_DEGREE * 12];
  memset(&jd, 0, sizeof jd);
  for (int t = RT_JOINT_NEQUALITY; t <= RT_JOINT_NTYPES; t++) {
    jd.type = (rt_joint_type)t;
    for (int i = 0; i < RT_MAX_DEGREE; i++) c[i] = 42.0;
    assert_int_equal(rt_joint_eval(&jd, NULL, NULL, c, J), -1);
    for (int i = 0; i < RT_MAX_DEGREE; i++) assert_true(c[i] == 42.0);
  }
}

static void test_degree_and_null_jacobian(void **state) {
  (void)state;
  rng_seed(0x70);
  for (int t = 0; t < NEQ; t++) {
    rt_joint_desc jd;
    rt_pose pa, pb;
    double c1[RT_MAX_DEGREE], c2[RT_MAX_DEGREE], J[RT_MAX_DEGREE * 12];
    rng_desc(equality_types[t], 0, 1, &jd);
    rng_pose(&pa);
    rng_pose(&pb);
    int d1 = rt_joint_eval(&jd, &pa, &pb, c1, J);
    int d2 = rt_joint_eval(&jd, &pa, &pb, c2, NULL);
    assert_int_equal(d1, rt_joint_degree(equality_types[t]));
    assert_int_equal(d2, d1);
    assert_memory_equal(c1, c2, sizeof(double) * (size_t)d1);
  }
  assert_int_equal(rt_joint_degree(RT_BALL), 3);
  assert_int_equal(rt_joint_degree(RT_HINGE), 5);
  assert_int_equal(rt_joint_degree(RT_ROD), 1);
  assert_int_equal(rt_joint_degree(RT_PRISMATIC), 5);
  assert_int_equal(rt_joint_degree(RT_CYLINDRICAL), 4);
  assert_int_equal(rt_joint_degree(RT_UNIVERSAL), 4);
  assert_int_equal(rt_joint_degree(RT_WELD), 6);
}

/* A NULL pose is bitwise the identity pose. */
static void test_null_pose_is_identity(void **state) {
  (void)state;
  rng_seed(0x71);
  const rt_pose id = {{0, 0, 0}, {1, 0, 0, 0}};
  for (int t = 0; t < NEQ; t++) {
    rt_joint_desc jd;
    rt_pose pb;
    double c1[RT_MAX_DEGREE], c2[RT_MAX_DEGREE];
    double J1[RT_MAX_DEGREE * 12], J2[RT_MAX_DEGREE * 12];
    rng_desc(equality_types[t], RT_WORLD, 1, &jd);
    rng_pose(&pb);
    int d = rt_joint_eval(&jd, NULL, &pb, c1, J1);
    rt_joint_eval(&jd, &id, &pb, c2, J2);
    assert_memory_equal(c1, c2, sizeof(double) * (size_t)d);
    assert_memory_equal(J1, J2, sizeof(double) * 12 * (size_t)d);
  }
}

/* Ball, written out by hand: c = (p_a + R_a x_a) - (p_b + R_b x_b). */
static void test_ball_by_hand(void **state) {
  (void)state;
  rt_joint_desc jd;
  memset(&jd, 0, sizeof jd);
  jd.type = RT_BALL;
  jd.body_b = 1;
  jd.anchor_a[0] = 1.0; /* x on a, turned 90 degrees about z -> +y */
  jd.anchor_b[2] = 2.0;
  rt_pose pa = {{1, 0, 0}, {sqrt(0.5), 0, 0, sqrt(0.5)}};
  rt_pose pb = {{0, 0, 1}, {1, 0, 0, 0}};
  double c[3], J[36];
  assert_int_equal(rt_joint_eval(&jd, &pa, &pb, c, J), 3);
  assert_true(fabs(c[0] - 1.0) < 1e-15);
  assert_true(fabs(c[1] - 1.0) < 1e-15);
  assert_true(fabs(c[2] + 3.0) < 1e-15);
  /* J_va = I, J_vb = -I; J_wa = -[r_a]x with r_a = (0, 1, 0) */
  const double Jwa[3][3] = {{0, 0, -1}, {0, 0, 0}, {1, 0, 0}};
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 3; k++) {
      assert_true(J[12 * i + k] == (i == k ? 1.0 : 0.0));
      assert_true(J[12 * i + 6 + k] == (i == k ? -1.0 : 0.0));
      assert_true(fabs(J[12 * i + 3 + k] - Jwa[i][k]) < 1e-15);
    }
}

/* Rod with coincident anchors: zero row, c = -length, degree still 1. */
static void test_rod_degenerate(void **state) {
  (void)state;
  rt_joint_desc jd;
  memset(&jd, 0, sizeof jd);
  jd.type = RT_ROD;
  jd.body_a = RT_WORLD;
  jd.body_b = 0;
  jd.length = 0.5;
  rt_pose pb = {{0, 0, 0}, {1, 0, 0, 0}};
  double c[1], J[12];
  for (int j = 0; j < 12; j++) J[j] = 7.0;
  assert_int_equal(rt_joint_eval(&jd, NULL, &pb, c, J), 1);
  assert_true(c[0] == -0.5);
  for (int j = 0; j < 12; j++) assert_true(J[j] == 0.0);
}

/*---- rtmath.h ------------------------------------------------------------------------*/

static void test_rtmath(void **state) {
  (void)state;
  rng_seed(0x80);
  for (int trial = 0; trial < 100; trial++) {
    double q1[4], q2[4], q12[4], v[3], w[3], M[3][3], r1[3], r2[3], r3[3];
    rng_quat(q1);
    rng_quat(q2);
    rng_vec(v, 3.0);
    rng_vec(w, 3.0);
    /* rotation agrees with the matrix, and the inverse undoes it */
    t_qmat(q1, M);
    t_mv(M, v, r1);
    rt__q_rotate(r2, q1, v);
    for (int k = 0; k < 3; k++) assert_true(fabs(r1[k] - r2[k]) < 1e-14);
    rt__q_rotate_inv(r3, q1, r2);
    for (int k = 0; k < 3; k++) assert_true(fabs(r3[k] - v[k]) < 1e-14);
    /* product composes rotations: R(q1 q2) = R(q1) R(q2) */
    rt__q_mul(q12, q1, q2);
    rt__q_rotate(r1, q12, v);
    rt__q_rotate(r2, q2, v);
    rt__q_rotate(r2, q1, r2); /* aliased output */
    for (int k = 0; k < 3; k++) assert_true(fabs(r1[k] - r2[k]) < 1e-14);
    double tq[4];
    t_qmul(q1, q2, tq);
    for (int k = 0; k < 4; k++) assert_true(fabs(tq[k] - q12[k]) < 1e-15);
    /* cross and dot */
    rt__v3_cross(r1, v, w);
    t_cross(v, w, r2);
    for (int k = 0; k < 3; k++) assert_true(r1[k] == r2[k]);
    assert_true(fabs(rt__v3_dot(r1, v)) < 1e-13 && fabs(rt__v3_dot(r1, w)) < 1e-13);
    assert_true(rt__v3_dot(v, w) == t_dot(v, w));
    memcpy(r3, v, sizeof r3);
    rt__v3_cross(r3, r3, w); /* aliased output */
    for (int k = 0; k < 3; k++) assert_true(r3[k] == r1[k]);
    /* normalize */
    double n = rt__v3_norm(v);
    memcpy(r1, v, sizeof r1);
    assert_true(rt__v3_normalize(r1) == n);
    assert_true(fabs(rt__v3_norm(r1) - 1.0) < 1e-15);
    double qs[4] = {2 * q1[0], 2 * q1[1], 2 * q1[2], 2 * q1[3]};
    assert_true(fabs(rt__q_normalize(qs) - 2.0) < 1e-15);
    for (int k = 0; k < 4; k++) assert_true(fabs(qs[k] - q1[k]) < 1e-15);
    /* add, sub, scale */
    rt__v3_add(r1, v, w);
    rt__v3_sub(r1, r1, w);
    rt__v3_scale(r2, v, 1.0);
    for (int k = 0; k < 3; k++) assert_true(fabs(r1[k] - v[k]) < 1e-15 && r2[k] == v[k]);
  }
  double z[3] = {0, 0, 0};
  assert_true(rt__v3_normalize(z) == 0.0);
  assert_true(z[0] == 0.0 && z[1] == 0.0 && z[2] == 0.0);
}

/* rt__clamp is fmin(fmax(x, lo), hi) without the calls: the same value for
 * every mix of numbers, infinities and NaNs (a NaN x gives lo, a NaN bound
 * is no bound), and of two zeros one or the other. */
static void test_clamp_as_fmin_fmax(void **state) {
  (void)state;
  const double v[] = {-INFINITY, -2.5, -1.0, -0.0, 0.0, 1e-300, 1.0, 2.5, INFINITY, NAN};
  const int n = (int)(sizeof v / sizeof v[0]);
  for (int a = 0; a < n; a++)
    for (int b = 0; b < n; b++)
      for (int c = 0; c < n; c++) {
        const double want = fmin(fmax(v[a], v[b]), v[c]), got = rt__clamp(v[a], v[b], v[c]);
        if (isnan(want) || isnan(got)) {
          if (!(isnan(want) && isnan(got))) fail_msg("clamp(%g, %g, %g) = %g, fmin(fmax) %g", v[a], v[b], v[c], got, want);
        } else if (got != want) {
          fail_msg("clamp(%g, %g, %g) = %g, fmin(fmax) %g", v[a], v[b], v[c], got, want);
        }
      }
  assert_true(rt__clamp(3.0, -1.0, 1.0) == 1.0 && rt__clamp(-3.0, -1.0, 1.0) == -1.0 && rt__clamp(0.5, -1.0, 1.0) == 0.5);
  assert_true(rt__clamp(NAN, -1.0, 1.0) == -1.0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rtmath),
      cmocka_unit_test(test_fd_body_body),
      cmocka_unit_test(test_fd_world_body),
      cmocka_unit_test(test_fd_body_world),
      cmocka_unit_test(test_fd_near_rest),
      cmocka_unit_test(test_rest_is_zero),
      cmocka_unit_test(test_rigid_motion_invariance),
      cmocka_unit_test(test_allowed_motions),
      cmocka_unit_test(test_forbidden_motions),
      cmocka_unit_test(test_rank_at_rest),
      cmocka_unit_test(test_universal_parallel_axes_rank_deficient),
      cmocka_unit_test(test_weld_angular_block_orthonormal),
      cmocka_unit_test(test_inequality_types_rejected),
      cmocka_unit_test(test_degree_and_null_jacobian),
      cmocka_unit_test(test_null_pose_is_identity),
      cmocka_unit_test(test_ball_by_hand),
      cmocka_unit_test(test_rod_degenerate),
      cmocka_unit_test(test_axis_coordinate),
      cmocka_unit_test(test_axis_linear_fd_any_pose),
      cmocka_unit_test(test_axis_other_types_rejected),
      cmocka_unit_test(test_clamp_as_fmin_fmax),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
