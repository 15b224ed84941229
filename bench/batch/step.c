/* step.c -- the whole step of make bench-batch (batch.h): N worlds stepped
 * by one rt_batch_step against the same N worlds stepped one by one with
 * rt_world_step, in lockstep in one process.
 *
 * Three sides hold the same N copies: the batch (worlds of the batch
 * file's own scalar program, stepped by rt_batch_step), the singles (worlds
 * of the separate scalar program, rt_world_step) and the staged singles
 * (the same, stepped through the split entry points rt_world_step_begin,
 * _factor, _iterate, _end with a clock read between them: the share of
 * each stage, without disturbing the singles' own timing). Every side gets
 * the same input before every step -- copy j runs its mechanism's drive
 * script (mechanisms/MECH.drive, if any) from the phase of its scenario
 * (scenario()) and gets that scenario's small push at the start; the
 * vehicles get their ground (and wheel) contacts found at their own
 * poses -- so by rt_batch.h's contract the sides stay bitwise equal, and
 * every step checks that they do. Only the step calls are timed; the order
 * of the three sides rotates from step to step, so that none always runs
 * in the caches another left. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <valgrind/callgrind.h>

#include "arena.h"
#include "batch.h"
#include "btime.h"
#include "diag.h"
#include "drive.h"
#include "load.h"
#include "numeric.h"
#include "program.h"
#include "simrun.h"

enum { MAXN = 16 };

/* Copy j plays scenario j mod SCENARIOS: its script clock starts at
 * SCRIPT_T0 + SCRIPT_PHASE times that (s), so every copy is driven from
 * its first step (the samples' scripts start their motors within the first
 * 2 s), each scenario in another phase of the script, and its push (side_make)
 * is that scenario's. A 16-lane batch plays each twice, so a copy-step is
 * the same work at every N and the goals' ratios between batches of 8 and
 * 16 compare like with like. With a scenario of its own per copy, copies
 * 8-15 took later phases and larger pushes: the sample buggy's scalar
 * steps took 178k instructions a copy-step over all 16, 130k over the
 * first eight (callgrind). */
enum { SCENARIOS = 8 };
static const double SCRIPT_T0 = 2.0, SCRIPT_PHASE = 0.25;
static int scenario(int j) { return j % SCENARIOS; }

/* The mechanism as the bench drives it: loaded from its file for the
 * drive script's joint names and the contact settings. */
typedef struct scene {
  const bb_entry *e;
  int N;
  arena a;
  mech m;
  int scripted;
  drive_script script;
  rt_settings set;
  rt_contact *buf; /* set.max_contacts + 1 */
} scene;

/* N copies: their worlds, script states and (batch side) the batch. */
typedef struct side {
  rt_world *w[MAXN];
  drive_script s[MAXN];
  rt_batch *b;
  rt_status st[MAXN];
} side;

static const char *precision_of(const bb_entry *e) { return e->scalar->precision == RT_FLOAT ? "float" : "double"; }

static void die(const scene *sc, const char *what) {
  fprintf(stderr, "batch: %s %s x%d: %s\n", sc->e->mech, precision_of(sc->e), sc->N, what);
  exit(1);
}

static void scene_load(scene *sc, const bb_entry *e) {
  memset(sc, 0, sizeof *sc);
  sc->e = e;
  sc->N = e->lanes;
  if (sc->N > MAXN) die(sc, "too many lanes");
  arena_init(&sc->a);
  diag_list d;
  diag_init(&d);
  char path[256];
  snprintf(path, sizeof path, "mechanisms/%s.lua", e->mech);
  gen_status st = load_mech(&sc->a, path, NULL, &sc->m, &d);
  snprintf(path, sizeof path, "mechanisms/%s.drive", e->mech);
  FILE *f = st == GEN_OK ? fopen(path, "r") : NULL;
  if (f) {
    fclose(f);
    st = drive_load(&sc->a, path, &sc->m, &sc->script, &d);
    sc->scripted = st == GEN_OK;
  }
  if (st != GEN_OK) {
    diag_print(&d, stderr);
    die(sc, "cannot load the mechanism or its drive script (run from the repository's root)");
  }
  diag_free(&d);
  sc->set = *e->settings;
  sc->set.threaded = 0;
  sc->buf = calloc((size_t)sc->set.max_contacts + 1, sizeof *sc->buf);
  if (!sc->buf) abort();
}

