/* rod.c -- rod, or distance joint (degree 1): the anchors stay `length`
 * apart. A driven rod (a linear actuator, a hydraulic cylinder) changes its
 * length by `speed` dt every step within [lower, upper] (rows.c feeds the
 * rate forward).
 *   rows     rod row: c = |d| - length
 *   fields   a, b (bodies), anchor_a, anchor_b (world points), length (> 0,
 *            default: the anchors' distance), speed (m/s), lower (> 0),
 *            upper (defaults: unbounded in the direction of speed, the rest
 *            length on the other side) */
#include <math.h>
#include <stdio.h>

#include "../joint_rows.h"
#include "rt_joint_type.h"

static void eval(const rt_joint_desc *j, const rt_pose *pa, const rt_pose *pb, double *c, double *J) {
  rt__side a, b;
  double d[3];
  rt__jrow_sides(j, pa, pb, 0, &a, &b, d);
  rt__jrow_rod(&a, &b, d, j->length, &c[0], rt__jrow_ptr(J, 0));
}

static double distance(const double p[3], const double q[3]) {
  const double d[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]};
  return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

/* The length from the anchors when not given, the drive's bounds, and a
 * Jacobian that exists: anchors that coincide leave the row undefined. */
static int finish(rt_joint_spec *s, rt_joint_problem *why) {
  const double dist = distance(s->anchor_a, s->anchor_b);
  if (!(s->have & (1u << RT_SLOT_LENGTH))) s->length = dist;
  if (!(s->have & (1u << RT_SLOT_LOWER))) s->lower = s->speed < 0 ? 0.0 : s->length;
  if (!(s->have & (1u << RT_SLOT_UPPER))) s->upper = s->speed > 0 ? INFINITY : s->length;
  if (!(s->lower <= s->length && s->length <= s->upper)) {
    char l[32], lo[32], hi[32];
    rt_joint_num(l, s->length);
    rt_joint_num(lo, s->lower);
    rt_joint_num(hi, s->upper);
    snprintf(why->msg, sizeof why->msg, "the length %s must lie within [lower, upper] = [%s, %s]", l, lo, hi);
    return -1;
  }
  if (!(dist > 0)) {
    snprintf(why->msg, sizeof why->msg,
             "degenerate at the initial pose: its Jacobian has rank 0 < degree 1 (%s)",
             s->length > 0 ? "the anchors of the rod coincide" : "a rod of zero length");
    return -1;
  }
  return 0;
}

static const rt_joint_field fields[] = {
    {"a", RT_SLOT_A, RT_FIELD_REQUIRED},
    {"b", RT_SLOT_B, RT_FIELD_REQUIRED},
    {"anchor_a", RT_SLOT_ANCHOR_A, RT_FIELD_REQUIRED},
    {"anchor_b", RT_SLOT_ANCHOR_B, RT_FIELD_REQUIRED},
    {"length", RT_SLOT_LENGTH, RT_FIELD_POSITIVE},
    {"speed", RT_SLOT_SPEED, 0},
    {"lower", RT_SLOT_LOWER, RT_FIELD_POSITIVE},
    {"upper", RT_SLOT_UPPER, 0},
    {NULL, RT_NSLOTS, 0},
};

const rt_joint_type_def rt__joint_rod = {
    .name = "rod",
    .degree = 1,
    .rows = "g",
    .npos = 1,
    .doc = "the anchors stay `length` apart; a driven rod changes its length at `speed` within [`lower`, `upper`]",
    .fields = fields,
    .dot_style = "color=black, style=dotted",
    .finish = finish,
    .eval = eval,
};
