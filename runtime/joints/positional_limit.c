/* positional_limit.c -- positional limit (PGS row): the travel of a
 * prismatic or cylindrical joint (b's anchor along a's axis, 0 at the
 * initial pose) stays within [lower, upper] m.
 *   row      a limit on the travel (rt_joint_axis_eval, linear)
 *   fields   joint (the joint), lower, upper (m) */
#include "limit.h"

static void row(const rt_joint_desc *j, const rt_joint_desc *target, const rt_pose *pa, const rt_pose *pb,
                rt_joint_row *out, double *J) {
  rt__limit_row(j, target, 0, pa, pb, out, J);
}

static const rt_joint_field fields[] = {
    {"joint", RT_SLOT_TARGET, RT_FIELD_REQUIRED},
    {"lower", RT_SLOT_LOWER, RT_FIELD_REQUIRED},
    {"upper", RT_SLOT_UPPER, RT_FIELD_REQUIRED},
    {NULL, RT_NSLOTS, 0},
};

const rt_joint_type_def rt__joint_positional_limit = {
    .name = "positional_limit",
    .degree = 0,
    .doc = "keeps a prismatic or cylindrical joint's travel within [`lower`, `upper`] (m)",
    .fields = fields,
    .targets = 1u << RT_PRISMATIC | 1u << RT_CYLINDRICAL,
    .targets_text = "a prismatic or cylindrical",
    .dot_style = "style=dashed, color=gray50",
    .finish = rt__limit_finish,
    .row = row,
    .check = rt__limit_check,
};
