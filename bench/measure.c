/* measure.c -- the timing protocol (see measure.h). */
#include "measure.h"

#include <stdlib.h>
#include <string.h>

static bt_stat stat_of(double *v, int n) { return bt_stats(v, n); }

static bt_stat no_stat(void) {
  bt_stat s = {0, 0, 0};
  return s;
}

void ms_measure(bm_method *bm, br_mech *m, const ms_config *cfg) {
  const int nm = m->nmethod, runs = cfg->runs;
  int reps_f[BR_MAX_METHODS], reps_r[BR_MAX_METHODS], reps_s[BR_MAX_METHODS];
  double *tf = calloc((size_t)(nm * runs), sizeof *tf), *ts = calloc((size_t)(nm * runs), sizeof *ts);
  double *tmp = calloc((size_t)runs, sizeof *tmp);
  if (!tf || !ts || !tmp) abort();
  /* warm-up: batch sizes */
  for (int k = 0; k < nm; k++) {
    if (!m->method[k].ok) continue;
    reps_f[k] = bt_calibrate(bm[k].factor, bm[k].state, cfg->batch_s);
    reps_r[k] = bm[k].restore ? bt_calibrate(bm[k].restore, bm[k].state, cfg->batch_s) : 0;
    reps_s[k] = bt_calibrate(bm[k].solve, bm[k].state, cfg->batch_s);
  }
  const int nb = cfg->batches;
  double *bf = calloc((size_t)(nm * nb), sizeof *bf), *br = calloc((size_t)(nm * nb), sizeof *br);
  double *bs = calloc((size_t)(nm * nb), sizeof *bs);
  if (!bf || !br || !bs) abort();
  for (int r = 0; r < runs; r++) {
    /* interleaved rounds: one batch of each method */
    for (int b = 0; b < nb; b++)
      for (int i = 0; i < nm; i++) {
        const int k = (i + r + b) % nm;
        if (!m->method[k].ok) continue;
        bm[k].factor(bm[k].state); /* untimed: caches warm again after the other methods */
        bf[k * nb + b] = bt_batch(bm[k].factor, bm[k].state, reps_f[k]);
        br[k * nb + b] = bm[k].restore ? bt_batch(bm[k].restore, bm[k].state, reps_r[k]) : 0;
        bs[k * nb + b] = bt_batch(bm[k].solve, bm[k].state, reps_s[k]);
      }
    for (int k = 0; k < nm; k++) {
      if (!m->method[k].ok) continue;
      tf[k * runs + r] = bt_median(bf + k * nb, nb) - bt_median(br + k * nb, nb);
      ts[k * runs + r] = bt_median(bs + k * nb, nb);
    }
  }
  free(bf);
  free(br);
  free(bs);
  /* summaries; ratios within runs */
  const int ldl = br_find(m, "SuiteSparse LDL+AMD", "double");
  for (int k = 0; k < nm; k++) {
    br_method *o = &m->method[k];
    if (!o->ok) continue;
    memcpy(tmp, tf + k * runs, sizeof *tmp * (size_t)runs);
    o->factor = stat_of(tmp, runs);
    memcpy(tmp, ts + k * runs, sizeof *tmp * (size_t)runs);
    o->solve = stat_of(tmp, runs);
    o->vs_ud = no_stat();
    if (m->ud >= 0) {
      for (int r = 0; r < runs; r++) tmp[r] = tf[k * runs + r] / tf[m->ud * runs + r];
      o->vs_ud = stat_of(tmp, runs);
    }
  }
  /* the fastest library: smallest median; per run the fastest of that run */
  m->fastest_lib = -1;
  for (int k = 0; k < nm; k++)
    if (m->method[k].ok && m->method[k].library &&
        (m->fastest_lib < 0 || m->method[k].factor.med < m->method[m->fastest_lib].factor.med))
      m->fastest_lib = k;
  m->lib_vs_ud = m->lib_vs_uf = m->ldl_vs_uf = no_stat();
  for (int ref = 0; ref < 2 && m->fastest_lib >= 0; ref++) {
    const int u = ref == 0 ? m->ud : m->uf;
    if (u < 0 || !m->method[u].ok) continue;
    for (int r = 0; r < runs; r++) {
      double best = -1;
      for (int k = 0; k < nm; k++)
        if (m->method[k].ok && m->method[k].library && (best < 0 || tf[k * runs + r] < best)) best = tf[k * runs + r];
      tmp[r] = best / tf[u * runs + r];
    }
    if (ref == 0)
      m->lib_vs_ud = stat_of(tmp, runs);
    else
      m->lib_vs_uf = stat_of(tmp, runs);
  }
  /* every method that is not a library against LDL and the fastest library */
  for (int k = 0; k < nm && m->fastest_lib >= 0; k++) {
    br_method *o = &m->method[k];
    o->ldl_vs = o->lib_vs = no_stat();
    if (!o->ok || o->library) continue;
    if (ldl >= 0 && m->method[ldl].ok) {
      for (int r = 0; r < runs; r++) tmp[r] = tf[ldl * runs + r] / tf[k * runs + r];
      o->ldl_vs = stat_of(tmp, runs);
    }
    for (int r = 0; r < runs; r++) {
      double best = -1;
      for (int j = 0; j < nm; j++)
        if (m->method[j].ok && m->method[j].library && (best < 0 || tf[j * runs + r] < best)) best = tf[j * runs + r];
      tmp[r] = best / tf[k * runs + r];
    }
    o->lib_vs = stat_of(tmp, runs);
  }
  if (ldl >= 0 && m->method[ldl].ok && m->uf >= 0 && m->method[m->uf].ok) {
    for (int r = 0; r < runs; r++) tmp[r] = tf[ldl * runs + r] / tf[m->uf * runs + r];
    m->ldl_vs_uf = stat_of(tmp, runs);
  }
  free(tf);
  free(ts);
  free(tmp);
}
