/* peer_ode.c -- see peer_ode.h. */
#include "peer_ode.h"

#include <ode/ode.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct po_world {
  const mech *m;
  int direct, iterations;
  dWorldID world;
  dJointGroupID contact_group;
  dBodyID *body;   /* per mechanism body; 0 for a fixed one */
  dJointID *joint; /* per constraint: its ODE joint, or 0 */
  double *length;  /* driven rods: current rest length */
  int rows;        /* equality and motor rows */
  rt_contact *contact;
  int ncontact, cap;
};

/* Why ODE cannot model constraint i, or NULL if it can. */
static const char *unmapped_why(const mech *m, int i) {
  const mech_constraint *c = &m->cons[i];
  switch (c->type) {
  case RT_BALL:
  case RT_HINGE:
  case RT_PRISMATIC:
  case RT_CYLINDRICAL:
  case RT_UNIVERSAL:
  case RT_WELD:
  case RT_ROD:
    return NULL;
  case RT_MOTOR:
  case RT_ANGULAR_LIMIT:
  case RT_POSITIONAL_LIMIT: {
    const rt_joint_type t = m->cons[c->target].type;
    if (t == RT_HINGE && c->type != RT_POSITIONAL_LIMIT) return NULL;
    if (t == RT_PRISMATIC && c->type != RT_ANGULAR_LIMIT) return NULL;
    return "no motor or stop on this joint in ODE";
  }
  case RT_ROPE:
    return "ODE has no rope (a one-sided distance)";
  default:
    return "no ODE joint";
  }
}

int po_unmapped(const mech *m, char *buf, size_t n) {
  int count = 0;
  size_t used = 0;
  if (n > 0) buf[0] = '\0';
  for (int i = 0; i < m->ncons; i++) {
    if (unmapped_why(m, i) == NULL) continue;
    if (used < n) {
      int k = snprintf(buf + used, n - used, "%s%s (%s)", count ? ", " : "", m->cons[i].name,
                       rt_joint_type_name(m->cons[i].type));
      used += k > 0 ? (size_t)k : 0;
    }
    count++;
  }
  return count;
}

static dBodyID body_of(const po_world *w, int i) { return i == MECH_WORLD ? 0 : w->body[i]; }

/* ODE measures a joint's coordinate as body 1 relative to body 2 (rates
 * (w1 - w2) . axis, travel (p1 - p2) . axis); the runtime's is b relative
 * to a (rt.h, rt_joint_axis_eval). Joints are attached as (a, b), so
 * targets and bounds change sign. */
static void set_param(dJointID j, rt_joint_type t, int param, double v) {
  if (t == RT_HINGE)
    dJointSetHingeParam(j, param, v);
  else
    dJointSetSliderParam(j, param, v);
}

