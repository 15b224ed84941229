/* cg.c -- the whole step in instructions (batch.h): each side of an entry
 * run alone under valgrind's callgrind (bb_step_cg_child, collection on
 * around the step calls only: the drive and the contacts are not counted),
 * so that the comparison does not depend on the load of a shared machine.
 *
 * valgrind cannot run AVX-512 code, so on an AVX-512 machine the counted
 * binary is a second build of this bench with the AVX2 flags (the Makefile
 * passes it as --cg-bin); the counts then are for 256-bit lanes, not the
 * 512-bit lanes the times are for. That binary also times the factor
 * alone in its own build (bb_cg_factor), which a game shipping that build
 * would get. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cgtotal.h"
#include "batch.h"

const bb_entry *bb_find_entry(const char *mech, const char *precision) {
  for (const bb_entry *e = bb_entries; e->mech; e++)
    if (strcmp(e->mech, mech) == 0 && strcmp(e->scalar->precision == RT_FLOAT ? "float" : "double", precision) == 0)
      return e;
  return NULL;
}

/* Instructions per copy-step of one side, or -1 (why in row->cg_note). */
static double count(const char *bin, const char *work, int side, int warm, int steps, bb_step_row *row) {
  char out[1024], log[1024], cmd[4096], line[256] = "";
  snprintf(out, sizeof out, "%s/callgrind.out.batch", work);
  snprintf(log, sizeof log, "%s/batch-cg.log", work);
  snprintf(cmd, sizeof cmd,
           "valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file='%s' '%s' --cg-run %s %s %d %d %d "
           ">'%s' 2>/dev/null",
           out, bin, row->e->mech, row->precision, side, warm, steps, log);
  remove(out);
  const int st = system(cmd);
  FILE *f = fopen(log, "r");
  if (f) {
    if (!fgets(line, sizeof line, f)) line[0] = '\0';
    fclose(f);
  }
  long copy_steps = 0;
  if (st != 0 || sscanf(line, "ok %ld copy-steps", &copy_steps) != 1 || copy_steps < 1) {
    snprintf(row->cg_note, sizeof row->cg_note, "the callgrind run failed (is valgrind installed?)");
    return -1;
  }
  const double total = cg_total(out);
  remove(out);
  remove(log);
  if (total < 0) {
    snprintf(row->cg_note, sizeof row->cg_note, "no callgrind total");
    return -1;
  }
  return total / (double)copy_steps;
}

void bb_step_cg(const char *bin, const char *bin_arch, const char *work, int warm, int steps, bb_step_row *row) {
  row->cg_scalar = row->cg_batch = 0;
  const double s = count(bin, work, 0, warm, steps, row);
  const double b = s > 0 ? count(bin, work, 1, warm, steps, row) : -1;
  if (s > 0 && b > 0) {
    row->cg_scalar = s;
    row->cg_batch = b;
    snprintf(row->cg_note, sizeof row->cg_note, "%s build", bin_arch);
  }
}

int bb_cg_factor(const char *bin, const char *only, int random, int runs, int batches, bb_other_row *out, int max) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'%s' --no-step --factor-lines --runs %d --batches %d --input %s%s%s 2>/dev/null", bin, runs,
           batches, random ? "random" : "mechanism", only ? " --only " : "", only ? only : "");
  FILE *p = popen(cmd, "r");
  if (!p) return -1;
  char line[512];
  int n = 0;
  while (fgets(line, sizeof line, p)) {
    bb_other_row w;
    if (n < max && sscanf(line, "factor %39s %7s %d %lf %lf", w.mech, w.precision, &w.lanes, &w.t_scalar, &w.t_batch) == 5)
      out[n++] = w;
  }
  return pclose(p) == 0 ? n : -1;
}
