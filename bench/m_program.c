/* m_program.c -- a generated program as a bench method: the unrolled entry
 * point, or the runtime interpreter on the same program's tables. The
 * factorization runs in place, so every call first copies the pristine
 * assembled workspace back (bm_method.restore is that copy alone). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flopcount.h"
#include "method.h"

typedef struct program_state {
  const rt_program *p;
  int tables;
  size_t scalar, work_bytes;
  void *pristine, *work, *temp, *x, *b;
  int n;
} program_state;

static void restore(void *ctx) {
  program_state *s = ctx;
  memcpy(s->work, s->pristine, s->work_bytes);
  __asm__ volatile("" ::: "memory");
}

static void factor(void *ctx) {
  program_state *s = ctx;
  memcpy(s->work, s->pristine, s->work_bytes);
  if (s->tables)
    rt_interp_factor(s->p, s->work, s->temp);
  else
    rt_program_factor(s->p, s->work, s->temp);
}

static void solve(void *ctx) {
  program_state *s = ctx;
  memcpy(s->x, s->b, s->scalar * (size_t)s->n);
  if (s->tables)
    rt_interp_solve(s->p, s->work, s->x);
  else
    rt_program_solve(s->p, s->work, s->x);
}

static int check(void *ctx, double *x) {
  program_state *s = ctx;
  memcpy(s->work, s->pristine, s->work_bytes);
  int bad = s->tables ? rt_interp_factor(s->p, s->work, s->temp) : rt_program_factor(s->p, s->work, s->temp);
  if (bad != -1) return -1;
  solve(s);
  for (int i = 0; i < s->n; i++)
    x[i] = s->p->precision == RT_FLOAT ? (double)((const float *)s->x)[i] : ((const double *)s->x)[i];
  return 0;
}

static void destroy(void *ctx) {
  program_state *s = ctx;
  free(s->pristine);
  free(s->work);
  free(s->temp);
  free(s->x);
  free(s->b);
  free(s);
}

int bm_program_init(bm_method *m, const bm_input *in, const rt_program *p, int tables) {
  if (!tables && !p->factor) return -1; /* a tables-only program has no unrolled code */
  program_state *s = calloc(1, sizeof *s);
  if (!s) abort();
  s->p = p;
  s->tables = tables;
  s->n = p->dim;
  s->scalar = p->precision == RT_FLOAT ? sizeof(float) : sizeof(double);
  s->work_bytes = s->scalar * (size_t)p->work_size;
  s->pristine = calloc((size_t)p->work_size + 1, s->scalar);
  s->work = calloc((size_t)p->work_size + 1, s->scalar);
  s->temp = calloc((size_t)p->temp_size + 1, s->scalar);
  s->x = calloc((size_t)p->dim + 1, s->scalar);
  s->b = calloc((size_t)p->dim + 1, s->scalar);
  if (!s->pristine || !s->work || !s->temp || !s->x || !s->b) abort();
  rt_assemble(p, in->J, in->inv_mass, in->inv_inertia, in->epsilon, s->pristine);
  for (int i = 0; i < p->dim; i++) {
    if (p->precision == RT_FLOAT)
      ((float *)s->b)[i] = (float)in->b[i];
    else
      ((double *)s->b)[i] = in->b[i];
  }
  memset(m, 0, sizeof *m);
  snprintf(m->name, sizeof m->name, "%s", tables ? "tables (interpreter)" : "unrolled");
  m->precision = p->precision == RT_FLOAT ? "float" : "double";
  m->state = s;
  m->factor = factor;
  m->restore = restore;
  m->solve = solve;
  m->check = check;
  m->destroy = destroy;
  m->flops_block = fc_block(p);
  m->flops_chol = fc_chol_program(p);
  m->lnz = fc_lnz_program(p);
  return 0;
}

int bm_program_same(const bm_method *a, const bm_method *b) {
  program_state *s = a->state, *t = b->state;
  if (a->factor != factor || b->factor != factor || s->p->precision != t->p->precision ||
      s->work_bytes != t->work_bytes || s->n != t->n || memcmp(s->pristine, t->pristine, s->work_bytes) != 0)
    return -1;
  memcpy(s->work, s->pristine, s->work_bytes);
  memcpy(t->work, t->pristine, t->work_bytes);
  const int fs = s->tables ? rt_interp_factor(s->p, s->work, s->temp) : rt_program_factor(s->p, s->work, s->temp);
  const int ft = t->tables ? rt_interp_factor(t->p, t->work, t->temp) : rt_program_factor(t->p, t->work, t->temp);
  if (fs != ft || memcmp(s->work, t->work, s->work_bytes) != 0) return 0;
  solve(s);
  solve(t);
  return memcmp(s->x, t->x, s->scalar * (size_t)s->n) == 0;
}

void bm_destroy(bm_method *m) {
  if (m->destroy && m->state) m->destroy(m->state);
  m->state = NULL;
}
