/* joint.c -- the row kinds every constraint type is built from (joint_rows.h),
 * and the free coordinate of a joint (rt_joint_axis_eval) that limits and
 * motors act on. It knows no type: the types (runtime/joints/) use it.
 *
 * Notation. Body pose (p, q), R = R(q); the world (NULL pose) is p = 0, R = I.
 * Lever arms r_a = R_a x_a, r_b = R_b x_b (x = the body-frame anchors), world
 * anchor points P_a = p_a + r_a, P_b = p_b + r_b, separation d = P_b - P_a.
 * World frame vectors A_k = R_a frame_a[k], B_k = R_b frame_b[k] (k = 0 is the
 * axis, 1 and 2 span the plane perpendicular to it). Velocities are world
 * frame: a vector fixed in body a moves as dA/dt = w_a x A, and a point fixed
 * in a as dP_a/dt = v_a + w_a x r_a. [r]x is the cross-product matrix,
 * [r]x w = r x w. Each Jacobian row is 12 numbers acting on
 * (v_a, w_a, v_b, w_b); its four 3-blocks are written J_va, J_wa, J_vb, J_wb.
 *
 * Row kinds (every Jacobian below is checked against central finite
 * differences of c in tests/test_joint.c):
 *
 * ball rows (3)   c = P_a - P_b
 *                 c' = v_a + w_a x r_a - v_b - w_b x r_b
 *                 J_a = [ I, -[r_a]x ],  J_b = [ -I, [r_b]x ]
 *
 * dot row (1)     A fixed in a, B fixed in b:  c = A . B
 *                 c' = (w_a x A) . B + A . (w_b x B) = (A x B) . (w_a - w_b)
 *                 J_wa = (A x B)^T,  J_wb = -(A x B)^T,  no linear part.
 *                 Zero when A is perpendicular to B; the row is useful only
 *                 near there (at A || B its Jacobian vanishes).
 *
 * linear row (1)  T fixed in a:  c = d . T
 *                 d' = v_b + w_b x r_b - v_a - w_a x r_a,  T' = w_a x T
 *                 c' = d' . T + d . (w_a x T)
 *                    = T.(v_b - v_a) + w_b.(r_b x T) - w_a.(r_a x T) - w_a.(d x T)
 *                 J_va = -T^T, J_wa = -((r_a + d) x T)^T, J_vb = T^T, J_wb = (r_b x T)^T
 *                 (the point of b slides in a's frame, so the lever arm on a
 *                 is the one of P_b, r_a + d.)
 *
 * rod row (1)     c = |d| - length,  n = d / |d|
 *                 c' = n . d'   (n is not fixed in a: no w_a x n term)
 *                 J_va = -n^T, J_wa = -(r_a x n)^T, J_vb = n^T, J_wb = (r_b x n)^T
 *                 At |d| = 0 the direction is undefined: the row is zero
 *                 (and c = -length); the loader reports that as degenerate.
 *
 * Each type's rows, in their order, are in its own file, runtime/joints/
 * <name>.c, built from these kinds.
 *
 * Effective mass: the solver forms K = J W J^T from these rows (W_b =
 * diag(m^-1 I, R I_b^-1 R^T)); a world or fixed side has W = 0, so the
 * columns computed for it here are ignored by the caller.
 */
#include "joint_rows.h"
#include "rtmath.h"

#include <stddef.h>
#include <string.h>

static const rt_pose identity_pose = {{0.0, 0.0, 0.0}, {1.0, 0.0, 0.0, 0.0}};

/* The side's lever and anchor, and the frame rows k with bit k of rows
 * set (the others are left: each type asks for those it reads, a ball for
 * none), through one rotation matrix of the pose's quaternion,
 * R = I + 2 w [u]x + 2 [u]x^2 (rt__q_rotate's formula, expanded once):
 * four quaternion rotations cost 30 % more (the sample scissor lift's
 * sides, 16 steps: 983k -> 756k instructions, 1 % of its step). */
