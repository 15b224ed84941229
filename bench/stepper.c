/* stepper.c -- see stepper.h. */
#include "stepper.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "mechworld.h"
#include "peer_mujoco.h"
#include "peer_ode.h"
#include "simrun.h"

struct sp_stepper {
  sp_kind kind;
  const mech *m;
  arena a;            /* the world description */
  rt_world_desc desc;
  rt_world *world;    /* ours: the method; peers: the mirror that finds their
                         contacts and measures their errors */
  po_world *ode;
  pm_world *mj;
  char unmapped[1024];
};

static const char *const keys[SP_COUNT] = {"ode_quick", "ode_quick2", "ode_direct", "mujoco_newton",
                                           "mujoco_pgs", "pgs",       "ldlpgs",     "ldlpgs_threaded"};

const char *sp_key(sp_kind k) { return keys[k]; }

int sp_from_key(const char *key) {
  for (int k = 0; k < SP_COUNT; k++)
    if (strcmp(keys[k], key) == 0) return k;
  return -1;
}

int sp_is_ours(sp_kind k) { return k == SP_PGS || k == SP_LDLPGS || k == SP_LDLPGS_THREADED; }

void sp_label(sp_kind k, int n, char *buf, size_t len) {
  switch (k) {
  case SP_ODE_QUICK: snprintf(buf, len, "ODE QuickStep %d", n); break;
  case SP_ODE_QUICK2: snprintf(buf, len, "ODE QuickStep %d", 2 * n); break;
  case SP_ODE_DIRECT: snprintf(buf, len, "ODE dWorldStep"); break;
  case SP_MJ_NEWTON: snprintf(buf, len, "MuJoCo Newton"); break;
  case SP_MJ_PGS: snprintf(buf, len, "MuJoCo PGS %d", n); break;
  case SP_PGS: snprintf(buf, len, "ldlpgs PGS %d", n); break;
  case SP_LDLPGS: snprintf(buf, len, "ldlpgs LDL-PGS"); break;
  case SP_LDLPGS_THREADED: snprintf(buf, len, "ldlpgs LDL-PGS, 2 threads"); break;
  default: snprintf(buf, len, "?"); break;
  }
}

static rt_world *make_world(sp_stepper *s, const rt_program *prog, int iterations, rt_solver solver, int threaded) {
  rt_settings set;
  mechworld_settings(s->m, &set);
  set.iterations = iterations;
  set.stabilize = 0;
  set.solver = solver;
  set.threaded = threaded;
  return rt_world_create(&s->desc, prog, &set, NULL, NULL, 0);
}

sp_stepper *sp_create(sp_kind k, const mech *m, const rt_program *prog, int iterations, char *why, size_t n) {
  sp_stepper *s = calloc(1, sizeof *s);
  if (!s) abort();
  s->kind = k;
  s->m = m;
  arena_init(&s->a);
  mechworld_desc(&s->a, m, &s->desc);
  if (n > 0) why[0] = '\0';
  const int ours = sp_is_ours(k);
  s->world = make_world(s, prog, iterations, k == SP_PGS || !ours ? RT_SOLVER_PGS : RT_SOLVER_LDLPGS,
                        k == SP_LDLPGS_THREADED ? RT_THREADED_ALWAYS : 0);
  if (!s->world) {
    snprintf(why, n, "no runtime world");
    sp_destroy(s);
    return NULL;
  }
  switch (k) {
  case SP_ODE_QUICK:
  case SP_ODE_QUICK2:
  case SP_ODE_DIRECT:
    po_unmapped(m, s->unmapped, sizeof s->unmapped);
    s->ode = po_create(m, k == SP_ODE_DIRECT, k == SP_ODE_QUICK2 ? 2 * iterations : iterations);
    if (!s->ode) snprintf(why, n, "ODE could not build it");
    break;
  case SP_MJ_NEWTON:
  case SP_MJ_PGS:
    s->mj = pm_create(m, k == SP_MJ_NEWTON, iterations, why, n);
    break;
  default:
    break;
  }
  if (!ours && !s->ode && !s->mj) {
    sp_destroy(s);
    return NULL;
  }
  return s;
}

void sp_destroy(sp_stepper *s) {
  if (!s) return;
  if (s->world) rt_world_destroy(s->world);
  po_destroy(s->ode);
  pm_destroy(s->mj);
  arena_free(&s->a);
  free(s);
}

const char *sp_unmapped(const sp_stepper *s) { return s->mj ? pm_unmapped(s->mj) : s->unmapped; }

void sp_set_contacts(sp_stepper *s, const rt_contact *c, int n) {
  if (s->ode)
    po_set_contacts(s->ode, c, n);
  else if (!s->mj)
    rt_world_set_contacts(s->world, c, n);
}

void sp_step(sp_stepper *s) {
  if (s->ode)
    po_step(s->ode);
  else if (s->mj)
    pm_step(s->mj);
  else
    rt_world_step(s->world);
}

void sp_body(const sp_stepper *s, int body, rt_pose *pose, double vel[3], double angvel[3]) {
  if (s->ode)
    po_body(s->ode, body, pose, vel, angvel);
  else if (s->mj)
    pm_body(s->mj, body, pose, vel, angvel);
  else {
    rt_world_body_pose(s->world, body, pose);
    rt_world_body_velocity(s->world, body, vel, angvel);
  }
}

