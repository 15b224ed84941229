/* measure.h -- the timing protocol of the bench: every method of one
 * mechanism is timed in the same process, in `runs` runs; in each run each
 * method's factorization (minus its input restore, when it has one) and
 * solve is the median of `batches` batches of about batch_s seconds. The
 * batches of the methods are interleaved -- one batch of every method, then
 * the next round -- so a slow stretch of the (shared, virtual) machine hits
 * all methods of a run alike, and the method order rotates from round to
 * round. Ratios against the unrolled programs are formed within each run. */
#ifndef LDLPGS_BENCH_MEASURE_H
#define LDLPGS_BENCH_MEASURE_H

#include "method.h"
#include "results.h"

typedef struct ms_config {
  int runs, batches;
  double batch_s;
  int step_only; /* sm_measure: the full step only (bench --step-only) */
} ms_config;

/* Measures bm[0 .. m->nmethod-1] (those with m->method[k].ok) and fills
 * their factor/solve/vs_ud (and ldl_vs/lib_vs for methods that are not
 * libraries), and m's fastest_lib, lib_vs_ud, lib_vs_uf and ldl_vs_uf
 * (m->ud and m->uf must be set; -1 when absent). */
void ms_measure(bm_method *bm, br_mech *m, const ms_config *cfg);

#endif
