/* limit.h -- what the two limit types share (angular_limit.c,
 * positional_limit.c): the bounds' rules and the row on their target's free
 * coordinate. */
#ifndef LDLPGS_RUNTIME_JOINTS_LIMIT_H
#define LDLPGS_RUNTIME_JOINTS_LIMIT_H

#include "rt_joint_type.h"

/* lower <= upper, in a mechanism file and in a runtime description. */
int rt__limit_finish(rt_joint_spec *s, rt_joint_problem *why);
int rt__limit_check(const rt_joint_desc *j, rt_joint_problem *why);
/* The row on target's angle (angular = 1) or travel within [lower, upper]. */
void rt__limit_row(const rt_joint_desc *j, const rt_joint_desc *target, int angular, const rt_pose *pa,
                   const rt_pose *pb, rt_joint_row *out, double *J);

#endif
