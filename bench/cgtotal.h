/* cgtotal.h -- the instruction total of a callgrind output file, for the
 * benches that run a side under valgrind --tool=callgrind (bench/batch,
 * bench/inequality). Header-only: each bench links only what it uses. */
#ifndef LDLPGS_BENCH_CGTOTAL_H
#define LDLPGS_BENCH_CGTOTAL_H

#include <stdio.h>

/* The total of callgrind's output file, -1 if it has none. */
static inline double cg_total(const char *path) {
  FILE *f = fopen(path, "r");
  char line[512];
  double total = -1;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "summary: %lf", &total) == 1 || sscanf(line, "totals: %lf", &total) == 1) break;
  if (f) fclose(f);
  return total;
}

#endif
