/* fullstep.c -- see fullstep.h. */
#include "fullstep.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btime.h"
#include "mechworld.h"
#include "simrun.h"
#include "stepper.h"

/* Configurations: the methods of stepper.h (ours: LDL-PGS single-threaded,
 * with the factorization thread, PGS, all without post-stabilization, the
 * talk's step; ODE and MuJoCo where they model the mechanism) and, for a
 * mechanism that asks for it, LDL-PGS on two threads with
 * post-stabilization (STAB). */
enum { STEPS_PER_BATCH = 8, STAB = SP_COUNT, NCONF = SP_COUNT + 1 };
/* Simulated seconds of the hold runs. */
#define HOLD_SECONDS 10.0
/* A method slower than this per step on its warm-up is left out of the
 * timing and the hold run (ODE's dense dWorldStep on the tank's ~1000
 * rows: about half a second a step), with the time it took as the reason. */
#define SLOW_S 0.02

typedef struct conf {
  sp_stepper *s;
  rt_world *w; /* STAB */
  const mech *m;
  rt_contact *contacts; /* NULL: the mechanism has none to find */
  int cap;
} conf;

static void step(conf *c) {
  if (c->s)
    sp_step(c->s);
  else
    rt_world_step(c->w);
}

/* The contacts at the configuration's own poses, as a game finds them
 * before every step (MuJoCo finds its own in its step). */
static void find_contacts(conf *c) {
  if (!c->contacts) return;
  if (c->s) {
    if (!sp_finds_contacts(c->s)) sp_set_contacts(c->s, c->contacts, sp_contacts(c->s, c->contacts, c->cap));
  } else {
    rt_world_set_contacts(c->w, c->contacts, sp_world_contacts(c->m, c->w, c->contacts, c->cap));
  }
}

/* One batch: seconds per step, the steps alone timed (collision detection
 * is the game's, not measured). */
static double batch(conf *c) {
  double t = 0.0;
  for (int i = 0; i < STEPS_PER_BATCH; i++) {
    find_contacts(c);
    const double t0 = bt_now();
    step(c);
    t += bt_now() - t0;
  }
  return t / STEPS_PER_BATCH;
}

static rt_world *stab_world(const mech *m, const rt_program *prog, int iterations, rt_world_desc *desc) {
  rt_settings s;
  mechworld_settings(m, &s);
  s.iterations = iterations;
  s.solver = RT_SOLVER_LDLPGS;
  s.threaded = RT_THREADED_ALWAYS; /* the thread itself, not the measured choice */
  s.stabilize = 1;
  return rt_world_create(desc, prog, &s, NULL, NULL, 0);
}

