/* btime.h -- timing for the benchmarks: a monotonic clock, the median time
 * of one call over many short batches, and order statistics.
 *
 * Wall-clock time on a VM jumps when the guest is descheduled, so one
 * measurement is never one long loop: a call is repeated `reps` times per
 * batch (a batch lasts a fraction of a millisecond), and the median over the
 * batches is kept. A benchmark repeats that in several runs and reports the
 * median and the min-max over the runs. */
#ifndef LDLPGS_BENCH_BTIME_H
#define LDLPGS_BENCH_BTIME_H

/* Seconds on CLOCK_MONOTONIC. */
double bt_now(void);

typedef void (*bt_fn)(void *ctx);

/* Warm-up: calls fn in growing batches until one batch lasts target_s, and
 * returns that batch's repetition count (at least 1). */
int bt_calibrate(bt_fn fn, void *ctx, double target_s);

/* Seconds per call of one batch of `reps` calls. */
double bt_batch(bt_fn fn, void *ctx, int reps);

/* Median seconds of one call over `batches` batches of `reps` calls. */
double bt_median_time(bt_fn fn, void *ctx, int reps, int batches);

/* Median of v[0..n-1] (v is sorted in place); n >= 1. */
double bt_median(double *v, int n);

/* Median, minimum and maximum of v[0..n-1] (v is sorted in place). */
typedef struct bt_stat {
  double med, lo, hi;
} bt_stat;
bt_stat bt_stats(double *v, int n);

#endif
