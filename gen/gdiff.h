/* gdiff.h -- the structural diff of two mechanisms or two generated files
 * (ldlgen --diff OLD NEW [--json]) and the summary git shows before a
 * generated file (ldlgen --textconv FILE.c).
 *
 * Either side is a mechanism file (run through the symbolic phase and
 * emitted in unrolled mode, float, as by default) or a generated .c file
 * (read back: its banner's statistics and pivot order, the program's tables
 * and functions, the mechanism part). Both become one summary: bodies and
 * constraints (for a generated file, the upper-cased names of its enums),
 * the pivots in order, dim, fill blocks, flops, workspace, structure hash,
 * and each pivot's code -- its factor function, its lines of the block and
 * RSI tables, its solve steps -- which is written relative to the pivots'
 * bases, so it changes only when the pivot's blocks or operations do. */
#ifndef LDLPGS_GEN_GDIFF_H
#define LDLPGS_GEN_GDIFF_H

#include <stdio.h>

#include "diag.h"
#include "keep.h"

/* Prints the diff of old_path and new_path on out; json selects JSON. */
gen_status gdiff_run(const char *old_path, const char *new_path, int json, FILE *out, diag_list *d);
/* The pivot names of a generated program (its banner's pivot order), in
 * order, its constraints' ends on shards (the pivot lines' "on BODY#S")
 * and the functions its pivots are in (*chunks: n x KEEP_CUT_KINDS, as
 * program_options' keep_chunks), for ldlgen --keep-order: *names, *ends,
 * *chunks and every string in them malloc'ed, the caller's to free;
 * GEN_ERR_IO or GEN_ERR_INPUT with a diagnostic naming the file when it
 * cannot be read or has no pivot order. */
gen_status gdiff_pivot_order(const char *path, char ***names, int *n, keep_end **ends, int *nends, int **chunks,
                             diag_list *d);
/* Frees what gdiff_pivot_order gave (NULL and 0 too). */
void gdiff_pivot_order_free(char **names, int n, keep_end *ends, int nends, int *chunks);
/* Prints the summary of a generated file, then the file. */
gen_status gdiff_textconv(const char *path, FILE *out, diag_list *d);

#endif