static void side_eval(const rt_pose *pose, const double anchor[3], const double frame[3][3], unsigned rows,
                      rt__side *s) {
  if (pose == NULL) pose = &identity_pose;
  const double *q = pose->q;
  const double x2 = 2.0 * q[1], y2 = 2.0 * q[2], z2 = 2.0 * q[3];
  const double wx = q[0] * x2, wy = q[0] * y2, wz = q[0] * z2;
  const double xx = q[1] * x2, xy = q[1] * y2, xz = q[1] * z2;
  const double yy = q[2] * y2, yz = q[2] * z2, zz = q[3] * z2;
  const double R[9] = {1.0 - (yy + zz), xy - wz, xz + wy, xy + wz, 1.0 - (xx + zz), yz - wx, xz - wy, yz + wx,
                       1.0 - (xx + yy)};
  rt__m3_vec(s->r, R, anchor);
  rt__v3_add(s->pt, pose->p, s->r);
  for (int k = 0; k < 3; k++)
    if (rows & (1u << k)) rt__m3_vec(s->f[k], R, frame[k]);
#ifdef LDLPGS_CHECK_FRAMES
    else /* the sanitizer build (make test-san): a row read unasked is NaN */
      s->f[k][0] = s->f[k][1] = s->f[k][2] = NAN;
#endif
}

/* Stores one Jacobian row; a NULL block is stored as zeros. */
/* Three values, or three zeros for NULL. */
static void put3(double *dst, const double *src) {
  if (src != NULL) {
    dst[0] = src[0];
    dst[1] = src[1];
    dst[2] = src[2];
  } else {
    dst[0] = dst[1] = dst[2] = 0.0;
  }
}

void rt__jrow_put(double *row, const double va[3], const double wa[3], const double vb[3],
                    const double wb[3]) {
  put3(row, va);
  put3(row + 3, wa);
  put3(row + 6, vb);
  put3(row + 9, wb);
}

double *rt__jrow_ptr(double *J, int row) { return J ? J + 12 * row : NULL; }

/* Ball rows into c[0..2] and J rows 0..2. */
void rt__jrow_ball(const rt__side *a, const rt__side *b, double *c, double *J) {
  rt__v3_sub(c, a->pt, b->pt);
  if (J == NULL) return;
  for (int k = 0; k < 3; k++) {
    double e[3] = {0.0, 0.0, 0.0}, ne[3] = {0.0, 0.0, 0.0}, wa[3], wb[3];
    e[k] = 1.0;
    ne[k] = -1.0;
    /* row k of -[r_a]x: e_k . (w x r_a) = (r_a x e_k) . w;
     * row k of [r_b]x:  e_k . (r_b x w) = (e_k x r_b) . w. */
    rt__v3_cross(wa, a->r, e);
    rt__v3_cross(wb, e, b->r);
    rt__jrow_put(J + 12 * k, e, wa, ne, wb);
  }
}

/* Dot row c = A . B with A fixed in a, B fixed in b. */
void rt__jrow_dot(const double A[3], const double B[3], double *c, double *row) {
  *c = rt__v3_dot(A, B);
  if (row == NULL) return;
  double axb[3], nabx[3];
  rt__v3_cross(axb, A, B);
  rt__v3_scale(nabx, axb, -1.0);
  rt__jrow_put(row, NULL, axb, NULL, nabx);
}

/* Linear row c = d . T with T fixed in a. */
void rt__jrow_linear(const rt__side *a, const rt__side *b, const double d[3], const double T[3],
                       double *c, double *row) {
  *c = rt__v3_dot(d, T);
  if (row == NULL) return;
  double nT[3], lever[3], wa[3], wb[3];
  rt__v3_scale(nT, T, -1.0);
  rt__v3_add(lever, a->r, d);
  rt__v3_cross(wa, T, lever); /* -(lever x T) */
  rt__v3_cross(wb, b->r, T);
  rt__jrow_put(row, nT, wa, T, wb);
}

