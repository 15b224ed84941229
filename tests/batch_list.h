/* batch_list.h -- the batch programs the Makefile generates for
 * test_batch and test_rt_batch (BATCHTEST_NAMES), listed in
 * batchtest_programs (its batch_programs.c), ended by a NULL name. */
#ifndef LDLPGS_TESTS_BATCH_LIST_H
#define LDLPGS_TESTS_BATCH_LIST_H

#include "rt_batch.h"

typedef int (*batchtest_factor_fn)(void *work, void *temp, int *lane_pivot);
typedef void (*batchtest_solve_fn)(const void *work, void *x);
typedef struct batchtest_program {
  const char *name; /* MECH_PRECISION_bLANES */
  int lanes;
  const rt_program *scalar; /* the scalar unrolled program, same mechanism and precision (its own file) */
  const rt_program *tables; /* the batch file's own program object */
  batchtest_factor_fn factor, portable_factor;
  batchtest_solve_fn solve, portable_solve;
  const rt_batch_program *batch, *portable_batch; /* the batch file's rt_batch_program */
  const rt_world_desc *desc;    /* the mechanism (the scalar file's) */
  const rt_settings *settings;  /* its settings (the scalar file's) */
} batchtest_program;
extern const batchtest_program batchtest_programs[];

#endif
