/* program.c -- the symbolic phase driver: shattering decision, ordering,
 * symbolic factorization, statistics. */
#include "program.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "couple.h"
#include "json.h"
#include "keep.h"
#include "optional.h"
#include "redundant.h"

void program_default_options(program_options *o) {
  o->order = ORDER_BEST;
  o->shatter = PROGRAM_SHATTER_FROM_MECH;
  o->max_rows = PROGRAM_MAX_ROWS_DEFAULT;
  o->max_memory = PROGRAM_MAX_MEMORY_DEFAULT;
  o->keep = NULL;
  o->nkeep = 0;
  o->keep_ends = NULL;
  o->nkeep_ends = 0;
  o->keep_chunks = NULL;
  o->keep_tolerance = PROGRAM_KEEP_TOLERANCE_DEFAULT;
}

int64_t program_nnz(const cgraph *g) {
  int64_t nnz = 0;
  for (int i = 0; i < g->n; i++) {
    nnz += (int64_t)g->degree[i] * g->degree[i];
    for (int k = g->adr[i]; k < g->adr[i + 1]; k++) nnz += (int64_t)g->degree[i] * g->degree[g->adj[k]];
  }
  return nnz;
}

/* Building the graph holds each pair as two edge-list entries and a sorted
 * copy (cgraph_build), then twice in CSR; the orderings copy the adjacency
 * into their elimination graphs. Per node: the solver view, the graph and
 * the orderings' arrays, about 40 words. */
int64_t program_graph_bytes(int64_t n, int64_t pairs) { return 48 * pairs + 160 * n; }

/* symbolic: per block its pivot, fill flag, row and offset, and the RSI as
 * int32; rtprog and the emitter keep per-block and per-pivot arrays of
 * their own; the interpreter's workspace (ldlsim) is `work` doubles. */
int64_t program_factor_bytes(int64_t n, int64_t nblock, int64_t nrsi, int64_t work) {
  return 4 * nrsi + 48 * nblock + 128 * n + 8 * work;
}

static double mib(int64_t bytes) { return (double)bytes / (1024.0 * 1024.0); }

/* The limit diagnostics point at the mechanism's return statement. */
static int limit_line(const mech *m) { return m->return_line ? m->return_line : m->line; }

static gen_status check_rows(const mech *m, const smech *s, const program_options *o, diag_list *d) {
  if (s->dim <= o->max_rows) return GEN_OK;
  if (s->nshards)
    diag_error(d, m->file, limit_line(m),
               "mechanism has %d rows (%d equality constraints, shard welds included), more than the limit of "
               "%lld (--max-rows)",
               s->dim, s->ncons, (long long)o->max_rows);
  else
    diag_error(d, m->file, limit_line(m),
               "mechanism has %d rows (%d equality constraints), more than the limit of %lld (--max-rows)", s->dim,
               s->ncons, (long long)o->max_rows);
  return GEN_ERR_LIMIT;
}

/* The body carrying the most constraints, for the message. */
static void busiest_body(const smech *s, int *body, int *count) {
  int *cnt = calloc((size_t)s->nbody + 1, sizeof *cnt);
  if (!cnt) abort();
  *body = -1;
  *count = 0;
  for (int c = 0; c < s->ncons; c++) {
    int ends[2] = {s->cons_a[c], s->cons_b[c]};
    for (int e = 0; e < 2; e++) {
      int b = ends[e];
      if (b < 0 || s->body_fixed[b]) continue;
      if (++cnt[b] > *count) {
        *count = cnt[b];
        *body = b;
      }
    }
  }
  free(cnt);
}

