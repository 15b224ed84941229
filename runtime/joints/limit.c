/* limit.c -- see limit.h. */
#include "limit.h"

#include <stdio.h>

int rt__limit_finish(rt_joint_spec *s, rt_joint_problem *why) {
  if (s->lower <= s->upper) return 0;
  char lo[32], hi[32];
  rt_joint_num(lo, s->lower);
  rt_joint_num(hi, s->upper);
  snprintf(why->msg, sizeof why->msg, "lower (%s) must not exceed upper (%s)", lo, hi);
  return -1;
}

int rt__limit_check(const rt_joint_desc *j, rt_joint_problem *why) {
  if (j->lower <= j->upper) return 0;
  snprintf(why->msg, sizeof why->msg, "a limit needs lower <= upper");
  return -1;
}

void rt__limit_row(const rt_joint_desc *j, const rt_joint_desc *target, int angular, const rt_pose *pa,
                   const rt_pose *pb, rt_joint_row *out, double *J) {
  rt_joint_axis_eval(target, angular, pa, pb, &out->q, J);
  out->kind = RT_ROW_LIMIT;
  out->lower = j->lower;
  out->upper = j->upper;
}
