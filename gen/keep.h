/* keep.h -- what ldlgen --keep-order OLD.c keeps of a previous program:
 * its elimination order (the pivots the mechanism still has in OLD.c's
 * order, each new one just before the first of its neighbours there) and
 * its shattering (each constraint on the shard it had). */
#ifndef LDLPGS_GEN_KEEP_H
#define LDLPGS_GEN_KEEP_H

#include <stdint.h>

#include "graph.h"
#include "mech.h"

/* perm (g->n) receives the kept order of g, given the previous program's
 * pivot names in order (names of g not among them are new; names among
 * them that g does not have are gone). Returns 3 x flops of perm. `fresh`
 * is g's order without the previous program (the best order): new pivots
 * no old one leads to come last, in its order. *kept receives how many of
 * g's pivots the previous program had; old_of (g->n, or NULL) each node's
 * place in names -- its own name's, or the gone one's it took as renamed
 * (renamed() in keep.c) -- or -1 for a new one. */
int64_t keep_order(const cgraph *g, const char *const *names, int nnames, const int *fresh, int *perm, int *kept,
                   int *old_of);

/* The kinds of generated functions --keep-order keeps: a pivot the
 * previous program had stays with the pivots it shared a function of the
 * kind with (chunk.h, chunk_cut_kept), so that a renamed constraint, whose
 * new name's hash decides its cuts otherwise, changes only the lines with
 * its name. */
typedef enum keep_cut_kind {
  KEEP_CUT_FORWARD,  /* solve_forward_<id>: the forward solve's, in pivot order */
  KEEP_CUT_BACKWARD, /* solve_backward_<id>: the backward solve's, from the last pivot */
  KEEP_CUT_ASSEMBLY, /* asm_part_<id>: the assembly's, in pivot order */
  KEEP_CUT_SWEEP,    /* sweep_part_<id>: the sweep's, in constraint order */
  KEEP_CUT_KINDS
} keep_cut_kind;

/* One end of a previous program's constraint on a shard: its banner's
 * "CONS: ..., on BODY#SHARD" (gdiff.c reads them). */
typedef struct keep_end {
  const char *cons, *body;
  int shard;
} keep_end;

/* The shattering that keeps a previous program's, given its pivot names
 * (its shard welds "BODY#weldN" give each shattered body's shard count)
 * and its constraint ends on shards: a body it shattered that still
 * carries more than `threshold` keeps its count (at most its constraint
 * count), each constraint still on it keeps its shard, and the ones new to
 * it go, in name order, to its shard with the fewest constraints (the
 * lowest on a tie); other bodies take fresh's count and shatter_assign's
 * shards. shards (m->nbody) and assign (2 m->ncons) receive them, as
 * smech_build_assigned takes them. Returns 1 if they differ from fresh's
 * with shatter_assign's shards, else 0. */
int keep_shards(const mech *m, const char *const *names, int nnames, const keep_end *ends, int nends,
                const int *fresh, int threshold, int *shards, int *assign);

#endif