static gen_status check_graph(const mech *m, const smech *s, const program_options *o, diag_list *d) {
  int64_t bytes = program_graph_bytes(s->ncons, cgraph_pair_count(s));
  if (bytes <= o->max_memory) return GEN_OK;
  int b, k;
  busiest_body(s, &b, &k);
  diag_error(d, m->file, limit_line(m),
             "the constraint graph would need %.1f MiB (%lld pairs of constraints sharing a body; '%s' carries %d), "
             "more than the memory limit of %.0f MiB (--max-memory)",
             mib(bytes), (long long)cgraph_pair_count(s), b >= 0 ? s->body_name[b] : "?", k, mib(o->max_memory));
  return GEN_ERR_LIMIT;
}

static gen_status check_factor(const mech *m, const cgraph *g, const symbolic_totals *t, const program_options *o,
                               diag_list *d) {
  int64_t bytes = program_factor_bytes(g->n, t->nblock, t->nrsi, t->work);
  if (bytes <= o->max_memory) return GEN_OK;
  diag_error(d, m->file, limit_line(m),
             "the factorization would need %.1f MiB (%lld edge blocks, %lld RSI entries, %lld flops), more than the "
             "memory limit of %.0f MiB (--max-memory)",
             mib(bytes), (long long)t->nblock, (long long)t->nrsi, (long long)((t->flops3 + 1) / 3),
             mib(o->max_memory));
  return GEN_ERR_LIMIT;
}

int64_t program_emit_bytes(const program *p, int tables) {
  const symbolic *s = &p->sym;
  int64_t pairs = 0;
  for (int q = 0; q < s->n; q++) {
    int64_t k = s->col_adr[q + 1] - s->col_adr[q];
    pairs += k * (k + 1) / 2;
  }
  if (tables) return 8192 * (int64_t)s->n + 700 * pairs + 40 * s->nrsi + (16 << 20);
  return 40960 * (int64_t)s->n + 3072 * pairs + (16 << 20);
}

gen_status program_check_emit(const program *p, const program_options *o, int tables, diag_list *d) {
  const symbolic *s = &p->sym;
  int64_t prog = program_factor_bytes(s->n, s->nblock, s->nrsi, s->work_size);
  int64_t bytes = prog + program_emit_bytes(p, tables);
  if (bytes <= o->max_memory) return GEN_OK;
  diag_error(d, p->m->file, limit_line(p->m),
             "writing the program (%s) would need %.1f MiB (%d pivots, %d edge blocks, %lld RSI entries), more "
             "than the memory limit of %.0f MiB (--max-memory)",
             tables ? "tables" : "unrolled", mib(bytes), s->n, s->nblock, (long long)s->nrsi, mib(o->max_memory));
  return GEN_ERR_LIMIT;
}

/* 3 x flops of the mechanism with these shard counts and ordering kind;
 * *size receives the graph's size (nodes + adjacency entries), the cost
 * measure of the shattering search. */
static int64_t evaluate(const mech *m, const int *shards, order_kind kind, int64_t *size) {
  arena a;
  arena_init(&a);
  smech s;
  cgraph g;
  smech_build(&a, m, shards, &s);
  cgraph_build(&a, &s, &g);
  int *perm = ARENA_ARRAY(&a, int, g.n + 1);
  int64_t f3 = order_compute(&g, kind, perm, NULL);
  if (size) *size = g.n + g.adr[g.n];
  arena_free(&a);
  return f3;
}

/* The same for body b alone with its equality constraints, their other ends
 * fixed: the local view of the shattering search once the global one is
 * over budget. */
static int64_t evaluate_alone(const mech *m, int b, int k, order_kind kind) {
  mech one = *m;
  mech_body body = m->bodies[b];
  one.bodies = &body;
  one.nbody = 1;
  int n = 0;
  for (int c = 0; c < m->ncons; c++)
    if (mech_is_equality(&m->cons[c]) && (m->cons[c].a == b || m->cons[c].b == b)) n++;
  mech_constraint *cons = malloc(sizeof *cons * (size_t)(n + 1));
  if (!cons) abort();
  n = 0;
  for (int c = 0; c < m->ncons; c++) {
    const mech_constraint *x = &m->cons[c];
    if (!mech_is_equality(x) || (x->a != b && x->b != b)) continue;
    cons[n] = *x;
    cons[n].a = x->a == b ? 0 : MECH_WORLD;
    cons[n].b = x->b == b ? 0 : MECH_WORLD;
    n++;
  }
  one.cons = cons;
  one.ncons = n;
  int shards[1] = {k};
  int64_t f3 = evaluate(&one, shards, kind, NULL);
  free(cons);
  return f3;
}

