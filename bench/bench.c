/* bench.c -- the `make bench` driver: the generated programs linked into
 * it (registry.h) against SuiteSparse LDL, CHOLMOD and LAPACK on the same
 * H~, the ordering table against AMD and METIS, the machine's peak, ldlgen's
 * own costs and the scaling series; where the CPU has AVX2, also the
 * samples' programs compiled with -mavx2 (extra methods and target lines,
 * checked bitwise against the baseline build: a difference fails the run).
 * Writes the Markdown and JSON reports and README.md's excerpt.
 *
 *   bench [--runs N] [--batches N] [--batch-ms X] [--quick] [--no-series]
 *         [--md FILE] [--json FILE] [--readme FILE] [--revision TEXT]
 *         [--cg FILE] [--step-only] [MECH.lua...]
 *
 * --cg reads the instruction counts of `make bench-cg` (stepcg.c's
 * step-cg.tsv) into the whole-step table, when the file exists.
 *
 * --step-only measures only the full step (fullstep.c) of the samples, or
 * of the mechanism files given (then only those), prints its table and the
 * step targets, and writes no report: a quick loop for work on the stepper.
 *
 * Mechanism files on the command line are measured after the samples of
 * the registry; those make did not compile run without unrolled code. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "libversions.h"
#include "method.h"
#include "peak.h"
#include "registry.h"
#include "report.h"
#include "sample.h"
#include "stepper.h"
#include "targets.h"

enum { BENCH_MAX_TARGETS = 128 };

typedef struct options {
  ms_config cfg;
  int series;
  const char *md, *json, *readme, *revision, *cg;
  const char **extra;
  int nextra;
} options;

static void usage(FILE *f) {
  fputs("usage: bench [--runs N] [--batches N] [--batch-ms X] [--quick] [--no-series]\n"
        "             [--md FILE] [--json FILE] [--readme FILE] [--revision TEXT]\n"
        "             [--cg step-cg.tsv] [--step-only] [MECH.lua...]\n",
        f);
}

static int parse(int argc, char **argv, options *o) {
  o->cfg.runs = 9;
  o->cfg.batches = 31;
  o->cfg.batch_s = 0.5e-3;
  o->series = 1;
  o->extra = calloc((size_t)argc + 1, sizeof *o->extra);
  if (!o->extra) abort();
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const int has = i + 1 < argc;
    if (strcmp(a, "--runs") == 0 && has)
      o->cfg.runs = atoi(argv[++i]);
    else if (strcmp(a, "--batches") == 0 && has)
      o->cfg.batches = atoi(argv[++i]);
    else if (strcmp(a, "--batch-ms") == 0 && has)
      o->cfg.batch_s = atof(argv[++i]) * 1e-3;
    else if (strcmp(a, "--quick") == 0) {
      o->cfg.runs = 3;
      o->cfg.batches = 7;
    } else if (strcmp(a, "--no-series") == 0)
      o->series = 0;
    else if (strcmp(a, "--step-only") == 0)
      o->cfg.step_only = 1;
    else if (strcmp(a, "--md") == 0 && has)
      o->md = argv[++i];
    else if (strcmp(a, "--json") == 0 && has)
      o->json = argv[++i];
    else if (strcmp(a, "--readme") == 0 && has)
      o->readme = argv[++i];
    else if (strcmp(a, "--revision") == 0 && has)
      o->revision = argv[++i];
    else if (strcmp(a, "--cg") == 0 && has)
      o->cg = argv[++i];
    else if (strcmp(a, "--help") == 0) {
      usage(stdout);
      exit(0);
    } else if (a[0] == '-') {
      usage(stderr);
      return -1;
    } else
      o->extra[o->nextra++] = a;
  }
  if (o->cfg.runs < 1 || o->cfg.batches < 1 || !(o->cfg.batch_s > 0)) {
    usage(stderr);
    return -1;
  }
  return 0;
}

/* OpenBLAS reads OPENBLAS_NUM_THREADS when it is loaded, before main: if it
 * is not 1, set it and start again. */
static void one_blas_thread(char **argv) {
  const char *v = getenv("OPENBLAS_NUM_THREADS");
  if (v && strcmp(v, "1") == 0) return;
  setenv("OPENBLAS_NUM_THREADS", "1", 1);
  execv("/proc/self/exe", argv);
  perror("bench: re-exec with OPENBLAS_NUM_THREADS=1");
  exit(1);
}

