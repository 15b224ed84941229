/* stepcg.c -- `make bench-cg`: instructions per whole step of every method
 * of stepper.h on the samples, counted by valgrind's callgrind: a count
 * that does not depend on the load of a shared machine, so it can be
 * compared from run to run and against the peers.
 *
 *   stepcg [--out DIR] [--work DIR] [--revision TEXT] [--steps N] [MECH.lua...]
 *       runs, for every mechanism (default: the registry's samples) and
 *       method, `valgrind --tool=callgrind --collect-atstart=no` on
 *       stepcg --run, and writes DIR/step-cg.md, step-cg.json and
 *       step-cg.tsv (which `make bench` reads into its tables), with the
 *       issue's instruction targets as PASS/MISS lines; valgrind's files go
 *       to the --work directory (default build/bench)
 *   stepcg --run MECH.lua KEY N STEPS
 *       builds the method (stepper.h key) at N iterations, gives it the
 *       contacts at its own poses before every step (as fullstep.c does;
 *       not counted), steps 8 times outside the count and STEPS times
 *       inside it, and
 *       prints the rows its sweep visited (a peer whose first step takes
 *       over SLOW_S under callgrind is not counted)
 *
 * The sweep's cost per row and iteration is the difference of two counts
 * at N and 2N iterations over N times the rows: ODE QuickStep 10 and 20,
 * ldlpgs PGS 10 and 20. Callgrind's collection state is per thread, so
 * LDL-PGS with 2 threads counts the stepping thread alone (the factorization
 * thread's assembly and factorization are not in it). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <valgrind/callgrind.h>

#include "arena.h"
#include "btime.h"
#include "diag.h"
#include "json.h"
#include "load.h"
#include "program.h"
#include "registry.h"
#include "rtprog.h"
#include "stepper.h"

enum { WARM_STEPS = 8, DEFAULT_STEPS = 16, N = 10, MAXMECH = 64 };
/* A peer whose first step takes longer (wall clock, under callgrind) is not
 * counted: ODE's dense dWorldStep on the tank would take half an hour. */
#define SLOW_S 1.0

/* The loaded mechanism and its double program (compiled, else tables). */
typedef struct loaded {
  arena a;
  mech m;
  const rt_program *prog;
  rt_program tables;
} loaded;

static int load(const char *path, loaded *l) {
  arena_init(&l->a);
  diag_list d;
  diag_init(&d);
  program p;
  program_options o;
  program_default_options(&o);
  if (load_mech(&l->a, path, NULL, &l->m, &d) != GEN_OK || program_build(&l->a, &l->m, &o, &p, &d) != GEN_OK) {
    diag_print(&d, stderr);
    diag_free(&d);
    return -1;
  }
  diag_free(&d);
  rtprog_build(&l->a, &p, RT_DOUBLE, &l->tables);
  l->prog = &l->tables;
  for (const bench_entry *e = bench_entries; e->mech; e++)
    if (strcmp(e->mech, path) == 0 && e->prog->precision == RT_DOUBLE &&
        e->prog->structure_hash == l->tables.structure_hash && e->prog->dim == l->tables.dim)
      l->prog = e->prog;
  return 0;
}

static int run(const char *path, const char *key, int n, int steps) {
  loaded l;
  const int k = sp_from_key(key);
  if (k < 0 || load(path, &l) != 0) return 2;
  char why[256];
  sp_stepper *s = sp_create((sp_kind)k, &l.m, l.prog, n, why, sizeof why);
  if (!s) {
    printf("not run: %s\n", why);
    return 3;
  }
  const int cap = l.m.settings.max_contacts, any = l.m.settings.has_ground || l.m.settings.collide;
  rt_contact *c = calloc((size_t)cap + 1, sizeof *c);
  if (!c) abort();
  /* the contacts at the method's own poses before every step, as a game
   * finds them (not counted: collision detection is the game's) */
  const int find = any && !sp_finds_contacts(s);
  if (find) sp_set_contacts(s, c, sp_contacts(s, c, cap));
  const double t0 = bt_now();
  sp_step(s);
  const double first = bt_now() - t0;
  if (!sp_is_ours((sp_kind)k) && first > SLOW_S) { /* under callgrind, about 50 times native */
    printf("not run: %.1f s a step under callgrind (over %.0f s)\n", first, SLOW_S);
    sp_destroy(s);
    free(c);
    arena_free(&l.a);
    return 3;
  }
  for (int i = 1; i < WARM_STEPS; i++) {
    if (find) sp_set_contacts(s, c, sp_contacts(s, c, cap));
    sp_step(s);
  }
  for (int i = 0; i < steps; i++) {
    if (find) sp_set_contacts(s, c, sp_contacts(s, c, cap));
    CALLGRIND_TOGGLE_COLLECT;
    sp_step(s);
    CALLGRIND_TOGGLE_COLLECT;
  }
  printf("rows %d\n", sp_rows(s));
  sp_destroy(s);
  free(c);
  arena_free(&l.a);
  return 0;
}

