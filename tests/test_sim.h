/* test_sim.h -- loading a mechanism (a file under SRC_DIR or a Lua string),
 * building its interpreted program and making and running worlds from it,
 * as ldlsim does; shared by the robustness tests. Static, so each test
 * program gets its own copy. (test_world.c keeps its own older copy.) */
#ifndef LDLPGS_TEST_SIM_H
#define LDLPGS_TEST_SIM_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "diag.h"
#include "load.h"
#include "mech.h"
#include "mechworld.h"
#include "program.h"
#include "rt_world.h"
#include "rtprog.h"
#include "simrun.h"

typedef struct sim {
  arena a;
  mech m;
  program prog;
  rt_program rp;
  rt_world_desc desc;
  rt_settings set;
} sim;

/* Loads SRC_DIR/rel if src is NULL, else the Lua string src (named rel),
 * and builds its program (the mechanism's shattering) in the precision
 * given, its world description and its settings. */
static inline void sim_open_precision(sim *s, const char *rel, const char *src, rt_precision precision) {
  memset(s, 0, sizeof *s);
  arena_init(&s->a);
  diag_list d;
  diag_init(&d);
  gen_status st;
  if (src) {
    st = load_mech_string(&s->a, rel, src, NULL, &s->m, &d);
  } else {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", SRC_DIR, rel);
    st = load_mech(&s->a, arena_strdup(&s->a, path), NULL, &s->m, &d);
  }
  program_options o;
  program_default_options(&o);
  if (st == GEN_OK) st = program_build(&s->a, &s->m, &o, &s->prog, &d);
  if (st != GEN_OK) {
    diag_print(&d, stderr);
    diag_free(&d);
    fail_msg("%s did not load or build", rel);
  }
  diag_free(&d);
  rtprog_build(&s->a, &s->prog, precision, &s->rp);
  mechworld_desc(&s->a, &s->m, &s->desc);
  mechworld_settings(&s->m, &s->set);
}

static inline void sim_open(sim *s, const char *rel, const char *src) {
  sim_open_precision(s, rel, src, RT_DOUBLE);
}

static inline void sim_free(sim *s) { arena_free(&s->a); }

static inline rt_world *sim_world(const sim *s, const rt_settings *set) {
  char err[256];
  rt_status st;
  rt_world *w = rt_world_create(&s->desc, &s->rp, set, &st, err, sizeof err);
  if (w == NULL) fail_msg("rt_world_create(%s): %s (%s)", s->m.name, err, rt_status_message(st));
  return w;
}

/* Runs w for `steps` steps with simrun (the ground contacts, if any). */
static inline void sim_run(const sim *s, rt_world *w, int steps, simrun_result *r) {
  simrun_options o;
  memset(&o, 0, sizeof o);
  o.steps = steps;
  o.probe = simrun_default_probe(&s->m);
  memset(r, 0, sizeof *r);
  simrun_run(w, &s->m, &o, r);
}

#endif
