/* pqueue.h -- the indexed binary heap of the greedy orderings (order.c,
 * qgraph.c): graph nodes keyed by two integer terms, optionally their
 * level, and their rank, smallest first, with the key of any node changed
 * in place. The level is the node's height in the elimination tree so far
 * (the longest chain of eliminated pivots that update it, pqueue_raise):
 * among equal keys the shallower node goes first, which balances the tree
 * (a hanging chain is eliminated from both ends at once). The rank is the
 * position by block size, then name (cgraph.rank), so the smallest key
 * never depends on indices or addresses. */
#ifndef LDLPGS_GEN_PQUEUE_H
#define LDLPGS_GEN_PQUEUE_H

#include <stdint.h>
#include <stdlib.h>

typedef struct pqueue {
  int n;                 /* entries */
  int *heap;             /* node ids, heap-ordered                 (cap) */
  int *pos;              /* heap index of a node, or -1            (cap) */
  const int64_t *k0, *k1;/* the key terms, read when comparing      (cap) */
  const int *level;      /* the first tie-break, or NULL            (cap) */
  const int *rank;       /* the last tie-break                      (cap) */
} pqueue;

static inline void pqueue_init(pqueue *q, int cap, const int64_t *k0, const int64_t *k1, const int *level,
                               const int *rank) {
  q->n = 0;
  q->heap = malloc(sizeof *q->heap * (size_t)(cap + 1));
  q->pos = malloc(sizeof *q->pos * (size_t)(cap + 1));
  if (!q->heap || !q->pos) abort();
  for (int i = 0; i < cap; i++) q->pos[i] = -1;
  q->k0 = k0;
  q->k1 = k1;
  q->level = level;
  q->rank = rank;
}

static inline void pqueue_free(pqueue *q) {
  free(q->heap);
  free(q->pos);
  q->heap = q->pos = NULL;
}

static inline int pqueue_less(const pqueue *q, int a, int b) {
  if (q->k0[a] != q->k0[b]) return q->k0[a] < q->k0[b];
  if (q->k1[a] != q->k1[b]) return q->k1[a] < q->k1[b];
  if (q->level && q->level[a] != q->level[b]) return q->level[a] < q->level[b];
  return q->rank[a] < q->rank[b];
}

static inline void pqueue_place(pqueue *q, int i, int v) {
  q->heap[i] = v;
  q->pos[v] = i;
}

static inline void pqueue_sift_up(pqueue *q, int i) {
  int v = q->heap[i];
  while (i > 0) {
    int parent = (i - 1) / 2;
    if (!pqueue_less(q, v, q->heap[parent])) break;
    pqueue_place(q, i, q->heap[parent]);
    i = parent;
  }
  pqueue_place(q, i, v);
}

static inline void pqueue_sift_down(pqueue *q, int i) {
  int v = q->heap[i];
  for (;;) {
    int c = 2 * i + 1;
    if (c >= q->n) break;
    if (c + 1 < q->n && pqueue_less(q, q->heap[c + 1], q->heap[c])) c++;
    if (!pqueue_less(q, q->heap[c], v)) break;
    pqueue_place(q, i, q->heap[c]);
    i = c;
  }
  pqueue_place(q, i, v);
}

static inline void pqueue_push(pqueue *q, int v) {
  q->heap[q->n] = v;
  q->pos[v] = q->n;
  q->n++;
  pqueue_sift_up(q, q->n - 1);
}

/* Removes and returns the smallest node. */
static inline int pqueue_pop(pqueue *q) {
  int v = q->heap[0];
  q->pos[v] = -1;
  q->n--;
  if (q->n > 0) {
    pqueue_place(q, 0, q->heap[q->n]);
    pqueue_sift_down(q, 0);
  }
  return v;
}

/* level[u] for a neighbour u of the pivot v just eliminated: v updates
 * u, so u's factorization waits for v's. */
static inline void pqueue_raise(int *level, int v, int u) {
  if (level[u] < level[v] + 1) level[u] = level[v] + 1;
}

/* After node v's key or level changed (nothing if v is not queued). */
static inline void pqueue_update(pqueue *q, int v) {
  int i = q->pos[v];
  if (i < 0) return;
  pqueue_sift_up(q, i);
  pqueue_sift_down(q, q->pos[v]);
}

#endif
