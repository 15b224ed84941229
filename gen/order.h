/* order.h -- elimination orderings of the constraint graph.
 *
 *   natural  declaration order (shard welds last)
 *   mda      minimum degree: fewest neighbours
 *   meca     minimum edge creation: fewest missing edges among the
 *            neighbours (the fill the elimination creates), then fewest
 *            neighbours
 *   best     every heuristic below plus weighted variants (fill measured in
 *            block area, column height, the pivot's own flops); keeps the
 *            order with the fewest flops (first in the list on a tie); the
 *            natural order only when it saves more than ORDER_NATURAL_MARGIN
 *            percent, since it follows declaration order
 *   balanced best's heuristics and the same with ties broken by the level
 *            in the elimination tree so far (pqueue.h); of the orders with
 *            the fewest flops the one with the shortest critical path
 *            (symbolic_totals.span3): independent pivots whose code the
 *            processor overlaps, a chain eaten from both ends at once (the
 *            sample chain's factor 0.31 -> 0.23 us in 8 lanes, 2.3 -> 1.8 us
 *            in 8 scalar calls). Not the default: where ties abound (a
 *            chain, a ring of track plates) one part added at an end shifts
 *            the interleaving of the whole chain or ring (bench/results/
 *            diff_locality.md: the tank's add_end 2.4 % -> 22 % of the lines)
 *
 * Every greedy choice breaks remaining ties by block size, then constraint
 * name (cgraph.rank, graph.c), so an order does not change when
 * declarations are swapped or unrelated parts of a mechanism are edited or
 * renamed, and never depends on indices or addresses.
 *
 * Cost. Keys of degree and height run on the quotient graph (qgraph.h,
 * AMD-style); keys with a fill term on the elimination graph with fill
 * counts kept up to date edge by edge. Both take time proportional to the
 * fill rather than n^2. The minimum degree order always runs (first), and
 * its work sets the budget of every other heuristic: ORDER_BUDGET_BASE plus
 * ORDER_BUDGET_FACTOR times (its work + the graph's size), in counted list
 * entries, so the budget is the same on every machine. A heuristic that
 * exceeds it is left unfinished: `best` goes without it, and `--order
 * meca` falls back to the minimum degree order (the `heuristic` of --stats
 * says "mda"). On the samples and the scaling series nothing is cut. */
#ifndef LDLPGS_GEN_ORDER_H
#define LDLPGS_GEN_ORDER_H

#include <stdint.h>

#include "graph.h"
#include "symbolic.h"

enum { ORDER_BUDGET_BASE = 1 << 22, ORDER_BUDGET_FACTOR = 32 };

/* `best` takes the natural order only when it saves more than this percent
 * of the flops of the best greedy order (see natural_wins in order.c). */
enum { ORDER_NATURAL_MARGIN = 1 };

typedef enum order_kind { ORDER_NATURAL = 0, ORDER_MDA, ORDER_MECA, ORDER_BEST, ORDER_BALANCED, ORDER_NKINDS } order_kind;

/* best or balanced: the kinds that search (shattering, the Schur
 * complement's deferred pivots: program.c). */
static inline int order_searches(order_kind k) { return k == ORDER_BEST || k == ORDER_BALANCED; }

/* "natural", "mda", ... ; order_parse returns -1 for an unknown name. */
const char *order_kind_name(order_kind k);
int order_parse(const char *name);

/* The greedy heuristics `best` tries, by name ("mda", "meca", "meca-area",
 * ...). order_nheuristics() of them; index 0 is "natural". */
int order_nheuristics(void);
const char *order_heuristic_name(int h);
/* Order by heuristic h: perm[p] = node eliminated p-th (no budget). */
void order_by_heuristic(const cgraph *g, int h, int *perm);

/* Order by kind; for ORDER_BEST *chosen (if not NULL) receives the name of
 * the winning heuristic. Returns 3 x flops of the order. */
int64_t order_compute(const cgraph *g, order_kind kind, int *perm, const char **chosen);

/* Every kind at once, for the symbolic phase: perm is the order of `kind`. */
typedef struct order_result {
  int64_t flops3[ORDER_NKINDS]; /* 3 x flops of each kind's order (balanced's: -1 unless asked for) */
  const char *heuristic;        /* the heuristic behind perm */
  symbolic_totals totals;       /* of perm: 3 x flops, edge blocks, RSI entries */
  int cut;                      /* heuristics left unfinished: over the budget */
  int64_t work;                 /* list entries touched by all of it (the budget's unit) */
} order_result;
void order_run(const cgraph *g, order_kind kind, int *perm, order_result *r);

/* 1 if perm is a permutation of 0..n-1. */
int order_is_permutation(const int *perm, int n);

#endif
