/* qgraph.h -- graph elimination on the quotient graph (docs/DESIGN.md
 * section 3, "Orderings" and "Packed layout").
 *
 * The elimination graph is never stored edge by edge: it is a set of
 * *elements*, cliques whose union it is, and the live variables (graph
 * nodes not yet eliminated). At the start the elements are the cgraph's
 * (for a mechanism: its non-fixed bodies; every pair of constraints on one
 * body is an edge). Eliminating variable p merges every element that holds
 * p into one new element L_p = their union minus p: p's neighbours, which
 * the elimination joins into a clique, and exactly the row blocks of p's
 * column. A new element is never larger than the elements it absorbs, so
 * the storage stays that of the initial elements, and eliminating p costs
 * the sizes of the absorbed elements plus the element lists of p's
 * neighbours: time proportional to the fill, where the adjacency matrix
 * cost n^2/64 words per step.
 *
 * Two users: symbolic.c eliminates in a given order (qgraph_eliminate), and
 * order.c's minimum degree (qgraph_min_degree) picks the order as it goes,
 * with AMD-style approximate degrees (below). */
#ifndef LDLPGS_GEN_QGRAPH_H
#define LDLPGS_GEN_QGRAPH_H

#include <stdint.h>

#include "graph.h"

typedef struct qg_list {
  int *v;
  int len, cap;
} qg_list;

typedef struct qgraph {
  int n;                  /* variables */
  int nelem;              /* element ids used: initial ones, then one per elimination */
  const int *d;           /* block size of each variable                  (n) */
  qg_list *var_elem;      /* elements holding variable i (dead ones dropped lazily) (n) */
  int **elem_var;         /* variables of element e, all live             (n + initial) */
  int *elem_len;          /* |L_e|; -1 once absorbed                      (n + initial) */
  int64_t *elem_wt;       /* sum of the block sizes of L_e                (n + initial) */
  unsigned char *dead;    /* variable eliminated                          (n) */
  int64_t *mark;          /* scratch stamps                               (n) */
  int64_t stamp;
  int *list;              /* the last eliminated variable's L_p           (n) */
  int nlive;              /* variables not yet eliminated */
  int64_t live_wt;        /* their block sizes summed */
  int64_t work;           /* list entries touched so far (the cost measure) */
} qgraph;

/* Builds the quotient graph of g's elements (graph.h). malloc'ed. */
void qgraph_init(qgraph *q, const cgraph *g);
void qgraph_free(qgraph *q);

/* Eliminates live variable p: returns |L_p| and points *list at L_p (in no
 * particular order; valid until the next call). */
int qgraph_eliminate(qgraph *q, int p, const int **list);

/* What an elimination order costs (3 x flops in the convention of
 * symbolic.h, edge blocks, RSI entries) and what computing it cost. */
typedef struct qg_cost {
  int64_t flops3;
  int64_t nblock;
  int64_t nrsi;
  int64_t work;
} qg_cost;

/* Cost of eliminating g in order perm (pivot -> node). */
void qgraph_count(const cgraph *g, const int *perm, qg_cost *c);

/* Minimum degree (weighted = 0: fewest neighbours; 1: smallest column
 * height, the neighbours' block sizes summed), ties (with level_ties) by
 * the level in the elimination tree so far (pqueue.h), then by block size,
 * then name (g->rank). The degree of every neighbour of a pivot is recomputed exactly
 * when that costs little -- always when the neighbour lies in at most one
 * other element, where AMD's approximate external degree is exact, and
 * otherwise while its other elements hold at most QG_EXACT_DEGREE_COST
 * entries more than twice |L_p| -- else approximated from above as AMD
 * does (|L_p \ i| + the sum over i's other elements e of |L_e \ L_p|),
 * so the samples and small graphs get true minimum degree and no step costs
 * more than a constant times the entries it reads. Fills perm and *c. */
enum { QG_EXACT_DEGREE_COST = 256 };
void qgraph_min_degree(const cgraph *g, int weighted, int level_ties, int *perm, qg_cost *c);

#endif
