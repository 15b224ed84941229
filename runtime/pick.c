/* pick.c -- a choice between two ways of doing the same work that give the
 * same bits, made by timing both where they run (world.h, rt__pick): the
 * world's factorization thread (worker.c: on one thread or handed off)
 * and the batch (batch.c: in lanes or copy by copy). Which is faster
 * depends on the machine, on what else runs there and on the mechanism,
 * so it is measured: a window of RT__PICK_SAMPLES calls of each kind, in
 * the order ABBA ABBA... (the first calls are the slowest, with cold
 * caches and a mechanism still settling, and a window that alternated AB
 * from the start judged the second kind faster where it was not), after
 * RT__PICK_WARMUP calls and every RT__PICK_PERIOD calls, and until the
 * next window the kind whose median was faster. A window costs its slower
 * kind's calls, under 1 % of a period's. Where the work changes (a batch's
 * copies left out or taken back, new settings), the next window comes
 * RT__PICK_AGAIN calls after the last one's start instead (while it keeps
 * changing, a window's slower calls in every RT__PICK_AGAIN). It calls no
 * other module. */
#define _POSIX_C_SOURCE 200809L

#include <time.h>

#include "world.h"

void rt__pick_init(rt__pick *p, int first) {
  p->calls = 0;
  p->next = RT__PICK_WARMUP;
  p->start = -1;
  p->soon = 0;
  p->ntimes[0] = p->ntimes[1] = 0;
  p->choice = first != 0;
}

int rt__pick_plan(rt__pick *p, int *timed) {
  *timed = 0;
  const long long n = p->calls++;
  if (n < p->next) return p->choice;
  const long long s = n - p->next;
  if (s == 0) { /* a window starts */
    p->start = n;
    p->ntimes[0] = p->ntimes[1] = 0;
  }
  if (s == 2 * RT__PICK_SAMPLES - 1) { /* its last call: the next window's start */
    p->next = p->start + (p->soon ? RT__PICK_AGAIN : RT__PICK_PERIOD);
    p->soon = 0;
  }
  *timed = 1;
  return (int)(((s + 1) >> 1) & 1); /* A B B A: a steady drift of the machine's speed cancels */
}

void rt__pick_again(rt__pick *p) {
  if (p->start < 0) return;
  if (p->calls > p->next) { /* a window under way */
    p->soon = 1;
    return;
  }
  const long long at = p->start + RT__PICK_AGAIN;
  if (at < p->next) p->next = at > p->calls ? at : p->calls;
}

static double median(double *v, int n) {
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
      const double t = v[j];
      v[j] = v[j - 1];
      v[j - 1] = t;
    }
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void rt__pick_timed(rt__pick *p, int kind, double seconds, double margin) {
  int *n = &p->ntimes[kind != 0];
  if (*n < RT__PICK_SAMPLES) p->times[kind != 0][(*n)++] = seconds;
  if (p->ntimes[0] < RT__PICK_SAMPLES || p->ntimes[1] < RT__PICK_SAMPLES) return;
  p->choice = median(p->times[1], RT__PICK_SAMPLES) < margin * median(p->times[0], RT__PICK_SAMPLES);
  p->ntimes[0] = p->ntimes[1] = 0;
}

double rt__pick_now(void) {
  struct timespec t;
#if defined(CLOCK_MONOTONIC)
  clock_gettime(CLOCK_MONOTONIC, &t);
#else
  timespec_get(&t, TIME_UTC);
#endif
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
