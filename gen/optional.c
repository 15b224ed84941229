/* optional.c -- see optional.h. */
#include "optional.h"

#include <string.h>

int optional_rows(const mech *m) {
  int n = 0;
  for (int i = 0; i < m->ncons; i++) n += !mech_is_equality(&m->cons[i]);
  return n;
}

/* Marks in on[] the pivots whose solver constraint acts on a solver body of
 * mechanism body b, and their ancestors in the elimination tree (a pivot's
 * parent is the first row block of its column). */
static void mark_paths(const program *p, int b, unsigned char *on) {
  if (b == MECH_WORLD) return;
  const smech *s = &p->s;
  const symbolic *y = &p->sym;
  for (int c = 0; c < s->ncons; c++) {
    const int oa = s->cons_a[c] == MECH_WORLD ? MECH_WORLD : s->body_orig[s->cons_a[c]];
    const int ob = s->cons_b[c] == MECH_WORLD ? MECH_WORLD : s->body_orig[s->cons_b[c]];
    if (oa != b && ob != b) continue;
    for (int q = y->pos[c]; q >= 0 && !on[q]; q = y->col_adr[q] < y->col_adr[q + 1] ? y->col_piv[y->col_adr[q]] : -1)
      on[q] = 1;
  }
}

int64_t optional_flops_all_active(arena *scratch, const program *p) {
  const mech *m = p->m;
  const symbolic *y = &p->sym;
  int64_t flops = (y->flops3 + 1) / 3, k = 0;
  unsigned char *on = ARENA_ARRAY(scratch, unsigned char, y->n + 1);
  for (int i = 0; i < m->ncons; i++) {
    const mech_constraint *c = &m->cons[i];
    if (mech_is_equality(c)) continue;
    memset(on, 0, (size_t)y->n + 1);
    mark_paths(p, c->a, on);
    mark_paths(p, c->b, on);
    int64_t rows = 0;
    for (int q = 0; q < y->n; q++) {
      if (!on[q]) continue;
      const int64_t d = y->degree[q], h = y->height[q];
      flops += d * (d - 1) + 2 * h * d + d;
      rows += d;
    }
    flops += 2 * rows * k + 2 * rows; /* S's products with the rows before it, and its own */
    k++;
  }
  return flops + k * k * k / 3;
}