/*---- the driver ----------------------------------------------------------------*/

typedef struct count {
  int ok;
  double per_step; /* instructions */
  int rows;
  char why[512];
} count;

/* Runs self --run under callgrind; reads the total from its output file. */
static void measure(const char *self, const char *scratch, const char *path, const char *key, int n, int steps,
                    count *out) {
  memset(out, 0, sizeof *out);
  char cg[4096], log[4096], cmd[16384];
  snprintf(cg, sizeof cg, "%s/callgrind.out.stepcg", scratch);
  snprintf(log, sizeof log, "%s/stepcg.log", scratch);
  snprintf(cmd, sizeof cmd,
           "valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file='%s' '%s' --run '%s' %s %d %d "
           ">'%s' 2>/dev/null",
           cg, self, path, key, n, steps, log);
  remove(cg);
  const int st = system(cmd);
  FILE *f = fopen(log, "r");
  char line[512] = "";
  if (f) {
    if (!fgets(line, sizeof line, f)) line[0] = '\0';
    fclose(f);
  }
  line[strcspn(line, "\n")] = '\0';
  if (st != 0 || sscanf(line, "rows %d", &out->rows) != 1) {
    snprintf(out->why, sizeof out->why, "%s", strncmp(line, "not run: ", 9) == 0 ? line + 9 : "failed");
    return;
  }
  f = fopen(cg, "r");
  double total = -1;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "summary: %lf", &total) == 1 || sscanf(line, "totals: %lf", &total) == 1) break;
  if (f) fclose(f);
  remove(cg);
  if (total < 0) {
    snprintf(out->why, sizeof out->why, "no callgrind total");
    return;
  }
  out->ok = 1;
  out->per_step = total / steps;
}

static const char *base_name(const char *path, char *buf, size_t n) {
  const char *b = strrchr(path, '/');
  snprintf(buf, n, "%s", b ? b + 1 : path);
  char *dot = strrchr(buf, '.');
  if (dot) *dot = '\0';
  return buf;
}

