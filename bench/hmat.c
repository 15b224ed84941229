/* hmat.c -- H~ in compressed-column form (see hmat.h). */
#include "hmat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) abort();
  return p;
}

/* One structural block of column constraint c: the rows of constraint q,
 * values at `off` in the workspace, stored as a row-major block of the
 * column constraint's degree (q's rows) or transposed. */
typedef struct blockref {
  int q;
  int off;
  int kind; /* 0 node block (lower triangle), 1 edge block q x c, 2 edge block c x q */
} blockref;

static int cmp_blockref(const void *x, const void *y) {
  int a = ((const blockref *)x)->q, b = ((const blockref *)y)->q;
  return (a > b) - (a < b);
}

void hm_from_workspace(const rt_program *p, const double *work, hm_matrix *h) {
  const int nc = p->ncons;
  /* block lists per constraint: count, fill, sort by row constraint */
  int *cnt = calloc((size_t)nc + 1, sizeof *cnt);
  if (!cnt) abort();
  for (int c = 0; c < nc; c++) cnt[c + 1] = 1; /* node block */
  for (int piv = 0; piv < nc; piv++)
    for (int k = p->piv_blk_adr[piv]; k < p->piv_blk_adr[piv + 1]; k++) {
      if (p->blk_fill[k]) continue;
      cnt[p->piv_cons[piv] + 1]++;
      cnt[p->piv_cons[p->blk_piv[k]] + 1]++;
    }
  for (int c = 0; c < nc; c++) cnt[c + 1] += cnt[c];
  blockref *ref = xmalloc(sizeof *ref * (size_t)cnt[nc]);
  int *next = xmalloc(sizeof *next * (size_t)(nc + 1));
  memcpy(next, cnt, sizeof *next * (size_t)(nc + 1));
  for (int piv = 0; piv < nc; piv++) {
    const int cp = p->piv_cons[piv];
    ref[next[cp]++] = (blockref){cp, p->piv_node[piv], 0};
    for (int k = p->piv_blk_adr[piv]; k < p->piv_blk_adr[piv + 1]; k++) {
      if (p->blk_fill[k]) continue;
      const int cq = p->piv_cons[p->blk_piv[k]];
      ref[next[cp]++] = (blockref){cq, p->blk_off[k], 1}; /* rows of cq in column cp */
      ref[next[cq]++] = (blockref){cp, p->blk_off[k], 2}; /* rows of cp in column cq */
    }
  }
  for (int c = 0; c < nc; c++) qsort(ref + cnt[c], (size_t)(cnt[c + 1] - cnt[c]), sizeof *ref, cmp_blockref);

  const int n = p->dim;
  h->n = n;
  h->Ap = xmalloc(sizeof *h->Ap * (size_t)(n + 1));
  long long nnz = 0;
  for (int c = 0; c < nc; c++) {
    long long rows = 0;
    for (int k = cnt[c]; k < cnt[c + 1]; k++) rows += p->cons_degree[ref[k].q];
    nnz += rows * p->cons_degree[c];
  }
  h->Ai = xmalloc(sizeof *h->Ai * (size_t)nnz);
  h->Ax = xmalloc(sizeof *h->Ax * (size_t)nnz);
  /* columns in row order: constraint c owns rows cons_row[c] .. + degree */
  int *cons_of_row = xmalloc(sizeof *cons_of_row * (size_t)(n + 1));
  for (int c = 0; c < nc; c++)
    for (int r = 0; r < p->cons_degree[c]; r++) cons_of_row[p->cons_row[c] + r] = c;
  int pos = 0;
  for (int j = 0; j < n; j++) {
    const int c = cons_of_row[j], dc = p->cons_degree[c], jc = j - p->cons_row[c];
    h->Ap[j] = pos;
    for (int k = cnt[c]; k < cnt[c + 1]; k++) {
      const int q = ref[k].q, dq = p->cons_degree[q];
      const double *blk = work + ref[k].off;
      for (int i = 0; i < dq; i++) {
        double v;
        if (ref[k].kind == 0) /* d x d, lower triangle valid */
          v = i >= jc ? blk[i * dc + jc] : blk[jc * dc + i];
        else if (ref[k].kind == 1) /* dq x dc row-major */
          v = blk[i * dc + jc];
        else /* dc x dq row-major, transposed */
          v = blk[jc * dq + i];
        h->Ai[pos] = p->cons_row[q] + i;
        h->Ax[pos] = v;
        pos++;
      }
    }
  }
  h->Ap[n] = pos;
  /* libraries are told the row indices are sorted: they are, because
   * solver constraints own consecutive rows in constraint order */
  for (int j = 0; j < n; j++)
    for (int k = h->Ap[j] + 1; k < h->Ap[j + 1]; k++)
      if (h->Ai[k] <= h->Ai[k - 1]) {
        fprintf(stderr, "bench: H~ column %d is not sorted\n", j);
        abort();
      }
  free(cons_of_row);
  free(next);
  free(ref);
  free(cnt);
}

void hm_free(hm_matrix *h) {
  free(h->Ap);
  free(h->Ai);
  free(h->Ax);
  memset(h, 0, sizeof *h);
}

long long hm_nnz(const hm_matrix *h) { return h->Ap[h->n]; }

void hm_lower(const hm_matrix *h, hm_matrix *lower) {
  const int n = h->n;
  lower->n = n;
  lower->Ap = xmalloc(sizeof *lower->Ap * (size_t)(n + 1));
  int count = 0;
  for (int j = 0; j < n; j++)
    for (int k = h->Ap[j]; k < h->Ap[j + 1]; k++) count += h->Ai[k] >= j;
  lower->Ai = xmalloc(sizeof *lower->Ai * (size_t)count);
  lower->Ax = xmalloc(sizeof *lower->Ax * (size_t)count);
  int pos = 0;
  for (int j = 0; j < n; j++) {
    lower->Ap[j] = pos;
    for (int k = h->Ap[j]; k < h->Ap[j + 1]; k++)
      if (h->Ai[k] >= j) {
        lower->Ai[pos] = h->Ai[k];
        lower->Ax[pos++] = h->Ax[k];
      }
  }
  lower->Ap[n] = pos;
}

double *hm_dense(const hm_matrix *h) {
  const size_t n = (size_t)h->n;
  double *a = calloc(n * n + 1, sizeof *a);
  if (!a) abort();
  for (size_t j = 0; j < n; j++)
    for (int k = h->Ap[j]; k < h->Ap[j + 1]; k++) a[j * n + (size_t)h->Ai[k]] = h->Ax[k];
  return a;
}

double hm_residual(const hm_matrix *h, const double *x, const double *b) {
  const int n = h->n;
  double *r = xmalloc(sizeof *r * (size_t)n);
  for (int i = 0; i < n; i++) r[i] = -b[i];
  for (int j = 0; j < n; j++)
    for (int k = h->Ap[j]; k < h->Ap[j + 1]; k++) r[h->Ai[k]] += h->Ax[k] * x[j];
  double rn = 0, bn = 0;
  for (int i = 0; i < n; i++) {
    rn += r[i] * r[i];
    bn += b[i] * b[i];
  }
  free(r);
  return bn > 0 ? sqrt(rn / bn) : sqrt(rn);
}