/* Rod row c = |d| - length along n = d / |d|; zero row when |d| = 0. */
void rt__jrow_rod(const rt__side *a, const rt__side *b, const double d[3], double length, double *c,
                    double *row) {
  double n[3];
  rt__v3_copy(n, d);
  double len = rt__v3_normalize(n);
  *c = len - length;
  if (row == NULL) return;
  if (!(len > 0.0)) {
    rt__jrow_put(row, NULL, NULL, NULL, NULL);
    return;
  }
  double nn[3], wa[3], wb[3];
  rt__v3_scale(nn, n, -1.0);
  rt__v3_cross(wa, n, a->r); /* -(r_a x n) */
  rt__v3_cross(wb, b->r, n);
  rt__jrow_put(row, nn, wa, n, wb);
}

/* The weld angular rows A_1.B_2, A_2.B_0, A_0.B_1 as rows first .. first+2. */
void rt__jrow_weld_angular(const rt__side *a, const rt__side *b, double *c, double *J, int first) {
  rt__jrow_dot(a->f[1], b->f[2], &c[first], rt__jrow_ptr(J, first));
  rt__jrow_dot(a->f[2], b->f[0], &c[first + 1], rt__jrow_ptr(J, first + 1));
  rt__jrow_dot(a->f[0], b->f[1], &c[first + 2], rt__jrow_ptr(J, first + 2));
}

void rt__jrow_sides(const rt_joint_desc *joint, const rt_pose *pa, const rt_pose *pb, unsigned frames, rt__side *a,
                    rt__side *b, double d[3]) {
  side_eval(pa, joint->anchor_a, joint->frame_a, frames & 7u, a);
  side_eval(pb, joint->anchor_b, joint->frame_b, frames >> 3, b);
  rt__v3_sub(d, b->pt, a->pt);
}

int rt_joint_axis_eval(const rt_joint_desc *joint, int angular, const rt_pose *pa, const rt_pose *pb,
                       double *coord, double *J) {
  if (joint->type != RT_HINGE && joint->type != RT_CYLINDRICAL && joint->type != RT_PRISMATIC) return -1;
  rt__side a, b;
  double d[3];
  rt__jrow_sides(joint, pa, pb, angular ? RT__FA(0) | RT__FA(1) | RT__FA(2) | RT__FB(1) : RT__FA(0), &a, &b, d);
  if (!angular) {
    rt__jrow_linear(&a, &b, d, a.f[0], coord, J);
    return 0;
  }
  /* B_1 = cos(theta) A_1 + sin(theta) A_2 when b has turned by theta about
   * A_0; the rate of theta is the relative angular velocity about A_0 (the
   * axis stays aligned while the joint holds). */
  *coord = atan2(rt__v3_dot(b.f[1], a.f[2]), rt__v3_dot(b.f[1], a.f[1]));
  if (J != NULL) {
    double na[3];
    rt__v3_scale(na, a.f[0], -1.0);
    rt__jrow_put(J, NULL, na, NULL, a.f[0]);
  }
  return 0;
}

void rt_shard_weld_desc(int body, rt_joint_desc *out) {
  memset(out, 0, sizeof *out);
  out->type = RT_WELD;
  out->target = -1;
  out->body_a = out->body_b = body;
  for (int k = 0; k < 3; k++) out->frame_a[k][k] = out->frame_b[k][k] = 1.0;
}

int rt_joint_free_angular(rt_free_axis axis, rt_joint_type target) {
  const int rotates = target == RT_HINGE || target == RT_CYLINDRICAL;
  const int slides = target == RT_PRISMATIC || target == RT_CYLINDRICAL;
  switch (axis) {
  case RT_AXIS_DEFAULT: return rotates ? 1 : slides ? 0 : -1;
  case RT_AXIS_ANGULAR: return rotates ? 1 : -1;
  case RT_AXIS_LINEAR: return slides ? 0 : -1;
  }
  return -1;
}
