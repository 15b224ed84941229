/* soak.c -- holds at rest for an hour (issue 15, part 4): every mechanism
 * given stands still for a long run, in a float and in a double program,
 * and must neither gain energy nor topple.
 *
 *   soak [--steps N] [--settle N] [--precision float|double|both] MECH.lua...
 *
 * Each mechanism runs with its own settings (dt, iterations, ground,
 * contacts, drives: the scissor lift raises its platform to the end of its
 * stroke) for --settle steps (default 600, 10 s at 60 Hz), which is where
 * its rest is taken: the energy E_ref and every body's pose. Then it runs
 * on to --steps in all (default 216,000: an hour at 60 Hz) and passes if
 *   - no step failed and nothing exploded (simrun's test: a speed above
 *     100 m/s or a state that is not finite);
 *   - the energy never exceeded E_ref by 0.1 % of |E_ref|;
 *   - the probe body (settings.probe: the platform, the hull...) rose or
 *     sank by less than 1 cm and tilted by less than 0.01 rad from its rest
 *     (no toppling);
 *   - the probe never wandered along the ground by 5 cm or more from where
 *     it rested. A vehicle on wheels that roll freely (multi_wheel: no
 *     brakes) stands in neutral equilibrium along the ground: it may creep,
 *     and where it ends (crept) and the length of its path are printed, but
 *     it must not roll away (the scissor lift rolled to and fro by 0.8 m
 *     between 27a7d89 and stop 68, which this soak passed then).
 * A mechanism held by nothing (no fixed body, no joint to the world, no
 * ground: the track) would fall for an hour; it soaks without gravity,
 * which is its rest. Prints one line per run; exit status 0 if all pass,
 * 1 if one fails or a file does not load, 2 on bad usage. `make soak` runs
 * it on every sample; `make test` runs a short version. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "diag.h"
#include "load.h"
#include "mechworld.h"
#include "program.h"
#include "rtprog.h"
#include "simrun.h"

#define SOAK_MAX_GAIN 1e-3   /* of |E_ref| */
#define SOAK_MAX_RISE 0.01   /* m, the probe body, up or down */
#define SOAK_MAX_TILT 0.01   /* rad, the probe body */
#define SOAK_MAX_WANDER 0.05 /* m, the probe body along the ground */

static int held(const mech *m) {
  if (m->settings.has_ground) return 1;
  for (int i = 0; i < m->nbody; i++)
    if (m->bodies[i].fixed) return 1;
  for (int c = 0; c < m->ncons; c++)
    if (m->cons[c].a == MECH_WORLD || m->cons[c].b == MECH_WORLD) return 1;
  return 0;
}

/* The angle between the vertical (world z) carried by two rotations: how
 * far a body tilted from a to b, whatever it turned about z. */
static double tilt(const double a[4], const double b[4]) {
  /* the third row of R(q): R^T z */
  const double za[3] = {2 * (a[1] * a[3] - a[0] * a[2]), 2 * (a[2] * a[3] + a[0] * a[1]),
                        1 - 2 * (a[1] * a[1] + a[2] * a[2])};
  const double zb[3] = {2 * (b[1] * b[3] - b[0] * b[2]), 2 * (b[2] * b[3] + b[0] * b[1]),
                        1 - 2 * (b[1] * b[1] + b[2] * b[2])};
  const double d = za[0] * zb[0] + za[1] * zb[1] + za[2] * zb[2];
  return acos(fmax(-1.0, fmin(1.0, d)));
}

/* The observer of the soak after its rest: the probe's largest distance
 * along the ground from where it rested. */
typedef struct wander {
  int probe;
  double rest[2], most;
} wander;

static void observe_wander(const rt_world *w, int steps, double time, void *ctx) {
  (void)steps;
  (void)time;
  wander *wd = ctx;
  rt_pose p;
  rt_world_body_pose(w, wd->probe, &p);
  wd->most = fmax(wd->most, hypot(p.p[0] - wd->rest[0], p.p[1] - wd->rest[1]));
}

