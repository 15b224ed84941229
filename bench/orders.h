/* orders.h -- the ordering table: block flops and fill-in of our orderings
 * (natural, mda, meca, best) and of the library orderings AMD (SuiteSparse)
 * and METIS (METIS_NodeND) applied to the same constraint graph -- the
 * block graph of H, one node per constraint -- all evaluated with our
 * symbolic elimination (symbolic_count), so the figures compare orders, not
 * flop conventions. */
#ifndef LDLPGS_BENCH_ORDERS_H
#define LDLPGS_BENCH_ORDERS_H

#include "graph.h"

enum { BO_NATURAL = 0, BO_MDA, BO_MECA, BO_BEST, BO_AMD, BO_METIS, BO_COUNT };

typedef struct bo_row {
  const char *name;    /* "natural", ..., "AMD", "METIS" */
  char detail[40];     /* best: the winning heuristic; libraries: how called */
  double flops;        /* block convention */
  int fill;            /* fill-in blocks */
  double seconds;      /* time to compute the order */
  int ok;              /* 0 if the ordering could not be computed */
} bo_row;

/* Fills rows[BO_COUNT] for graph g. */
void bo_compare(const cgraph *g, bo_row *rows);

#endif
