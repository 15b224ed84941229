/* couple.c -- the Schur complement's sources and cost (see couple.h). */
#include "couple.h"

#include <stdlib.h>
#include <string.h>

#include "rt_world.h"

/* Points a collision shape rests on (runtime/contact.c's ground contacts
 * of a body lying on the ground: a cylinder on its side touches with both
 * rims). */
static int resting_points(mech_shape shape) {
  switch (shape) {
  case MECH_SHAPE_SPHERE: return 1;
  case MECH_SHAPE_CAPSULE:
  case MECH_SHAPE_CYLINDER: return 2;
  case MECH_SHAPE_BOX: return 4;
  case MECH_SHAPE_NONE: break;
  }
  return 0;
}

/* Appends to node[*len...] the constraints on the solver bodies of
 * original body b (all its shards) not yet marked with stamp. */
static void add_body(const smech *s, const int *inc_adr, const int *inc, int b, int *mark, int stamp, int *node,
                     int *len) {
  if (b == MECH_WORLD || mech_body_is_fixed(s->m, b)) return;
  for (int sb = s->shard_adr[b]; sb < s->shard_adr[b] + s->shard_num[b]; sb++)
    for (int k = inc_adr[sb]; k < inc_adr[sb + 1]; k++)
      if (mark[inc[k]] != stamp) {
        mark[inc[k]] = stamp;
        node[(*len)++] = inc[k];
      }
}

void couple_sources(arena *a, const smech *s, couple_set *out) {
  const mech *m = s->m;
  rt_settings defaults;
  rt_settings_default(&defaults);
  memset(out, 0, sizeof *out);
  /* the constraints on each solver body (CSR) */
  int *inc_adr = calloc((size_t)s->nbody + 1, sizeof *inc_adr);
  int *inc = malloc(sizeof *inc * (2 * (size_t)s->ncons + 1));
  int *fill = calloc((size_t)s->nbody + 1, sizeof *fill), *mark = malloc(sizeof *mark * ((size_t)s->ncons + 1));
  if (!inc_adr || !inc || !fill || !mark) abort();
  for (int pass = 0; pass < 2; pass++) { /* counts, then the lists */
    for (int c = 0; c < s->ncons; c++)
      for (int side = 0; side < 2; side++) {
        const int b = side ? s->cons_b[c] : s->cons_a[c];
        if (b == MECH_WORLD || (side && b == s->cons_a[c])) continue;
        if (pass == 0)
          inc_adr[b + 1]++;
        else
          inc[inc_adr[b] + fill[b]++] = c;
      }
    for (int b = 0; pass == 0 && b < s->nbody; b++) inc_adr[b + 1] += inc_adr[b];
  }
  for (int c = 0; c < s->ncons; c++) mark[c] = -1;
  /* the sources: joints' rows outside the block, then contact bodies */
  int joints = 0, contacts = 0;
  for (int i = 0; i < m->ncons && joints < defaults.coupled_rows; i++) joints += !mech_is_equality(&m->cons[i]);
  if (m->settings.has_ground)
    for (int b = 0; b < m->nbody; b++)
      if (!mech_body_is_fixed(m, b)) contacts += resting_points(m->bodies[b].shape);
  const int with_contacts = contacts > 0 && contacts <= defaults.coupled_contacts;
  int nsrc = joints;
  if (with_contacts)
    for (int b = 0; b < m->nbody; b++) nsrc += !mech_body_is_fixed(m, b) && resting_points(m->bodies[b].shape) > 0;
  out->adr = ARENA_ARRAY(a, int, nsrc + 1);
  out->cols = ARENA_ARRAY(a, int, nsrc + 1);
  out->contact = ARENA_ARRAY(a, unsigned char, nsrc + 1);
  int *node = malloc(sizeof *node * ((size_t)nsrc * (size_t)s->ncons + 1)), len = 0, n = 0;
  if (!node) abort();
  for (int i = 0; i < m->ncons && n < joints; i++) {
    const mech_constraint *c = &m->cons[i];
    if (mech_is_equality(c)) continue;
    out->adr[n] = len;
    add_body(s, inc_adr, inc, c->a, mark, n, node, &len);
    add_body(s, inc_adr, inc, c->b, mark, n, node, &len);
    out->cols[n] = 1;
    out->contact[n++] = 0;
  }
  for (int b = 0; with_contacts && b < m->nbody; b++) {
    const int points = mech_body_is_fixed(m, b) ? 0 : resting_points(m->bodies[b].shape);
    if (points == 0) continue;
    out->adr[n] = len;
    add_body(s, inc_adr, inc, b, mark, n, node, &len);
    out->cols[n] = 3 * points;
    out->contact[n++] = 1;
  }
  out->adr[n] = len;
  out->n = n;
  out->node = ARENA_ARRAY(a, int, len + 1);
  memcpy(out->node, node, sizeof *node * (size_t)len);
  free(node);
  free(inc_adr);
  free(inc);
  free(fill);
  free(mark);
}

