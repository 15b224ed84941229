/* cylindrical.c -- cylindrical joint (degree 4): b slides along the axis and
 * turns about it (a suspension strut).
 *   rows     linear T = A_1, linear T = A_2; dot A_1.B_0, dot A_2.B_0
 *   fields   a, b (bodies), anchor (world point), axis (world direction)
 * Both free coordinates take limits; motors drive the rotation. */
#include "../joint_rows.h"
#include "rt_joint_type.h"

static void eval(const rt_joint_desc *j, const rt_pose *pa, const rt_pose *pb, double *c, double *J) {
  rt__side a, b;
  double d[3];
  rt__jrow_sides(j, pa, pb, RT__FA(1) | RT__FA(2) | RT__FB(0), &a, &b, d);
  rt__jrow_linear(&a, &b, d, a.f[1], &c[0], rt__jrow_ptr(J, 0));
  rt__jrow_linear(&a, &b, d, a.f[2], &c[1], rt__jrow_ptr(J, 1));
  rt__jrow_dot(a.f[1], b.f[0], &c[2], rt__jrow_ptr(J, 2));
  rt__jrow_dot(a.f[2], b.f[0], &c[3], rt__jrow_ptr(J, 3));
}

static const rt_joint_field fields[] = {
    {"a", RT_SLOT_A, RT_FIELD_REQUIRED},
    {"b", RT_SLOT_B, RT_FIELD_REQUIRED},
    {"anchor", RT_SLOT_ANCHOR, RT_FIELD_REQUIRED},
    {"axis", RT_SLOT_AXIS, RT_FIELD_REQUIRED},
    {NULL, RT_NSLOTS, 0},
};

const rt_joint_type_def rt__joint_cylindrical = {
    .name = "cylindrical",
    .degree = 4,
    .rows = "ggaa",
    .npos = 2,
    .doc = "b slides along the axis and turns about it",
    .fields = fields,
    .dot_style = "color=darkgreen",
    .eval = eval,
};
