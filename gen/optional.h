/* optional.h -- the optional rows of a program: the joints' inequality rows
 * (motors, springs, ropes, limits) that LDL-PGS couples to the program's
 * factor through the Schur complement of the equality rows each step they
 * take part (runtime/schur.c). They never enter the program: its layout
 * and structure hash do not depend on them. */
#ifndef LDLPGS_GEN_OPTIONAL_H
#define LDLPGS_GEN_OPTIONAL_H

#include <stdint.h>

#include "arena.h"
#include "program.h"

/* The mechanism's optional rows: one per motor, spring, rope and limit. */
int optional_rows(const mech *m);

/* Flops of the step's direct work with every optional row coupled: the
 * factor's, plus for each optional row the forward solve along the
 * elimination-tree paths of the pivots on its bodies (d (d - 1) + 2 h d + d
 * per pivot on them), the products of S (2 flops a row of each pair's
 * shorter path) and the dense Cholesky factor of S (k^3 / 3). */
int64_t optional_flops_all_active(arena *scratch, const program *p);

#endif
