/* timing.c -- the new step against the equality-only step in time: both
 * step the sample's driven run side by side in one process, batch by
 * batch, so that a busy machine slows both alike (as fullstep.c times the
 * peers). See ineq.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ineq.h"

static const iq_variant timed[2] = {IQ_EQ_ONLY, IQ_NEW};

/* Up to IQ_BATCH steps of d; seconds per step (only the steps counted), 0
 * when the run is over, -1 if a step failed. */
static double batch(iq_driven *d, int *coupled_sum, int *coupled_max) {
  double spent = 0.0;
  int done = 0;
  for (; done < IQ_BATCH && d->step < d->c->steps; done++) {
    iq_driven_prepare(d);
    const double t0 = bt_now();
    const rt_status st = iq_driven_step(d);
    spent += bt_now() - t0;
    if (st != RT_OK) return -1.0;
    if (coupled_sum) {
      const int n = rt_world_step_info(d->w)->coupled_rows;
      *coupled_sum += n;
      if (n > *coupled_max) *coupled_max = n;
    }
  }
  return done ? spent / done : 0.0;
}

/* One run: fresh worlds, the whole driven run; the median batch of each
 * into med[]. Returns 0, or -1 (why filled). */
static int one_run(const iq_case *c, int run, double *per_batch, int nb, double med[2], iq_cost *out) {
  iq_driven d[2];
  if (iq_driven_open(&d[0], c, timed[0]) != 0) return -1;
  if (iq_driven_open(&d[1], c, timed[1]) != 0) {
    iq_driven_close(&d[0]);
    return -1;
  }
  int sum = 0, max = 0, rc = 0;
  for (int b = 0; b < nb && rc == 0; b++)
    for (int j = 0; j < 2; j++) {
      const int k = (b + run + j) % 2; /* alternating order */
      const int watch = run == 0 && timed[k] == IQ_NEW;
      const double t = batch(&d[k], watch ? &sum : NULL, &max);
      if (t < 0) {
        snprintf(out->why, sizeof out->why, "%s: a step failed at step %d", iq_key(timed[k]), d[k].step);
        rc = -1;
        break;
      }
      per_batch[k * nb + b] = t;
    }
  if (rc == 0) {
    for (int k = 0; k < 2; k++) med[k] = bt_median(per_batch + k * nb, nb);
    if (run == 0) {
      out->coupled_mean = (double)sum / c->steps;
      out->coupled_max = max;
    }
  }
  iq_driven_close(&d[0]);
  iq_driven_close(&d[1]);
  return rc;
}

void iq_time(const iq_case *c, int runs, iq_cost *out) {
  const int nb = (c->steps + IQ_BATCH - 1) / IQ_BATCH;
  double *per_batch = malloc(sizeof(double) * 2 * (size_t)nb);
  double *per_run = malloc(sizeof(double) * 3 * (size_t)runs);
  if (!per_batch || !per_run) abort();
  out->timed = 0;
  out->runs = runs;
  out->batches = nb;
  int rc = 0;
  for (int r = 0; r < runs && rc == 0; r++) {
    double med[2];
    rc = one_run(c, r, per_batch, nb, med, out);
    if (rc == 0) {
      per_run[r] = med[0] * 1e6;
      per_run[runs + r] = med[1] * 1e6;
      per_run[2 * runs + r] = med[1] / med[0];
    }
  }
  if (rc == 0) {
    out->us[IQ_EQ_ONLY] = bt_stats(per_run, runs);
    out->us[IQ_NEW] = bt_stats(per_run + runs, runs);
    out->ratio = bt_stats(per_run + 2 * runs, runs);
    out->timed = 1;
  }
  free(per_batch);
  free(per_run);
}
