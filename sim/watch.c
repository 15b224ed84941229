/* watch.c -- see watch.h. */
#include "watch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt_joint_type.h"

#define TWO_PI 6.283185307179586
/* A motor is saturated when its impulse is within this fraction of its bound. */
#define SATURATED (1.0 - 1e-6)

/* The pose of body (NULL for RT_WORLD) in *tmp. */
static const rt_pose *pose_of(const rt_world *w, int body, rt_pose *tmp) {
  if (body < 0) return NULL;
  rt_world_body_pose(w, body, tmp);
  return tmp;
}

/* The row of joint j at w's poses, with its Jacobian in J; 0, or -1 if j's
 * type has no row (an equality type). */
static int joint_row(const rt_world_desc *desc, const rt_world *w, int j, rt_joint_row *row,
                     double J[RT_ROW_WIDTH]) {
  const rt_joint_desc *d = &desc->joints[j];
  const rt_joint_type_def *def = rt_joint_type_def_of(d->type);
  if (def == NULL || def->degree != 0 || def->row == NULL) return -1;
  const rt_joint_desc *t = def->targets ? &desc->joints[d->target] : d;
  rt_pose pa, pb;
  def->row(d, t, pose_of(w, t->body_a, &pa), pose_of(w, t->body_b, &pb), row, J);
  return 0;
}

/* Rod j's distance at w's poses, less its description's length (m). */
static double rod_distance(const rt_world_desc *desc, const rt_world *w, int j) {
  const rt_joint_desc *d = &desc->joints[j];
  rt_pose pa, pb;
  double c[RT_MAX_DEGREE];
  rt_joint_eval(d, pose_of(w, d->body_a, &pa), pose_of(w, d->body_b, &pb), c, NULL);
  return c[0];
}

/* An angle's rate does not depend on the bodies' linear velocities. */
static int is_angle(const double J[RT_ROW_WIDTH]) {
  for (int s = 0; s < RT_ROW_SIDES; s++)
    for (int k = 0; k < 3; k++)
      if (J[6 * s + k] != 0.0) return 0;
  return 1;
}

int watch_init(watch *wt, const rt_world_desc *desc, const rt_world *w) {
  memset(wt, 0, sizeof *wt);
  wt->worst_limit = wt->worst_motor = -1;
  int nlimit = 0, nmotor = 0;
  rt_joint_row row;
  double J[RT_ROW_WIDTH];
  for (int j = 0; j < desc->njoint; j++) {
    if (joint_row(desc, w, j, &row, J) != 0) continue;
    nlimit += row.kind == RT_ROW_LIMIT;
    nmotor += row.kind == RT_ROW_MOTOR;
  }
  int nrod = 0;
  for (int j = 0; j < desc->njoint; j++) nrod += desc->joints[j].type == RT_ROD;
  int *limit = malloc(sizeof *limit * (size_t)(nlimit ? nlimit : 1));
  watch_motor *motor = malloc(sizeof *motor * (size_t)(nmotor ? nmotor : 1));
  watch_rod *rod = malloc(sizeof *rod * (size_t)(nrod ? nrod : 1));
  if (limit == NULL || motor == NULL || rod == NULL) {
    free(limit);
    free(motor);
    free(rod);
    return -1;
  }
  wt->desc = desc;
  wt->limit = limit;
  wt->motor = motor;
  wt->rod = rod;
  for (int j = 0; j < desc->njoint; j++)
    if (desc->joints[j].type == RT_ROD) {
      watch_rod *d = &wt->rod[wt->nrod++];
      d->joint = j;
      d->q = rod_distance(desc, w, j);
      d->dq = 0.0; /* the rate before the first step: taken as 0 */
    }
  for (int j = 0; j < desc->njoint; j++) {
    if (joint_row(desc, w, j, &row, J) != 0) continue;
    if (row.kind == RT_ROW_LIMIT) {
      wt->limit[wt->nlimit++] = j;
    } else if (row.kind == RT_ROW_MOTOR) {
      watch_motor *m = &wt->motor[wt->nmotor++];
      m->joint = j;
      m->angular = is_angle(J);
      m->raw = m->q = m->cmd = row.q;
      m->dq = 0.0; /* the rate before the first step: taken as 0 */
      m->speed = rt_world_motor_speed(w, j);
    }
  }
  return 0;
}

/* Motor m after a step: its coordinate, and its slip unless it was
 * saturated or its speed changed. */
static void motor_step(watch *wt, watch_motor *m, const rt_world *w, double dt) {
  rt_joint_row row;
  double J[RT_ROW_WIDTH];
  joint_row(wt->desc, w, m->joint, &row, J);
  const double before = m->q;
  if (m->angular)
    m->q += remainder(row.q - m->raw, TWO_PI);
  else
    m->q = row.q;
  m->raw = row.q;
  const double dq = m->q - before;
  wt->motor_work += rt_world_motor_impulse(w, m->joint) * (m->dq + dq) / (2.0 * dt);
  m->dq = dq;
  const double speed = rt_world_motor_speed(w, m->joint);
  const double bound = rt_world_motor_max_force(w, m->joint) * dt;
  const int saturated = fabs(rt_world_motor_impulse(w, m->joint)) >= SATURATED * bound;
  const int changed = speed != m->speed;
  m->speed = speed;
  if (saturated || changed) {
    m->cmd = m->q;
    return;
  }
  m->cmd += speed * dt;
  const double slip = fabs(m->q - m->cmd);
  /* a motor that holds: no integrator lag of a turning body in it */
  if (speed == 0.0 && !(slip <= wt->max_hold_slip)) wt->max_hold_slip = slip;
  if (!(slip <= wt->max_motor_slip)) {
    wt->max_motor_slip = slip;
    wt->worst_motor = m->joint;
  }
}

void watch_step(watch *wt, const rt_world *w) {
  rt_joint_row row;
  double J[RT_ROW_WIDTH];
  for (int i = 0; i < wt->nlimit; i++) {
    joint_row(wt->desc, w, wt->limit[i], &row, J);
    const double v = fmax(fmax(row.q - row.upper, row.lower - row.q), 0.0);
    if (!(v <= wt->max_limit_violation)) {
      wt->max_limit_violation = v;
      wt->worst_limit = wt->limit[i];
    }
  }
  const double dt = rt_world_settings(w)->dt;
  for (int i = 0; i < wt->nmotor; i++) motor_step(wt, &wt->motor[i], w, dt);
  for (int i = 0; i < wt->nrod; i++) { /* as a motor's work: impulse times the mean rate */
    watch_rod *d = &wt->rod[i];
    const double q = rod_distance(wt->desc, w, d->joint), dq = q - d->q;
    wt->drive_work += rt_world_rod_impulse(w, d->joint) * (d->dq + dq) / (2.0 * dt);
    d->q = q;
    d->dq = dq;
  }
}

void watch_free(watch *wt) {
  free(wt->limit);
  free(wt->motor);
  free(wt->rod);
  memset(wt, 0, sizeof *wt);
  wt->worst_limit = wt->worst_motor = -1;
}
