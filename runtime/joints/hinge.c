/* hinge.c -- revolute joint (degree 5): b turns about the axis through the
 * anchor.
 *   rows     ball rows; dot A_1.B_0, dot A_2.B_0 (b's axis stays
 *            perpendicular to a's perp1 and perp2)
 *   fields   a, b (bodies), anchor (world point), axis (world direction)
 * Its free coordinate (the angle, rt_joint_axis_eval) takes angular limits
 * and motors. */
#include "../joint_rows.h"
#include "rt_joint_type.h"

static void eval(const rt_joint_desc *j, const rt_pose *pa, const rt_pose *pb, double *c, double *J) {
  rt__side a, b;
  double d[3];
  rt__jrow_sides(j, pa, pb, RT__FA(1) | RT__FA(2) | RT__FB(0), &a, &b, d);
  rt__jrow_ball(&a, &b, c, J);
  rt__jrow_dot(a.f[1], b.f[0], &c[3], rt__jrow_ptr(J, 3));
  rt__jrow_dot(a.f[2], b.f[0], &c[4], rt__jrow_ptr(J, 4));
}

static const rt_joint_field fields[] = {
    {"a", RT_SLOT_A, RT_FIELD_REQUIRED},
    {"b", RT_SLOT_B, RT_FIELD_REQUIRED},
    {"anchor", RT_SLOT_ANCHOR, RT_FIELD_REQUIRED},
    {"axis", RT_SLOT_AXIS, RT_FIELD_REQUIRED},
    {NULL, RT_NSLOTS, 0},
};

const rt_joint_type_def rt__joint_hinge = {
    .name = "hinge",
    .degree = 5,
    .rows = "xyzaa",
    .npos = 3,
    .doc = "b turns about the axis through the anchor",
    .fields = fields,
    .dot_style = "color=black",
    .eval = eval,
};
