/* demo.c -- `make demo`: the generated solvers (generated/NAME.c, compiled in)
 * on five scenes, each with LDL-PGS and with pure PGS at the same iteration
 * count: the scissor lift raising its 800 kg platform until its drive
 * reaches the end of its stroke, the buggy driving and steering on the
 * ground (mechanisms/buggy.drive), and the samples of limits, motors and
 * springs: the car on its sprung struts over a bump (car.drive), the
 * excavator holding and lifting a 250:1 load on speed-0 motors
 * (excavator.drive) and the Stewart platform driven into its legs' stroke
 * limits (stewart.drive). Then the convoy (convoy.h): 8 tanks with 8
 * drive scripts in one rt_batch of 8 lanes, against the same tanks stepped
 * one by one.
 *
 *   demo [--src DIR] [--out DIR] [--iterations N] [--seconds S] [--convoy-seconds S]
 *
 * Prints a side-by-side table per scene and writes DIR/NAME_error.svg (the
 * largest constraint error of every step, both solvers), the per-step CSV
 * of each run; for the convoy its table, DIR/convoy_paths.svg and
 * DIR/convoy_tankK.csv; then DIR/viewer.html: the browser viewer
 * (sim/viewer.h) playing each scene's LDL-PGS and PGS runs side by side,
 * and as its last scene the convoy's 8 tanks, 4 x 2. Mechanism files come
 * from DIR/mechanisms (--src, default .); each generated program must
 * match its mechanism (the runtime checks its structure hash). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "arena.h"
#include "diag.h"
#include "load.h"
#include "mechworld.h"
#include "outfile.h"
#include "buggy.h"
#include "car.h"
#include "convoy.h"
#include "drive.h"
#include "excavator.h"
#include "scissor_lift.h"
#include "stewart.h"
#include "gltf.h"
#include "simrun.h"
#include "svgplot.h"
#include "viewer.h"

typedef struct run {
  const char *label;
  rt_solver solver;
  int threaded;
  const char *color;
  const char *csv;
  simrun_result res;
  gltf_recording *rec;  /* for the viewer, or NULL */
} run;

static int usage(void) {
  fputs("usage: demo [--src DIR] [--out DIR] [--iterations N] [--seconds S] [--convoy-seconds S]\n", stderr);
  return 2;
}

static char *path_in(arena *a, const char *dir, const char *name) {
  size_t n = strlen(dir) + strlen(name) + 2;
  char *p = arena_alloc(a, n);
  snprintf(p, n, "%s/%s", dir, name);
  return p;
}

/* One run of the lift from its initial state. */
typedef struct scene {
  const char *name;
  const rt_program *program;
  const char *drive;   /* drive script in mechanisms/, or NULL */
  const char *measure; /* what the probe's column shows */
} scene;

static gen_status simulate(const scene *sc, const mech *m, const rt_world_desc *desc, const rt_settings *base,
                           const drive_script *script, run *r, int steps, const char *dir, arena *a, diag_list *d) {
  rt_settings s = *base;
  s.solver = r->solver;
  s.threaded = r->threaded;
  char err[256];
  rt_world *w = rt_world_create(desc, sc->program, &s, NULL, err, sizeof err);
  if (w == NULL) {
    diag_error(d, m->file, 0, "%s", err);
    return GEN_ERR_INPUT;
  }
  outfile csv;
  memset(&csv, 0, sizeof csv);
  char name[128];
  snprintf(name, sizeof name, "%s_%s.csv", sc->name, r->csv);
  gen_status st = outfile_open(&csv, path_in(a, dir, name), d);
  drive_script run_script;
  if (script) run_script = *script; /* each run from the script's start */
  if (st == GEN_OK) {
    simrun_options o = {0};
    o.steps = steps;
    o.probe = simrun_default_probe(m);
    o.csv = csv.f;
    if (script) {
      o.control = drive_apply;
      o.control_ctx = &run_script;
    }
    r->res.pos_error = ARENA_ARRAY(a, double, steps);
    if (r->rec) {
      if (gltf_record_init(r->rec, m, s.dt, gltf_default_every(s.dt), steps) != 0) {
        diag_error(d, m->file, 0, "out of memory for the recording");
        st = GEN_ERR_IO;
      }
      o.observe = gltf_record_observe;
      o.observe_ctx = r->rec;
    }
    if (st == GEN_OK) {
      simrun_run(w, m, &o, &r->res);
      if (r->rec) gltf_record_finish(r->rec, w, r->res.steps);
      st = outfile_commit(&csv, d);
    }
  }
  outfile_abort(&csv);
  rt_world_destroy(w);
  return st;
}