typedef struct body_key {
  const char *name;
  int idx;
} body_key;

static int cmp_body_key(const void *x, const void *y) {
  return strcmp(((const body_key *)x)->name, ((const body_key *)y)->name);
}

/* Shard counts tried for a body with `attached` constraints: every k from 2
 * while few, then steps of a quarter (the flops change slowly with k there). */
enum { SHATTER_EVERY_K = 64 };
static int next_k(int k) { return k < SHATTER_EVERY_K ? k + 1 : k + k / 4; }

/* Work of the global shattering search (graph sizes evaluated, summed)
 * before it turns to each body alone. */
#define SHATTER_BUDGET (1LL << 22)

/* Shattering (docs/DESIGN.md section 3): for every body whose attached degrees
 * sum above the threshold, in name order, try k = 2 .. (its constraint
 * count) shards and keep the k with the fewest flops if that beats leaving
 * it whole. The search uses meca for `best` (the full `best` is run on the
 * outcome); the final decision compares the requested ordering. While the
 * evaluations stay within SHATTER_BUDGET each is of the whole mechanism;
 * past it, of the body alone (evaluate_alone), so that a mechanism with
 * many heavy bodies does not take one whole ordering per body and k. */
static void decide_shards(const mech *m, int threshold, order_kind kind, int64_t unshattered3, int *shards) {
  for (int i = 0; i < m->nbody; i++) shards[i] = 1;
  if (threshold <= 0) return;
  order_kind search = order_searches(kind) ? ORDER_MECA : kind;
  int *load = calloc((size_t)m->nbody + 1, sizeof *load), *attached = calloc((size_t)m->nbody + 1, sizeof *attached);
  body_key *keys = malloc(sizeof *keys * (size_t)(m->nbody + 1));
  if (!keys || !load || !attached) abort();
  for (int c = 0; c < m->ncons; c++) {
    const mech_constraint *k = &m->cons[c];
    if (!mech_is_equality(k)) continue;
    int ends[2] = {k->a, k->b};
    for (int e = 0; e < 2; e++)
      if (ends[e] >= 0 && (e == 0 || ends[1] != ends[0])) {
        load[ends[e]] += mech_degree(k);
        attached[ends[e]]++;
      }
  }
  for (int i = 0; i < m->nbody; i++) keys[i] = (body_key){m->bodies[i].name, i};
  qsort(keys, (size_t)m->nbody, sizeof *keys, cmp_body_key);
  int64_t current = -1, size = 0, spent = 0;
  for (int t = 0; t < m->nbody; t++) {
    int b = keys[t].idx;
    if (m->bodies[b].fixed || load[b] <= threshold) continue;
    int tries = 0;
    for (int k = 2; k <= attached[b]; k = next_k(k)) tries++;
    int global = spent + (int64_t)(tries + 1) * size <= SHATTER_BUDGET;
    if (global && current < 0) {
      current = evaluate(m, shards, search, &size);
      spent += size;
      global = spent + (int64_t)tries * size <= SHATTER_BUDGET;
    }
    int best_k = 1;
    int64_t best_f = global ? current : evaluate_alone(m, b, 1, search);
    for (int k = 2; k <= attached[b]; k = next_k(k)) {
      shards[b] = k;
      int64_t f;
      if (global) {
        f = evaluate(m, shards, search, &size);
        spent += size;
      } else {
        f = evaluate_alone(m, b, k, search);
      }
      if (f < best_f) {
        best_f = f;
        best_k = k;
      }
    }
    shards[b] = best_k;
    if (global)
      current = best_f;
    else if (best_k > 1)
      current = -1; /* the whole mechanism changed: evaluate it again if needed */
  }
  free(keys);
  free(load);
  free(attached);
  if (order_searches(kind)) {
    int any = 0;
    for (int i = 0; i < m->nbody; i++) any |= shards[i] > 1;
    if (any && unshattered3 <= evaluate(m, shards, kind, NULL))
      for (int i = 0; i < m->nbody; i++) shards[i] = 1;
  }
}

