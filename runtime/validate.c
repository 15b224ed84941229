/* validate.c -- the checks of the runtime's input (rt_world.h): poses,
 * bodies, joints and drives, as rt_world_create and the setters apply them.
 * Every number must be finite (a rod's or a limit's upper bound may be
 * +infinity, a limit's lower bound -infinity), quaternions unit within
 * RT__UNIT_TOLERANCE, joint frames orthonormal within it. The checks read
 * their arguments only; the callers change the world only when they pass. */
#include <math.h>

#include "rt_joint_type.h"
#include "rtmath.h"
#include "world.h"

/* |q.q - 1| and |f_i.f_j - delta_ij| may be off by this much: 100 times
 * what rounding leaves after normalizing in float, far below what would
 * change a step. */
#define RT__UNIT_TOLERANCE 1e-6

int rt__validate_pose(const rt_pose *p) {
  const double *q = p->q;
  const double n = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
  return rt__v3_finite(p->p) && isfinite(n) && fabs(n - 1.0) <= RT__UNIT_TOLERANCE;
}

int rt__validate_body(const rt_body_desc *b) {
  if (!rt__validate_pose(&b->pose) || !rt__v3_finite(b->vel) || !rt__v3_finite(b->angvel)) return 0;
  if (!b->fixed && !(isfinite(b->mass) && b->mass > 0 && rt__v3_finite(b->inertia) && b->inertia[0] > 0 &&
                     b->inertia[1] > 0 && b->inertia[2] > 0))
    return 0;
  if ((unsigned)b->shape > RT_SHAPE_CAPSULE || !rt__v3_finite(b->shape_size)) return 0;
  if (b->shape != RT_SHAPE_NONE && !(b->shape_size[0] > 0)) return 0;
  if (b->shape == RT_SHAPE_BOX && !(b->shape_size[1] > 0 && b->shape_size[2] > 0)) return 0;
  if ((b->shape == RT_SHAPE_CYLINDER || b->shape == RT_SHAPE_CAPSULE) && !(b->shape_size[1] >= 0)) return 0;
  return isfinite(b->friction) && b->friction >= 0;
}

/* Rows of a 3x3 frame orthonormal within the tolerance. */
static int orthonormal(const double f[3][3]) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j <= i; j++) {
      const double d = rt__v3_dot(f[i], f[j]);
      if (!(fabs(d - (i == j ? 1.0 : 0.0)) <= RT__UNIT_TOLERANCE)) return 0;
    }
  return 1;
}

int rt__validate_drive_bounds(double length, double lower, double upper) {
  return isfinite(length) && length > 0 && lower >= 0 && lower <= length && length <= upper && !isnan(upper);
}

const char *rt__validate_joint(const rt_joint_desc *j, const rt_body_desc *bodies) {
  const int fa = j->body_a == RT_WORLD || bodies[j->body_a].fixed;
  const int fb = j->body_b == RT_WORLD || bodies[j->body_b].fixed;
  if (rt_joint_type_def_of(j->type)->targets) return NULL; /* limits, motors, springs: their target's */
  if (j->body_a == j->body_b) return "a joint between a body and itself";
  if (fa && fb) return "a joint between two fixed bodies (or a fixed body and the world)";
  if (!rt__v3_finite(j->anchor_a) || !rt__v3_finite(j->anchor_b)) return "a non-finite anchor";
  const int framed = j->type == RT_HINGE || j->type == RT_PRISMATIC || j->type == RT_CYLINDRICAL ||
                     j->type == RT_UNIVERSAL || j->type == RT_WELD;
  if (framed && !(orthonormal(j->frame_a) && orthonormal(j->frame_b))) return "frames that are not orthonormal";
  if (j->type == RT_ROD) {
    if (!(isfinite(j->length) && j->length > 0)) return "a rod needs a finite length > 0";
    if (!isfinite(j->speed)) return "a non-finite drive speed";
    if (j->speed != 0 && !rt__validate_drive_bounds(j->length, j->lower, j->upper))
      return "a driven rod needs bounds 0 <= lower <= length <= upper";
  }
  return NULL;
}
