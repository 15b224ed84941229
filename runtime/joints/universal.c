/* universal.c -- universal joint (degree 4): the anchors coincide and axis_a
 * (fixed in a) stays perpendicular to axis_b (fixed in b), a cardan joint.
 *   rows     ball rows; dot A_0.B_0
 *   fields   a, b (bodies), anchor (world point), axis_a, axis_b
 *            (perpendicular world directions) */
#include <math.h>
#include <stdio.h>

#include "../joint_rows.h"
#include "rt_joint_type.h"

#define UNIVERSAL_TOL 1e-6 /* |cos| of the angle between the axes at rest */

static void eval(const rt_joint_desc *j, const rt_pose *pa, const rt_pose *pb, double *c, double *J) {
  rt__side a, b;
  double d[3];
  rt__jrow_sides(j, pa, pb, RT__FA(0) | RT__FB(0), &a, &b, d);
  rt__jrow_ball(&a, &b, c, J);
  rt__jrow_dot(a.f[0], b.f[0], &c[3], rt__jrow_ptr(J, 3));
}

/* The joint holds axis_a . axis_b = 0: at rest it must hold (parallel axes
 * are already a rank error). */
static int at_rest(const rt_joint_spec *s, rt_joint_problem *why) {
  const double dot = s->axis_a[0] * s->axis_b[0] + s->axis_a[1] * s->axis_b[1] + s->axis_a[2] * s->axis_b[2];
  if (!(fabs(dot) > UNIVERSAL_TOL)) return 0;
  snprintf(why->msg, sizeof why->msg, "axis_a and axis_b of a universal joint must be perpendicular (cosine %.3g)",
           dot);
  return -1;
}

static const rt_joint_field fields[] = {
    {"a", RT_SLOT_A, RT_FIELD_REQUIRED},
    {"b", RT_SLOT_B, RT_FIELD_REQUIRED},
    {"anchor", RT_SLOT_ANCHOR, RT_FIELD_REQUIRED},
    {"axis_a", RT_SLOT_AXIS_A, RT_FIELD_REQUIRED},
    {"axis_b", RT_SLOT_AXIS_B, RT_FIELD_REQUIRED},
    {NULL, RT_NSLOTS, 0},
};

const rt_joint_type_def rt__joint_universal = {
    .name = "universal",
    .degree = 4,
    .rows = "xyza",
    .npos = 3,
    .doc = "the anchors coincide; axis_a on a stays perpendicular to axis_b on b",
    .fields = fields,
    .dot_style = "color=black, style=bold",
    .at_rest = at_rest,
    .eval = eval,
};