static void scene_free(scene *sc) {
  free(sc->buf);
  arena_free(&sc->a);
}

/* N worlds of program p, copy j pushed a little at its start (its last
 * body: the test_rt_batch push); batch: stepped by e->batch. */
static void side_make(side *sd, const scene *sc, const rt_program *p, int batch) {
  memset(sd, 0, sizeof *sd);
  for (int j = 0; j < sc->N; j++) {
    char err[256];
    sd->w[j] = rt_world_create(sc->e->desc, p, &sc->set, NULL, err, sizeof err);
    if (!sd->w[j]) die(sc, err);
    const int s = scenario(j);
    const double v[3] = {0.05 * s, -0.03 * s, 0.02 * (s % 3)};
    rt_world_set_body_state(sd->w[j], rt_world_body_count(sd->w[j]) - 1, NULL, v, NULL);
    sd->s[j] = sc->script;
  }
  if (batch) {
    rt_status st;
    sd->b = rt_batch_create(sc->e->batch, sd->w, sc->N, &st);
    if (!sd->b) die(sc, rt_status_message(st));
    rt_batch_set_stepping(sd->b, RT_BATCH_STEP_LANES); /* what the bench measures, unless told */
  }
}

/* The batch side as o asks: its lane budget and stepping, and the copies
 * from live on left out. */
static void batch_make(side *sd, const scene *sc, const bb_step_opts *o, int live) {
  side_make(sd, sc, sc->e->batch->program, 1);
  if (o->lane_budget > 0) rt_batch_set_lane_budget(sd->b, o->lane_budget);
  rt_batch_set_stepping(sd->b, o->stepping);
  for (int j = live; j < sc->N; j++) rt_batch_set_active(sd->b, j, 0);
}

static void side_free(side *sd, int n) {
  rt_batch_destroy(sd->b);
  for (int j = 0; j < n; j++) rt_world_destroy(sd->w[j]);
}

/* The input of step k, the same on every side; returns the contacts set
 * on copies [0, live). */
static long side_input(scene *sc, side *sd, int k, int live) {
  long n = 0;
  for (int j = 0; j < sc->N; j++) {
    if (sc->scripted) drive_apply(sd->w[j], k, SCRIPT_T0 + SCRIPT_PHASE * scenario(j) + k * sc->set.dt, &sd->s[j]);
    if (sc->m.settings.has_ground || sc->m.settings.collide) {
      const int c = simrun_feed_contacts(sd->w[j], &sc->m, sc->buf, sc->set.max_contacts);
      if (j < live) n += c < sc->set.max_contacts ? c : sc->set.max_contacts;
    }
  }
  return n;
}

static void step_singles(side *sd, int n) {
  for (int j = 0; j < n; j++) sd->st[j] = rt_world_step(sd->w[j]);
}

/* The singles' step through the split entry points, each stage's time
 * added to stage[] (rt_world_step without a thread is exactly these four). */
static void step_staged(side *sd, int n, double stage[BB_STAGES]) {
  for (int j = 0; j < n; j++) {
    rt_world *w = sd->w[j];
    double t[BB_STAGES + 1];
    t[0] = bt_now();
    sd->st[j] = rt_world_step_begin(w);
    t[1] = bt_now();
    if (sd->st[j] != RT_OK) {
      stage[BB_BEGIN] += t[1] - t[0];
      continue;
    }
    rt_world_factor(w);
    t[2] = bt_now();
    rt_world_iterate(w);
    t[3] = bt_now();
    sd->st[j] = rt_world_step_end(w);
    t[4] = bt_now();
    for (int s = 0; s < BB_STAGES; s++) stage[s] += t[s + 1] - t[s];
  }
}

/* Side a against side b after step k: every copy's status, poses and
 * velocities the same bits, or the process fails. */
static void same(const scene *sc, const side *a, const side *b, const char *what, int k) {
  for (int j = 0; j < sc->N; j++) {
    const char *diff = a->st[j] != b->st[j] ? "step status" : NULL;
    for (int i = 0; !diff && i < rt_world_body_count(a->w[j]); i++) {
      rt_pose p, q;
      double v[6], u[6];
      rt_world_body_pose(a->w[j], i, &p);
      rt_world_body_pose(b->w[j], i, &q);
      rt_world_body_velocity(a->w[j], i, v, v + 3);
      rt_world_body_velocity(b->w[j], i, u, u + 3);
      if (memcmp(&p, &q, sizeof p) != 0) diff = "pose of a body";
      else if (memcmp(v, u, sizeof v) != 0) diff = "velocity of a body";
    }
    if (diff) {
      char msg[256];
      snprintf(msg, sizeof msg, "step %d, copy %d: the %s differs between %s (bitwise equal by rt_batch.h's contract)",
               k + 1, j, diff, what);
      die(sc, msg);
    }
  }
}

