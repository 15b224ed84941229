/* m_ldl.c -- SuiteSparse LDL as a bench method: AMD ordering of the full
 * pattern and ldl_symbolic once; ldl_numeric is the timed factorization
 * (it reads A and writes L and D, so nothing is restored); the solve is
 * permute, L, D, L^T, permute back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <amd.h>
#include <ldl.h>

#include "flopcount.h"
#include "method.h"

typedef struct ldl_state {
  int n;
  int *Ap, *Ai;  /* copies: ldl's prototypes are not const */
  double *Ax;
  int *Lp, *Parent, *Lnz, *Li, *Flag, *Pattern, *P, *Pinv;
  double *Lx, *D, *Y, *b, *x, *t;
  int ok;        /* ldl_numeric's result of the last call */
} ldl_state;

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) abort();
  return p;
}

static void factor(void *ctx) {
  ldl_state *s = ctx;
  s->ok = ldl_numeric(s->n, s->Ap, s->Ai, s->Ax, s->Lp, s->Parent, s->Lnz, s->Li, s->Lx, s->D, s->Y, s->Pattern,
                      s->Flag, s->P, s->Pinv);
}

static void solve(void *ctx) {
  ldl_state *s = ctx;
  ldl_perm(s->n, s->t, s->b, s->P);
  ldl_lsolve(s->n, s->t, s->Lp, s->Li, s->Lx);
  ldl_dsolve(s->n, s->t, s->D);
  ldl_ltsolve(s->n, s->t, s->Lp, s->Li, s->Lx);
  ldl_permt(s->n, s->x, s->t, s->P);
}

static int check(void *ctx, double *x) {
  ldl_state *s = ctx;
  factor(s);
  if (s->ok != s->n) return -1;
  solve(s);
  memcpy(x, s->x, sizeof *x * (size_t)s->n);
  return 0;
}

static void destroy(void *ctx) {
  ldl_state *s = ctx;
  void *all[] = {s->Ap, s->Ai, s->Ax, s->Lp, s->Parent, s->Lnz, s->Li, s->Flag, s->Pattern,
                 s->P, s->Pinv, s->Lx, s->D, s->Y, s->b, s->x, s->t};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) free(all[i]);
  free(s);
}

int bm_ldl_init(bm_method *m, const bm_input *in) {
  const hm_matrix *H = in->H;
  const int n = H->n, nnz = H->Ap[n];
  ldl_state *s = calloc(1, sizeof *s);
  if (!s) abort();
  s->n = n;
  s->Ap = xmalloc(sizeof(int) * (size_t)(n + 1));
  s->Ai = xmalloc(sizeof(int) * (size_t)nnz);
  s->Ax = xmalloc(sizeof(double) * (size_t)nnz);
  memcpy(s->Ap, H->Ap, sizeof(int) * (size_t)(n + 1));
  memcpy(s->Ai, H->Ai, sizeof(int) * (size_t)nnz);
  memcpy(s->Ax, H->Ax, sizeof(double) * (size_t)nnz);
  s->Lp = xmalloc(sizeof(int) * (size_t)(n + 1));
  s->Parent = xmalloc(sizeof(int) * (size_t)n);
  s->Lnz = xmalloc(sizeof(int) * (size_t)n);
  s->Flag = xmalloc(sizeof(int) * (size_t)n);
  s->Pattern = xmalloc(sizeof(int) * (size_t)n);
  s->P = xmalloc(sizeof(int) * (size_t)n);
  s->Pinv = xmalloc(sizeof(int) * (size_t)n);
  s->D = xmalloc(sizeof(double) * (size_t)n);
  s->Y = xmalloc(sizeof(double) * (size_t)n);
  s->b = xmalloc(sizeof(double) * (size_t)n);
  s->x = xmalloc(sizeof(double) * (size_t)n);
  s->t = xmalloc(sizeof(double) * (size_t)n);
  memcpy(s->b, in->b, sizeof(double) * (size_t)n);
  int st = amd_order(n, s->Ap, s->Ai, s->P, NULL, NULL);
  if (st != AMD_OK && st != AMD_OK_BUT_JUMBLED) {
    fprintf(stderr, "bench: amd_order failed (%d)\n", st);
    destroy(s);
    return -1;
  }
  for (int k = 0; k < n; k++) s->Pinv[s->P[k]] = k;
  ldl_symbolic(n, s->Ap, s->Ai, s->Lp, s->Parent, s->Lnz, s->Flag, s->P, s->Pinv);
  s->Li = xmalloc(sizeof(int) * (size_t)s->Lp[n]);
  s->Lx = xmalloc(sizeof(double) * (size_t)s->Lp[n]);

  memset(m, 0, sizeof *m);
  snprintf(m->name, sizeof m->name, "SuiteSparse LDL+AMD");
  m->precision = "double";
  m->library = 1;
  m->state = s;
  m->factor = factor;
  m->solve = solve;
  m->check = check;
  m->destroy = destroy;
  long long *count = xmalloc(sizeof *count * (size_t)n);
  for (int j = 0; j < n; j++) count[j] = (long long)s->Lnz[j] + 1;
  m->flops_chol = fc_chol_counts(count, n);
  m->lnz = (long long)s->Lp[n] + n;
  free(count);
  return 0;
}
