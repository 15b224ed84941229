/* case.c -- a sample of the inequality bench: its mechanism, program and
 * drive script, and the settings of the three steps compared on it
 * (ineq.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "diag.h"
#include "ineq.h"
#include "load.h"
#include "mechworld.h"
#include "program.h"
#include "registry.h"
#include "rtprog.h"

/* The registry's unrolled double program of path, if it is the program
 * built here (same structure); else NULL. */
static const rt_program *registry_program(const char *path, const rt_program *tables) {
  for (const bench_entry *e = bench_entries; e->mech; e++)
    if (strcmp(e->mech, path) == 0 && e->prog->precision == RT_DOUBLE &&
        e->prog->structure_hash == tables->structure_hash && e->prog->dim == tables->dim)
      return e->prog;
  return NULL;
}

/* MECH.drive beside MECH.lua, "" if there is none. */
static void find_drive(const char *path, char *out, size_t n) {
  out[0] = '\0';
  const size_t len = strlen(path);
  if (len < 4 || strcmp(path + len - 4, ".lua") != 0 || len + 3 > n) return;
  snprintf(out, n, "%.*s.drive", (int)(len - 4), path);
  FILE *f = fopen(out, "r");
  if (f)
    fclose(f);
  else
    out[0] = '\0';
}

static void base_name(const char *path, char *out, size_t n) {
  const char *b = strrchr(path, '/');
  snprintf(out, n, "%s", b ? b + 1 : path);
  char *dot = strrchr(out, '.');
  if (dot) *dot = '\0';
}

int iq_case_open(iq_case *c, const char *path) {
  memset(c, 0, sizeof *c);
  arena_init(&c->a);
  c->path = path;
  base_name(path, c->name, sizeof c->name);
  find_drive(path, c->drive_path, sizeof c->drive_path);
  diag_list d;
  diag_init(&d);
  program p;
  program_options o;
  program_default_options(&o);
  int ok = load_mech(&c->a, path, NULL, &c->m, &d) == GEN_OK && program_build(&c->a, &c->m, &o, &p, &d) == GEN_OK;
  if (ok && c->drive_path[0]) ok = drive_load(&c->a, c->drive_path, &c->m, &c->script, &d) == GEN_OK;
  diag_print(&d, stderr);
  diag_free(&d);
  if (!ok) {
    arena_free(&c->a);
    return -1;
  }
  rtprog_build(&c->a, &p, RT_DOUBLE, &c->tables);
  c->prog = registry_program(path, &c->tables);
  c->unrolled = c->prog != NULL;
  if (!c->prog) c->prog = &c->tables;
  mechworld_desc(&c->a, &c->m, &c->desc);
  c->steps = (int)lround(IQ_SECONDS / IQ_DT);
  return 0;
}

void iq_case_close(iq_case *c) { arena_free(&c->a); }

void iq_case_settings(const iq_case *c, iq_variant v, rt_settings *out) {
  mechworld_settings(&c->m, out);
  out->dt = IQ_DT;
  out->iterations = IQ_ITERATIONS;
  out->threaded = 0;
  out->solver = v == IQ_PGS ? RT_SOLVER_PGS : RT_SOLVER_LDLPGS;
  if (v == IQ_EQ_ONLY) out->coupled_rows = out->coupled_contacts = 0;
}
