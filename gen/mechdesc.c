/* mechdesc.c -- see mechdesc.h. */
#include "mechdesc.h"

#include <string.h>

_Static_assert((int)MECH_SHAPE_SPHERE == (int)RT_SHAPE_SPHERE && (int)MECH_SHAPE_BOX == (int)RT_SHAPE_BOX &&
                   (int)MECH_SHAPE_CYLINDER == (int)RT_SHAPE_CYLINDER &&
                   (int)MECH_SHAPE_CAPSULE == (int)RT_SHAPE_CAPSULE,
               "mech_shape and rt_shape list the shapes in the same order");

void mechdesc_world(arena *a, const mech *m, rt_world_desc *out) {
  rt_body_desc *b = ARENA_ARRAY(a, rt_body_desc, m->nbody + 1);
  rt_joint_desc *j = ARENA_ARRAY(a, rt_joint_desc, m->ncons + 1);
  for (int i = 0; i < m->nbody; i++) {
    const mech_body *mb = &m->bodies[i];
    b[i].mass = mb->mass;
    memcpy(b[i].inertia, mb->inertia, sizeof b[i].inertia);
    mech_body_pose(m, i, &b[i].pose);
    memcpy(b[i].vel, mb->vel, sizeof b[i].vel);
    memcpy(b[i].angvel, mb->angvel, sizeof b[i].angvel);
    b[i].fixed = mb->fixed != 0;
    b[i].shape = (rt_shape)mb->shape; /* the same order as mech_shape */
    memcpy(b[i].shape_size, mb->shape_size, sizeof b[i].shape_size);
    b[i].friction = mb->friction >= 0 ? mb->friction : m->settings.friction;
  }
  for (int i = 0; i < m->ncons; i++) mech_joint_desc(m, i, &j[i]);
  out->nbody = m->nbody;
  out->bodies = b;
  out->njoint = m->ncons;
  out->joints = j;
}

void mechdesc_settings(const mech *m, rt_settings *out) {
  const mech_settings *s = &m->settings;
  rt_settings_default(out);
  out->dt = s->dt;
  memcpy(out->gravity, s->gravity, sizeof out->gravity);
  out->iterations = s->iterations;
  out->beta = s->beta;
  out->epsilon = s->epsilon;
  out->max_contacts = s->max_contacts;
  out->stabilize = s->stabilize;
}

double mechdesc_ground_friction(const mech *m) {
  return m->settings.ground_friction >= 0 ? m->settings.ground_friction : m->settings.friction;
}
