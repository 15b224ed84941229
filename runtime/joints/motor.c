/* motor.c -- motor (inequality row): drives a free coordinate of a hinge,
 * cylindrical or prismatic joint -- its rotation about the axis (rad/s) or
 * its travel along it (m/s), as `axis` says -- towards `speed`, with an
 * impulse of at most max_force dt per step (speed 0 holds like a brake).
 *   row      a motor row on the coordinate's rate (rt_joint_axis_eval)
 *   fields   joint (the joint), axis ("angular", the default, or "linear";
 *            a prismatic joint's is "linear"), speed (default 0), max_force
 *            (N or N m, > 0) */
#include <math.h>
#include <stdio.h>

#include "rt_joint_type.h"

static void row(const rt_joint_desc *j, const rt_joint_desc *target, const rt_pose *pa, const rt_pose *pb,
                rt_joint_row *out, double *J) {
  rt_joint_axis_eval(target, rt_joint_free_angular(j->free_axis, target->type) == 1, pa, pb, &out->q, J);
  out->kind = RT_ROW_MOTOR;
  out->speed = j->speed;
  out->max_force = j->max_force;
}

static int check(const rt_joint_desc *j, rt_joint_problem *why) {
  if (isfinite(j->speed) && isfinite(j->max_force) && j->max_force >= 0) return 0;
  snprintf(why->msg, sizeof why->msg, "a motor needs a finite speed and max_force >= 0");
  return -1;
}

static const rt_joint_field fields[] = {
    {"joint", RT_SLOT_TARGET, RT_FIELD_REQUIRED},
    {"axis", RT_SLOT_FREE_AXIS, 0},
    {"speed", RT_SLOT_SPEED, 0},
    {"max_force", RT_SLOT_MAX_FORCE, RT_FIELD_REQUIRED | RT_FIELD_POSITIVE},
    {NULL, RT_NSLOTS, 0},
};

const rt_joint_type_def rt__joint_motor = {
    .name = "motor",
    .degree = 0,
    .doc = "drives a joint's rotation or travel (`axis`) towards `speed` with at most `max_force`",
    .fields = fields,
    .targets = 1u << RT_HINGE | 1u << RT_CYLINDRICAL | 1u << RT_PRISMATIC,
    .targets_text = "a hinge, cylindrical or prismatic",
    .dot_style = "style=dashed, color=gray50",
    .row = row,
    .check = check,
};
