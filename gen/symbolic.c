/* symbolic.c -- graph elimination, packed layout and RSI (see symbolic.h). */
#include "symbolic.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

int64_t symbolic_pivot_flops3(int64_t d, int64_t h) {
  /* 3 * 2 * (d^3/6 + h d^2 + d h (h+1) / 2) */
  return d * d * d + 6 * h * d * d + 3 * d * h * (h + 1);
}

long long symbolic_flops(const symbolic *s) { return (long long)((s->flops3 + 1) / 3); }

int64_t symbolic_count(const cgraph *g, const int *perm, int *nfill) {
  bitadj b;
  bitadj_init(&b, g);
  int64_t f3 = 0;
  int fill = 0;
  for (int p = 0; p < g->n; p++) {
    int v = perm[p];
    const unsigned long long *nv = bitadj_row(&b, v);
    int64_t h = 0;
    for (int w = 0; w < b.words; w++) {
      unsigned long long x = nv[w];
      while (x) {
        h += g->degree[w * 64 + __builtin_ctzll(x)];
        x &= x - 1;
      }
    }
    f3 += symbolic_pivot_flops3(g->degree[v], h);
    fill += bitadj_eliminate(&b, v);
  }
  bitadj_free(&b);
  if (nfill) *nfill = fill;
  return f3;
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

  /* 1. Elimination: the row blocks of each column, with fill flags. */
  bitadj b;
  bitadj_init(&b, g);
  int cap = 64, len = 0;
  int *piv = malloc(sizeof *piv * (size_t)cap);
  unsigned char *fill = malloc((size_t)cap);
  if (!piv || !fill) abort();
  for (int p = 0; p < n; p++) {
    int v = perm[p];
    s->col_adr[p] = len;
    const unsigned long long *nv = bitadj_row(&b, v);
    int start = len;
    for (int w = 0; w < b.words; w++) {
      unsigned long long x = nv[w];
      while (x) {
        int u = w * 64 + __builtin_ctzll(x);
        x &= x - 1;
        if (len == cap) {
          cap *= 2;
          piv = realloc(piv, sizeof *piv * (size_t)cap);
          fill = realloc(fill, (size_t)cap);
          if (!piv || !fill) abort();
        }
        piv[len++] = s->pos[u];
      }
    }
    qsort(piv + start, (size_t)(len - start), sizeof *piv, cmp_int);
    for (int k = start; k < len; k++) {
      fill[k] = (unsigned char)!cgraph_adjacent(g, v, perm[piv[k]]);
      s->nfill += fill[k];
    }
    bitadj_eliminate(&b, v);
  }
  s->col_adr[n] = len;
  s->nblock = len;
  bitadj_free(&b);
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
