/* program.h -- the program IR: everything the emitter and the runtime
 * interpreter need to factor and solve one mechanism's H, decided once by
 * the symbolic phase: the solver view (shards, welds, shard map), the
 * constraint graph, the pivot order, the packed layout with its RSI, the
 * flop count and the structure hash. */
#ifndef LDLPGS_GEN_PROGRAM_H
#define LDLPGS_GEN_PROGRAM_H

#include <stdint.h>
#include <stdio.h>

#include "arena.h"
#include "diag.h"
#include "graph.h"
#include "keep.h"
#include "mech.h"
#include "order.h"
#include "shatter.h"
#include "symbolic.h"

#define PROGRAM_SHATTER_FROM_MECH (-1)

/* Limits (README.md, "Limits"): a mechanism past them is refused before the
 * work that would exceed them starts, with file:line of its return. */
#define PROGRAM_MAX_ROWS_DEFAULT 100000         /* rows of H (equality rows, shard welds included) */
#define PROGRAM_MAX_MEMORY_DEFAULT (2048LL << 20) /* bytes the symbolic phase and program need */
/* --keep-tolerance: the flops (percent) a kept structure may cost more than
 * the fresh one. A factor is a tenth of the sample scissor lift's step, so
 * 3 % of its flops is within the noise of make bench; keeping the
 * multi_wheel's shattering when a wheel goes costs 2.4 %. */
#define PROGRAM_KEEP_TOLERANCE_DEFAULT 3.0
/* ... but at least this many flops unless it is 0: a small program's few
 * percent are a few flops (the elimination example without a joint: its
 * kept order 20 flops, 5.7 %, over the fresh one's 352, which mirrored
 * every pivot and changed 20 % of the lines instead of 12 %), and 100 flops
 * are at most 1 % of the smallest sample's step (make bench-cg). */
#define PROGRAM_KEEP_FLOOR_FLOPS 100

typedef struct program_options {
  order_kind order;  /* default ORDER_BEST */
  int shatter;       /* threshold; 0 = off; PROGRAM_SHATTER_FROM_MECH = the mechanism's setting */
  int64_t max_rows;   /* default PROGRAM_MAX_ROWS_DEFAULT */
  int64_t max_memory; /* default PROGRAM_MAX_MEMORY_DEFAULT */
  /* --keep-order: a previous program's pivot names in order and its
   * constraints' ends on shards (keep.h). Its shattering and the order
   * that keeps its pivots are taken when they cost at most keep_tolerance
   * percent more flops than the fresh shattering and `order`'s; else its
   * order alone on the fresh shattering, within the same margin; else
   * neither. NULL: none. */
  const char *const *keep;
  int nkeep;
  const keep_end *keep_ends;
  int nkeep_ends;
  /* its generated functions: nkeep x KEEP_CUT_KINDS, entry i K the
   * function of kind K its pivot i was in, counted from 0 in the kind's
   * order, -1 if not known (gdiff_pivot_order); NULL: none */
  const int *keep_chunks;
  double keep_tolerance; /* percent, >= 0; default PROGRAM_KEEP_TOLERANCE_DEFAULT
                            (and PROGRAM_KEEP_FLOOR_FLOPS at least, if > 0) */
} program_options;

typedef struct program {
  const mech *m;
  smech s;                 /* solver view: shards and welds */
  cgraph g;                /* constraint graph of s */
  symbolic sym;            /* order, layout, RSI */
  order_kind order;
  const char *heuristic;   /* the heuristic that produced the order */
  int shatter_threshold;   /* 0 = off */
  int64_t flops3_by_order[ORDER_NKINDS]; /* on the final solver graph */
  int unshattered_dim;     /* = s.dim when nothing is shattered */
  int64_t unshattered_flops3; /* same ordering kind, no body shattered */
  double unshattered_density;
  int64_t nnz;             /* structural nonzeros of the full H */
  double density;          /* nnz / dim^2 */
  uint64_t hash;           /* rt_structure_hash of the mechanism */
  /* with program_options.keep (keep_asked): whether its order was taken,
   * the pivots it kept, and its 3 x flops against the fresh order's (the
   * factor's and S's estimated build: couple.h) */
  int keep_asked, keep_taken, keep_pivots;
  int keep_shards_taken; /* its shattering kept too (and differing from the fresh one) */
  int *keep_old;          /* with its order taken: each node's place in keep, or -1 (keep_order's old_of) */
  const int *keep_chunks; /* program_options' keep_chunks, with its order taken */
  int64_t keep_flops3, fresh_flops3;
  /* pivots the order put last for the Schur complement (couple.h), and
   * 3 x the flops of building S in the program's order (an estimate: the
   * rows the runtime couples by default, contacts at rest) */
  int deferred_pivots;
  int64_t schur_flops3;
} program;

void program_default_options(program_options *o);

/* The function of kind K the previous program (--keep-order, its order
 * taken) had node c's pivot in (or, renamed, the pivot c took the place
 * of), as keep_chunks counts them; -1 if not known (a new pivot, no
 * previous program, or one without such functions). */
int program_kept_chunk(const program *p, keep_cut_kind kind, int c);

/* Runs the symbolic phase on a loaded mechanism. GEN_ERR_LIMIT (with a
 * diagnostic) when it has more rows than o->max_rows, or its constraint
 * graph or factorization would need more than o->max_memory bytes. */
gen_status program_build(arena *a, const mech *m, const program_options *o, program *p, diag_list *d);

/* Bytes the symbolic phase and the program are predicted to need: for a
 * constraint graph with `pairs` pairs of constraints on one body, and for a
 * factorization of n pivots, nblock edge blocks, nrsi RSI entries and a
 * workspace of `work` scalars. The checks of program_build use these. */
int64_t program_graph_bytes(int64_t n, int64_t pairs);
int64_t program_factor_bytes(int64_t n, int64_t nblock, int64_t nrsi, int64_t work);

/* The C output's cost: the emitter and the template expansion hold about
 * 20 times the text they write, which grows with the pivots and the pairs
 * of blocks in each column (unrolled) or the RSI (tables); measured on the
 * scaling series. GEN_ERR_LIMIT (with a diagnostic at the return line) if
 * that and the program exceed o->max_memory. */
int64_t program_emit_bytes(const program *p, int tables);
gen_status program_check_emit(const program *p, const program_options *o, int tables, diag_list *d);

/* Structural nonzeros of the full (symmetric) H of a constraint graph. */
int64_t program_nnz(const cgraph *g);

struct redundant;
/* Writes the --stats JSON object (one line per key, deterministic). red:
 * the rank test's result (redundant.h: redundant_analyze, which builds a
 * program itself, so the caller runs it), or NULL if it failed
 * (redundant_rows null). batch: the lanes of the batch program written with
 * it (ldlgen --batch), which adds the key "batch"; 0 for the scalar program
 * (no such key). */
void program_write_stats(const program *p, const struct redundant *red, int batch, FILE *out);

#endif
