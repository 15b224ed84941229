/* symbolic.c -- graph elimination, packed layout and RSI (see symbolic.h). */
#include "symbolic.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "qgraph.h"

int64_t symbolic_pivot_flops3(int64_t d, int64_t h) {
  /* 3 * 2 * (d^3/6 + h d^2 + d h (h+1) / 2) */
  return d * d * d + 6 * h * d * d + 3 * d * h * (h + 1);
}

long long symbolic_flops(const symbolic *s) { return (long long)((s->flops3 + 1) / 3); }

/* Counting without eliminating. The filled graph's column p holds row q > p
 * exactly when p lies in q's row subtree: the union of the elimination-tree
 * paths from q's lower neighbours up to q. A union of root paths of nodes
 * taken in postorder is, node by node, the sum of their paths minus the
 * paths of the lowest common ancestors of consecutive ones; a path to the
 * root is counted at a node by summing over the node's subtree. So every
 * row adds its block size at each of its lower neighbours and at itself,
 * takes it off at the LCA of each consecutive pair and at its own parent
 * (which ends the paths at the row), and a column's height is the subtree
 * sum at it minus its own block. Visiting the columns in postorder gives
 * each row's neighbours in postorder, and the LCA of the previous one with
 * the current column is the first ancestor of the previous one not yet
 * visited (a union-find that links each visited node to its parent).
 * Gives parent[p] (-1 at a root) and, into dc and dw zeroed by the caller,
 * each column's blocks dc[p] and rows dw[p], its own block's included. */
static void count_columns(const cgraph *g, const int *perm, int *parent, int64_t *dc, int64_t *dw) {
  int n = g->n;
  int *pos = malloc(sizeof *pos * (size_t)n);
  int *anc = malloc(sizeof *anc * (size_t)n), *head = malloc(sizeof *head * (size_t)n);
  int *next = malloc(sizeof *next * (size_t)n), *post = malloc(sizeof *post * (size_t)n);
  int *prev = malloc(sizeof *prev * (size_t)n);
  if (!pos || !anc || !head || !next || !post || !prev) abort();
  for (int p = 0; p < n; p++) pos[perm[p]] = p;
  /* elimination tree: each lower neighbour's root so far gets p as parent
   * (anc: the known ancestors, compressed to p on the way) */
  for (int p = 0; p < n; p++) {
    parent[p] = anc[p] = -1;
    int v = perm[p];
    for (int k = g->adr[v]; k < g->adr[v + 1]; k++) {
      for (int i = pos[g->adj[k]]; i != -1 && i < p;) {
        int up = anc[i];
        anc[i] = p;
        if (up == -1) parent[i] = p;
        i = up;
      }
    }
  }
  /* postorder (children ascending; any order would do) */
  for (int p = 0; p < n; p++) head[p] = -1;
  for (int p = n - 1; p >= 0; p--)
    if (parent[p] >= 0) {
      next[p] = head[parent[p]];
      head[parent[p]] = p;
    }
  int np = 0, *stack = anc; /* anc is free again */
  for (int r = 0; r < n; r++) {
    if (parent[r] >= 0) continue;
    int top = 0;
    stack[top++] = r;
    while (top > 0) {
      int x = stack[top - 1];
      if (head[x] >= 0) {
        int c = head[x];
        head[x] = next[c];
        stack[top++] = c;
      } else {
        post[np++] = x;
        top--;
      }
    }
  }
  /* row contributions; uf (in head) links visited nodes to their parents */
  int *uf = head;
  for (int p = 0; p < n; p++) {
    uf[p] = p;
    prev[p] = -1;
  }
  for (int k = 0; k < n; k++) {
    int j = post[k], v = perm[j];
    for (int e = g->adr[v]; e <= g->adr[v + 1]; e++) {
      int i = e < g->adr[v + 1] ? pos[g->adj[e]] : j; /* the upper neighbours, then j's own row */
      if (i < j) continue;
      int di = g->degree[perm[i]];
      dc[j] += 1;
      dw[j] += di;
      if (prev[i] >= 0) {
        int q = prev[i];
        while (uf[q] != q) {
          uf[q] = uf[uf[q]];
          q = uf[q];
        }
        dc[q] -= 1;
        dw[q] -= di;
      }
      prev[i] = j;
    }
    if (parent[j] >= 0) {
      dc[parent[j]] -= 1;
      dw[parent[j]] -= g->degree[v];
      uf[j] = parent[j];
    }
  }
  for (int k = 0; k < n; k++) {
    int j = post[k];
    if (parent[j] >= 0) {
      dc[parent[j]] += dc[j];
      dw[parent[j]] += dw[j];
    }
  }
  free(pos);
  free(anc);
  free(head);
  free(next);
  free(post);
  free(prev);
}