/* 1 if some body is heavy enough to be considered for shattering. */
static int any_candidate(const mech *m, int threshold) {
  if (threshold <= 0) return 0;
  int *load = calloc((size_t)m->nbody + 1, sizeof *load);
  if (!load) abort();
  int any = 0;
  for (int c = 0; c < m->ncons; c++) {
    const mech_constraint *k = &m->cons[c];
    if (!mech_is_equality(k)) continue;
    if (k->a >= 0) load[k->a] += mech_degree(k);
    if (k->b >= 0 && k->b != k->a) load[k->b] += mech_degree(k);
  }
  for (int i = 0; i < m->nbody; i++) any |= !m->bodies[i].fixed && load[i] > threshold;
  free(load);
  return any;
}

/* ldlgen --keep-order: the previous program's shattering (keep_shards),
 * if it differs from the fresh one, with the order that keeps its pivots;
 * taken into p (its solver view, graph, order in *perm, totals in *r) if
 * that costs at most `allow` flops (x3: the factor's and S's build,
 * couple.h; S's then in p->schur_flops3), else only its cost in
 * p->keep_flops3. Returns whether it was taken. */
static int keep_the_shattering(arena *a, const mech *m, const program_options *o, program *p, const int *fresh,
                               double allow, int **perm, order_result *r) {
  int *shards = ARENA_ARRAY(a, int, m->nbody + 1), *assign = ARENA_ARRAY(a, int, 2 * m->ncons + 1);
  if (!keep_shards(m, o->keep, o->nkeep, o->keep_ends, o->nkeep_ends, fresh, p->shatter_threshold, shards, assign))
    return 0;
  arena t; /* the kept view, until it is taken */
  arena_init(&t);
  smech s;
  cgraph g;
  order_result kr;
  smech_build_assigned(&t, m, shards, assign, &s);
  cgraph_build(&t, &s, &g);
  int *order = ARENA_ARRAY(&t, int, g.n + 1), *kept = ARENA_ARRAY(&t, int, g.n + 1), pivots;
  int *old_of = ARENA_ARRAY(&t, int, g.n + 1);
  order_run(&g, o->order, order, &kr);
  couple_set cs;
  couple_sources(&t, &s, &cs);
  const int64_t factor3 = keep_order(&g, o->keep, o->nkeep, order, kept, &pivots, old_of); /* fills kept */
  const int64_t s3 = couple_flops3(&g, &cs, kept), f3 = factor3 + s3;
  p->keep_flops3 = f3;
  const int take = (double)f3 <= allow && s.dim <= o->max_rows;
  if (take) { /* built again in the program's arena */
    smech_build_assigned(a, m, shards, assign, &p->s);
    cgraph_build(a, &p->s, &p->g);
    *perm = ARENA_ARRAY(a, int, p->g.n + 1);
    memcpy(*perm, kept, sizeof **perm * (size_t)p->g.n);
    p->keep_old = ARENA_ARRAY(a, int, p->g.n + 1);
    memcpy(p->keep_old, old_of, sizeof *old_of * (size_t)p->g.n);
    for (int k = 0; k < ORDER_NKINDS; k++) p->flops3_by_order[k] = kr.flops3[k];
    symbolic_totals_of(&p->g, *perm, &r->totals);
    p->keep_pivots = pivots;
    p->schur_flops3 = s3;
  }
  arena_free(&t);
  return take;
}