static void print_table(const scene *sc, const mech *m, const run *runs, int n, int iterations) {
  printf("\n%s, %d iterations per step, dt 1/60 s, generated program (%s, dim %d)%s%s\n\n", sc->name, iterations,
         sc->program->precision == RT_FLOAT ? "float" : "double", sc->program->dim, sc->drive ? ", driven by " : "",
         sc->drive ? sc->drive : "");
  char probe[64];
  snprintf(probe, sizeof probe, "%s %s", m->bodies[simrun_default_probe(m)].name, sc->measure);
  printf("%-20s %10s %12s %12s %18s %12s %9s\n", "solver", "steps", "max error", "final error", probe, "max |dE|",
         "us/step");
  for (int i = 0; i < n; i++) {
    const simrun_result *r = &runs[i].res;
    char z[48];
    if (strcmp(sc->measure, "z") == 0)
      snprintf(z, sizeof z, "%.2f -> %.2f m", r->probe_start, r->probe_final);
    else
      snprintf(z, sizeof z, "%.2f m", r->probe_distance);
    printf("%-20s %6d%-4s %10.3g m %10.3g m %18s %10.3g J %9.1f\n", runs[i].label, r->steps,
           r->exploded ? " (!)" : "", r->max_pos_error, r->final_pos_error, z, r->max_energy_drift, r->us_per_step);
  }
  for (int i = 0; i < n; i++)
    if (runs[i].res.exploded)
      printf("(!) %s exploded after %.2f s: %s\n", runs[i].label, runs[i].res.steps / 60.0, runs[i].res.why);
}

/* The three runs of one scene, its table and its plot; *view gets the
 * LDL-PGS and PGS runs for the viewer, whose recordings *recs are the
 * caller's to free (gltf_record_free, 2 of them). */
static gen_status play(const scene *sc, const char *src, const char *dir, int iterations, double seconds, arena *a,
                       diag_list *d, viewer_scene *view, gltf_recording **recs_out) {
  char path[512];
  snprintf(path, sizeof path, "%s/mechanisms/%s.lua", src, sc->name);
  mech *m = ARENA_ARRAY(a, mech, 1); /* the recordings keep it */
  gen_status st = load_mech(a, path, NULL, m, d);
  if (st != GEN_OK) return st;
  drive_script script;
  if (sc->drive) {
    snprintf(path, sizeof path, "%s/mechanisms/%s", src, sc->drive);
    if ((st = drive_load(a, path, m, &script, d)) != GEN_OK) return st;
  }
  gltf_recording *recs = ARENA_ARRAY(a, gltf_recording, 2);
  *recs_out = recs;
  run runs[] = {
      {"PGS", RT_SOLVER_PGS, 0, "#d62728", "pgs", {0}, &recs[1]},
      {"LDL-PGS", RT_SOLVER_LDLPGS, 0, "#1f77b4", "ldlpgs", {0}, &recs[0]},
      {"LDL-PGS, 2 threads", RT_SOLVER_LDLPGS, RT_THREADED_ALWAYS, "#2ca02c", "ldlpgs_threads", {0}, NULL},
  };
  const int nrun = (int)(sizeof runs / sizeof runs[0]);
  rt_world_desc desc;
  mechworld_desc(a, m, &desc);
  rt_settings s;
  mechworld_settings(m, &s);
  s.iterations = iterations;
  const int steps = (int)ceil(seconds / s.dt - 1e-9);
  viewer_run *vr = ARENA_ARRAY(a, viewer_run, 2);
  char *caption = arena_alloc(a, 160);
  snprintf(caption, 160, "%d iterations per step, dt 1/60 s, generated program%s%s", iterations,
           sc->drive ? ", driven by " : "", sc->drive ? sc->drive : "");
  *view = (viewer_scene){m->name, caption, vr, 2, 0};
  for (int i = 0; i < nrun && st == GEN_OK; i++)
    st = simulate(sc, m, &desc, &s, sc->drive ? &script : NULL, &runs[i], steps, dir, a, d);
  for (int k = 0; k < 2; k++) { /* LDL-PGS left, PGS right */
    const run *r = &runs[1 - k];
    vr[k] = (viewer_run){r->label, r->rec, r->res.steps, r->res.exploded, r->res.why};
  }
  if (st != GEN_OK) return st;
  print_table(sc, m, runs, nrun, iterations);
  svgplot_series series[2] = {
      {runs[0].label, runs[0].color, runs[0].res.pos_error, runs[0].res.steps},
      {runs[1].label, runs[1].color, runs[1].res.pos_error, runs[1].res.steps},
  };
  char name[128];
  snprintf(name, sizeof name, "%s_error.svg", sc->name);
  const char *svg_path = path_in(a, dir, name);
  outfile svg;
  memset(&svg, 0, sizeof svg);
  if ((st = outfile_open(&svg, svg_path, d)) == GEN_OK) {
    char title[160];
    snprintf(title, sizeof title, "%s, %d iterations: largest constraint error per step", sc->name, iterations);
    svgplot_write(svg.f, title, "time (s)", "error (m)", s.dt, series, 2);
    st = outfile_commit(&svg, d);
  }
  outfile_abort(&svg);
  if (st == GEN_OK) printf("wrote %s and the per-step CSV files of each run\n", svg_path);
  return st;
}

