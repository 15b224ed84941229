/* test_util.h -- small helpers shared by the tests: a deterministic RNG,
 * random graph generators and a dense residual. Static, so each test
 * program gets its own copy. */
#ifndef LDLPGS_TEST_UTIL_H
#define LDLPGS_TEST_UTIL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "arena.h"
#include "graph.h"

typedef struct test_rng {
  uint64_t s;
} test_rng;

static inline uint64_t rng_next(test_rng *r) {
  /* splitmix64 */
  uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* ||H x - b|| / ||b|| for a dense row-major n x n H. */
static inline double rel_residual(const double *h, int n, const double *x, const double *b) {
  double rn = 0, bn = 0;
  for (int i = 0; i < n; i++) {
    double ax = 0;
    for (int j = 0; j < n; j++) ax += h[(size_t)i * n + j] * x[j];
    rn += (ax - b[i]) * (ax - b[i]);
    bn += b[i] * b[i];
  }
  return sqrt(rn / bn);
}

static inline int rng_int(test_rng *r, int n) { return (int)(rng_next(r) % (uint64_t)n); }

static inline double rng_unit(test_rng *r) { return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0); }

/* Erdos-Renyi graph with n nodes, edge probability pct/100, degrees 1..6. */
static inline void random_graph(arena *a, test_rng *r, int n, int pct, cgraph *g) {
  int *deg = ARENA_ARRAY(a, int, n + 1);
  int *eu = ARENA_ARRAY(a, int, n * n + 1), *ev = ARENA_ARRAY(a, int, n * n + 1);
  int ne = 0;
  for (int i = 0; i < n; i++) deg[i] = 1 + rng_int(r, 6);
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++)
      if (rng_int(r, 100) < pct) {
        eu[ne] = i;
        ev[ne] = j;
        ne++;
      }
  cgraph_from_edges(a, n, deg, NULL, ne, eu, ev, g);
}

/* Random chordal graph: the intersection graph of random subtrees of a
 * random tree with t nodes (every such graph is chordal). */
static inline void random_chordal_graph(arena *a, test_rng *r, int n, int t, cgraph *g) {
  int *parent = ARENA_ARRAY(a, int, t + 1);
  for (int i = 1; i < t; i++) parent[i] = rng_int(r, i);
  /* subtree of node v: a random tree node and up to 3 ancestors */
  unsigned char *in = ARENA_ARRAY(a, unsigned char, n * t + 1);
  for (int v = 0; v < n; v++) {
    int x = rng_int(r, t), len = rng_int(r, 4);
    in[v * t + x] = 1;
    for (int k = 0; k < len && x > 0; k++) {
      x = parent[x];
      in[v * t + x] = 1;
    }
  }
  int *deg = ARENA_ARRAY(a, int, n + 1);
  int *eu = ARENA_ARRAY(a, int, n * n + 1), *ev = ARENA_ARRAY(a, int, n * n + 1);
  int ne = 0;
  for (int i = 0; i < n; i++) deg[i] = 1 + rng_int(r, 6);
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++)
      for (int x = 0; x < t; x++)
        if (in[i * t + x] && in[j * t + x]) {
          eu[ne] = i;
          ev[ne] = j;
          ne++;
          break;
        }
  cgraph_from_edges(a, n, deg, NULL, ne, eu, ev, g);
}

#endif
