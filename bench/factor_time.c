/* factor_time.c -- factor time of each generated sample program: its
 * unrolled entry point against the interpreter on the same tables, median of
 * many repetitions, both measured in this one process. (The full benchmark
 * against external libraries is `make bench`, a later issue.)
 *
 * The workspace is the mechanism's own H~ at its initial pose (loaded from
 * mechanisms/NAME.lua, assembled through the program's layout, epsilon from
 * the mechanism's settings), so the arithmetic is what a game would see. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "load.h"
#include "numeric.h"
#include "program.h"
#include "rt.h"

extern const rt_program *const gentest_programs[];

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Assembles the mechanism's H~ into work through p's layout; 0 if the
 * mechanism's program (default options, or unshattered) does not have p's
 * structure. */
static int fill(const rt_program *p, void *work) {
  char path[256];
  snprintf(path, sizeof path, "mechanisms/%s.lua", p->name);
  int ok = 0;
  for (int shatter_off = 0; shatter_off < 2 && !ok; shatter_off++) {
    arena a;
    arena_init(&a);
    diag_list d;
    diag_init(&d);
    mech m;
    program g;
    program_options o;
    program_default_options(&o);
    if (shatter_off) o.shatter = 0;
    if (load_mech(&a, path, NULL, &m, &d) == GEN_OK && program_build(&a, &m, &o, &g, &d) == GEN_OK &&
        g.sym.dim == p->dim && g.sym.work_size == p->work_size && g.hash == p->structure_hash) {
      numeric n;
      numeric_build(&a, &g, &n);
      rt_assemble(p, n.J, n.inv_mass, n.inv_inertia, m.settings.epsilon, work);
      ok = 1;
    }
    diag_free(&d);
    arena_free(&a);
  }
  return ok;
}

/* Median seconds of one factorization, over `runs` timed batches. */
static double median_factor(const rt_program *p, int (*factor)(const rt_program *, void *, void *),
                            const void *pristine, void *work, void *temp, size_t bytes) {
  enum { RUNS = 31 };
  double t[RUNS];
  int reps = 1;
  /* warm up and pick a batch size of about 1 ms */
  for (;;) {
    double t0 = now();
    for (int r = 0; r < reps; r++) {
      memcpy(work, pristine, bytes);
      if (factor(p, work, temp) != -1) return -1;
    }
    if (now() - t0 > 1e-3 || reps > (1 << 20)) break;
    reps *= 2;
  }
  for (int k = 0; k < RUNS; k++) {
    double t0 = now();
    for (int r = 0; r < reps; r++) {
      memcpy(work, pristine, bytes);
      factor(p, work, temp);
    }
    t[k] = (now() - t0) / reps;
  }
  /* the copy is part of both; subtract its own median */
  qsort(t, RUNS, sizeof t[0], cmp_double);
  return t[RUNS / 2];
}

static double median_copy(const void *pristine, void *work, size_t bytes) {
  enum { RUNS = 31, REPS = 1000 };
  double t[RUNS];
  for (int k = 0; k < RUNS; k++) {
    double t0 = now();
    for (int r = 0; r < REPS; r++) {
      memcpy(work, pristine, bytes);
      __asm__ volatile("" ::: "memory");
    }
    t[k] = (now() - t0) / REPS;
  }
  qsort(t, RUNS, sizeof t[0], cmp_double);
  return t[RUNS / 2];
}

int main(void) {
  printf("factor time per call, median of 31 batches (copy of the workspace subtracted)\n");
  printf("%-34s %6s %7s %12s %12s %8s\n", "program", "dim", "prec", "unrolled us", "tables us", "speedup");
  for (int i = 0; gentest_programs[i]; i++) {
    const rt_program *p = gentest_programs[i];
    size_t scalar = p->precision == RT_FLOAT ? sizeof(float) : sizeof(double);
    size_t bytes = scalar * (size_t)p->work_size;
    void *pristine = malloc(bytes), *work = malloc(bytes), *temp = malloc(scalar * (size_t)p->temp_size);
    if (!fill(p, pristine)) {
      printf("%-34s (no mechanism with this structure in mechanisms/)\n", p->name);
      continue;
    }
    double copy = median_copy(pristine, work, bytes);
    double tu = median_factor(p, rt_program_factor, pristine, work, temp, bytes) - copy;
    double ti = median_factor(p, rt_interp_factor, pristine, work, temp, bytes) - copy;
    printf("%-34s %6d %7s %12.2f %12.2f %7.2fx\n", p->name, p->dim, p->precision == RT_FLOAT ? "float" : "double",
           1e6 * tu, 1e6 * ti, ti / tu);
    free(pristine);
    free(work);
    free(temp);
  }
  return 0;
}