int64_t couple_flops3(const cgraph *g, const couple_set *c, const int *perm) {
  const int n = g->n;
  if (n == 0 || c->n == 0) return 0;
  int *pos = malloc(sizeof *pos * (size_t)n), *parent = malloc(sizeof *parent * (size_t)n);
  int *height = malloc(sizeof *height * (size_t)n), *mark = malloc(sizeof *mark * (size_t)n);
  int *path_adr = malloc(sizeof *path_adr * ((size_t)c->n + 1));
  int *path = malloc(sizeof *path * ((size_t)c->n * (size_t)n));
  if (!pos || !parent || !height || !mark || !path_adr || !path) abort();
  for (int p = 0; p < n; p++) {
    pos[perm[p]] = p;
    mark[p] = -1;
  }
  symbolic_tree(g, perm, parent, height);
  int64_t f3 = 0;
  int len = 0;
  for (int i = 0; i < c->n; i++) { /* each source's path: its pivots' ancestors */
    path_adr[i] = len;
    int64_t forward = 0;
    for (int k = c->adr[i]; k < c->adr[i + 1]; k++)
      for (int p = pos[c->node[k]]; p >= 0 && mark[p] != i; p = parent[p]) {
        const int64_t d = g->degree[perm[p]];
        mark[p] = i;
        path[len++] = p;
        forward += d * d + 2 * d * height[p]; /* the node's triangle, its blocks, d divisions */
      }
    f3 += 3 * (int64_t)c->cols[i] * forward;
  }
  path_adr[c->n] = len;
  for (int p = 0; p < n; p++) mark[p] = -1;
  for (int i = 0; i < c->n; i++) { /* products: one multiply-add a shared row and pair of columns */
    for (int t = path_adr[i]; t < path_adr[i + 1]; t++) mark[path[t]] = i;
    for (int j = i; j < c->n; j++) {
      int64_t rows = 0;
      for (int t = path_adr[j]; t < path_adr[j + 1]; t++)
        if (mark[path[t]] == i) rows += g->degree[perm[path[t]]];
      const int64_t pairs = j == i ? (int64_t)c->cols[i] * (c->cols[i] + 1) / 2 : (int64_t)c->cols[i] * c->cols[j];
      f3 += 3 * 2 * pairs * rows;
    }
  }
  free(pos);
  free(parent);
  free(height);
  free(mark);
  free(path_adr);
  free(path);
  return f3;
}

/* perm with the pivots of the sources `which` selects (1 contacts, 2
 * joints, 3 both), and with ring also their neighbours, moved to the end
 * in their order, into out; returns how many moved. */
static int defer(const cgraph *g, const couple_set *c, const int *perm, int which, int ring, int *out) {
  unsigned char *late = calloc((size_t)g->n + 1, 1);
  if (!late) abort();
  for (int i = 0; i < c->n; i++)
    if (which & (c->contact[i] ? 1 : 2))
      for (int k = c->adr[i]; k < c->adr[i + 1]; k++) {
        const int v = c->node[k];
        late[v] |= 1;
        for (int e = g->adr[v]; ring && e < g->adr[v + 1]; e++) late[g->adj[e]] |= 2;
      }
  int len = 0, moved = 0;
  for (int p = 0; p < g->n; p++)
    if (!late[perm[p]]) out[len++] = perm[p];
  for (int p = 0; p < g->n; p++)
    if (late[perm[p]]) {
      out[len++] = perm[p];
      moved += p != len - 1;
    }
  free(late);
  return moved;
}

int couple_order(const cgraph *g, const couple_set *c, int *perm, symbolic_totals *totals, int64_t *schur3) {
  *schur3 = couple_flops3(g, c, perm);
  if (c->n == 0) return 0;
  int *best = malloc(sizeof *best * ((size_t)g->n + 1)), *cand = malloc(sizeof *cand * ((size_t)g->n + 1));
  if (!best || !cand) abort();
  int moved = 0;
  for (int variant = 0; variant < 6; variant++) {
    const int k = defer(g, c, perm, 1 + variant % 3, variant / 3, cand);
    if (k == 0) continue;
    symbolic_totals t;
    symbolic_totals_of(g, cand, &t);
    const int64_t s3 = couple_flops3(g, c, cand);
    if (t.flops3 + s3 < totals->flops3 + *schur3) {
      *totals = t;
      *schur3 = s3;
      moved = k;
      memcpy(best, cand, sizeof *best * (size_t)g->n);
    }
  }
  if (moved) memcpy(perm, best, sizeof *perm * (size_t)g->n);
  free(best);
  free(cand);
  return moved;
}
