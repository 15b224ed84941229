/* corun.c -- see corun.h. */
#include "corun.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "btime.h"

/* 16 KiB: in L1 on any current core, as the step's rows and bodies are. */
#define BC_N 2048
/* Passes over the array per timed call: about 20 us. */
#define BC_PASSES 24

typedef struct kernel {
  double a[BC_N];
  double sink;
} kernel;

/* Four chains of multiply-add along the array: loads, multiplies and adds
 * in the proportions of the step's stages, each chain's latency hidden by
 * the others as a sweep's rows hide theirs. */
static void kernel_run(kernel *k) {
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  for (int p = 0; p < BC_PASSES; p++)
    for (int i = 0; i < BC_N; i += 4) {
      s0 = s0 * 0.999 + k->a[i];
      s1 = s1 * 0.999 + k->a[i + 1];
      s2 = s2 * 0.999 + k->a[i + 2];
      s3 = s3 * 0.999 + k->a[i + 3];
    }
  k->sink += s0 + s1 + s2 + s3;
}

static void kernel_init(kernel *k) {
  for (int i = 0; i < BC_N; i++) k->a[i] = 1.0 / (1.0 + i);
  k->sink = 0.0;
}

typedef struct spinner {
  kernel k;
  atomic_int stop, started;
} spinner;

static void *spin(void *arg) {
  spinner *s = arg;
  atomic_store(&s->started, 1);
  while (!atomic_load(&s->stop)) kernel_run(&s->k);
  return NULL;
}

/* Seconds of one kernel call: the median of 5. */
static double one(kernel *k) {
  double t[5];
  for (int i = 0; i < 5; i++) {
    const double t0 = bt_now();
    kernel_run(k);
    t[i] = bt_now() - t0;
  }
  return bt_median(t, 5);
}

void bc_measure(int samples, bc_result *out) {
  memset(out, 0, sizeof *out);
  if (samples < 3) samples = 3;
  kernel *k = malloc(sizeof *k);
  spinner *s = malloc(sizeof *s);
  double *alone = malloc(sizeof *alone * (size_t)samples), *beside = malloc(sizeof *beside * (size_t)samples);
  if (!k || !s || !alone || !beside) abort();
  kernel_init(k);
  kernel_init(&s->k);
  kernel_run(k); /* warm */
  int ok = 1;
  for (int i = 0; i < samples && ok; i++) {
    alone[i] = one(k);
    atomic_init(&s->stop, 0);
    atomic_init(&s->started, 0);
    pthread_t th;
    if (pthread_create(&th, NULL, spin, s) != 0) {
      ok = 0;
      break;
    }
    while (!atomic_load(&s->started)) {
    }
    kernel_run(k); /* the copy settles on its CPU */
    beside[i] = one(k);
    atomic_store(&s->stop, 1);
    pthread_join(th, NULL);
  }
  if (ok) {
    out->measured = 1;
    out->alone_us = bt_median(alone, samples) * 1e6;
    out->beside_us = bt_median(beside, samples) * 1e6;
    out->slowdown = out->beside_us / out->alone_us;
  }
  free(alone);
  free(beside);
  free(s);
  free(k);
}
