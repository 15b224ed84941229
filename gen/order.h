/* order.h -- elimination orderings of the constraint graph.
 *
 *   natural  declaration order (shard welds last)
 *   mda      minimum degree: fewest neighbours
 *   meca     minimum edge creation: fewest missing edges among the
 *            neighbours (the fill the elimination creates), then fewest
 *            neighbours
 *   best     every heuristic below plus weighted variants (fill measured in
 *            block area, column height, the pivot's own flops); keeps the
 *            order with the fewest flops (first in the list on a tie)
 *
 * Every greedy choice breaks remaining ties by constraint name (strcmp), so
 * an order does not change when unrelated parts of a mechanism are edited
 * or renamed, and never depends on indices or addresses. */
#ifndef LDLPGS_GEN_ORDER_H
#define LDLPGS_GEN_ORDER_H

#include <stdint.h>

#include "graph.h"

typedef enum order_kind { ORDER_NATURAL = 0, ORDER_MDA, ORDER_MECA, ORDER_BEST, ORDER_NKINDS } order_kind;

/* "natural", "mda", ... ; order_parse returns -1 for an unknown name. */
const char *order_kind_name(order_kind k);
int order_parse(const char *name);

/* The greedy heuristics `best` tries, by name ("mda", "meca", "meca-area",
 * ...). order_nheuristics() of them; index 0 is "natural". */
int order_nheuristics(void);
const char *order_heuristic_name(int h);
/* Order by heuristic h: perm[p] = node eliminated p-th. */
void order_by_heuristic(const cgraph *g, int h, int *perm);

/* Order by kind; for ORDER_BEST *chosen (if not NULL) receives the name of
 * the winning heuristic. Returns 3 x flops of the order. */
int64_t order_compute(const cgraph *g, order_kind kind, int *perm, const char **chosen);

/* 1 if perm is a permutation of 0..n-1. */
int order_is_permutation(const int *perm, int n);

#endif