gen_status program_build(arena *a, const mech *m, const program_options *o, program *p, diag_list *d) {
  memset(p, 0, sizeof *p);
  p->m = m;
  p->order = o->order;
  p->shatter_threshold = o->shatter == PROGRAM_SHATTER_FROM_MECH ? m->settings.shatter : o->shatter;
  gen_status st;

  /* Unshattered figures, for the report; when no body is heavy enough to
   * shatter they are the final ones. */
  smech s0;
  cgraph g0;
  order_result r0;
  int shatter = any_candidate(m, p->shatter_threshold);
  arena t;
  arena_init(&t);
  arena *ua = shatter ? &t : a;
  smech_build(ua, m, NULL, &s0);
  if ((st = check_rows(m, &s0, o, d)) != GEN_OK || (st = check_graph(m, &s0, o, d)) != GEN_OK) {
    arena_free(&t);
    return st;
  }
  cgraph_build(ua, &s0, &g0);
  int *perm = ARENA_ARRAY(ua, int, g0.n + 1);
  order_run(&g0, o->order, perm, &r0);
  p->unshattered_flops3 = r0.totals.flops3;
  p->unshattered_dim = s0.dim;
  p->unshattered_density = s0.dim ? (double)program_nnz(&g0) / ((double)s0.dim * s0.dim) : 0.0;
  arena_free(&t);

  order_result r = r0;
  int *shards = NULL;
  if (shatter) {
    shards = ARENA_ARRAY(a, int, m->nbody + 1);
    decide_shards(m, p->shatter_threshold, o->order, p->unshattered_flops3, shards);
    smech_build(a, m, shards, &p->s);
    if ((st = check_rows(m, &p->s, o, d)) != GEN_OK || (st = check_graph(m, &p->s, o, d)) != GEN_OK) return st;
    cgraph_build(a, &p->s, &p->g);
    perm = ARENA_ARRAY(a, int, p->g.n + 1);
    order_run(&p->g, o->order, perm, &r);
  } else {
    p->s = s0;
    p->g = g0;
  }
  for (int k = 0; k < ORDER_NKINDS; k++) p->flops3_by_order[k] = r.flops3[k];
  p->heuristic = r.heuristic;
  /* the pivots the Schur complement's columns start on last, if building
   * S then costs less than the factor gains (couple.h) */
  couple_set cs;
  couple_sources(a, &p->s, &cs);
  if (order_searches(o->order))
    p->deferred_pivots = couple_order(&p->g, &cs, perm, &r.totals, &p->schur_flops3);
  else
    p->schur_flops3 = couple_flops3(&p->g, &cs, perm);
  if (o->keep) { /* the previous program's shattering and order, if they cost little more */
    p->keep_asked = 1;
    p->fresh_flops3 = r.totals.flops3 + p->schur_flops3;
    double more = (double)p->fresh_flops3 * o->keep_tolerance / 100.0;
    if (o->keep_tolerance > 0.0 && more < 3.0 * PROGRAM_KEEP_FLOOR_FLOPS) more = 3.0 * PROGRAM_KEEP_FLOOR_FLOPS;
    const double allow = (double)p->fresh_flops3 + more;
    if (shards && keep_the_shattering(a, m, o, p, shards, allow, &perm, &r)) {
      p->keep_taken = p->keep_shards_taken = 1;
    } else {
      int *kept = ARENA_ARRAY(a, int, p->g.n + 1), *old_of = ARENA_ARRAY(a, int, p->g.n + 1);
      const int64_t factor3 = keep_order(&p->g, o->keep, o->nkeep, perm, kept, &p->keep_pivots, old_of);
      const int64_t s3 = couple_flops3(&p->g, &cs, kept), f3 = factor3 + s3;
      if (p->keep_flops3 == 0 || f3 < p->keep_flops3) p->keep_flops3 = f3;
      p->keep_taken = (double)f3 <= allow;
      if (p->keep_taken) {
        perm = kept;
        p->keep_old = old_of;
        symbolic_totals_of(&p->g, perm, &r.totals);
        p->schur_flops3 = s3;
      }
    }
    if (p->keep_taken) {
      p->heuristic = "kept";
      p->keep_chunks = o->keep_chunks;
    }
  }
  if ((st = check_factor(m, &p->g, &r.totals, o, d)) != GEN_OK) return st;
  symbolic_build(a, &p->g, perm, &p->sym);

  p->nnz = program_nnz(&p->g);
  p->density = p->s.dim ? (double)p->nnz / ((double)p->s.dim * p->s.dim) : 0.0;
  p->hash = mech_structure_hash(m, a);
  return GEN_OK;
}

