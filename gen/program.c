/* program.c -- the symbolic phase driver: shattering decision, ordering,
 * symbolic factorization, statistics. */
#include "program.h"

#include <stdlib.h>
#include <string.h>

#include "json.h"

void program_default_options(program_options *o) {
  o->order = ORDER_BEST;
  o->shatter = PROGRAM_SHATTER_FROM_MECH;
}

int64_t program_nnz(const cgraph *g) {
  int64_t nnz = 0;
  for (int i = 0; i < g->n; i++) {
    nnz += (int64_t)g->degree[i] * g->degree[i];
    for (int k = g->adr[i]; k < g->adr[i + 1]; k++) nnz += (int64_t)g->degree[i] * g->degree[g->adj[k]];
  }
  return nnz;
}

/* 3 x flops of the mechanism with these shard counts and ordering kind. */
static int64_t evaluate(const mech *m, const int *shards, order_kind kind) {
  arena a;
  arena_init(&a);
  smech s;
  cgraph g;
  smech_build(&a, m, shards, &s);
  cgraph_build(&a, &s, &g);
  int *perm = ARENA_ARRAY(&a, int, g.n + 1);
  int64_t f3 = order_compute(&g, kind, perm, NULL);
  arena_free(&a);
  return f3;
}

typedef struct body_key {
  const char *name;
  int idx;
} body_key;

static int cmp_body_key(const void *x, const void *y) {
  return strcmp(((const body_key *)x)->name, ((const body_key *)y)->name);
}

/* Shattering (docs/DESIGN.md section 3): for every body whose attached degrees
 * sum above the threshold, in name order, try k = 2 .. (its constraint
 * count) shards and keep the k with the fewest flops if that beats leaving
 * it whole. The search uses meca for `best` (the full `best` is run on the
 * outcome); the final decision compares the requested ordering. */
static void decide_shards(const mech *m, int threshold, order_kind kind, int64_t unshattered3, int *shards) {
  for (int i = 0; i < m->nbody; i++) shards[i] = 1;
  if (threshold <= 0) return;
  order_kind search = kind == ORDER_BEST ? ORDER_MECA : kind;
  body_key *keys = malloc(sizeof *keys * (size_t)(m->nbody + 1));
  if (!keys) abort();
  for (int i = 0; i < m->nbody; i++) keys[i] = (body_key){m->bodies[i].name, i};
  qsort(keys, (size_t)m->nbody, sizeof *keys, cmp_body_key);
  int64_t current = -1;
  for (int t = 0; t < m->nbody; t++) {
    int b = keys[t].idx;
    if (m->bodies[b].fixed || shatter_body_load(m, b) <= threshold) continue;
    int attached = 0;
    for (int c = 0; c < m->ncons; c++)
      if (mech_is_equality(&m->cons[c]) && (m->cons[c].a == b || m->cons[c].b == b)) attached++;
    if (current < 0) current = evaluate(m, shards, search);
    int best_k = 1;
    int64_t best_f = current;
    for (int k = 2; k <= attached; k++) {
      shards[b] = k;
      int64_t f = evaluate(m, shards, search);
      if (f < best_f) {
        best_f = f;
        best_k = k;
      }
    }
    shards[b] = best_k;
    current = best_f;
  }
  free(keys);
  if (kind == ORDER_BEST) {
    int any = 0;
    for (int i = 0; i < m->nbody; i++) any |= shards[i] > 1;
    if (any && unshattered3 <= evaluate(m, shards, kind))
      for (int i = 0; i < m->nbody; i++) shards[i] = 1;
  }
}

