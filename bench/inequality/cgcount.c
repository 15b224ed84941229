/* cgcount.c -- the new step against the equality-only step in instructions:
 * the sample's driven run under valgrind's callgrind, with collection on
 * around each rt_world_step only (the drive and the contacts are not
 * counted), so the count does not depend on the load of the machine (as
 * stepcg.c counts the whole-step methods). See ineq.h. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <valgrind/callgrind.h>

#include "../cgtotal.h"
#include "ineq.h"

int iq_count_child(const char *path, const char *key) {
  const int v = iq_from_key(key);
  iq_case c;
  if (v < 0 || iq_case_open(&c, path) != 0) return 2;
  iq_driven d;
  if (iq_driven_open(&d, &c, (iq_variant)v) != 0) {
    iq_case_close(&c);
    return 2;
  }
  while (d.step < c.steps) {
    iq_driven_prepare(&d);
    CALLGRIND_TOGGLE_COLLECT;
    const rt_status st = iq_driven_step(&d);
    CALLGRIND_TOGGLE_COLLECT;
    if (st != RT_OK) break;
  }
  printf("steps %d\n", d.step);
  iq_driven_close(&d);
  iq_case_close(&c);
  return 0;
}

/* The first line of a file into line (n bytes); "" if none. */
static void first_line(const char *path, char *line, int n) {
  FILE *f = fopen(path, "r");
  line[0] = '\0';
  if (f) {
    if (!fgets(line, n, f)) line[0] = '\0';
    fclose(f);
  }
  line[strcspn(line, "\n")] = '\0';
}

double iq_count(const char *self, const char *scratch, const char *path, iq_variant v, char *why, int n) {
  char cg[4096], log[4096], cmd[16384], line[512];
  snprintf(cg, sizeof cg, "%s/callgrind.out.inequality", scratch);
  snprintf(log, sizeof log, "%s/inequality-count.log", scratch);
  snprintf(cmd, sizeof cmd,
           "valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file='%s' '%s' --count '%s' %s >'%s' "
           "2>/dev/null",
           cg, self, path, iq_key(v), log);
  remove(cg);
  const int st = system(cmd);
  first_line(log, line, sizeof line);
  int steps = 0;
  if (st != 0 || sscanf(line, "steps %d", &steps) != 1 || steps < 1) {
    snprintf(why, (size_t)n, "callgrind run failed (is valgrind installed?)");
    return -1;
  }
  const double total = cg_total(cg);
  remove(cg);
  remove(log);
  if (total < 0) {
    snprintf(why, (size_t)n, "no callgrind total");
    return -1;
  }
  return total / steps;
}
