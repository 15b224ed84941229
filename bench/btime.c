/* btime.c -- timing for the benchmarks (see btime.h). */
#define _POSIX_C_SOURCE 200809L
#include "btime.h"

#include <stdlib.h>
#include <time.h>

double bt_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int bt_calibrate(bt_fn fn, void *ctx, double target_s) {
  int reps = 1;
  for (;;) {
    double t0 = bt_now();
    for (int r = 0; r < reps; r++) fn(ctx);
    double t = bt_now() - t0;
    if (t >= target_s || reps >= (1 << 24)) break;
    /* grow towards the target, at most 8x per step */
    double grow = t > 0 ? target_s / t : 8.0;
    reps = (int)(reps * (grow > 8.0 ? 8.0 : grow < 2.0 ? 2.0 : grow));
  }
  return reps;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double bt_median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

bt_stat bt_stats(double *v, int n) {
  bt_stat s;
  s.med = bt_median(v, n);
  s.lo = v[0];
  s.hi = v[n - 1];
  return s;
}

double bt_batch(bt_fn fn, void *ctx, int reps) {
  double t0 = bt_now();
  for (int r = 0; r < reps; r++) fn(ctx);
  return (bt_now() - t0) / reps;
}

double bt_median_time(bt_fn fn, void *ctx, int reps, int batches) {
  double *t = malloc(sizeof *t * (size_t)batches);
  if (!t) abort();
  for (int k = 0; k < batches; k++) t[k] = bt_batch(fn, ctx, reps);
  double m = bt_median(t, batches);
  free(t);
  return m;
}
