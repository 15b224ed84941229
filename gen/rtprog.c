/* rtprog.c -- see rtprog.h. */
#include "rtprog.h"

#include <string.h>

static int *copy_ints(arena *a, const int *src, int n) {
  int *dst = ARENA_ARRAY(a, int, n + 1);
  if (n > 0) memcpy(dst, src, sizeof *dst * (size_t)n);
  return dst;
}

int rtprog_lanes(rt_precision precision) {
  return target_lanes(RTPROG_PANEL_BYTES, precision);
}

int rtprog_et_ld(const rt_program *r) {
  int max_h = 0, lanes = rtprog_lanes(r->precision);
  for (int q = 0; q < r->ncons; q++)
    if (r->piv_height[q] > max_h) max_h = r->piv_height[q];
  return (max_h + lanes - 1) / lanes * lanes;
}

/* temp_size: see rtprog.h */
static int temp_size(const rt_program *r, int max_col) {
  int max_d = 0;
  for (int q = 0; q < r->ncons; q++) {
    int d = r->cons_degree[r->piv_cons[q]];
    if (r->piv_height[q] > 0 && d > max_d) max_d = d;
  }
  int unrolled = RTPROG_TEMP_ET + max_d * rtprog_et_ld(r);
  return unrolled > max_col ? unrolled : max_col;
}

void rtprog_build(arena *a, const program *p, rt_precision precision, rt_program *out) {
  const smech *s = &p->s;
  const symbolic *y = &p->sym;
  memset(out, 0, sizeof *out);
  out->name = p->m->name;
  out->precision = precision;
  out->structure_hash = p->hash;
  out->nbody = p->m->nbody;
  out->nsbody = s->nbody;
  out->ncons = s->ncons;
  out->dim = y->dim;
  out->work_size = y->work_size;

  out->nblk = y->nblock;
  out->nrsi = y->nrsi;
  out->sbody_body = copy_ints(a, s->body_orig, s->nbody);
  out->shard_adr = copy_ints(a, s->shard_adr, p->m->nbody);
  out->shard_num = copy_ints(a, s->shard_num, p->m->nbody);
  /* equality joints are counted alone, so inequality constraints anywhere
   * in the mechanism leave the program unchanged */
  int *eq_index = ARENA_ARRAY(a, int, p->m->ncons + 1), *cj = ARENA_ARRAY(a, int, s->ncons + 1);
  for (int c = 0, k = 0; c < p->m->ncons; c++) eq_index[c] = mech_is_equality(&p->m->cons[c]) ? k++ : -1;
  for (int c = 0; c < s->ncons; c++) cj[c] = s->cons_orig[c] >= 0 ? eq_index[s->cons_orig[c]] : -1;
  out->cons_joint = cj;
  out->cons_a = copy_ints(a, s->cons_a, s->ncons);
  out->cons_b = copy_ints(a, s->cons_b, s->ncons);
  out->cons_degree = copy_ints(a, s->cons_degree, s->ncons);
  int *row = ARENA_ARRAY(a, int, s->ncons + 1);
  for (int c = 0, r = 0; c < s->ncons; c++) {
    row[c] = r;
    r += s->cons_degree[c];
  }
  out->cons_row = row;
  out->cons_name = s->cons_name;
  out->piv_cons = copy_ints(a, y->perm, y->n);
  out->piv_node = copy_ints(a, y->node_off, y->n);
  out->piv_edge = copy_ints(a, y->edge_off, y->n);
  out->piv_height = copy_ints(a, y->height, y->n);
  out->piv_blk_adr = copy_ints(a, y->col_adr, y->n + 1);
  out->blk_piv = copy_ints(a, y->col_piv, y->nblock);
  out->blk_off = copy_ints(a, y->col_off, y->nblock);
  out->blk_fill = y->col_fill;
  out->piv_rsi_adr = y->rsi_adr;
  out->rsi = y->rsi;
  out->temp_size = temp_size(out, y->max_col);
}