int sp_rows(const sp_stepper *s) {
  if (s->ode) return po_rows(s->ode);
  if (s->mj) return pm_rows(s->mj);
  return rt_world_step_info(s->world)->rows;
}

/* A peer's state into its mirror world. */
static void mirror(sp_stepper *s) {
  if (!s->ode && !s->mj) return;
  for (int i = 0; i < s->m->nbody; i++) {
    rt_pose p;
    double v[3], w[3];
    sp_body(s, i, &p, v, w);
    rt_world_set_body_state(s->world, i, &p, v, w);
  }
}

int sp_world_contacts(const mech *m, const rt_world *w, rt_contact *out, int cap) {
  int n = 0;
  const double mu = m->settings.ground_friction >= 0 ? m->settings.ground_friction : m->settings.friction;
  if (m->settings.has_ground)
    n = rt_world_ground_contacts(w, m->settings.ground_height, mu, SIMRUN_CONTACT_MARGIN, out, cap);
  if (n > cap) n = cap;
  if (m->settings.collide) n += rt_world_body_contacts(w, SIMRUN_CONTACT_MARGIN, out + n, cap - n);
  return n < cap ? n : cap;
}

int sp_contacts(const sp_stepper *s, rt_contact *out, int cap) {
  mirror((sp_stepper *)s);
  return sp_world_contacts(s->m, s->world, out, cap);
}

int sp_finds_contacts(const sp_stepper *s) { return s->mj != NULL; }

static int finite_and_slow(const sp_stepper *s) {
  for (int i = 0; i < s->m->nbody; i++) {
    rt_pose p;
    double v[3], w[3];
    sp_body(s, i, &p, v, w);
    for (int k = 0; k < 3; k++)
      if (!isfinite(p.p[k]) || !isfinite(v[k]) || !isfinite(w[k])) return 0;
    if (!(sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) <= SIMRUN_MAX_SPEED)) return 0;
  }
  return 1;
}

/* Largest errors of the equality joints at the current state, as
 * rt_world_max_error measures them. A peer's mirror world does not step,
 * so its driven rods keep their first length: theirs are measured here
 * against rod_len, the length the drive has reached. */
static void max_error(sp_stepper *s, const double *rod_len, double *pos, double *ang) {
  const mech *m = s->m;
  *pos = *ang = 0.0;
  for (int j = 0; j < m->ncons; j++) {
    double pe = 0.0, ae = 0.0;
    if (!mech_is_equality(&m->cons[j])) continue;
    if ((s->ode || s->mj) && m->cons[j].type == RT_ROD && m->cons[j].speed != 0.0) {
      rt_joint_desc d = s->desc.joints[j];
      rt_pose pa, pb;
      double v[3], w[3], c;
      d.length = rod_len[j];
      if (d.body_a != RT_WORLD) sp_body(s, d.body_a, &pa, v, w);
      if (d.body_b != RT_WORLD) sp_body(s, d.body_b, &pb, v, w);
      rt_joint_eval(&d, d.body_a == RT_WORLD ? NULL : &pa, d.body_b == RT_WORLD ? NULL : &pb, &c, NULL);
      pe = fabs(c);
    } else {
      rt_world_joint_error(s->world, j, &pe, &ae);
    }
    *pos = fmax(*pos, pe);
    *ang = fmax(*ang, ae);
  }
}

void sp_hold_run(sp_stepper *s, int steps, sp_hold *out) {
  memset(out, 0, sizeof *out);
  const mech *m = s->m;
  const int probe = simrun_default_probe(m);
  const int cap = m->settings.max_contacts;
  const int any = m->settings.has_ground || m->settings.collide;
  rt_contact *c = calloc((size_t)cap + 1, sizeof *c);
  if (!c) abort();
  double *rod_len = calloc((size_t)m->ncons + 1, sizeof *rod_len);
  if (!rod_len) abort();
  for (int j = 0; j < m->ncons; j++) rod_len[j] = s->desc.joints[j].length;
  rt_pose p;
  double v[3], w[3];
  sp_body(s, probe, &p, v, w);
  out->probe_start = out->probe_final = out->probe_min = p.p[2];
  for (int k = 0; k < steps; k++) {
    if (any && !s->mj) sp_set_contacts(s, c, sp_contacts(s, c, cap));
    sp_step(s);
    for (int j = 0; j < m->ncons; j++) { /* the drive, as rows.c's */
      const rt_joint_desc *d = &s->desc.joints[j];
      if (d->type == RT_ROD && d->speed != 0.0)
        rod_len[j] = fmin(fmax(rod_len[j] + d->speed * m->settings.dt, d->lower), d->upper);
    }
    if (!finite_and_slow(s)) {
      out->exploded = 1;
      break;
    }
    out->steps = k + 1;
    mirror(s);
    double pos, ang;
    max_error(s, rod_len, &pos, &ang);
    out->max_pos = fmax(out->max_pos, pos);
    out->max_ang = fmax(out->max_ang, ang);
    out->final_pos = pos;
    out->final_ang = ang;
    sp_body(s, probe, &p, v, w);
    out->probe_final = p.p[2];
    out->probe_min = fmin(out->probe_min, p.p[2]);
  }
  out->measured = 1;
  free(rod_len);
  free(c);
}
