/* angular_limit.c -- angular limit (PGS row): the angle of a hinge or
 * cylindrical joint (rotation of b relative to a about a's axis, 0 at the
 * initial pose) stays within [lower, upper] rad.
 *   row      a limit on the angle (rt_joint_axis_eval, angular)
 *   fields   hinge (the joint), lower, upper (rad) */
#include "limit.h"

static void row(const rt_joint_desc *j, const rt_joint_desc *target, const rt_pose *pa, const rt_pose *pb,
                rt_joint_row *out, double *J) {
  rt__limit_row(j, target, 1, pa, pb, out, J);
}

static const rt_joint_field fields[] = {
    {"hinge", RT_SLOT_TARGET, RT_FIELD_REQUIRED},
    {"lower", RT_SLOT_LOWER, RT_FIELD_REQUIRED},
    {"upper", RT_SLOT_UPPER, RT_FIELD_REQUIRED},
    {NULL, RT_NSLOTS, 0},
};

const rt_joint_type_def rt__joint_angular_limit = {
    .name = "angular_limit",
    .degree = 0,
    .doc = "keeps a hinge's or cylindrical joint's angle within [`lower`, `upper`] (rad)",
    .fields = fields,
    .targets = 1u << RT_HINGE | 1u << RT_CYLINDRICAL,
    .targets_text = "a hinge or cylindrical",
    .dot_style = "style=dashed, color=gray50",
    .finish = rt__limit_finish,
    .row = row,
    .check = rt__limit_check,
};
