/* spring.c -- spring and damper (inequality row, soft): a force
 * -stiffness (q - rest) - damping q' on a free coordinate q of a hinge,
 * cylindrical or prismatic joint -- its rotation (N m/rad, N m s/rad) or
 * its travel (N/m, N s/m), as `axis` says.
 *   row      a soft row on the coordinate's rate (rt_joint_axis_eval): with
 *            step h, the impulse lambda = -h (k (q + h q'_new - rest) +
 *            c q'_new) is implicit in the new rate, i.e. the row
 *            q'_new + gamma lambda = -k (q - rest) / (h k + c) with the
 *            compliance gamma = 1 / (h (h k + c)) (ODE's ERP and CFM):
 *            stable at any stiffness and step (rows.c)
 *   fields   joint (the joint), axis ("angular", the default, or "linear";
 *            a prismatic joint's is "linear"), stiffness (>= 0), damping
 *            (>= 0, default 0; not both 0), rest (m or rad, default 0: the
 *            initial pose) */
#include <math.h>
#include <stdio.h>

#include "rt_joint_type.h"

static void row(const rt_joint_desc *j, const rt_joint_desc *target, const rt_pose *pa, const rt_pose *pb,
                rt_joint_row *out, double *J) {
  rt_joint_axis_eval(target, rt_joint_free_angular(j->free_axis, target->type) == 1, pa, pb, &out->q, J);
  out->kind = RT_ROW_SPRING;
  out->stiffness = j->stiffness;
  out->damping = j->damping;
  out->rest = j->rest;
}

static int valid(double stiffness, double damping, double rest) {
  return isfinite(stiffness) && isfinite(damping) && isfinite(rest) && stiffness >= 0 && damping >= 0 &&
         stiffness + damping > 0;
}

static int finish(rt_joint_spec *s, rt_joint_problem *why) {
  if (valid(s->stiffness, s->damping, s->rest)) return 0;
  snprintf(why->msg, sizeof why->msg, "a spring needs stiffness or damping > 0 (both are 0)");
  why->key = "stiffness";
  return -1;
}

static int check(const rt_joint_desc *j, rt_joint_problem *why) {
  if (valid(j->stiffness, j->damping, j->rest)) return 0;
  snprintf(why->msg, sizeof why->msg, "a spring needs finite stiffness >= 0, damping >= 0 (not both 0) and rest");
  return -1;
}

static const rt_joint_field fields[] = {
    {"joint", RT_SLOT_TARGET, RT_FIELD_REQUIRED},
    {"axis", RT_SLOT_FREE_AXIS, 0},
    {"stiffness", RT_SLOT_STIFFNESS, RT_FIELD_REQUIRED | RT_FIELD_NONNEGATIVE},
    {"damping", RT_SLOT_DAMPING, RT_FIELD_NONNEGATIVE},
    {"rest", RT_SLOT_REST, 0},
    {NULL, RT_NSLOTS, 0},
};

const rt_joint_type_def rt__joint_spring = {
    .name = "spring",
    .degree = 0,
    .doc = "pulls a joint's rotation or travel (`axis`) towards `rest` with `stiffness` and `damping`",
    .fields = fields,
    .targets = 1u << RT_HINGE | 1u << RT_CYLINDRICAL | 1u << RT_PRISMATIC,
    .targets_text = "a hinge, cylindrical or prismatic",
    .dot_style = "style=dashed, color=steelblue",
    .finish = finish,
    .row = row,
    .check = check,
};