static dJointID make_joint(po_world *w, int i) {
  const mech_constraint *c = &w->m->cons[i];
  const double *p = c->anchor_a, *q = c->anchor_b, *ax = c->axis_a;
  dJointID j = 0;
  switch (c->type) {
  case RT_BALL:
    j = dJointCreateBall(w->world, 0);
    break;
  case RT_HINGE:
    j = dJointCreateHinge(w->world, 0);
    break;
  case RT_PRISMATIC:
    j = dJointCreateSlider(w->world, 0);
    break;
  case RT_CYLINDRICAL:
    j = dJointCreatePiston(w->world, 0);
    break;
  case RT_UNIVERSAL:
    j = dJointCreateUniversal(w->world, 0);
    break;
  case RT_WELD:
    j = dJointCreateFixed(w->world, 0);
    break;
  case RT_ROD:
    j = dJointCreateDBall(w->world, 0);
    break;
  default:
    return 0;
  }
  dJointAttach(j, body_of(w, c->a), body_of(w, c->b));
  switch (c->type) {
  case RT_BALL:
    dJointSetBallAnchor(j, p[0], p[1], p[2]);
    w->rows += 3;
    break;
  case RT_HINGE:
    dJointSetHingeAnchor(j, p[0], p[1], p[2]);
    dJointSetHingeAxis(j, ax[0], ax[1], ax[2]);
    w->rows += 5;
    break;
  case RT_PRISMATIC:
    dJointSetSliderAxis(j, ax[0], ax[1], ax[2]);
    w->rows += 5;
    break;
  case RT_CYLINDRICAL:
    dJointSetPistonAnchor(j, p[0], p[1], p[2]);
    dJointSetPistonAxis(j, ax[0], ax[1], ax[2]);
    w->rows += 4;
    break;
  case RT_UNIVERSAL:
    dJointSetUniversalAnchor(j, p[0], p[1], p[2]);
    dJointSetUniversalAxis1(j, ax[0], ax[1], ax[2]);
    dJointSetUniversalAxis2(j, c->axis_b[0], c->axis_b[1], c->axis_b[2]);
    w->rows += 4;
    break;
  case RT_WELD:
    dJointSetFixed(j);
    w->rows += 6;
    break;
  case RT_ROD:
    dJointSetDBallAnchor1(j, p[0], p[1], p[2]);
    dJointSetDBallAnchor2(j, q[0], q[1], q[2]);
    dJointSetDBallDistance(j, c->length);
    w->length[i] = c->length;
    w->rows += 1;
    break;
  default:
    break;
  }
  return j;
}

/* A motor or limit on joint c->target (mapped: unmapped_why is NULL). */
static void add_motor_or_limit(po_world *w, int i) {
  const mech_constraint *c = &w->m->cons[i];
  const dJointID j = w->joint[c->target];
  const rt_joint_type t = w->m->cons[c->target].type;
  if (j == 0) return;
  if (c->type == RT_MOTOR) {
    set_param(j, t, dParamVel, -c->speed);
    set_param(j, t, dParamFMax, c->max_force);
    w->rows += 1;
  } else { /* the high stop first, so that lo <= hi holds at every call */
    set_param(j, t, dParamHiStop, -c->lower);
    set_param(j, t, dParamLoStop, -c->upper);
  }
}

po_world *po_create(const mech *m, int direct, int iterations) {
  static int initialized;
  if (!initialized) {
    dInitODE2(0);
    dAllocateODEDataForThread(dAllocateMaskAll);
    initialized = 1;
  }
  po_world *w = calloc(1, sizeof *w);
  if (!w) return NULL;
  w->m = m;
  w->direct = direct;
  w->iterations = iterations;
  w->body = calloc((size_t)m->nbody + 1, sizeof *w->body);
  w->joint = calloc((size_t)m->ncons + 1, sizeof *w->joint);
  w->length = calloc((size_t)m->ncons + 1, sizeof *w->length);
  w->world = dWorldCreate();
  w->contact_group = dJointGroupCreate(0);
  if (!w->body || !w->joint || !w->length) {
    po_destroy(w);
    return NULL;
  }
  const mech_settings *s = &m->settings;
  dWorldSetGravity(w->world, s->gravity[0], s->gravity[1], s->gravity[2]);
  dWorldSetERP(w->world, s->beta); /* before the joints: stops take it as their ERP */
  dWorldSetQuickStepNumIterations(w->world, iterations);
  for (int i = 0; i < m->nbody; i++) {
    const mech_body *b = &m->bodies[i];
    if (b->fixed) continue;
    dBodyID id = dBodyCreate(w->world);
    dMass mass;
    dMassSetParameters(&mass, b->mass, 0, 0, 0, b->inertia[0], b->inertia[1], b->inertia[2], 0, 0, 0);
    dBodySetMass(id, &mass);
    dBodySetPosition(id, b->pos[0], b->pos[1], b->pos[2]);
    const dQuaternion q = {b->rot[0], b->rot[1], b->rot[2], b->rot[3]};
    dBodySetQuaternion(id, q);
    dBodySetLinearVel(id, b->vel[0], b->vel[1], b->vel[2]);
    dBodySetAngularVel(id, b->angvel[0], b->angvel[1], b->angvel[2]);
    w->body[i] = id;
  }
  for (int i = 0; i < m->ncons; i++)
    if (mech_is_equality(&m->cons[i])) w->joint[i] = make_joint(w, i);
  for (int i = 0; i < m->ncons; i++)
    if (!mech_is_equality(&m->cons[i]) && unmapped_why(m, i) == NULL) add_motor_or_limit(w, i);
  return w;
}