int program_kept_chunk(const program *p, keep_cut_kind kind, int c) {
  if (!p->keep_chunks || !p->keep_old || c < 0 || c >= p->g.n || p->keep_old[c] < 0) return -1;
  return p->keep_chunks[(size_t)p->keep_old[c] * KEEP_CUT_KINDS + kind];
}

static long long round3(int64_t f3) { return (long long)((f3 + 1) / 3); }

void program_write_stats(const program *p, const redundant *red, int batch, FILE *out) {
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
  symbolic_totals tot;
  symbolic_totals_of(&p->g, s->perm, &tot);
  json_key(&w, "critical_path_flops"); /* the heaviest path up the elimination tree */
  json_int(&w, round3(tot.span3));
  json_key(&w, "order");
  json_string(&w, order_kind_name(p->order));
  json_key(&w, "heuristic");
  json_string(&w, p->heuristic);
  json_key(&w, "deferred_pivots");
  json_int(&w, p->deferred_pivots);
  json_key(&w, "schur_flops");
  json_int(&w, round3(p->schur_flops3));
  if (p->keep_asked) { /* ldlgen --keep-order */
    json_key(&w, "kept_order");
    json_bool(&w, p->keep_taken);
    json_key(&w, "kept_shattering");
    json_bool(&w, p->keep_shards_taken);
    json_key(&w, "kept_pivots");
    json_int(&w, p->keep_pivots);
    json_key(&w, "kept_flops");
    json_int(&w, round3(p->keep_flops3));
    json_key(&w, "fresh_flops");
    json_int(&w, round3(p->fresh_flops3));
  }
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
  json_key(&w, "optional_rows"); /* optional.h */
  json_int(&w, optional_rows(m));
  json_key(&w, "flops_all_active");
  {
    arena t;
    arena_init(&t);
    json_int(&w, optional_flops_all_active(&t, p));
    arena_free(&t);
  }
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
    if (p->flops3_by_order[k] < 0) continue; /* balanced, unless asked for */
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
  /* the rank of the equality rows at the initial pose (redundant.h) */
  json_key(&w, "redundant_rows");
  if (red)
    json_int(&w, red->dim - red->rank);
  else
    json_double(&w, NAN); /* null: the rank test's factorization failed */
  json_key(&w, "redundant_constraints");
  json_begin_array(&w);
  for (int i = 0; red && i < red->ncons; i++) {
    json_begin_object(&w);
    json_key(&w, "name");
    json_string(&w, p->s.cons_name[red->cons[i]]);
    json_key(&w, "rows");
    json_int(&w, redundant_count(red->rows[i]));
    json_end_object(&w);
  }
  json_end_array(&w);
  json_key(&w, "flop_convention");
  json_string(&w, "block LDL^T: 2*(d^3/6 + h*d^2 + d*h*(h+1)/2) per pivot of degree d, column height h");
  if (batch) {
    json_key(&w, "batch"); /* lanes: copies factored together (flops are per copy) */
    json_int(&w, batch);
  }
  json_end(&w);
}
