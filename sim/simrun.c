/* simrun.c -- see simrun.h. */
#define _POSIX_C_SOURCE 200809L
#include "simrun.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "watch.h"

int simrun_default_probe(const mech *m) {
  if (m->settings.probe >= 0) return m->settings.probe;
  return m->nbody - 1;
}

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static double probe_z(const rt_world *w, int probe) {
  if (probe < 0) return 0.0;
  rt_pose p;
  rt_world_body_pose(w, probe, &p);
  return p.p[2];
}

static double energy(const rt_world *w) {
  double k, p;
  rt_world_energy(w, &k, &p);
  return k + p;
}

/* Largest body speed (linear), NaN if any is not finite. */
static double max_speed(const rt_world *w) {
  double s = 0.0;
  for (int i = 0; i < rt_world_body_count(w); i++) {
    double v[3], a[3];
    rt_world_body_velocity(w, i, v, a);
    const double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (!(n <= s)) s = n;
  }
  return s;
}

/* Every body's pose after `step` steps (time t): rows of options.poses. */
static void write_poses(FILE *f, const rt_world *w, const mech *m, int step, double t) {
  for (int b = 0; b < m->nbody; b++) {
    rt_pose p;
    rt_world_body_pose(w, b, &p);
    fprintf(f, "%d,%.17g,%s,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", step, t, m->bodies[b].name, p.p[0],
            p.p[1], p.p[2], p.q[0], p.q[1], p.q[2], p.q[3]);
  }
}

int simrun_feed_contacts(rt_world *w, const mech *m, rt_contact *buf, int cap) {
  const double mu = m->settings.ground_friction >= 0 ? m->settings.ground_friction : m->settings.friction;
  int n = 0;
  if (m->settings.has_ground)
    n = rt_world_ground_contacts(w, m->settings.ground_height, mu, SIMRUN_CONTACT_MARGIN, buf, cap);
  if (m->settings.collide)
    n += rt_world_body_contacts(w, SIMRUN_CONTACT_MARGIN, buf + (n < cap ? n : cap), n < cap ? cap - n : 0);
  rt_world_set_contacts(w, buf, n < cap ? n : cap);
  return n;
}

/* What the step's block solve did. */
static void count_block(const rt_world *w, simrun_result *res) {
  const rt_step_info *i = rt_world_step_info(w);
  const rt_settings *s = rt_world_settings(w);
  res->refine_steps += i->refine_steps;
  res->thread_steps += i->factor_thread;
  res->contact_passes += i->contact_passes;
  res->capped_passes += s->contact_passes > 0 && i->contact_passes >= s->contact_passes;
  res->pcr_iterations += i->pcr_iterations;
  if (i->pcr_iterations > res->pcr_max_iterations) res->pcr_max_iterations = i->pcr_iterations;
  if (!isnan(i->block_residual)) {
    if (!(i->block_residual <= res->pcr_max_residual)) res->pcr_max_residual = i->block_residual;
    res->pcr_capped += i->block_residual > s->pcr_tolerance;
  }
}

