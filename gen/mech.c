/* mech.c -- mechanism model helpers: defaults, look-ups, and the conversion
 * of world-frame anchors and axes (initial pose) into body frames. */
#include "mech.h"

#include "rt_joint_type.h"

#include <math.h>
#include <string.h>

void mech_default_settings(mech_settings *s) {
  memset(s, 0, sizeof *s);
  s->gravity[2] = -9.81;
  s->dt = 1.0 / 60.0;
  s->iterations = 10;
  s->epsilon = 1e-6;
  s->beta = 0.2;
  s->shatter = 20;
  s->friction = 0.8;
  s->ground_friction = -1.0;
  s->probe = -1;
  s->max_contacts = 256;
}

int mech_is_equality(const mech_constraint *c) { return rt_joint_degree(c->type) > 0; }

int mech_degree(const mech_constraint *c) { return rt_joint_degree(c->type); }

int mech_find_body(const mech *m, const char *name) {
  for (int i = 0; i < m->nbody; i++)
    if (strcmp(m->bodies[i].name, name) == 0) return i;
  return -1;
}

int mech_find_constraint(const mech *m, const char *name) {
  for (int i = 0; i < m->ncons; i++)
    if (strcmp(m->cons[i].name, name) == 0) return i;
  return -1;
}

int mech_body_is_fixed(const mech *m, int i) { return i == MECH_WORLD || m->bodies[i].fixed; }

void mech_body_pose(const mech *m, int i, rt_pose *out) {
  memset(out, 0, sizeof *out);
  out->q[0] = 1.0;
  if (i == MECH_WORLD) return;
  memcpy(out->p, m->bodies[i].pos, sizeof out->p);
  memcpy(out->q, m->bodies[i].rot, sizeof out->q);
}

/* v_local = R(q)^T (v_world - p) for points, R(q)^T v for directions. */
static void to_local(const rt_pose *pose, const double w[3], int is_point, double out[3]) {
  double d[3] = {w[0], w[1], w[2]};
  if (is_point)
    for (int k = 0; k < 3; k++) d[k] -= pose->p[k];
  /* rotate by the conjugate quaternion */
  double qw = pose->q[0], qx = -pose->q[1], qy = -pose->q[2], qz = -pose->q[3];
  double tx = 2.0 * (qy * d[2] - qz * d[1]);
  double ty = 2.0 * (qz * d[0] - qx * d[2]);
  double tz = 2.0 * (qx * d[1] - qy * d[0]);
  out[0] = d[0] + qw * tx + (qy * tz - qz * ty);
  out[1] = d[1] + qw * ty + (qz * tx - qx * tz);
  out[2] = d[2] + qw * tz + (qx * ty - qy * tx);
}

static void normalize(double v[3]) {
  double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  if (n > 0)
    for (int k = 0; k < 3; k++) v[k] /= n;
}

/* An orthonormal frame (axis, p1, p2) from a unit axis, chosen by a fixed rule
 * so the same axis always gives the same frame. */
static void frame_from_axis(const double axis[3], double f[3][3]) {
  double a[3] = {axis[0], axis[1], axis[2]};
  normalize(a);
  /* the world axis least aligned with a */
  double e[3] = {0, 0, 0};
  double ax = fabs(a[0]), ay = fabs(a[1]), az = fabs(a[2]);
  if (ax <= ay && ax <= az)
    e[0] = 1;
  else if (ay <= az)
    e[1] = 1;
  else
    e[2] = 1;
  double p1[3] = {a[1] * e[2] - a[2] * e[1], a[2] * e[0] - a[0] * e[2], a[0] * e[1] - a[1] * e[0]};
  normalize(p1);
  double p2[3] = {a[1] * p1[2] - a[2] * p1[1], a[2] * p1[0] - a[0] * p1[2], a[0] * p1[1] - a[1] * p1[0]};
  for (int k = 0; k < 3; k++) {
    f[0][k] = a[k];
    f[1][k] = p1[k];
    f[2][k] = p2[k];
  }
}

void mech_joint_desc(const mech *m, int i, rt_joint_desc *out) {
  const mech_constraint *c = &m->cons[i];
  if (rt_joint_type_def_of(c->type)->targets && c->target >= 0) {
    /* limits and motors: the geometry of the joint they act on */
    mech_joint_desc(m, c->target, out);
    out->type = c->type;
    out->target = c->target;
    out->lower = c->lower;
    out->upper = c->upper;
    out->speed = c->speed;
    out->max_force = c->max_force;
    out->free_axis = c->free_axis;
    out->stiffness = c->stiffness;
    out->damping = c->damping;
    out->rest = c->rest;
    return;
  }
  memset(out, 0, sizeof *out);
  out->target = -1;
  out->type = c->type;
  out->body_a = c->a;
  out->body_b = c->b;
  rt_pose pa, pb;
  mech_body_pose(m, c->a, &pa);
  mech_body_pose(m, c->b, &pb);
  to_local(&pa, c->anchor_a, 1, out->anchor_a);
  to_local(&pb, c->anchor_b, 1, out->anchor_b);
  /* Each frame is built from its side's axis; every type but the universal
   * joint has axis_b = axis_a, so both frames start as the same world frame
   * and the angular rows of welds, hinges and prismatic joints vanish at the
   * initial pose. */
  double fa[3][3], fb[3][3];
  frame_from_axis(c->axis_a, fa);
  frame_from_axis(c->axis_b, fb);
  for (int r = 0; r < 3; r++) {
    to_local(&pa, fa[r], 0, out->frame_a[r]);
    to_local(&pb, fb[r], 0, out->frame_b[r]);
  }
  out->length = c->length;
  out->lower = c->lower;
  out->upper = c->upper;
  out->speed = c->speed;
}

uint64_t mech_structure_hash(const mech *m, arena *scratch) {
  unsigned char *fixed = ARENA_ARRAY(scratch, unsigned char, m->nbody + 1);
  int *type = ARENA_ARRAY(scratch, int, m->ncons + 1);
  int *a = ARENA_ARRAY(scratch, int, m->ncons + 1);
  int *b = ARENA_ARRAY(scratch, int, m->ncons + 1);
  int n = 0;
  for (int i = 0; i < m->nbody; i++) fixed[i] = (unsigned char)(m->bodies[i].fixed != 0);
  for (int i = 0; i < m->ncons; i++) {
    if (!mech_is_equality(&m->cons[i])) continue;
    type[n] = (int)m->cons[i].type;
    a[n] = m->cons[i].a;
    b[n] = m->cons[i].b;
    n++;
  }
  return rt_structure_hash(m->nbody, fixed, n, type, a, b);
}
