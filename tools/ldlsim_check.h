/* ldlsim_check.h -- `ldlsim --check`: assemble H~ of a mechanism at its
 * initial pose, factor and solve it with the interpreter, and compare with a
 * dense LDL^T solve in double; prints one JSON object. */
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
  int64_t max_rows, max_memory; /* program_options' limits; 0 = the defaults */
} ldlsim_check_options;

gen_status ldlsim_check(const ldlsim_check_options *o, arena *a, diag_list *d);

#endif