int fs_measure(const mech *m, const rt_program *prog, int iterations, const ms_config *cfg, br_step *out) {
  memset(out, 0, sizeof *out);
  out->iterations = iterations;
  out->stabilized = m->settings.stabilize;
  out->hold_seconds = HOLD_SECONDS;
  arena a;
  arena_init(&a);
  rt_world_desc desc;
  mechworld_desc(&a, m, &desc);
  const int nb = cfg->batches, nr = cfg->runs;
  double *per_run[NCONF], *per_batch = malloc(sizeof(double) * (size_t)nb * NCONF);
  for (int k = 0; k < NCONF; k++) per_run[k] = malloc(sizeof(double) * (size_t)nr);
  const int cap = m->settings.max_contacts, any_contacts = m->settings.has_ground || m->settings.collide;
  rt_contact *contacts = calloc((size_t)cap + 1, sizeof *contacts);
  int have[NCONF] = {0};
  for (int k = 0; k < SP_COUNT; k++) {
    br_peer *p = &out->peer[k];
    sp_label((sp_kind)k, iterations, p->label, sizeof p->label);
  }
  int rc = 0;
  for (int run = 0; run < nr && rc == 0; run++) {
    conf c[NCONF];
    memset(c, 0, sizeof c);
    for (int k = 0; k < NCONF; k++) {
      c[k].m = m;
      c[k].contacts = any_contacts ? contacts : NULL;
      c[k].cap = cap;
      if (k == STAB) {
        if (!out->stabilized) continue;
        c[k].w = stab_world(m, prog, iterations, &desc);
        if (!c[k].w) continue;
      } else {
        br_peer *p = &out->peer[k];
        c[k].s = sp_create((sp_kind)k, m, prog, iterations, p->why, sizeof p->why);
        if (!c[k].s) continue;
        snprintf(p->unmapped, sizeof p->unmapped, "%s", sp_unmapped(c[k].s));
      }
      if (run == 0) have[k] = 1;
      if (!have[k]) { /* made in the first run only: not a fair comparison */
        if (c[k].s) sp_destroy(c[k].s);
        if (c[k].w) rt_world_destroy(c[k].w);
        c[k].s = NULL;
        c[k].w = NULL;
        continue;
      }
      const double warm = batch(&c[k]); /* warm-up: caches, the thread's first wake-up */
      if (run == 0 && k < SP_COUNT && !sp_is_ours((sp_kind)k) && warm > SLOW_S) {
        snprintf(out->peer[k].why, sizeof out->peer[k].why,
                 "%.0f ms a step on its warm-up, too slow to interleave (over %.0f ms)", warm * 1e3, SLOW_S * 1e3);
        have[k] = 0;
        sp_destroy(c[k].s);
        c[k].s = NULL;
      }
    }
    for (int k = 0; k < NCONF; k++)
      if (have[k] && !c[k].s && !c[k].w) rc = -1; /* made before, not now */
    int live[NCONF], nlive = 0;
    for (int k = 0; k < NCONF; k++)
      if (c[k].s || c[k].w) live[nlive++] = k;
    if (!c[SP_LDLPGS].s || !c[SP_PGS].s || !c[SP_LDLPGS_THREADED].s) rc = -1;
    for (int b = 0; b < nb && rc == 0; b++)
      for (int j = 0; j < nlive; j++) {
        const int k = live[(b + j) % nlive]; /* rotating order */
        per_batch[k * nb + b] = batch(&c[k]);
      }
    for (int k = 0; k < NCONF; k++) {
      if (rc == 0 && (c[k].s || c[k].w)) per_run[k][run] = bt_median(per_batch + k * nb, nb);
      if (c[k].s && run == 0) out->peer[k].rows = sp_rows(c[k].s);
      if (c[k].s) sp_destroy(c[k].s);
      if (c[k].w) rt_world_destroy(c[k].w);
    }
  }
  if (rc == 0) {
    out->ldlpgs_1thread = bt_stats(per_run[SP_LDLPGS], nr);
    out->ldlpgs_2threads = bt_stats(per_run[SP_LDLPGS_THREADED], nr);
    out->pgs = bt_stats(per_run[SP_PGS], nr);
    if (out->stabilized && have[STAB]) out->ldlpgs_stab = bt_stats(per_run[STAB], nr);
    double *ratio = malloc(sizeof *ratio * (size_t)nr);
    for (int k = 0; k < SP_COUNT; k++) {
      br_peer *p = &out->peer[k];
      if (!have[k]) continue;
      if (have[SP_ODE_QUICK]) {
        for (int run = 0; run < nr; run++) ratio[run] = per_run[k][run] / per_run[SP_ODE_QUICK][run];
        p->vs_quick = bt_stats(ratio, nr);
      }
      p->time = bt_stats(per_run[k], nr);
      p->measured = 1;
    }
    free(ratio);
    out->measured = 1;
    /* how well each holds the mechanism, from its initial state */
    const int steps = (int)lround(HOLD_SECONDS / m->settings.dt);
    for (int k = 0; k < SP_COUNT; k++) {
      if (!have[k]) continue;
      char why[200];
      sp_stepper *s = sp_create((sp_kind)k, m, prog, iterations, why, sizeof why);
      if (!s) continue;
      sp_hold_run(s, steps, &out->peer[k].hold);
      sp_destroy(s);
    }
  }
  for (int k = 0; k < NCONF; k++) free(per_run[k]);
  free(per_batch);
  free(contacts);
  arena_free(&a);
  return rc;
}