/* One soak; returns 1 if it passed. */
static int soak(const char *path, rt_precision precision, int settle, int steps) {
  const char *pname = precision == RT_FLOAT ? "float" : "double";
  arena a;
  arena_init(&a);
  diag_list d;
  diag_init(&d);
  mech m;
  program prog;
  program_options po;
  program_default_options(&po);
  int ok = 0;
  if (load_mech(&a, path, NULL, &m, &d) != GEN_OK || program_build(&a, &m, &po, &prog, &d) != GEN_OK) {
    diag_print(&d, stderr);
    goto done;
  }
  rt_program rp;
  rtprog_build(&a, &prog, precision, &rp);
  rt_world_desc desc;
  mechworld_desc(&a, &m, &desc);
  rt_settings set;
  mechworld_settings(&m, &set);
  const int free_floating = !held(&m);
  if (free_floating) memset(set.gravity, 0, sizeof set.gravity);
  char err[256];
  rt_world *w = rt_world_create(&desc, &rp, &set, NULL, err, sizeof err);
  if (w == NULL) {
    fprintf(stderr, "%s: %s\n", path, err);
    goto done;
  }
  simrun_options so;
  memset(&so, 0, sizeof so);
  so.probe = simrun_default_probe(&m);
  so.steps = settle;
  simrun_result r;
  memset(&r, 0, sizeof r);
  simrun_run(w, &m, &so, &r);
  rt_pose *rest = ARENA_ARRAY(&a, rt_pose, m.nbody + 1);
  for (int i = 0; i < m.nbody; i++) rt_world_body_pose(w, i, &rest[i]);
  int exploded = r.exploded;
  double gain = 0, e_ref = 0;
  wander wd = {so.probe, {rest[so.probe].p[0], rest[so.probe].p[1]}, 0.0};
  if (!exploded) {
    so.steps = steps - settle;
    so.observe = observe_wander;
    so.observe_ctx = &wd;
    memset(&r, 0, sizeof r);
    simrun_run(w, &m, &so, &r);
    exploded = r.exploded;
    e_ref = r.energy_start;
    gain = r.max_energy_gain / fmax(fabs(e_ref), 1e-12);
  }
  rt_pose p;
  rt_world_body_pose(w, so.probe, &p);
  const rt_pose *q = &rest[so.probe];
  const double rise = fabs(p.p[2] - q->p[2]), creep = hypot(p.p[0] - q->p[0], p.p[1] - q->p[1]);
  const double tilted = tilt(p.q, q->q);
  rt_world_destroy(w);
  ok = !exploded && gain < SOAK_MAX_GAIN && rise < SOAK_MAX_RISE && tilted < SOAK_MAX_TILT && wd.most < SOAK_MAX_WANDER;
  printf("%-20s %-6s %7d steps%s: E_ref %12.6g J, largest gain %9.3g of |E_ref|; %s rose %8.3g m, tilted %8.3g "
         "rad, wandered %8.3g m (crept %8.3g m, path %8.3g m)%s%s  %s\n",
         m.name, pname, exploded ? settle + r.steps : steps, free_floating ? " (no gravity)" : "", e_ref, gain,
         m.bodies[so.probe].name, rise, tilted, wd.most, creep, r.probe_distance, exploded ? ", EXPLODED: " : "",
         exploded ? r.why : "", ok ? "ok" : "FAIL");
  fflush(stdout);
done:
  diag_free(&d);
  arena_free(&a);
  return ok;
}

static int number(const char *s, int *out) {
  char *end;
  const long v = strtol(s, &end, 10);
  if (*s == '\0' || *end != '\0' || v < 1 || v > 100000000) return 0;
  *out = (int)v;
  return 1;
}

int main(int argc, char **argv) {
  int steps = 216000, settle = 600, nmech = 0, prec = 3; /* 1 float, 2 double */
  const char **mechs = calloc((size_t)argc, sizeof *mechs);
  if (mechs == NULL) return 1;
  for (int i = 1; i < argc; i++) {
    const char *val = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(argv[i], "--steps") == 0 && val && number(val, &steps))
      i++;
    else if (strcmp(argv[i], "--settle") == 0 && val && number(val, &settle))
      i++;
    else if (strcmp(argv[i], "--precision") == 0 && val &&
             (strcmp(val, "float") == 0 || strcmp(val, "double") == 0 || strcmp(val, "both") == 0)) {
      prec = strcmp(val, "float") == 0 ? 1 : strcmp(val, "double") == 0 ? 2 : 3;
      i++;
    } else if (argv[i][0] != '-') {
      mechs[nmech++] = argv[i];
    } else {
      fprintf(stderr, "usage: soak [--steps N] [--settle N] [--precision float|double|both] MECH.lua...\n");
      free(mechs);
      return 2;
    }
  }
  if (nmech == 0 || settle >= steps) {
    fprintf(stderr, "usage: soak [--steps N] [--settle N < steps] [--precision float|double|both] MECH.lua...\n");
    free(mechs);
    return 2;
  }
  int failed = 0;
  for (int k = 0; k < nmech; k++)
    for (int p = 0; p < 2; p++)
      if (prec & (1 << p)) failed += !soak(mechs[k], p == 0 ? RT_FLOAT : RT_DOUBLE, settle, steps);
  printf("%s: %d of %d runs failed\n", failed ? "soak FAILED" : "soak passed", failed,
         nmech * ((prec & 1) + (prec >> 1)));
  free(mechs);
  return failed ? 1 : 0;
}
