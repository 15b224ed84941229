/* ball.c -- ball-in-socket joint (degree 3): the anchor point on a and the
 * one on b coincide; all three rotations are free.
 *   rows     ball rows (joint.c): c = P_a - P_b
 *   fields   a, b (bodies), anchor (world point at the initial pose) */
#include "../joint_rows.h"
#include "rt_joint_type.h"

static void eval(const rt_joint_desc *j, const rt_pose *pa, const rt_pose *pb, double *c, double *J) {
  rt__side a, b;
  double d[3];
  rt__jrow_sides(j, pa, pb, 0, &a, &b, d);
  rt__jrow_ball(&a, &b, c, J);
}

/* No axis: the frames only need to be some frame, the world's z. */
static int finish(rt_joint_spec *s, rt_joint_problem *why) {
  (void)why;
  s->axis_a[2] = s->axis_b[2] = 1.0;
  return 0;
}

static const rt_joint_field fields[] = {
    {"a", RT_SLOT_A, RT_FIELD_REQUIRED},
    {"b", RT_SLOT_B, RT_FIELD_REQUIRED},
    {"anchor", RT_SLOT_ANCHOR, RT_FIELD_REQUIRED},
    {NULL, RT_NSLOTS, 0},
};

const rt_joint_type_def rt__joint_ball = {
    .name = "ball",
    .degree = 3,
    .rows = "xyz",
    .npos = 3,
    .doc = "the anchor points of a and b coincide; rotation is free",
    .fields = fields,
    .dot_style = "color=black",
    .finish = finish,
    .eval = eval,
};