int main(int argc, char **argv) {
  if (argc == 6 && strcmp(argv[1], "--run") == 0) return run(argv[2], argv[3], atoi(argv[4]), atoi(argv[5]));
  const char *dir = "bench/results", *scratch = "build/bench", *revision = "unknown", *mechs[MAXMECH];
  int nm = 0, steps = DEFAULT_STEPS;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--out") == 0 && i + 1 < argc)
      dir = argv[++i];
    else if (strcmp(argv[i], "--revision") == 0 && i + 1 < argc)
      revision = argv[++i];
    else if (strcmp(argv[i], "--work") == 0 && i + 1 < argc)
      scratch = argv[++i];
    else if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc)
      steps = atoi(argv[++i]);
    else if (argv[i][0] != '-' && nm < MAXMECH)
      mechs[nm++] = argv[i];
    else {
      fprintf(stderr, "usage: stepcg [--out DIR] [--work DIR] [--revision TEXT] [--steps N] [MECH.lua...]\n"
                      "       stepcg --run MECH.lua KEY N STEPS\n");
      return 2;
    }
  }
  const int given = nm;
  for (const bench_entry *e = bench_entries; !given && e->mech; e++) {
    int seen = 0;
    for (const bench_entry *p = bench_entries; p < e; p++) seen |= strcmp(p->mech, e->mech) == 0;
    if (!e->series && !seen) mechs[nm++] = e->mech;
    if (nm == MAXMECH) break;
  }
  if (steps < 1) steps = DEFAULT_STEPS;
  char self[4096];
  const ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  if (len <= 0) return 1;
  self[len] = '\0';

  count (*c)[SP_COUNT] = calloc((size_t)nm, sizeof *c);
  count *pgs2 = calloc((size_t)nm, sizeof *pgs2);
  if (!c || !pgs2) abort();
  for (int i = 0; i < nm; i++) {
    for (int k = 0; k < SP_COUNT; k++) {
      fprintf(stderr, "stepcg: %s %s ...\n", mechs[i], sp_key((sp_kind)k));
      measure(self, scratch, mechs[i], sp_key((sp_kind)k), N, steps, &c[i][k]);
    }
    fprintf(stderr, "stepcg: %s pgs at %d iterations ...\n", mechs[i], 2 * N);
    measure(self, scratch, mechs[i], "pgs", 2 * N, steps, &pgs2[i]);
  }

  char path[4096], name[256], label[64];
  snprintf(path, sizeof path, "%s/step-cg.tsv", dir);
  FILE *tsv = fopen(path, "w");
  snprintf(path, sizeof path, "%s/step-cg.md", dir);
  FILE *md = fopen(path, "w");
  snprintf(path, sizeof path, "%s/step-cg.json", dir);
  FILE *js = fopen(path, "w");
  if (!tsv || !md || !js) {
    perror(path);
    return 1;
  }
  fprintf(tsv, "# revision\t%s\n", revision);
  fprintf(md,
          "# Instructions per whole step (callgrind)\n\n`make bench-cg` on sources %s: every method of the "
          "whole-step comparison (bench/stepper.h) steps each sample %d times after %d steps of warm-up, N = %d, "
          "the contacts at the method's own poses found before every step and not counted; instructions "
          "counted by `valgrind --tool=callgrind` in the steps only. LDL-PGS with 2 threads counts the stepping "
          "thread alone (callgrind's collection is "
          "per thread: the factorization thread's share is not in it). "
          "Ratios are to ODE QuickStep %d.\n\n"
          "| sample | method | rows | instructions/step | / QuickStep %d | note |\n|---|---|--:|--:|--:|---|\n",
          revision, steps, WARM_STEPS, N, N, N);
  fputs("{\"revision\": ", js);
  json_write_escaped(js, revision);
  fprintf(js, ", \"steps\": %d, \"iterations\": %d, \"samples\": [", steps, N);
  for (int i = 0; i < nm; i++) {
    base_name(mechs[i], name, sizeof name);
    fprintf(js, "%s\n  {\"sample\": \"%s\", \"methods\": [", i ? "," : "", name);
    const count *q = &c[i][SP_ODE_QUICK];
    for (int k = 0; k < SP_COUNT; k++) {
      const count *x = &c[i][k];
      sp_label((sp_kind)k, N, label, sizeof label);
      fprintf(js, "%s\n    {\"key\": \"%s\", \"method\": \"%s\", ", k ? "," : "", sp_key((sp_kind)k), label);
      if (!x->ok) {
        fprintf(md, "| %s | %s | | not counted | | %s |\n", name, label, x->why);
        fputs("\"counted\": false, \"why\": ", js);
        json_write_escaped(js, x->why);
        fputs("}", js);
        continue;
      }
      fprintf(tsv, "%s\t%s\t%.1f\t%d\n", name, sp_key((sp_kind)k), x->per_step, x->rows);
      fprintf(md, "| %s | %s | %d | %.0f | ", name, label, x->rows, x->per_step);
      if (q->ok)
        fprintf(md, "%.2fx | |\n", x->per_step / q->per_step);
      else
        fputs("-- | |\n", md);
      fprintf(js, "\"counted\": true, \"rows\": %d, \"instructions_per_step\": %.1f", x->rows, x->per_step);
      if (q->ok) fprintf(js, ", \"vs_ode_quickstep\": %.4f", x->per_step / q->per_step);
      fputs("}", js);
    }
    fputs("],\n   \"sweep_instructions_per_row_iteration\": {", js);
    const count *q2 = &c[i][SP_ODE_QUICK2], *p1 = &c[i][SP_PGS];
    int any = 0;
    if (q->ok && q2->ok && q->rows > 0) {
      fprintf(js, "\"ode_quickstep\": %.2f", (q2->per_step - q->per_step) / (N * (double)q->rows));
      any = 1;
    }
    if (p1->ok && pgs2[i].ok && p1->rows > 0)
      fprintf(js, "%s\"ldlpgs_pgs\": %.2f", any ? ", " : "", (pgs2[i].per_step - p1->per_step) / (N * (double)p1->rows));
    fputs("}}", js);
  }
  fputs("\n]}\n", js);
  fprintf(md, "\n## The sweep: instructions per row and iteration\n\n(count at %d iterations - count at %d) / (%d x "
              "rows).\n\n| sample | ODE QuickStep | ldlpgs PGS |\n|---|--:|--:|\n",
          2 * N, N, N);
  double lift_sweep = -1;
  for (int i = 0; i < nm; i++) {
    const count *q = &c[i][SP_ODE_QUICK], *q2 = &c[i][SP_ODE_QUICK2], *p1 = &c[i][SP_PGS];
    fprintf(md, "| %s | ", base_name(mechs[i], name, sizeof name));
    if (q->ok && q2->ok && q->rows > 0)
      fprintf(md, "%.1f | ", (q2->per_step - q->per_step) / (N * (double)q->rows));
    else
      fputs("-- | ", md);
    if (p1->ok && pgs2[i].ok && p1->rows > 0) {
      const double sw = (pgs2[i].per_step - p1->per_step) / (N * (double)p1->rows);
      fprintf(md, "%.1f |\n", sw);
      fprintf(tsv, "%s\tsweep_pgs\t%.2f\t%d\n", name, sw, p1->rows);
      if (strcmp(name, "scissor_lift") == 0) lift_sweep = sw;
    } else {
      fputs("-- |\n", md);
    }
    if (q->ok && q2->ok && q->rows > 0)
      fprintf(tsv, "%s\tsweep_ode_quick\t%.2f\t%d\n", name, (q2->per_step - q->per_step) / (N * (double)q->rows),
              q->rows);
  }
  /* issue 16's instruction targets */
  fputs("\n## Targets (issue 16, instructions)\n\n", md);
  int lift = -1, chain = -1;
  for (int i = 0; i < nm; i++) {
    base_name(mechs[i], name, sizeof name);
    if (strcmp(name, "scissor_lift") == 0) lift = i;
    if (strcmp(name, "chain") == 0) chain = i;
  }
  if (lift >= 0 && c[lift][SP_LDLPGS].ok && c[lift][SP_ODE_QUICK].ok) {
    const double a = c[lift][SP_LDLPGS].per_step, b = c[lift][SP_ODE_QUICK].per_step;
    fprintf(md, "- %s scissor_lift: LDL-PGS %.0f instructions per step vs ODE QuickStep %d %.0f: %.2fx (target <= 1)\n",
            a <= b ? "PASS" : "MISS", a, N, b, a / b);
  }
  if (lift_sweep >= 0)
    fprintf(md, "- %s scissor_lift: the sweep, %.1f instructions per row and iteration (target <= 120)\n",
            lift_sweep <= 120 ? "PASS" : "MISS", lift_sweep);
  if (chain >= 0 && c[chain][SP_LDLPGS].ok && c[chain][SP_ODE_DIRECT].ok) {
    const double a = c[chain][SP_LDLPGS].per_step, b = c[chain][SP_ODE_DIRECT].per_step;
    fprintf(md, "- %s chain: LDL-PGS %.0f instructions per step vs ODE dWorldStep %.0f: %.2fx (target <= 1)\n",
            a <= b ? "PASS" : "MISS", a, b, a / b);
  }
  fclose(tsv);
  fclose(md);
  fclose(js);
  printf("stepcg: wrote %s/step-cg.md, step-cg.json, step-cg.tsv\n", dir);
  free(c);
  free(pgs2);
  return 0;
}
