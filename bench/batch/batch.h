/* batch.h -- make bench-batch (issue 21, part 5): the batch factor
 * (ldlgen --batch N) against N scalar factors of the same mechanism.
 *
 * bench/batch.mk generates, per mechanism and configuration (double with 8
 * lanes, float with 16), the scalar unrolled program and the batch program,
 * compiles both with the same target flags (AVX-512 where the CPU has it,
 * else AVX2; -ffp-contract=off) and lists them in bb_entries. */
#ifndef LDLPGS_BENCH_BATCH_H
#define LDLPGS_BENCH_BATCH_H

#include "rt.h"

typedef int (*bb_factor_fn)(void *work, void *temp, int *lane_pivot);

/* One entry of the generated list (null-ended: mech 0). */
typedef struct bb_entry {
  const char *mech;
  int lanes;
  double flops;              /* one copy's factor: ldlgen --stats "flops" */
  const rt_program *scalar;  /* same mechanism and precision, scalar */
  bb_factor_fn factor;       /* the batch program's factor */
  double cc_scalar, cc_batch; /* compile CPU seconds of the two objects */
} bb_entry;
extern const bb_entry bb_entries[];
extern const char bb_arch[];  /* "avx512" or "avx2" */
extern const char bb_cflags[];

/* Statistics over the runs: median, min, max. */
typedef struct bb_stat {
  double med, lo, hi;
} bb_stat;

/* One measured entry. Times are seconds per call of N copies (the
 * workspace restore subtracted), throughputs per second. */
typedef struct bb_row {
  const bb_entry *e;
  const char *precision;
  bb_stat t_scalar, t_batch;  /* N scalar factors; one batch factor */
  double copy_scalar, copy_batch; /* the restore alone (median) */
  double speedup;             /* t_scalar.med / t_batch.med */
  double cps_scalar, cps_batch; /* copy-factors per second */
  double gf_scalar, gf_batch; /* GFLOP/s */
  double peak;                /* the measured vector peak of the precision */
  double frac;                /* gf_batch / peak */
  long subnormal, entries;    /* subnormal values in the N factored workspaces, of all */
} bb_row;

typedef struct bb_report {
  const char *revision, *cpu, *peak_name;
  double peak[2]; /* [0] double, [1] float: the vector peak (max over samples) */
  int runs, batches;
  bb_row *rows;
  int nrows;
} bb_report;

void bb_write_md(const bb_report *r, const char *path);
void bb_write_json(const bb_report *r, const char *path);

#endif
