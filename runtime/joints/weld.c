/* weld.c -- rigid weld (degree 6): b is fixed to a, at the anchor.
 *   rows     ball rows; the weld's angular rows A_1.B_2, A_2.B_0, A_0.B_1
 *            (joint.c)
 *   fields   a, b (bodies), anchor (world point at the initial pose)
 * Shattering joins the shards of a body with welds too (rt_shard_weld_desc). */
#include "../joint_rows.h"
#include "rt_joint_type.h"

static void eval(const rt_joint_desc *j, const rt_pose *pa, const rt_pose *pb, double *c, double *J) {
  rt__side a, b;
  double d[3];
  rt__jrow_sides(j, pa, pb, RT__FRAMES_ALL, &a, &b, d);
  rt__jrow_ball(&a, &b, c, J);
  rt__jrow_weld_angular(&a, &b, c, J, 3);
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

const rt_joint_type_def rt__joint_weld = {
    .name = "weld",
    .degree = 6,
    .rows = "xyzaaa",
    .npos = 3,
    .doc = "b is rigidly fixed to a",
    .fields = fields,
    .dot_style = "color=black, penwidth=2",
    .finish = finish,
    .eval = eval,
};