static bb_stat stat_of(double *v, int n) {
  bt_stat s = bt_stats(v, n);
  return (bb_stat){s.med, s.lo, s.hi};
}

void bb_step_measure(const bb_entry *e, const bb_step_opts *o, bb_step_row *out) {
  scene sc;
  scene_load(&sc, e);
  const int N = sc.N, live = N - o->left_out; /* the copies stepped */
  if (live < 1) die(&sc, "--left-out leaves no copy to step");
  memset(out, 0, sizeof *out);
  out->e = e;
  out->precision = precision_of(e);
  double *tb = calloc((size_t)o->steps, sizeof *tb), *ts = calloc((size_t)o->steps, sizeof *ts);
  double *rb = calloc((size_t)o->runs, sizeof *rb), *rs = calloc((size_t)o->runs, sizeof *rs);
  double *ratio = calloc((size_t)o->runs, sizeof *ratio), stage[BB_STAGES] = {0};
  if (!tb || !ts || !rb || !rs || !ratio) abort();
  long contacts = 0, in_lanes = 0;
  for (int r = 0; r < o->runs; r++) {
    side B, S, P;
    batch_make(&B, &sc, o, live);
    side_make(&S, &sc, e->scalar, 0);
    side_make(&P, &sc, e->scalar, 0);
    double unused[BB_STAGES] = {0};
    for (int k = 0; k < o->warm + o->steps; k++) {
      const int timed = k >= o->warm;
      side_input(&sc, &B, k, live);
      const long c = side_input(&sc, &S, k, live);
      side_input(&sc, &P, k, live);
      if (timed) contacts += c;
      for (int turn = 0; turn < 3; turn++) switch ((turn + k) % 3) {
        case 0: {
          const double t0 = bt_now();
          rt_batch_step(B.b, B.st);
          if (timed) tb[k - o->warm] = bt_now() - t0;
          if (timed) in_lanes += rt_batch_lanes_used(B.b);
          break;
        }
        case 1: {
          const double t0 = bt_now();
          step_singles(&S, live);
          if (timed) ts[k - o->warm] = bt_now() - t0;
          break;
        }
        default:
          step_staged(&P, live, timed ? stage : unused);
      }
      same(&sc, &B, &S, "rt_batch_step and rt_world_step", k);
      same(&sc, &P, &S, "the split entry points and rt_world_step", k);
      out->checked += 2 * N;
    }
    rb[r] = bt_median(tb, o->steps);
    rs[r] = bt_median(ts, o->steps);
    ratio[r] = rs[r] / rb[r];
    side_free(&B, N);
    side_free(&S, N);
    side_free(&P, N);
  }
  out->t_batch = stat_of(rb, o->runs);
  out->t_scalar = stat_of(rs, o->runs);
  out->speedup = stat_of(ratio, o->runs);
  out->cps_batch = live / out->t_batch.med;
  out->cps_scalar = live / out->t_scalar.med;
  const double copy_steps = (double)live * o->steps * o->runs;
  for (int s = 0; s < BB_STAGES; s++) out->stage[s] = stage[s] / copy_steps;
  /* begin (forces, rows, warm start) runs copy by copy in rt_batch_step
   * as in rt_world_step: what it costs there bounds what the batch saves */
  const double begin = live * out->stage[BB_BEGIN];
  out->copywise = begin / out->t_batch.med;
  out->bound = out->t_scalar.med / begin;
  out->after_s = out->t_batch.med - begin;
  out->after_scalar_s = live * (out->stage[BB_FACTOR] + out->stage[BB_ITERATE] + out->stage[BB_END]);
  out->contacts = contacts / copy_steps;
  out->lanes_used = (double)in_lanes / ((double)o->runs * o->steps);
  free(tb);
  free(ts);
  free(rb);
  free(rs);
  free(ratio);
  scene_free(&sc);
}