void simrun_run(rt_world *w, const mech *m, const simrun_options *o, simrun_result *res) {
  double *per_step = res->pos_error;
  memset(res, 0, sizeof *res);
  res->pos_error = per_step;
  res->why = "";
  const double dt = rt_world_settings(w)->dt;
  res->energy_start = energy(w);
  res->probe_start = res->probe_min = res->probe_max = probe_z(w, o->probe);
  if (o->csv) {
    const char *pn = o->probe >= 0 ? m->bodies[o->probe].name : "probe";
    fprintf(o->csv, "step,time,pos_error,ang_error,kinetic,potential,energy,%s_x,%s_y,%s_z\n", pn, pn, pn);
  }
  const int cap = rt_world_settings(w)->max_contacts;
  const int any = m->settings.has_ground || m->settings.collide;
  rt_contact *contacts = any ? calloc((size_t)cap + 1, sizeof *contacts) : NULL;
  double spent = 0.0, last[2] = {0.0, 0.0};
  watch wt;
  const int watching = o->desc != NULL && watch_init(&wt, o->desc, w) == 0;
  res->worst_limit = res->worst_motor = -1;
  if (o->desc && !watching) res->max_limit_violation = res->max_motor_slip = res->max_hold_slip = NAN;
  if (o->poses) {
    fputs("step,time,body,x,y,z,qw,qx,qy,qz\n", o->poses);
    write_poses(o->poses, w, m, 0, 0.0);
  }
  if (o->observe) o->observe(w, 0, 0.0, o->observe_ctx);
  for (int s = 0; s < o->steps; s++) {
    if (o->control) o->control(w, s, s * dt, o->control_ctx);
    if (contacts) {
      const int n = simrun_feed_contacts(w, m, contacts, cap);
      if (n > res->max_contacts) res->max_contacts = n;
      res->contact_overflows += n > cap;
    }
    const double t0 = now_us();
    rt_status st = rt_world_step(w);
    spent += now_us() - t0;
    if (st != RT_OK) {
      res->exploded = 1;
      res->why = rt_status_message(st);
      break;
    }
    res->steps = s + 1;
    if (o->observe) o->observe(w, s + 1, (s + 1) * dt, o->observe_ctx);
    if (o->poses) write_poses(o->poses, w, m, s + 1, (s + 1) * dt);
    if (watching) watch_step(&wt, w);
    res->factor_failures += rt_world_step_info(w)->factor_status >= 0;
    count_block(w, res);
    double pos, ang, ke, pe;
    rt_world_max_error(w, &pos, &ang);
    rt_world_energy(w, &ke, &pe);
    rt_pose pp = {{0, 0, 0}, {1, 0, 0, 0}};
    if (o->probe >= 0) rt_world_body_pose(w, o->probe, &pp);
    if (s > 0) res->probe_distance += hypot(pp.p[0] - last[0], pp.p[1] - last[1]);
    last[0] = pp.p[0];
    last[1] = pp.p[1];
    const double z = pp.p[2];
    if (per_step) per_step[s] = pos;
    if (!(pos <= res->max_pos_error)) res->max_pos_error = pos;
    if (!(ang <= res->max_ang_error)) res->max_ang_error = ang;
    res->final_pos_error = pos;
    res->final_ang_error = ang;
    res->energy_final = ke + pe;
    const double drift = fabs(ke + pe - res->energy_start);
    if (!(drift <= res->max_energy_drift)) res->max_energy_drift = drift;
    if (!(ke + pe - res->energy_start <= res->max_energy_gain)) res->max_energy_gain = ke + pe - res->energy_start;
    const double unworked = ke + pe - res->energy_start - (watching ? wt.motor_work + wt.drive_work : 0.0);
    if (!(unworked <= res->max_gain_beyond_motor_work)) res->max_gain_beyond_motor_work = unworked;
    res->probe_final = z;
    res->probe_min = fmin(res->probe_min, z);
    res->probe_max = fmax(res->probe_max, z);
    if (o->csv)
      fprintf(o->csv, "%d,%.6f,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g\n", s + 1, (s + 1) * dt, pos, ang, ke, pe,
              ke + pe, pp.p[0], pp.p[1], z);
    if (!(max_speed(w) <= SIMRUN_MAX_SPEED)) {
      res->exploded = 1;
      res->why = "a body moves faster than 100 m/s";
      break;
    }
  }
  res->us_per_step = res->steps ? spent / res->steps : 0.0;
  if (watching) {
    res->max_limit_violation = wt.max_limit_violation;
    res->max_motor_slip = wt.max_motor_slip;
    res->max_hold_slip = wt.max_hold_slip;
    res->worst_limit = wt.worst_limit;
    res->worst_motor = wt.worst_motor;
    res->motor_work = wt.motor_work;
    res->drive_work = wt.drive_work;
    watch_free(&wt);
  }
  free(contacts);
}