int main(int argc, char **argv) {
  const char *src = ".", *dir = "build/demo";
  int iterations = 10;
  double seconds = 10.0;
  double convoy_seconds = 20.0; /* long enough for every script to play out */
  for (int i = 1; i < argc; i++) {
    if (i + 1 >= argc) return usage();
    const char *opt = argv[i], *val = argv[++i];
    char *end;
    if (strcmp(opt, "--src") == 0) {
      src = val;
    } else if (strcmp(opt, "--out") == 0) {
      dir = val;
    } else if (strcmp(opt, "--iterations") == 0) {
      iterations = (int)strtol(val, &end, 10);
      if (*end || iterations < 1 || iterations > 10000) return usage();
    } else if (strcmp(opt, "--seconds") == 0) {
      seconds = strtod(val, &end);
      if (*end || !(seconds > 0) || seconds > 3600) return usage();
    } else if (strcmp(opt, "--convoy-seconds") == 0) {
      convoy_seconds = strtod(val, &end);
      if (*end || !(convoy_seconds > 0) || convoy_seconds > 3600) return usage();
    } else {
      return usage();
    }
  }
  static const scene scenes[] = {
      {"scissor_lift", &scissor_lift_program, NULL, "z"},
      {"buggy", &buggy_program, "buggy.drive", "path"},
      {"car", &car_program, "car.drive", "path"},
      {"excavator", &excavator_program, "excavator.drive", "z"},
      {"stewart", &stewart_program, "stewart.drive", "z"},
  };
  diag_list d;
  diag_init(&d);
  arena a;
  arena_init(&a);
  gen_status st = GEN_OK;
  if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
    diag_error(&d, dir, 0, "cannot create directory: %s", strerror(errno));
    st = GEN_ERR_IO;
  }
  enum { NSCENE = sizeof scenes / sizeof scenes[0] };
  viewer_scene views[NSCENE + 1];
  gltf_recording *recs[NSCENE];
  memset(views, 0, sizeof views);
  memset(recs, 0, sizeof recs);
  int played = 0;
  for (; played < NSCENE && st == GEN_OK; played++)
    st = play(&scenes[played], src, dir, iterations, seconds, &a, &d, &views[played], &recs[played]);
  static convoy_view convoy; /* the page's last scene: 8 tanks */
  if (st == GEN_OK) {
    const convoy_options co = {src, dir, iterations, convoy_seconds, &convoy};
    st = convoy_run(&co, &a, &d);
    views[NSCENE] = convoy.scene;
  }
  if (st == GEN_OK) {
    const char *page = path_in(&a, dir, "viewer.html");
    st = viewer_write_file(page, viewer_page, viewer_page_size, "ldlpgs demo", views, NSCENE + 1, &d);
    if (st == GEN_OK) printf("\nwrote %s: the runs and the convoy in a browser (open it from disk)\n", page);
  }
  convoy_view_free(&convoy);
  for (int i = 0; i < played; i++)
    for (int k = 0; recs[i] && k < 2; k++) gltf_record_free(&recs[i][k]);
  arena_free(&a);
  diag_print(&d, stderr);
  diag_free(&d);
  return st == GEN_OK ? 0 : 1;
}
