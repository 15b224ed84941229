/* ldlsim_check.h -- `ldlsim --check`: assemble H~ of a mechanism at its
 * initial pose, factor and solve it with the interpreter (refined in
 * double if asked: rt_program_solve_refined), and compare with a dense
 * LDL^T solve in double; with --block-solver pcr solve it with PCR too
 * (rt_program_solve_pcr); prints one JSON object. */
#ifndef LDLPGS_TOOLS_LDLSIM_CHECK_H
#define LDLPGS_TOOLS_LDLSIM_CHECK_H

#include <stdint.h>

#include "arena.h"
#include "diag.h"
#include "rt.h"

typedef struct ldlsim_check_options {
  const char *input;
  uint64_t seed;              /* of the random right-hand side */
  const char *export_dir;     /* write H.mtx, b.mtx, x.mtx there; or NULL */
  rt_precision precision;
  const char *preset;         /* the preset named (reported), or NULL */
  int refine;                 /* refinement steps after the solve */
  int pcr;                    /* 1: also solve with PCR (--block-solver pcr) */
  double pcr_tolerance;       /* its relative residual goal */
  int pcr_max_iterations;     /* its cap (0: dim) */
  int64_t max_rows, max_memory; /* program_options' limits; 0 = the defaults */
} ldlsim_check_options;

gen_status ldlsim_check(const ldlsim_check_options *o, arena *a, diag_list *d);

#endif
