/* driven.c -- a world of an inequality-bench sample stepped as ldlsim
 * steps it (sim/simrun.c): the drive script, then the contacts, then the
 * step, which alone is timed or counted. */
#include <stdio.h>
#include <stdlib.h>

#include "ineq.h"
#include "simrun.h"

int iq_driven_open(iq_driven *d, const iq_case *c, iq_variant v) {
  rt_settings s;
  iq_case_settings(c, v, &s);
  char err[256];
  rt_status st;
  d->c = c;
  d->step = 0;
  d->script = c->script;
  d->script.next = 0;
  d->cap = s.max_contacts;
  d->contacts = calloc((size_t)d->cap + 1, sizeof *d->contacts);
  d->w = d->contacts ? rt_world_create(&c->desc, c->prog, &s, &st, err, sizeof err) : NULL;
  if (!d->w) {
    fprintf(stderr, "inequality: %s: %s\n", c->path, d->contacts ? err : "out of memory");
    free(d->contacts);
    d->contacts = NULL;
    return -1;
  }
  return 0;
}

void iq_driven_close(iq_driven *d) {
  if (d->w) rt_world_destroy(d->w);
  free(d->contacts);
  d->w = NULL;
  d->contacts = NULL;
}

void iq_driven_prepare(iq_driven *d) {
  const mech *m = &d->c->m;
  if (d->script.n > 0) drive_apply(d->w, d->step, d->step * IQ_DT, &d->script);
  if (m->settings.has_ground || m->settings.collide) simrun_feed_contacts(d->w, m, d->contacts, d->cap);
}

rt_status iq_driven_step(iq_driven *d) {
  const rt_status st = rt_world_step(d->w);
  if (st == RT_OK) d->step++;
  return st;
}
