/* graph.h -- the constraint graph: the edge graph of the (shattered) body
 * graph, i.e. the block graph of H. Node i is solver constraint i with block
 * size degree[i]; i and j are adjacent iff they share a non-fixed body. */
#ifndef LDLPGS_GEN_GRAPH_H
#define LDLPGS_GEN_GRAPH_H

#include "arena.h"
#include "shatter.h"

typedef struct cgraph {
  int n;
  const int *degree;      /* block size of node i                  (n) */
  const char **name;      /* constraint names, for tie-breaking     (n) */
  int *rank;              /* position of name[i] in sorted order    (n) */
  int *adr;               /* neighbours of i: adj[adr[i] .. adr[i+1]) (n+1) */
  int *adj;               /* ascending within each node            (adr[n]) */
} cgraph;

/* Builds the constraint graph of a solver mechanism. */
void cgraph_build(arena *a, const smech *s, cgraph *g);

/* Builds a graph from an explicit edge list (tests, tools). Duplicate edges
 * and self loops are ignored. names may be NULL ("c0", "c1", ...). */
void cgraph_from_edges(arena *a, int n, const int *degree, const char **names, int nedge,
                       const int *eu, const int *ev, cgraph *g);

/* Number of (undirected) edges. */
int cgraph_nedges(const cgraph *g);
/* 1 if i and j are adjacent. */
int cgraph_adjacent(const cgraph *g, int i, int j);

/* Bit-set rows of the adjacency matrix, one row of `words` 64-bit words per
 * node: the working representation of graph elimination. */
typedef struct bitadj {
  int n, words;
  unsigned long long *bits; /* n * words */
} bitadj;

void bitadj_init(bitadj *b, const cgraph *g);  /* malloc'ed */
void bitadj_free(bitadj *b);
static inline unsigned long long *bitadj_row(const bitadj *b, int i) {
  return b->bits + (size_t)i * (size_t)b->words;
}
static inline int bitadj_has(const bitadj *b, int i, int j) {
  return (int)((bitadj_row(b, i)[j >> 6] >> (j & 63)) & 1u);
}
static inline void bitadj_set(bitadj *b, int i, int j) {
  bitadj_row(b, i)[j >> 6] |= 1ull << (j & 63);
  bitadj_row(b, j)[i >> 6] |= 1ull << (i & 63);
}
/* Removes node v from every row (its own row is left as it was). */
void bitadj_remove(bitadj *b, int v);
/* Graph elimination of v: joins its neighbours pairwise, then removes it.
 * Returns the number of edges created (the fill). */
int bitadj_eliminate(bitadj *b, int v);

#endif
