/* hold.c -- how well a step keeps a sample's limits, motors and joints over
 * its driven run: simrun_run with the watch of sim/watch.c, as
 * `ldlsim MECH --drive MECH.drive --json` reports it. See ineq.h. */
#include <stdio.h>
#include <string.h>

#include "ineq.h"
#include "simrun.h"

void iq_hold_run(const iq_case *c, iq_variant v, iq_hold *out) {
  memset(out, 0, sizeof *out);
  rt_settings s;
  iq_case_settings(c, v, &s);
  char err[256];
  rt_status st;
  rt_world *w = rt_world_create(&c->desc, c->prog, &s, &st, err, sizeof err);
  if (!w) {
    snprintf(out->why, sizeof out->why, "%s", err);
    return;
  }
  drive_script script = c->script;
  script.next = 0;
  simrun_options o = {0};
  o.steps = c->steps;
  o.probe = simrun_default_probe(&c->m);
  o.desc = &c->desc;
  if (script.n > 0) {
    o.control = drive_apply;
    o.control_ctx = &script;
  }
  simrun_result r = {0};
  simrun_run(w, &c->m, &o, &r);
  rt_world_destroy(w);
  out->ran = 1;
  out->steps = r.steps;
  out->exploded = r.exploded;
  snprintf(out->why, sizeof out->why, "%s", r.why);
  out->limit = r.max_limit_violation;
  out->slip = r.max_motor_slip;
  if (r.worst_limit >= 0) snprintf(out->worst_limit, sizeof out->worst_limit, "%s", c->m.cons[r.worst_limit].name);
  if (r.worst_motor >= 0) snprintf(out->worst_motor, sizeof out->worst_motor, "%s", c->m.cons[r.worst_motor].name);
  out->pos = r.max_pos_error;
  out->ang = r.max_ang_error;
  out->drift = r.max_energy_drift;
  out->gain = r.max_energy_gain;
  out->energy_start = r.energy_start;
}