static void machine(br_report *r) {
  snprintf(r->cpu, sizeof r->cpu, "unknown CPU");
  FILE *f = fopen("/proc/cpuinfo", "r");
  char line[512];
  while (f && fgets(line, sizeof line, f)) {
    if (strncmp(line, "model name", 10) != 0) continue;
    const char *c = strchr(line, ':');
    if (!c) continue;
    c++;
    while (*c == ' ' || *c == '\t') c++;
    snprintf(r->cpu, sizeof r->cpu, "%s", c);
    r->cpu[strcspn(r->cpu, "\n")] = '\0';
    break;
  }
  if (f) fclose(f);
  r->ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  strftime(r->date, sizeof r->date, "%Y-%m-%d %H:%M UTC", &tm);
  snprintf(r->compiler, sizeof r->compiler, "gcc %s", __VERSION__);
  snprintf(r->blas, sizeof r->blas, "%s", bm_lapack_config());
  r->blas[strcspn(r->blas, "\n")] = '\0';
  lv_describe(r->libs, sizeof r->libs);
  r->cflags = bench_cflags;
  r->avx2_flags = bench_avx2_flags;
  r->avx2_cpu = sm_avx2();
}

/* Writes a report through a temporary file renamed into place. */
static int write_file(const char *path, void (*writer)(FILE *, const br_report *), const br_report *r) {
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (!f) {
    perror(tmp);
    return -1;
  }
  writer(f, r);
  if (fclose(f) != 0 || rename(tmp, path) != 0) {
    perror(path);
    remove(tmp);
    return -1;
  }
  return 0;
}

static int update_readme(const char *path, const br_report *r) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f) return -1;
  fputs("\n", f);
  br_write_main_table(f, r);
  fputs("\nEvery method, solve times, flops, orderings, peak, ldlgen costs, scaling and the PASS/MISS lines of "
        "the speed targets: [bench/results/latest.md](bench/results/latest.md).\n\n",
        f);
  fclose(f);
  int st = br_splice_file(path, "<!-- bench:begin", "<!-- bench:end", text);
  free(text);
  if (st != 0) fprintf(stderr, "bench: %s: no <!-- bench:begin --> / <!-- bench:end --> markers updated\n", path);
  /* the precision presets' tables (README, "Precision presets") */
  text = NULL;
  len = 0;
  if (st == 0 && (f = open_memstream(&text, &len)) != NULL) {
    fprintf(f, "\nMeasured %s on sources %s (%s; %d runs of %d batches).\n\n", r->date, r->revision, r->cpu,
            r->runs, r->batches);
    br_write_precision(f, r);
    fclose(f);
    st = br_splice_file(path, "<!-- precision:begin", "<!-- precision:end", text);
    free(text);
    if (st != 0)
      fprintf(stderr, "bench: %s: no <!-- precision:begin --> / <!-- precision:end --> markers updated\n", path);
  }
  return st;
}

static int listed(const char **paths, int n, const char *p) {
  for (int i = 0; i < n; i++)
    if (strcmp(paths[i], p) == 0) return 1;
  return 0;
}

/* The instruction counts of make bench-cg, if the file exists: lines
 * "sample<TAB>key<TAB>instructions<TAB>rows" after "# revision<TAB>TEXT"
 * (key sweep_pgs, sweep_ode_quick: the sweep's instructions per row and
 * iteration instead). */
static void read_cg(const char *path, br_report *r) {
  FILE *f = path ? fopen(path, "r") : NULL;
  char line[512], rev[64] = "";
  while (f && fgets(line, sizeof line, f)) {
    char name[128], key[64];
    double ins;
    if (sscanf(line, "# revision\t%63[^\n]", rev) == 1) continue;
    if (sscanf(line, "%127[^\t]\t%63[^\t]\t%lf", name, key, &ins) != 3) continue;
    const int k = sp_from_key(key);
    for (int i = 0; i < r->nmech; i++)
      if (strcmp(r->mech[i].name, name) == 0) {
        if (strcmp(key, "sweep_pgs") == 0) r->mech[i].step.sweep_pgs = ins;
        if (strcmp(key, "sweep_ode_quick") == 0) r->mech[i].step.sweep_ode = ins;
        if (k < 0) continue;
        r->mech[i].step.peer[k].instructions = ins;
        snprintf(r->mech[i].step.cg_revision, sizeof r->mech[i].step.cg_revision, "%s", rev[0] ? rev : "?");
      }
  }
  if (f) fclose(f);
}

/* bench --step-only: the full step of the samples (or of the files given). */
static int step_only(const options *o, br_report *r) {
  int n = 0;
  while (bench_entries[n].mech) n++;
  const char **paths = calloc((size_t)(n + o->nextra + 1), sizeof *paths);
  r->mech = calloc((size_t)(n + o->nextra + 1), sizeof *r->mech);
  if (!paths || !r->mech) abort();
  int np = 0;
  for (int i = 0; i < o->nextra; i++)
    if (!listed(paths, np, o->extra[i])) paths[np++] = o->extra[i];
  for (int i = 0; i < n && o->nextra == 0; i++)
    if (!bench_entries[i].series && !listed(paths, np, bench_entries[i].mech)) paths[np++] = bench_entries[i].mech;
  int failed = 0;
  printf("bench: a second busy thread's cost to the first ...\n");
  fflush(stdout);
  bc_measure(o->cfg.runs * 3, &r->corun);
  for (int i = 0; i < np; i++) failed |= sm_measure(paths[i], NULL, 0, &o->cfg, &r->mech[r->nmech++]) != 0;
  read_cg(o->cg, r);
  printf("\n");
  br_write_full_step(stdout, r);
  br_write_peers(stdout, r);
  br_target t[BENCH_MAX_TARGETS];
  const int nt = br_targets(r, t, BENCH_MAX_TARGETS);
  for (int i = 0; i < nt; i++) /* the factor targets were not measured */
    if (t[i].verdict != BR_NOT_MEASURED) printf("%-12s %s\n", br_verdict_name(t[i].verdict), t[i].text);
  free(paths);
  free(r->mech);
  return failed ? 1 : 0;
}

