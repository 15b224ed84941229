/* order.c -- greedy graph elimination orderings (see order.h).
 *
 * One engine, pick_pivot, scores every remaining node with a cost key and
 * eliminates the smallest; the heuristics differ only in their key. Keys
 * are computed on bit-set adjacency rows, so a step costs O(n * deg * n/64):
 * fine for the few hundred to few thousand constraints of a mechanism. */
#include "order.h"

#include <stdlib.h>
#include <string.h>

#include "symbolic.h"

typedef enum cost_term {
  T_NONE = 0,
  T_DEGREE,    /* neighbours */
  T_HEIGHT,    /* sum of the neighbours' block sizes: the column height h */
  T_FILL,      /* missing edges among the neighbours */
  T_FILL_AREA, /* sum over missing edges of d_u * d_w */
  T_FLOPS      /* flops of eliminating this pivot now */
} cost_term;

typedef struct heuristic {
  const char *name;
  cost_term key[2]; /* lexicographic; then constraint name */
} heuristic;

static const heuristic heuristics[] = {
    {"natural", {T_NONE, T_NONE}},
    {"mda", {T_DEGREE, T_NONE}},
    {"meca", {T_FILL, T_DEGREE}},
    {"mda-height", {T_HEIGHT, T_NONE}},
    {"meca-height", {T_FILL, T_HEIGHT}},
    {"meca-area", {T_FILL_AREA, T_HEIGHT}},
    {"meca-flops", {T_FILL, T_FLOPS}},
    {"area-flops", {T_FILL_AREA, T_FLOPS}},
    {"min-flops", {T_FLOPS, T_FILL}},
};

enum { NHEUR = (int)(sizeof heuristics / sizeof heuristics[0]) };

int order_nheuristics(void) { return NHEUR; }

const char *order_heuristic_name(int h) { return h >= 0 && h < NHEUR ? heuristics[h].name : "?"; }

static const char *kind_names[ORDER_NKINDS] = {"natural", "mda", "meca", "best"};

const char *order_kind_name(order_kind k) { return (unsigned)k < ORDER_NKINDS ? kind_names[k] : "?"; }

int order_parse(const char *name) {
  for (int k = 0; k < ORDER_NKINDS; k++)
    if (strcmp(kind_names[k], name) == 0) return k;
  return -1;
}

int order_is_permutation(const int *perm, int n) {
  unsigned char *seen = calloc((size_t)n + 1, 1);
  if (!seen) abort();
  int ok = 1;
  for (int p = 0; p < n && ok; p++) {
    if (perm[p] < 0 || perm[p] >= n || seen[perm[p]])
      ok = 0;
    else
      seen[perm[p]] = 1;
  }
  free(seen);
  return ok;
}

/* Value of one cost term for node v in the current elimination graph. */
static int64_t term(const cgraph *g, const bitadj *b, int v, cost_term t) {
  const unsigned long long *nv = bitadj_row(b, v);
  int64_t deg = 0, h = 0, fill = 0, area = 0;
  for (int w = 0; w < b->words; w++) {
    unsigned long long x = nv[w];
    while (x) {
      int u = w * 64 + __builtin_ctzll(x);
      x &= x - 1;
      deg++;
      h += g->degree[u];
      if (t != T_FILL && t != T_FILL_AREA) continue;
      /* neighbours w of v, after u, not adjacent to u */
      const unsigned long long *nu = bitadj_row(b, u);
      for (int k = u >> 6; k < b->words; k++) {
        unsigned long long miss = nv[k] & ~nu[k];
        if (k == (u >> 6)) miss &= ~((2ull << (u & 63)) - 1); /* only w > u */
        if (!miss) continue;
        if (t == T_FILL) {
          fill += __builtin_popcountll(miss);
        } else {
          while (miss) {
            int z = k * 64 + __builtin_ctzll(miss);
            miss &= miss - 1;
            area += (int64_t)g->degree[u] * g->degree[z];
          }
        }
      }
    }
  }
  switch (t) {
  case T_DEGREE: return deg;
  case T_HEIGHT: return h;
  case T_FILL: return fill;
  case T_FILL_AREA: return area;
  case T_FLOPS: return symbolic_pivot_flops3(g->degree[v], h);
  case T_NONE: break;
  }
  return 0;
}

void order_by_heuristic(const cgraph *g, int hi, int *perm) {
  int n = g->n;
  const heuristic *h = &heuristics[hi];
  if (h->key[0] == T_NONE) {
    for (int p = 0; p < n; p++) perm[p] = p;
    return;
  }
  bitadj b;
  bitadj_init(&b, g);
  unsigned char *done = calloc((size_t)n + 1, 1);
  if (!done) abort();
  for (int p = 0; p < n; p++) {
    int best = -1;
    int64_t bk0 = 0, bk1 = 0;
    for (int v = 0; v < n; v++) {
      if (done[v]) continue;
      int64_t k0 = term(g, &b, v, h->key[0]);
      if (best >= 0 && k0 > bk0) continue;
      int64_t k1 = h->key[1] == T_NONE ? 0 : term(g, &b, v, h->key[1]);
      if (best < 0 || k0 < bk0 || (k0 == bk0 && (k1 < bk1 || (k1 == bk1 && g->rank[v] < g->rank[best])))) {
        best = v;
        bk0 = k0;
        bk1 = k1;
      }
    }
    perm[p] = best;
    done[best] = 1;
    bitadj_eliminate(&b, best);
  }
  free(done);
  bitadj_free(&b);
}

int64_t order_compute(const cgraph *g, order_kind kind, int *perm, const char **chosen) {
  int fixed_h = kind == ORDER_NATURAL ? 0 : kind == ORDER_MDA ? 1 : kind == ORDER_MECA ? 2 : -1;
  if (fixed_h >= 0) {
    order_by_heuristic(g, fixed_h, perm);
    if (chosen) *chosen = heuristics[fixed_h].name;
    return symbolic_count(g, perm, NULL);
  }
  int *trial = malloc(sizeof *trial * (size_t)(g->n + 1));
  if (!trial) abort();
  int64_t best = -1;
  for (int hi = 0; hi < NHEUR; hi++) {
    order_by_heuristic(g, hi, trial);
    int64_t f = symbolic_count(g, trial, NULL);
    if (best < 0 || f < best) {
      best = f;
      memcpy(perm, trial, sizeof *perm * (size_t)g->n);
      if (chosen) *chosen = heuristics[hi].name;
    }
  }
  free(trial);
  return best;
}
