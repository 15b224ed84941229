/* graph.c -- constraint graph construction. */
#include "graph.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The tie-break of every ordering decision: a node's block size, then its
 * name, then its index (names are unique in a mechanism). Neither depends
 * on declaration order or on any other node, so an edit elsewhere never
 * reorders two tied nodes, and a body's shard welds (6 rows, named after
 * the body) tie by name only with other 6-row constraints. A key built from
 * the neighbourhood (Weisfeiler-Lehman labels of radius 2) was tried: it
 * moved whole rings of pivots when one part was added next to them (track,
 * tank), since one changed label anywhere in a ring of ties decides where
 * the ring starts. */
typedef struct named {
  int size;
  const char *name;
  int idx;
} named;

static int cmp_named(const void *x, const void *y) {
  const named *p = x, *q = y;
  if (p->size != q->size) return p->size < q->size ? -1 : 1;
  int c = strcmp(p->name, q->name);
  return c ? c : (p->idx > q->idx) - (p->idx < q->idx);
}

/* rank[i] = position of node i in (block size, name, index) order. */
static void compute_rank(arena *a, cgraph *g) {
  named *v = malloc(sizeof *v * (size_t)(g->n + 1));
  if (!v) abort();
  for (int i = 0; i < g->n; i++) v[i] = (named){g->degree[i], g->name[i], i};
  qsort(v, (size_t)g->n, sizeof *v, cmp_named);
  g->rank = ARENA_ARRAY(a, int, g->n + 1);
  for (int r = 0; r < g->n; r++) g->rank[v[r].idx] = r;
  free(v);
}

static int cmp_int(const void *x, const void *y) {
  int i = *(const int *)x, j = *(const int *)y;
  return (i > j) - (i < j);
}

/* Builds CSR from an undirected edge list (both directions added here). */
static void build_csr(arena *a, cgraph *g, int nedge, const int *eu, const int *ev) {
  int n = g->n;
  int *cnt = calloc((size_t)n + 1, sizeof *cnt);
  int *tmp = malloc(sizeof *tmp * (size_t)(2 * nedge + 1));
  int *fill = calloc((size_t)n + 1, sizeof *fill);
  if (!cnt || !tmp || !fill) abort();
  for (int e = 0; e < nedge; e++) {
    if (eu[e] == ev[e]) continue;
    cnt[eu[e] + 1]++;
    cnt[ev[e] + 1]++;
  }
  for (int i = 0; i < n; i++) cnt[i + 1] += cnt[i];
  for (int e = 0; e < nedge; e++) {
    if (eu[e] == ev[e]) continue;
    tmp[cnt[eu[e]] + fill[eu[e]]++] = ev[e];
    tmp[cnt[ev[e]] + fill[ev[e]]++] = eu[e];
  }
  g->adr = ARENA_ARRAY(a, int, n + 1);
  g->adj = ARENA_ARRAY(a, int, cnt[n] + 1);
  int k = 0;
  for (int i = 0; i < n; i++) {
    int *row = tmp + cnt[i];
    int len = cnt[i + 1] - cnt[i];
    qsort(row, (size_t)len, sizeof *row, cmp_int);
    g->adr[i] = k;
    for (int t = 0; t < len; t++)
      if (t == 0 || row[t] != row[t - 1]) g->adj[k++] = row[t];
  }
  g->adr[n] = k;
  free(cnt);
  free(tmp);
  free(fill);
}

/* Every edge an element of two nodes. */
static void edge_elements(arena *a, cgraph *g) {
  int ne = cgraph_nedges(g);
  g->nelem = ne;
  g->elem_adr = ARENA_ARRAY(a, int, ne + 1);
  g->elem_var = ARENA_ARRAY(a, int, 2 * ne + 1);
  int e = 0;
  for (int i = 0; i < g->n; i++)
    for (int k = g->adr[i]; k < g->adr[i + 1]; k++)
      if (g->adj[k] > i) {
        g->elem_adr[e] = 2 * e;
        g->elem_var[2 * e] = i;
        g->elem_var[2 * e + 1] = g->adj[k];
        e++;
      }
  g->elem_adr[ne] = 2 * ne;
}

static void from_edges(arena *a, int n, const int *degree, const char **names, int nedge, const int *eu,
                       const int *ev, cgraph *g) {
  g->n = n;
  g->degree = degree;
  if (!names) {
    const char **nm = ARENA_ARRAY(a, const char *, n + 1);
    for (int i = 0; i < n; i++) {
      char buf[32];
      snprintf(buf, sizeof buf, "c%d", i);
      nm[i] = arena_strdup(a, buf);
    }
    names = nm;
  }
  g->name = names;
  build_csr(a, g, nedge, eu, ev);
  compute_rank(a, g);
}

void cgraph_from_edges(arena *a, int n, const int *degree, const char **names, int nedge,
                       const int *eu, const int *ev, cgraph *g) {
  memset(g, 0, sizeof *g);
  from_edges(a, n, degree, names, nedge, eu, ev, g);
  edge_elements(a, g);
}