int main(int argc, char **argv) {
  one_blas_thread(argv);
  options o;
  memset(&o, 0, sizeof o);
  if (parse(argc, argv, &o) != 0) return 2;

  br_report r;
  memset(&r, 0, sizeof r);
  machine(&r);
  r.revision = o.revision ? o.revision : "unknown";
  r.runs = o.cfg.runs;
  r.batches = o.cfg.batches;
  r.batch_s = o.cfg.batch_s;
  const double t0 = bt_now();

  printf("bench: %s, %d CPUs, %s\n", r.cpu, r.ncpu, r.date);
  if (r.avx2_flags[0])
    printf("bench: the programs' %s build: %s\n", r.avx2_flags,
           r.avx2_cpu ? "measured too" : "skipped (this CPU has no AVX2)");
  if (o.cfg.step_only) return step_only(&o, &r);
  /* the peak: half the samples before, half after the rest */
  printf("bench: single-core peak ...\n");
  fflush(stdout);
  double(*peak)[BP_COUNT][2] = calloc((size_t)(2 * o.cfg.runs), sizeof *peak);
  if (!peak) abort();
  for (int k = 0; k < o.cfg.runs; k++) bp_sample(peak[k]);

  /* samples: the registry's, then extra files */
  int nentries = 0;
  while (bench_entries[nentries].mech) nentries++;
  const char **paths = calloc((size_t)(nentries + o.nextra + 1), sizeof *paths);
  r.mech = calloc((size_t)(nentries + o.nextra + 1), sizeof *r.mech);
  r.series = calloc((size_t)(nentries + 1), sizeof *r.series);
  if (!paths || !r.mech || !r.series) abort();
  int np = 0;
  for (int i = 0; i < nentries; i++)
    if (!bench_entries[i].series && !listed(paths, np, bench_entries[i].mech)) paths[np++] = bench_entries[i].mech;
  for (int i = 0; i < o.nextra; i++)
    if (!listed(paths, np, o.extra[i])) paths[np++] = o.extra[i];
  int failed = 0;
  for (int i = 0; i < np; i++) {
    printf("bench: %s ...\n", paths[i]);
    fflush(stdout);
    failed |= sm_measure(paths[i], NULL, 0, &o.cfg, &r.mech[r.nmech++]) != 0;
  }
  for (int i = 0; i < nentries && o.series; i++) {
    const bench_entry *e = &bench_entries[i];
    if (!e->series) continue;
    printf("bench: %s %d (%s) ...\n", e->series, e->param, e->mech);
    fflush(stdout);
    failed |= sm_measure(e->mech, e->series, e->param, &o.cfg, &r.series[r.nseries++]) != 0;
  }
  printf("bench: single-core peak again ...\n");
  fflush(stdout);
  for (int k = 0; k < o.cfg.runs; k++) bp_sample(peak[o.cfg.runs + k]);
  bp_summarize(peak, 2 * o.cfg.runs, r.peak);
  printf("bench: a second busy thread's cost to the first ...\n");
  fflush(stdout);
  bc_measure(o.cfg.runs * 3, &r.corun);
  read_cg(o.cg, &r);
  /* the AVX2 build must compute exactly what the baseline build does */
  for (int i = 0; i < r.nmech; i++)
    for (int k = 0; k < r.mech[i].nmethod; k++)
      if (r.mech[i].method[k].avx2 && !r.mech[i].method[k].bitwise) failed = 1;
  free(peak);
  r.wall_s = bt_now() - t0;

  printf("\n");
  br_write_main_table(stdout, &r);
  br_target t[BENCH_MAX_TARGETS];
  const int nt = br_targets(&r, t, BENCH_MAX_TARGETS);
  printf("\n");
  for (int i = 0; i < nt; i++) printf("%-12s %s\n", br_verdict_name(t[i].verdict), t[i].text);
  printf("\nbench: measured in %.1f s\n", r.wall_s);
  if (o.md && write_file(o.md, br_write_md, &r) == 0) printf("bench: wrote %s\n", o.md);
  if (o.json && write_file(o.json, br_write_json, &r) == 0) printf("bench: wrote %s\n", o.json);
  if (o.readme && update_readme(o.readme, &r) == 0) printf("bench: updated %s\n", o.readme);
  free(paths);
  free(r.mech);
  free(r.series);
  free(o.extra);
  return failed ? 1 : 0;
}
