/* rope.c -- rope (PGS row): the anchors stay at most `length` apart; slack
 * below it.
 *   row      a limit on c = |d| - length (the rod row) within (-inf, 0]
 *   fields   a, b (bodies), anchor_a, anchor_b (world points), length (> 0,
 *            default: the anchors' distance) */
#include <math.h>
#include <stdio.h>

#include "../joint_rows.h"
#include "rt_joint_type.h"

static void row(const rt_joint_desc *j, const rt_joint_desc *target, const rt_pose *pa, const rt_pose *pb,
                rt_joint_row *out, double *J) {
  (void)target;
  rt__side a, b;
  double d[3];
  rt__jrow_sides(j, pa, pb, 0, &a, &b, d);
  rt__jrow_rod(&a, &b, d, j->length, &out->q, J);
  out->kind = RT_ROW_LIMIT;
  out->lower = -INFINITY;
  out->upper = 0.0;
}

static int finish(rt_joint_spec *s, rt_joint_problem *why) {
  if (s->have & (1u << RT_SLOT_LENGTH)) return 0;
  const double d[3] = {s->anchor_b[0] - s->anchor_a[0], s->anchor_b[1] - s->anchor_a[1], s->anchor_b[2] - s->anchor_a[2]};
  s->length = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  if (s->length > 0) return 0;
  snprintf(why->msg, sizeof why->msg, "the anchors of the rope coincide, so its 'length' must be given");
  return -1;
}

static int check(const rt_joint_desc *j, rt_joint_problem *why) {
  if (j->length > 0 && isfinite(j->length)) return 0;
  snprintf(why->msg, sizeof why->msg, "a rope needs a length > 0");
  return -1;
}

static const rt_joint_field fields[] = {
    {"a", RT_SLOT_A, RT_FIELD_REQUIRED},
    {"b", RT_SLOT_B, RT_FIELD_REQUIRED},
    {"anchor_a", RT_SLOT_ANCHOR_A, RT_FIELD_REQUIRED},
    {"anchor_b", RT_SLOT_ANCHOR_B, RT_FIELD_REQUIRED},
    {"length", RT_SLOT_LENGTH, RT_FIELD_POSITIVE},
    {NULL, RT_NSLOTS, 0},
};

const rt_joint_type_def rt__joint_rope = {
    .name = "rope",
    .degree = 0,
    .doc = "keeps the anchors at most `length` apart",
    .fields = fields,
    .dot_style = "style=dashed, color=gray50",
    .finish = finish,
    .row = row,
    .check = check,
};