void po_destroy(po_world *w) {
  if (!w) return;
  if (w->contact_group) dJointGroupDestroy(w->contact_group);
  if (w->world) dWorldDestroy(w->world); /* its bodies and joints with it */
  free(w->body);
  free(w->joint);
  free(w->length);
  free(w->contact);
  free(w);
}

void po_set_contacts(po_world *w, const rt_contact *c, int n) {
  if (n > w->cap) {
    rt_contact *grown = realloc(w->contact, sizeof *grown * (size_t)n);
    if (!grown) abort();
    w->contact = grown;
    w->cap = n;
  }
  if (n > 0) memcpy(w->contact, c, sizeof *c * (size_t)n);
  w->ncontact = n;
}

/* A driven rod's length changes as the runtime's does (rows.c,
 * rt__rows_drive): by speed dt per step, within [lower, upper]. */
static void drive(po_world *w) {
  const mech *m = w->m;
  for (int i = 0; i < m->ncons; i++) {
    const mech_constraint *c = &m->cons[i];
    if (c->type != RT_ROD || c->speed == 0.0 || w->joint[i] == 0) continue;
    double len = w->length[i] + c->speed * m->settings.dt;
    len = len < c->lower ? c->lower : len > c->upper ? c->upper : len;
    w->length[i] = len;
    dJointSetDBallDistance(w->joint[i], len);
  }
}

void po_step(po_world *w) {
  drive(w);
  for (int k = 0; k < w->ncontact; k++) {
    const rt_contact *c = &w->contact[k];
    dContact dc;
    memset(&dc, 0, sizeof dc);
    dc.surface.mode = c->friction > 0 ? dContactApprox1 : 0;
    dc.surface.mu = c->friction;
    for (int a = 0; a < 3; a++) {
      dc.geom.pos[a] = c->point[a];
      dc.geom.normal[a] = c->normal[a]; /* from b towards a: into ODE's body 1 */
    }
    dc.geom.depth = c->depth;
    dJointID j = dJointCreateContact(w->world, w->contact_group, &dc);
    dJointAttach(j, body_of(w, c->body_a), body_of(w, c->body_b));
  }
  if (w->direct)
    dWorldStep(w->world, w->m->settings.dt);
  else
    dWorldQuickStep(w->world, w->m->settings.dt);
  dJointGroupEmpty(w->contact_group);
}

void po_body(const po_world *w, int i, rt_pose *pose, double vel[3], double angvel[3]) {
  const dBodyID id = w->body[i];
  if (id == 0) {
    mech_body_pose(w->m, i, pose);
    memset(vel, 0, 3 * sizeof *vel);
    memset(angvel, 0, 3 * sizeof *angvel);
    return;
  }
  const dReal *p = dBodyGetPosition(id), *q = dBodyGetQuaternion(id);
  const dReal *v = dBodyGetLinearVel(id), *om = dBodyGetAngularVel(id);
  for (int k = 0; k < 3; k++) {
    pose->p[k] = p[k];
    vel[k] = v[k];
    angvel[k] = om[k];
  }
  for (int k = 0; k < 4; k++) pose->q[k] = q[k];
}

int po_rows(const po_world *w) {
  int n = w->rows;
  for (int k = 0; k < w->ncontact; k++) n += w->contact[k].friction > 0 ? 3 : 1;
  return n;
}