void symbolic_totals_of(const cgraph *g, const int *perm, symbolic_totals *t) {
  const int n = g->n;
  memset(t, 0, sizeof *t);
  if (n == 0) return;
  int *parent = malloc(sizeof *parent * (size_t)n);
  int64_t *dc = calloc((size_t)n, sizeof *dc), *dw = calloc((size_t)n, sizeof *dw);
  if (!parent || !dc || !dw) abort();
  count_columns(g, perm, parent, dc, dw);
  /* once read, dw[j] holds pivot j's flops and dc[j] the heaviest path of
   * its subtree (a parent comes after its children) */
  for (int j = 0; j < n; j++) {
    int64_t d = g->degree[perm[j]], h = dw[j] - d;
    dw[j] = symbolic_pivot_flops3(d, h);
    t->flops3 += dw[j];
    t->nblock += dc[j] - 1;
    t->nrsi += h * (h + 1) / 2;
    t->work += d * d + h * d;
    dc[j] = 0;
  }
  for (int j = 0; j < n; j++) {
    const int64_t path = dc[j] + dw[j];
    if (parent[j] >= 0 && dc[parent[j]] < path) dc[parent[j]] = path;
    if (t->span3 < path) t->span3 = path;
  }
  free(parent);
  free(dc);
  free(dw);
}

void symbolic_tree(const cgraph *g, const int *perm, int *parent, int *height) {
  const int n = g->n;
  if (n == 0) return;
  int64_t *dc = calloc((size_t)n, sizeof *dc), *dw = calloc((size_t)n, sizeof *dw);
  if (!dc || !dw) abort();
  count_columns(g, perm, parent, dc, dw);
  for (int j = 0; j < n; j++) height[j] = (int)(dw[j] - g->degree[perm[j]]);
  free(dc);
  free(dw);
}

int64_t symbolic_count(const cgraph *g, const int *perm, int *nfill) {
  symbolic_totals t;
  symbolic_totals_of(g, perm, &t);
  /* every original edge is one block of the filled graph; the rest is fill */
  if (nfill) *nfill = (int)(t.nblock - cgraph_nedges(g));
  return t.flops3;
}

static int cmp_int(const void *x, const void *y) {
  int i = *(const int *)x, j = *(const int *)y;
  return (i > j) - (i < j);
}

/* Index of row block q in column p (it must exist: the filled graph is
 * chordal, so every reduction target is a stored block). */
static int find_block(const symbolic *s, int p, int q) {
  int lo = s->col_adr[p], hi = s->col_adr[p + 1];
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (s->col_piv[mid] == q) return mid;
    if (s->col_piv[mid] < q)
      lo = mid + 1;
    else
      hi = mid;
  }
  assert(!"reduction target block missing");
  return -1;
}

