/* demo.c -- `make demo`: the scissor lift raising its 800 kg platform for
 * 10 s, solved by the generated program (generated/scissor_lift.c, compiled
 * in) with LDL-PGS, against pure PGS at the same iteration count.
 *
 *   demo [--mech FILE] [--out DIR] [--iterations N] [--seconds S]
 *
 * Prints a side-by-side table and writes DIR/scissor_lift_error.svg (the
 * largest constraint error of every step, both solvers) and the per-step
 * CSV of each run. The mechanism file supplies bodies and joints; the
 * generated program must match it (the runtime checks its structure hash). */
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
#include "scissor_lift.h"
#include "simrun.h"
#include "svgplot.h"

typedef struct run {
  const char *label;
  rt_solver solver;
  int threaded;
  const char *color;
  const char *csv;
  simrun_result res;
} run;

static int usage(void) {
  fputs("usage: demo [--mech FILE] [--out DIR] [--iterations N] [--seconds S]\n", stderr);
  return 2;
}

static char *path_in(arena *a, const char *dir, const char *name) {
  size_t n = strlen(dir) + strlen(name) + 2;
  char *p = arena_alloc(a, n);
  snprintf(p, n, "%s/%s", dir, name);
  return p;
}

/* One run of the lift from its initial state. */
static gen_status simulate(const mech *m, const rt_world_desc *desc, const rt_settings *base, run *r, int steps,
                           const char *dir, arena *a, diag_list *d) {
  rt_settings s = *base;
  s.solver = r->solver;
  s.threaded = r->threaded;
  char err[256];
  rt_world *w = rt_world_create(desc, &scissor_lift_program, &s, NULL, err, sizeof err);
  if (w == NULL) {
    diag_error(d, m->file, 0, "%s", err);
    return GEN_ERR_INPUT;
  }
  outfile csv;
  memset(&csv, 0, sizeof csv);
  gen_status st = outfile_open(&csv, path_in(a, dir, r->csv), d);
  if (st == GEN_OK) {
    simrun_options o = {0};
    o.steps = steps;
    o.probe = simrun_default_probe(m);
    o.csv = csv.f;
    r->res.pos_error = ARENA_ARRAY(a, double, steps);
    simrun_run(w, m, &o, &r->res);
    st = outfile_commit(&csv, d);
  }
  outfile_abort(&csv);
  rt_world_destroy(w);
  return st;
}

static void print_table(const run *runs, int n, int iterations) {
  printf("\nscissor_lift, %d iterations per step, dt 1/60 s, generated program (%s, dim %d)\n\n", iterations,
         scissor_lift_program.precision == RT_FLOAT ? "float" : "double", scissor_lift_program.dim);
  printf("%-22s %10s %12s %12s %14s %14s %10s\n", "solver", "steps", "max error", "final error", "platform z",
         "max |dE|", "us/step");
  for (int i = 0; i < n; i++) {
    const simrun_result *r = &runs[i].res;
    char z[32];
    snprintf(z, sizeof z, "%.2f->%.2f m", r->probe_start, r->probe_final);
    printf("%-22s %6d%-4s %10.3g m %10.3g m %14s %12.3g J %10.1f\n", runs[i].label, r->steps,
           r->exploded ? " (!)" : "", r->max_pos_error, r->final_pos_error, z, r->max_energy_drift, r->us_per_step);
  }
  for (int i = 0; i < n; i++)
    if (runs[i].res.exploded)
      printf("(!) %s exploded after %.2f s: %s\n", runs[i].label, runs[i].res.steps / 60.0, runs[i].res.why);
}

int main(int argc, char **argv) {
  const char *mech_path = "mechanisms/scissor_lift.lua", *dir = "build/demo";
  int iterations = 10;
  double seconds = 10.0;
  for (int i = 1; i < argc; i++) {
    if (i + 1 >= argc) return usage();
    const char *opt = argv[i], *val = argv[++i];
    char *end;
    if (strcmp(opt, "--mech") == 0) {
      mech_path = val;
    } else if (strcmp(opt, "--out") == 0) {
      dir = val;
    } else if (strcmp(opt, "--iterations") == 0) {
      iterations = (int)strtol(val, &end, 10);
      if (*end || iterations < 1) return usage();
    } else if (strcmp(opt, "--seconds") == 0) {
      seconds = strtod(val, &end);
      if (*end || !(seconds > 0) || seconds > 3600) return usage();
    } else {
      return usage();
    }
  }
  diag_list d;
  diag_init(&d);
  arena a;
  arena_init(&a);
  mech m;
  gen_status st = load_mech(&a, mech_path, NULL, &m, &d);
  if (st == GEN_OK && mkdir(dir, 0777) != 0 && errno != EEXIST) {
    diag_error(&d, dir, 0, "cannot create directory: %s", strerror(errno));
    st = GEN_ERR_IO;
  }
  run runs[] = {
      {"PGS", RT_SOLVER_PGS, 0, "#d62728", "scissor_lift_pgs.csv", {0}},
      {"LDL-PGS", RT_SOLVER_LDLPGS, 0, "#1f77b4", "scissor_lift_ldlpgs.csv", {0}},
      {"LDL-PGS, 2 threads", RT_SOLVER_LDLPGS, 1, "#2ca02c", "scissor_lift_ldlpgs_threads.csv", {0}},
  };
  const int nrun = (int)(sizeof runs / sizeof runs[0]);
  if (st == GEN_OK) {
    rt_world_desc desc;
    mechworld_desc(&a, &m, &desc);
    rt_settings s;
    mechworld_settings(&m, &s);
    s.iterations = iterations;
    const int steps = (int)ceil(seconds / s.dt - 1e-9);
    for (int i = 0; i < nrun && st == GEN_OK; i++) st = simulate(&m, &desc, &s, &runs[i], steps, dir, &a, &d);
    if (st == GEN_OK) {
      print_table(runs, nrun, iterations);
      svgplot_series series[2] = {
          {runs[0].label, runs[0].color, runs[0].res.pos_error, runs[0].res.steps},
          {runs[1].label, runs[1].color, runs[1].res.pos_error, runs[1].res.steps},
      };
      outfile svg;
      memset(&svg, 0, sizeof svg);
      const char *svg_path = path_in(&a, dir, "scissor_lift_error.svg");
      if ((st = outfile_open(&svg, svg_path, &d)) == GEN_OK) {
        char title[128];
        snprintf(title, sizeof title, "scissor lift, %d iterations: largest constraint error per step", iterations);
        svgplot_write(svg.f, title, "time (s)", "error (m)", s.dt, series, 2);
        st = outfile_commit(&svg, &d);
      }
      outfile_abort(&svg);
      if (st == GEN_OK) printf("\nwrote %s and the per-step CSV files in %s/\n", svg_path, dir);
    }
  }
  arena_free(&a);
  diag_print(&d, stderr);
  diag_free(&d);
  return st == GEN_OK ? 0 : 1;
}
