/* graph.h -- the constraint graph: the edge graph of the (shattered) body
 * graph, i.e. the block graph of H. Node i is solver constraint i with block
 * size degree[i]; i and j are adjacent iff they share a non-fixed body. */
#ifndef LDLPGS_GEN_GRAPH_H
#define LDLPGS_GEN_GRAPH_H

#include <stdint.h>

#include "arena.h"
#include "shatter.h"

typedef struct cgraph {
  int n;
  const int *degree;      /* block size of node i                  (n) */
  const char **name;      /* constraint names, for tie-breaking     (n) */
  int *rank;              /* tie-break: position by (block size, name) (n) */
  int *natural;           /* the natural order: declaration order, shard welds
                             last; NULL = node order                  (n) */
  int *adr;               /* neighbours of i: adj[adr[i] .. adr[i+1]) (n+1) */
  int *adj;               /* ascending within each node            (adr[n]) */
  /* Elements: cliques whose union is the graph, the start of the quotient
   * graph (qgraph.h). For a mechanism, its non-fixed bodies that carry two
   * or more constraints; for an edge list, its edges. */
  int nelem;
  int *elem_adr;          /* nodes of element e: elem_var[elem_adr[e] .. elem_adr[e+1]) (nelem+1) */
  int *elem_var;          /*                                        (elem_adr[nelem]) */
} cgraph;

/* Builds the constraint graph of a solver mechanism. */
void cgraph_build(arena *a, const smech *s, cgraph *g);

/* Pairs of constraints that share a non-fixed body, counted per body (an
 * upper bound on the edges cgraph_build stores): what building the graph
 * costs, known before it is built. */
int64_t cgraph_pair_count(const smech *s);

/* Builds a graph from an explicit edge list (tests, tools). Duplicate edges
 * and self loops are ignored. names may be NULL ("c0", "c1", ...). */
void cgraph_from_edges(arena *a, int n, const int *degree, const char **names, int nedge,
                       const int *eu, const int *ev, cgraph *g);

/* Number of (undirected) edges. */
int cgraph_nedges(const cgraph *g);
/* 1 if i and j are adjacent. */
int cgraph_adjacent(const cgraph *g, int i, int j);

#endif
