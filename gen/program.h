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
#include "mech.h"
#include "order.h"
#include "shatter.h"
#include "symbolic.h"

#define PROGRAM_SHATTER_FROM_MECH (-1)

typedef struct program_options {
  order_kind order;  /* default ORDER_BEST */
  int shatter;       /* threshold; 0 = off; PROGRAM_SHATTER_FROM_MECH = the mechanism's setting */
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
} program;

void program_default_options(program_options *o);

/* Runs the symbolic phase on a loaded mechanism. */
gen_status program_build(arena *a, const mech *m, const program_options *o, program *p, diag_list *d);

/* Structural nonzeros of the full (symmetric) H of a constraint graph. */
int64_t program_nnz(const cgraph *g);

/* Writes the --stats JSON object (one line per key, deterministic). */
void program_write_stats(const program *p, FILE *out);

#endif
