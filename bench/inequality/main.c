/* main.c -- `make bench-inequality` (ineq.h).
 *
 *   inequality [--md FILE] [--json FILE] [--readme FILE] [--revision TEXT]
 *              [--runs N] [--work DIR] [--no-count] [MECH.lua...]
 *       measures every mechanism (default: the bench registry's samples,
 *       each with MECH.drive beside it if there is one) and writes the
 *       reports; --readme rewrites the lines between README.md's
 *       <!-- inequality:begin --> and <!-- inequality:end --> markers;
 *       valgrind's files go to --work (default build/bench); --no-count
 *       leaves out the callgrind counts
 *   inequality --count MECH.lua STEP
 *       the driven run of one step (a key of ineq.h) with callgrind's
 *       collection on around each step; run under valgrind by the above */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ineq.h"
#include "registry.h"
#include "report.h"

enum { MAXMECH = 64, DEFAULT_RUNS = 5 };

typedef struct options {
  const char *md, *json, *readme, *revision, *work;
  int runs, count;
  const char *mechs[MAXMECH];
  int nmech;
} options;

static int usage(void) {
  fputs("usage: inequality [--md FILE] [--json FILE] [--readme FILE] [--revision TEXT] [--runs N]\n"
        "                  [--work DIR] [--no-count] [MECH.lua...]\n"
        "       inequality --count MECH.lua STEP\n",
        stderr);
  return 2;
}

/* The registry's samples, each once (the series left out). */
static void default_mechs(options *o) {
  for (const bench_entry *e = bench_entries; e->mech && o->nmech < MAXMECH; e++) {
    int seen = 0;
    for (int i = 0; i < o->nmech; i++) seen |= strcmp(o->mechs[i], e->mech) == 0;
    if (!e->series && !seen) o->mechs[o->nmech++] = e->mech;
  }
}

static int parse(int argc, char **argv, options *o) {
  memset(o, 0, sizeof *o);
  o->revision = "unknown";
  o->work = "build/bench";
  o->runs = DEFAULT_RUNS;
  o->count = 1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--no-count") == 0)
      o->count = 0;
    else if (strcmp(a, "--md") == 0 && val)
      o->md = argv[++i];
    else if (strcmp(a, "--json") == 0 && val)
      o->json = argv[++i];
    else if (strcmp(a, "--readme") == 0 && val)
      o->readme = argv[++i];
    else if (strcmp(a, "--revision") == 0 && val)
      o->revision = argv[++i];
    else if (strcmp(a, "--work") == 0 && val)
      o->work = argv[++i];
    else if (strcmp(a, "--runs") == 0 && val && atoi(val) > 0)
      o->runs = atoi(argv[++i]);
    else if (a[0] != '-' && o->nmech < MAXMECH)
      o->mechs[o->nmech++] = a;
    else
      return usage();
  }
  if (!o->nmech) default_mechs(o);
  return 0;
}

static void count_rows(const mech *m, iq_sample *s) {
  for (int j = 0; j < m->ncons; j++) {
    const rt_joint_type t = m->cons[j].type;
    s->nlimit += t == RT_ANGULAR_LIMIT || t == RT_POSITIONAL_LIMIT || t == RT_ROPE;
    s->nmotor += t == RT_MOTOR;
    s->nspring += t == RT_SPRING;
  }
}

/* Both LDL-PGS steps under callgrind. */
static void count(const char *self, const options *o, const char *path, iq_cost *c) {
  c->counted = 0;
  if (!o->count) {
    snprintf(c->why, sizeof c->why, "instructions not counted: --no-count");
    return;
  }
  for (int v = IQ_EQ_ONLY; v <= IQ_NEW; v++) {
    fprintf(stderr, "inequality: %s: %s under callgrind ...\n", path, iq_key((iq_variant)v));
    c->instr[v] = iq_count(self, o->work, path, (iq_variant)v, c->why, sizeof c->why);
    if (c->instr[v] < 0) return;
  }
  c->counted = 1;
}

/* Everything on one sample; -1 if it does not load. */
static int measure(const char *self, const options *o, const char *path, iq_sample *s) {
  iq_case c;
  memset(s, 0, sizeof *s);
  if (iq_case_open(&c, path) != 0) return -1;
  snprintf(s->name, sizeof s->name, "%s", c.name);
  snprintf(s->drive, sizeof s->drive, "%s", c.drive_path);
  s->dim = c.prog->dim;
  s->unrolled = c.unrolled;
  count_rows(&c.m, s);
  fprintf(stderr, "inequality: %s: timing ...\n", path);
  iq_time(&c, o->runs, &s->cost);
  count(self, o, path, &s->cost);
  for (int v = 0; v < IQ_VARIANTS; v++) iq_hold_run(&c, (iq_variant)v, &s->hold[v]);
  iq_case_close(&c);
  return 0;
}

typedef void (*writer)(FILE *f, const iq_report *r);

static int write_file(const char *path, writer fn, const iq_report *r) {
  FILE *f = fopen(path, "w");
  if (!f) {
    perror(path);
    return -1;
  }
  fn(f, r);
  if (fclose(f) != 0) {
    perror(path);
    return -1;
  }
  printf("inequality: wrote %s\n", path);
  return 0;
}

static int update_readme(const char *path, const iq_report *r) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f) return -1;
  fputs("\n", f);
  iq_write_readme(f, r);
  fclose(f);
  const int st = br_splice_file(path, "<!-- inequality:begin", "<!-- inequality:end", text);
  free(text);
  if (st != 0)
    fprintf(stderr, "inequality: %s: no <!-- inequality:begin --> / <!-- inequality:end --> markers updated\n", path);
  else
    printf("inequality: updated %s\n", path);
  return st;
}

int main(int argc, char **argv) {
  if (argc == 4 && strcmp(argv[1], "--count") == 0) return iq_count_child(argv[2], argv[3]);
  options o;
  if (parse(argc, argv, &o) != 0) return 2;
  char self[4096];
  const ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  if (len <= 0) return 1;
  self[len] = '\0';
  iq_sample *s = calloc((size_t)o.nmech, sizeof *s);
  if (!s) abort();
  iq_report r = {o.revision, o.runs, s, 0};
  for (int i = 0; i < o.nmech; i++)
    if (measure(self, &o, o.mechs[i], &s[r.n]) == 0) r.n++;
  int rc = r.n == o.nmech ? 0 : 1;
  if (!o.md && !o.json) iq_write_md(stdout, &r);
  if (o.md && write_file(o.md, iq_write_md, &r) != 0) rc = 1;
  if (o.json && write_file(o.json, iq_write_json, &r) != 0) rc = 1;
  if (o.readme && update_readme(o.readme, &r) != 0) rc = 1;
  free(s);
  return rc;
}