gen_status program_build(arena *a, const mech *m, const program_options *o, program *p, diag_list *d) {
  (void)d;
  memset(p, 0, sizeof *p);
  p->m = m;
  p->order = o->order;
  p->shatter_threshold = o->shatter == PROGRAM_SHATTER_FROM_MECH ? m->settings.shatter : o->shatter;

  /* Unshattered figures, for the report. */
  {
    arena t;
    arena_init(&t);
    smech s;
    cgraph g;
    smech_build(&t, m, NULL, &s);
    cgraph_build(&t, &s, &g);
    int *perm = ARENA_ARRAY(&t, int, g.n + 1);
    p->unshattered_flops3 = order_compute(&g, o->order, perm, NULL);
    p->unshattered_dim = s.dim;
    p->unshattered_density = s.dim ? (double)program_nnz(&g) / ((double)s.dim * s.dim) : 0.0;
    arena_free(&t);
  }

  int *shards = ARENA_ARRAY(a, int, m->nbody + 1);
  decide_shards(m, p->shatter_threshold, o->order, p->unshattered_flops3, shards);
  smech_build(a, m, shards, &p->s);
  cgraph_build(a, &p->s, &p->g);

  int *perm = ARENA_ARRAY(a, int, p->g.n + 1);
  order_result r;
  order_run(&p->g, o->order, perm, &r);
  for (int k = 0; k < ORDER_NKINDS; k++) p->flops3_by_order[k] = r.flops3[k];
  p->heuristic = r.heuristic;
  symbolic_build(a, &p->g, perm, &p->sym);

  p->nnz = program_nnz(&p->g);
  p->density = p->s.dim ? (double)p->nnz / ((double)p->s.dim * p->s.dim) : 0.0;
  p->hash = mech_structure_hash(m, a);
  return GEN_OK;
}

static long long round3(int64_t f3) { return (long long)((f3 + 1) / 3); }

void program_write_stats(const program *p, FILE *out) {
  const mech *m = p->m;
  const symbolic *s = &p->sym;
  int neq = 0;
  for (int i = 0; i < m->ncons; i++) neq += mech_is_equality(&m->cons[i]);
  json_writer w;
  json_begin(&w, out);
  json_key(&w, "name");
  json_string(&w, m->name);
  json_key(&w, "bodies");
  json_int(&w, m->nbody);
  json_key(&w, "constraints");
  json_int(&w, p->s.ncons);
  json_key(&w, "shards");
  json_int(&w, p->s.nshards);
  json_key(&w, "dim");
  json_int(&w, s->dim);
  json_key(&w, "density");
  json_double(&w, p->density);
  json_key(&w, "fill_blocks");
  json_int(&w, s->nfill);
  json_key(&w, "rsi_entries");
  json_int(&w, s->nrsi);
  json_key(&w, "flops");
  json_int(&w, round3(s->flops3));
  json_key(&w, "order");
  json_string(&w, order_kind_name(p->order));
  json_key(&w, "heuristic");
  json_string(&w, p->heuristic);
  json_key(&w, "pivots");
  json_begin_array(&w);
  for (int k = 0; k < s->n; k++) json_string(&w, p->g.name[s->perm[k]]);
  json_end_array(&w);
  json_key(&w, "mechanism_constraints");
  json_int(&w, m->ncons);
  json_key(&w, "equality_constraints");
  json_int(&w, neq);
  json_key(&w, "inequality_constraints");
  json_int(&w, m->ncons - neq);
  json_key(&w, "shatter_threshold");
  json_int(&w, p->shatter_threshold);
  json_key(&w, "shattered");
  json_begin_array(&w);
  for (int i = 0; i < m->nbody; i++) {
    if (p->s.shard_num[i] <= 1) continue;
    json_begin_object(&w);
    json_key(&w, "body");
    json_string(&w, m->bodies[i].name);
    json_key(&w, "shards");
    json_int(&w, p->s.shard_num[i]);
    json_end_object(&w);
  }
  json_end_array(&w);
  json_key(&w, "unshattered");
  json_begin_object(&w);
  json_key(&w, "dim");
  json_int(&w, p->unshattered_dim);
  json_key(&w, "density");
  json_double(&w, p->unshattered_density);
  json_key(&w, "flops");
  json_int(&w, round3(p->unshattered_flops3));
  json_end_object(&w);
  json_key(&w, "flops_by_order");
  json_begin_object(&w);
  for (int k = 0; k < ORDER_NKINDS; k++) {
    json_key(&w, order_kind_name((order_kind)k));
    json_int(&w, round3(p->flops3_by_order[k]));
  }
  json_end_object(&w);
  json_key(&w, "edge_blocks");
  json_int(&w, s->nblock);
  json_key(&w, "graph_edges");
  json_int(&w, cgraph_nedges(&p->g));
  json_key(&w, "workspace");
  json_int(&w, s->work_size);
  json_key(&w, "structure_hash");
  {
    char buf[32];
    snprintf(buf, sizeof buf, "%016llx", (unsigned long long)p->hash);
    json_string(&w, buf);
  }
  json_key(&w, "flop_convention");
  json_string(&w, "block LDL^T: 2*(d^3/6 + h*d^2 + d*h*(h+1)/2) per pivot of degree d, column height h");
  json_end(&w);
}
