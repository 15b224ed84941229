/* sample.h -- everything measured for one mechanism file: its symbolic
 * phase, the generated programs linked into the driver (registry.h) against
 * the libraries on the same H~ at the initial pose, and the ordering table.
 *
 * A sample gets every method (with the programs' -mavx2 build as extra
 * methods "unrolled (AVX2 build)" where the CPU has AVX2); a member of a scaling series gets the
 * unrolled double program and SuiteSparse LDL only. */
#ifndef LDLPGS_BENCH_SAMPLE_H
#define LDLPGS_BENCH_SAMPLE_H

#include "measure.h"
#include "results.h"

/* Measures the mechanism at `path`. Returns 0, or -1 with out->error set. */
int sm_measure(const char *path, const char *series, int param, const ms_config *cfg, br_mech *out);

/* 1 if this CPU runs the -mavx2 build of the programs (registry.h). */
int sm_avx2(void);

#endif
