/* prismatic.c -- slider (degree 5): b slides along the axis without turning.
 *   rows     linear T = A_1, linear T = A_2; the weld's angular rows
 *   fields   a, b (bodies), anchor (world point), axis (the sliding
 *            direction)
 * Its free coordinate (the travel, rt_joint_axis_eval) takes positional
 * limits and motors. */
#include "../joint_rows.h"
#include "rt_joint_type.h"

static void eval(const rt_joint_desc *j, const rt_pose *pa, const rt_pose *pb, double *c, double *J) {
  rt__side a, b;
  double d[3];
  rt__jrow_sides(j, pa, pb, RT__FRAMES_ALL, &a, &b, d);
  rt__jrow_linear(&a, &b, d, a.f[1], &c[0], rt__jrow_ptr(J, 0));
  rt__jrow_linear(&a, &b, d, a.f[2], &c[1], rt__jrow_ptr(J, 1));
  rt__jrow_weld_angular(&a, &b, c, J, 2);
}

static const rt_joint_field fields[] = {
    {"a", RT_SLOT_A, RT_FIELD_REQUIRED},
    {"b", RT_SLOT_B, RT_FIELD_REQUIRED},
    {"anchor", RT_SLOT_ANCHOR, RT_FIELD_REQUIRED},
    {"axis", RT_SLOT_AXIS, RT_FIELD_REQUIRED},
    {NULL, RT_NSLOTS, 0},
};

const rt_joint_type_def rt__joint_prismatic = {
    .name = "prismatic",
    .degree = 5,
    .rows = "ggaaa",
    .npos = 2,
    .doc = "b slides along the axis without turning",
    .fields = fields,
    .dot_style = "color=darkgreen",
    .eval = eval,
};
