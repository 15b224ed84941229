/* m_cholmod.c -- CHOLMOD as a bench method. The ordering is fixed to AMD
 * (one method, no METIS trial) and cholmod_analyze runs once; the timed
 * factorization is cholmod_factorize into the same factor object, either
 * simplicial LDL^T or supernodal LL^T (BLAS-based, one OpenBLAS thread).
 * The solve is cholmod_solve2 with reused workspaces (no allocation). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cholmod.h>

#include "flopcount.h"
#include "method.h"

typedef struct cholmod_state {
  cholmod_common c;
  cholmod_sparse *A;
  cholmod_factor *L;
  cholmod_dense *B, *X, *Y, *E;
  int n;
} cholmod_state;

static void factor(void *ctx) {
  cholmod_state *s = ctx;
  cholmod_factorize(s->A, s->L, &s->c);
}

static void solve(void *ctx) {
  cholmod_state *s = ctx;
  cholmod_solve2(CHOLMOD_A, s->L, s->B, NULL, &s->X, NULL, &s->Y, &s->E, &s->c);
}

static int check(void *ctx, double *x) {
  cholmod_state *s = ctx;
  if (!cholmod_factorize(s->A, s->L, &s->c) || s->c.status != CHOLMOD_OK || (int)s->L->minor != s->n) return -1;
  solve(s);
  if (!s->X) return -1;
  memcpy(x, s->X->x, sizeof *x * (size_t)s->n);
  return 0;
}

static void destroy(void *ctx) {
  cholmod_state *s = ctx;
  cholmod_free_dense(&s->B, &s->c);
  cholmod_free_dense(&s->X, &s->c);
  cholmod_free_dense(&s->Y, &s->c);
  cholmod_free_dense(&s->E, &s->c);
  cholmod_free_factor(&s->L, &s->c);
  cholmod_free_sparse(&s->A, &s->c);
  cholmod_finish(&s->c);
  free(s);
}

/* Column counts of the factor as CHOLMOD stores it (diagonal included):
 * simplicial columns as they are, a supernode's columns as the dense
 * trapezoid it stores (explicit zeros of relaxed amalgamation counted). */
static void factor_counts(const cholmod_factor *L, long long *count) {
  const int n = (int)L->n;
  if (!L->is_super) {
    const int *nz = L->nz;
    for (int j = 0; j < n; j++) count[j] = nz[j];
    return;
  }
  const int *super = L->super, *pi = L->pi;
  for (size_t s = 0; s < L->nsuper; s++) {
    const int k1 = super[s], k2 = super[s + 1], rows = pi[s + 1] - pi[s];
    for (int j = k1; j < k2; j++) count[j] = rows - (j - k1);
  }
}

int bm_cholmod_init(bm_method *m, const bm_input *in, int supernodal) {
  hm_matrix low;
  hm_lower(in->H, &low);
  const int n = low.n, nnz = low.Ap[n];
  cholmod_state *s = calloc(1, sizeof *s);
  if (!s) abort();
  s->n = n;
  cholmod_start(&s->c);
  s->c.print = 0;
  s->c.nmethods = 1;
  s->c.method[0].ordering = CHOLMOD_AMD;
  s->c.postorder = 1;
  s->c.supernodal = supernodal ? CHOLMOD_SUPERNODAL : CHOLMOD_SIMPLICIAL;
  s->c.final_ll = supernodal ? 1 : 0; /* simplicial: keep LDL^T */
  s->A = cholmod_allocate_sparse((size_t)n, (size_t)n, (size_t)nnz, 1, 1, -1, CHOLMOD_REAL, &s->c);
  s->B = cholmod_allocate_dense((size_t)n, 1, (size_t)n, CHOLMOD_REAL, &s->c);
  if (!s->A || !s->B) abort();
  memcpy(s->A->p, low.Ap, sizeof(int) * (size_t)(n + 1));
  memcpy(s->A->i, low.Ai, sizeof(int) * (size_t)nnz);
  memcpy(s->A->x, low.Ax, sizeof(double) * (size_t)nnz);
  memcpy(s->B->x, in->b, sizeof(double) * (size_t)n);
  hm_free(&low);
  s->L = cholmod_analyze(s->A, &s->c);
  if (!s->L || !cholmod_factorize(s->A, s->L, &s->c) || s->c.status != CHOLMOD_OK) {
    fprintf(stderr, "bench: CHOLMOD analyze/factorize failed (status %d)\n", s->c.status);
    destroy(s);
    return -1;
  }
  memset(m, 0, sizeof *m);
  snprintf(m->name, sizeof m->name, "CHOLMOD %s", supernodal ? "supernodal" : "simplicial");
  m->precision = "double";
  m->library = 1;
  m->state = s;
  m->factor = factor;
  m->solve = solve;
  m->check = check;
  m->destroy = destroy;
  long long *count = calloc((size_t)n + 1, sizeof *count);
  if (!count) abort();
  factor_counts(s->L, count);
  m->flops_chol = fc_chol_counts(count, n);
  for (int j = 0; j < n; j++) m->lnz += count[j];
  free(count);
  return 0;
}