/* Constraints on each non-fixed body: badr (nb+1), bcons (badr[nb]). */
static void body_incidence(const smech *s, int **badr_out, int **bcons_out) {
  int nb = s->nbody, nc = s->ncons;
  int *badr = calloc((size_t)nb + 1, sizeof *badr);
  int *bcons = malloc(sizeof *bcons * (size_t)(2 * nc + 1));
  int *bfill = calloc((size_t)nb + 1, sizeof *bfill);
  if (!badr || !bcons || !bfill) abort();
  for (int c = 0; c < nc; c++) {
    int ends[2] = {s->cons_a[c], s->cons_b[c]};
    for (int e = 0; e < 2; e++)
      if (ends[e] >= 0 && !s->body_fixed[ends[e]]) badr[ends[e] + 1]++;
  }
  for (int b = 0; b < nb; b++) badr[b + 1] += badr[b];
  for (int c = 0; c < nc; c++) {
    int ends[2] = {s->cons_a[c], s->cons_b[c]};
    for (int e = 0; e < 2; e++)
      if (ends[e] >= 0 && !s->body_fixed[ends[e]]) bcons[badr[ends[e]] + bfill[ends[e]]++] = c;
  }
  free(bfill);
  *badr_out = badr;
  *bcons_out = bcons;
}

int64_t cgraph_pair_count(const smech *s) {
  int *badr, *bcons;
  body_incidence(s, &badr, &bcons);
  int64_t npairs = 0;
  for (int b = 0; b < s->nbody; b++) {
    int64_t k = badr[b + 1] - badr[b];
    npairs += k * (k - 1) / 2;
  }
  free(badr);
  free(bcons);
  return npairs;
}

static int cmp_pair(const void *x, const void *y) {
  const int *p = x, *q = y;
  if (p[0] != q[0]) return p[0] < q[0] ? -1 : 1;
  return (p[1] > q[1]) - (p[1] < q[1]);
}

/* Solver constraints in the order the file declared them (the mechanism
 * numbers them by name: canon.h), shard welds last. */
static void natural_order(arena *a, const smech *s, cgraph *g) {
  int n = s->ncons;
  if (!s->m) return; /* a solver view built by hand: node order */
  int *key = malloc(sizeof *key * (size_t)(2 * n + 1));
  if (!key) abort();
  for (int c = 0; c < n; c++) {
    key[2 * c] = s->cons_orig[c] >= 0 ? s->m->cons[s->cons_orig[c]].decl : INT_MAX;
    key[2 * c + 1] = c;
  }
  qsort(key, (size_t)n, 2 * sizeof *key, cmp_pair);
  g->natural = ARENA_ARRAY(a, int, n + 1);
  for (int p = 0; p < n; p++) g->natural[p] = key[2 * p + 1];
  free(key);
}

void cgraph_build(arena *a, const smech *s, cgraph *g) {
  /* Bodies' incidence lists; every pair of constraints on a non-fixed body
   * becomes an edge, and every body with two or more an element. */
  int nb = s->nbody, nc = s->ncons;
  int *badr, *bcons;
  body_incidence(s, &badr, &bcons);
  int64_t npairs = cgraph_pair_count(s);
  if (npairs > INT_MAX / 2) abort(); /* program.c refuses such graphs first */
  int *eu = calloc((size_t)npairs + 1, sizeof *eu);
  int *ev = calloc((size_t)npairs + 1, sizeof *ev);
  if (!eu || !ev) abort();
  int ne = 0;
  for (int b = 0; b < nb; b++)
    for (int i = badr[b]; i < badr[b + 1]; i++)
      for (int j = i + 1; j < badr[b + 1]; j++) {
        eu[ne] = bcons[i];
        ev[ne] = bcons[j];
        ne++;
      }
  memset(g, 0, sizeof *g);
  from_edges(a, nc, s->cons_degree, s->cons_name, ne, eu, ev, g);
  int nelem = 0, nvar = 0;
  for (int b = 0; b < nb; b++)
    if (badr[b + 1] - badr[b] >= 2) {
      nelem++;
      nvar += badr[b + 1] - badr[b];
    }
  g->nelem = nelem;
  g->elem_adr = ARENA_ARRAY(a, int, nelem + 1);
  g->elem_var = ARENA_ARRAY(a, int, nvar + 1);
  int e = 0, k = 0;
  for (int b = 0; b < nb; b++) {
    if (badr[b + 1] - badr[b] < 2) continue;
    g->elem_adr[e++] = k;
    for (int i = badr[b]; i < badr[b + 1]; i++) g->elem_var[k++] = bcons[i];
  }
  g->elem_adr[nelem] = k;
  natural_order(a, s, g);
  free(badr);
  free(bcons);
  free(eu);
  free(ev);
}

int cgraph_nedges(const cgraph *g) { return g->adr[g->n] / 2; }

int cgraph_adjacent(const cgraph *g, int i, int j) {
  int lo = g->adr[i], hi = g->adr[i + 1];
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (g->adj[mid] == j) return 1;
    if (g->adj[mid] < j)
      lo = mid + 1;
    else
      hi = mid;
  }
  return 0;
}