void symbolic_build(arena *a, const cgraph *g, const int *perm, symbolic *s) {
  int n = g->n;
  memset(s, 0, sizeof *s);
  s->n = n;
  s->perm = ARENA_ARRAY(a, int, n + 1);
  s->pos = ARENA_ARRAY(a, int, n + 1);
  s->degree = ARENA_ARRAY(a, int, n + 1);
  s->height = ARENA_ARRAY(a, int, n + 1);
  s->row_off = ARENA_ARRAY(a, int, n + 1);
  s->node_off = ARENA_ARRAY(a, int, n + 1);
  s->edge_off = ARENA_ARRAY(a, int, n + 1);
  s->col_adr = ARENA_ARRAY(a, int, n + 1);
  s->rsi_adr = ARENA_ARRAY(a, int64_t, n + 1);
  for (int p = 0; p < n; p++) {
    s->perm[p] = perm[p];
    s->pos[perm[p]] = p;
    s->degree[p] = g->degree[perm[p]];
  }

  /* 1. Elimination on the quotient graph: the row blocks of each column,
   * with fill flags. */
  qgraph q;
  qgraph_init(&q, g);
  int cap = 64, len = 0;
  int *piv = malloc(sizeof *piv * (size_t)cap);
  unsigned char *fill = malloc((size_t)cap);
  if (!piv || !fill) abort();
  for (int p = 0; p < n; p++) {
    int v = perm[p];
    s->col_adr[p] = len;
    const int *l;
    int k = qgraph_eliminate(&q, v, &l);
    if (len + k > cap) {
      while (len + k > cap) cap *= 2;
      piv = realloc(piv, sizeof *piv * (size_t)cap);
      fill = realloc(fill, (size_t)cap);
      if (!piv || !fill) abort();
    }
    int start = len;
    for (int t = 0; t < k; t++) piv[len++] = s->pos[l[t]];
    qsort(piv + start, (size_t)(len - start), sizeof *piv, cmp_int);
    for (int t = start; t < len; t++) {
      fill[t] = (unsigned char)!cgraph_adjacent(g, v, perm[piv[t]]);
      s->nfill += fill[t];
    }
  }
  s->col_adr[n] = len;
  s->nblock = len;
  qgraph_free(&q);
  s->col_piv = ARENA_ARRAY(a, int, len + 1);
  s->col_fill = ARENA_ARRAY(a, unsigned char, len + 1);
  s->col_row = ARENA_ARRAY(a, int, len + 1);
  s->col_off = ARENA_ARRAY(a, int, len + 1);
  memcpy(s->col_piv, piv, sizeof *piv * (size_t)len);
  memcpy(s->col_fill, fill, (size_t)len);
  free(piv);
  free(fill);

  /* 2. Layout: node block, then the edge column, pivot after pivot. */
  int off = 0, row = 0;
  for (int p = 0; p < n; p++) {
    int d = s->degree[p];
    s->row_off[p] = row;
    row += d;
    s->node_off[p] = off;
    off += d * d;
    s->edge_off[p] = off;
    int h = 0;
    for (int k = s->col_adr[p]; k < s->col_adr[p + 1]; k++) {
      s->col_row[k] = h;
      s->col_off[k] = off + h * d;
      h += s->degree[s->col_piv[k]];
    }
    s->height[p] = h;
    off += h * d;
    if (h * d > s->max_col) s->max_col = h * d;
    s->flops3 += symbolic_pivot_flops3(d, h);
    s->rsi_adr[p + 1] = s->rsi_adr[p] + (int64_t)h * (h + 1) / 2;
  }
  s->dim = row;
  s->work_size = off;
  s->nrsi = s->rsi_adr[n];

  /* 3. RSI: row r of block I (pivot qi) against row c of block J (pivot qj). */
  s->rsi = ARENA_ARRAY(a, int32_t, s->nrsi + 1);
  for (int p = 0; p < n; p++) {
    int64_t k = s->rsi_adr[p];
    for (int bi = s->col_adr[p]; bi < s->col_adr[p + 1]; bi++) {
      int qi = s->col_piv[bi], di = s->degree[qi];
      for (int ri = 0; ri < di; ri++) {
        for (int bj = s->col_adr[p]; bj <= bi; bj++) {
          int qj = s->col_piv[bj], dj = s->degree[qj];
          int cmax = bj == bi ? ri + 1 : dj;
          int base;
          if (bj == bi) {
            base = s->node_off[qi] + ri * di;
          } else {
            int t = find_block(s, qj, qi);
            base = s->col_off[t] + ri * dj;
          }
          for (int ci = 0; ci < cmax; ci++) s->rsi[k++] = base + ci;
        }
      }
    }
    assert(k == s->rsi_adr[p + 1]);
  }
}