bb_stat bb_step_pair(const bb_entry *d, const bb_entry *f, const bb_step_opts *o) {
  scene sc[2];
  scene_load(&sc[0], d);
  scene_load(&sc[1], f);
  int live[2];
  for (int s = 0; s < 2; s++) {
    live[s] = sc[s].N - o->left_out;
    if (live[s] < 1) die(&sc[s], "--left-out leaves no copy to step");
  }
  double *t[2], *ratio = calloc((size_t)o->runs, sizeof *ratio);
  for (int s = 0; s < 2; s++) t[s] = calloc((size_t)o->steps, sizeof *t[s]);
  if (!t[0] || !t[1] || !ratio) abort();
  for (int r = 0; r < o->runs; r++) {
    side B[2];
    for (int s = 0; s < 2; s++) batch_make(&B[s], &sc[s], o, live[s]);
    for (int k = 0; k < o->warm + o->steps; k++)
      for (int turn = 0; turn < 2; turn++) {
        const int s = (turn + k) % 2;
        side_input(&sc[s], &B[s], k, live[s]);
        const double t0 = bt_now();
        rt_batch_step(B[s].b, B[s].st);
        if (k >= o->warm) t[s][k - o->warm] = bt_now() - t0;
      }
    /* copy-steps a second: the float batch's over the double batch's */
    ratio[r] = (live[1] / bt_median(t[1], o->steps)) / (live[0] / bt_median(t[0], o->steps));
    for (int s = 0; s < 2; s++) side_free(&B[s], sc[s].N);
  }
  const bb_stat out = stat_of(ratio, o->runs);
  for (int s = 0; s < 2; s++) {
    free(t[s]);
    scene_free(&sc[s]);
  }
  free(ratio);
  return out;
}

void bb_step_factor_inputs(const bb_entry *e, int warm, void *const in[]) {
  scene sc;
  scene_load(&sc, e);
  side sd;
  side_make(&sd, &sc, e->scalar, 0);
  for (int k = 0; k < warm; k++) {
    side_input(&sc, &sd, k, sc.N);
    step_singles(&sd, sc.N);
  }
  program p;
  program_options o;
  program_default_options(&o);
  diag_list d;
  diag_init(&d);
  if (program_build(&sc.a, &sc.m, &o, &p, &d) != GEN_OK) {
    diag_print(&d, stderr);
    die(&sc, "cannot build the mechanism's program");
  }
  diag_free(&d);
  if (p.hash != e->scalar->structure_hash || p.m->nbody != e->desc->nbody)
    die(&sc, "the mechanism file is not the one the program was generated from (structure hash)");
  for (int i = 0; i < p.m->nbody; i++)
    if (p.m->bodies[i].fixed != e->desc->bodies[i].fixed ||
        (!p.m->bodies[i].fixed && p.m->bodies[i].mass != e->desc->bodies[i].mass))
      die(&sc, "the mechanism's bodies are not the program's, in order");
  numeric nm;
  numeric_alloc(&sc.a, &p, &nm);
  rt_pose *pose = calloc((size_t)p.m->nbody, sizeof *pose);
  if (!pose) abort();
  for (int j = 0; j < sc.N; j++) {
    if (sd.st[j] != RT_OK) die(&sc, "a copy's step failed while it moved to its pose");
    for (int i = 0; i < p.m->nbody; i++) rt_world_body_pose(sd.w[j], i, &pose[i]);
    numeric_eval(&p, pose, &nm);
    rt_assemble(e->scalar, nm.J, nm.inv_mass, nm.inv_inertia, sc.set.epsilon, in[j]);
  }
  free(pose);
  side_free(&sd, sc.N);
  scene_free(&sc);
}

int bb_step_cg_child(const bb_entry *e, int side_k, int warm, int steps) {
  scene sc;
  scene_load(&sc, e);
  side sd;
  side_make(&sd, &sc, side_k ? e->batch->program : e->scalar, side_k);
  for (int k = 0; k < warm + steps; k++) {
    side_input(&sc, &sd, k, sc.N);
    if (k >= warm) CALLGRIND_TOGGLE_COLLECT;
    if (side_k)
      rt_batch_step(sd.b, sd.st);
    else
      step_singles(&sd, sc.N);
    if (k >= warm) CALLGRIND_TOGGLE_COLLECT;
  }
  for (int j = 0; j < sc.N; j++)
    if (sd.st[j] != RT_OK) die(&sc, "a step failed under callgrind");
  printf("ok %d copy-steps\n", sc.N * steps);
  side_free(&sd, sc.N);
  scene_free(&sc);
  return 0;
}
