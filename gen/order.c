/* order.c -- greedy graph elimination orderings (see order.h).
 *
 * One greedy rule: eliminate the remaining node with the smallest cost key
 * (two terms, lexicographic), ties (in the -level variants) by the level
 * in the elimination tree so far (pqueue.h), then by block size, then name
 * (cgraph.rank); the heuristics differ only in their key and that. Nodes
 * wait in an indexed heap (pqueue.h) and a node's key is recomputed only
 * when an elimination changed it. Keys of degree and height run on the
 * quotient graph (qgraph.c); keys with a fill term on the explicit
 * elimination graph below, which keeps every node's fill (missing edges
 * among its neighbours) and fill area exact as edges come and go:
 *
 *   adding edge a-b, with C = N(a) & N(b) (before):
 *     fill(a) += |N(a)| - |C|,  area(a) += d_b (H(a) - d(C)),  the same for b,
 *     fill(c) -= 1, area(c) -= d_a d_b  for every c in C (a pair of N(c) met);
 *   removing v once N(v) is a clique: for every u in N(v),
 *     fill(u) -= |N(u)| - |N(v)|,  area(u) -= d_v ((H(u) - d_v) - (H(v) - d_u)),
 *
 * where H is the neighbours' block sizes summed (the column height) and d(C)
 * the block sizes of C. So an elimination costs the neighbourhoods of the
 * pivot's neighbours, not a scan of every node. */
#include "order.h"

#include <stdlib.h>
#include <string.h>

#include "pqueue.h"
#include "qgraph.h"

typedef enum cost_term {
  T_NONE = 0,
  T_DEGREE,    /* neighbours */
  T_HEIGHT,    /* sum of the neighbours' block sizes: the column height h */
  T_FILL,      /* missing edges among the neighbours */
  T_FILL_AREA, /* sum over missing edges of d_u * d_w */
  T_FLOPS      /* flops of eliminating this pivot now */
} cost_term;

typedef struct heuristic {
  const char *name;
  cost_term key[2]; /* lexicographic; then the level if level, then cgraph.rank */
  int level;
} heuristic;

static const heuristic heuristics[] = {
    {"natural", {T_NONE, T_NONE}, 0},
    {"mda", {T_DEGREE, T_NONE}, 0},
    {"meca", {T_FILL, T_DEGREE}, 0},
    {"mda-height", {T_HEIGHT, T_NONE}, 0},
    {"meca-height", {T_FILL, T_HEIGHT}, 0},
    {"meca-area", {T_FILL_AREA, T_HEIGHT}, 0},
    {"meca-flops", {T_FILL, T_FLOPS}, 0},
    {"area-flops", {T_FILL_AREA, T_FLOPS}, 0},
    {"min-flops", {T_FLOPS, T_FILL}, 0},
    /* the same orders' ties by the level (pqueue.h), for --order balanced
     * only: a balanced elimination tree, whose independent pivots the
     * generated factor overlaps (order.h) */
    {"mda-level", {T_DEGREE, T_NONE}, 1},
    {"meca-level", {T_FILL, T_DEGREE}, 1},
};

enum { NHEUR = (int)(sizeof heuristics / sizeof heuristics[0]), H_NATURAL = 0, H_MDA = 1, H_MECA = 2 };

int order_nheuristics(void) { return NHEUR; }

const char *order_heuristic_name(int h) { return h >= 0 && h < NHEUR ? heuristics[h].name : "?"; }

static const char *kind_names[ORDER_NKINDS] = {"natural", "mda", "meca", "best", "balanced"};

const char *order_kind_name(order_kind k) { return (unsigned)k < ORDER_NKINDS ? kind_names[k] : "?"; }

int order_parse(const char *name) {
  for (int k = 0; k < ORDER_NKINDS; k++)
    if (strcmp(kind_names[k], name) == 0) return k;
  return -1;
}

int order_is_permutation(const int *perm, int n) {
  unsigned char *seen = calloc((size_t)n + 1, 1);
  if (!seen) abort();
  int ok = 1;
  for (int p = 0; p < n && ok; p++) {
    if (perm[p] < 0 || perm[p] >= n || seen[perm[p]])
      ok = 0;
    else
      seen[perm[p]] = 1;
  }
  free(seen);
  return ok;
}

static void *xcalloc(size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size);
  if (!p) abort();
  return p;
}

//---- the elimination graph with fill counts ----------------------------------------

typedef struct nbrs {
  int *v; /* neighbours; eliminated ones are dropped when next read */
  int len, cap;
} nbrs;

typedef struct fgraph {
  const cgraph *g;
  const int *d;
  int n;
  nbrs *adj;
  int64_t *deg, *h, *fill, *area; /* exact, live nodes */
  int64_t *key[2];
  int *level; /* height in the elimination tree so far (pqueue.h) */
  unsigned char *dead;
  int64_t *mark, stamp;           /* neighbourhood marks */
  int64_t *touch, tstamp;         /* nodes whose keys changed */
  int *touched;
  int ntouched;
  int64_t work, budget;
} fgraph;

static void nbrs_push(nbrs *l, int x) {
  if (l->len == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 4;
    l->v = realloc(l->v, sizeof *l->v * (size_t)l->cap);
    if (!l->v) abort();
  }
  l->v[l->len++] = x;
}

/* Drops eliminated nodes from u's list; marks the rest with st if st > 0. */
static void compact(fgraph *f, int u, int64_t st) {
  nbrs *l = &f->adj[u];
  int k = 0;
  for (int t = 0; t < l->len; t++) {
    int w = l->v[t];
    if (f->dead[w]) continue;
    l->v[k++] = w;
    if (st) f->mark[w] = st;
  }
  f->work += l->len;
  l->len = k;
}

static void touch(fgraph *f, int u) {
  if (f->touch[u] == f->tstamp || f->dead[u]) return;
  f->touch[u] = f->tstamp;
  f->touched[f->ntouched++] = u;
}

static int64_t term_value(const fgraph *f, int v, cost_term t) {
  switch (t) {
  case T_DEGREE: return f->deg[v];
  case T_HEIGHT: return f->h[v];
  case T_FILL: return f->fill[v];
  case T_FILL_AREA: return f->area[v];
  case T_FLOPS: return symbolic_pivot_flops3(f->d[v], f->h[v]);
  case T_NONE: break;
  }
  return 0;
}

static void free_fgraph(fgraph *f) {
  if (f->adj)
    for (int i = 0; i < f->n; i++) free(f->adj[i].v);
  free(f->adj);
  free(f->deg);
  free(f->h);
  free(f->fill);
  free(f->area);
  free(f->key[0]);
  free(f->key[1]);
  free(f->level);
  free(f->dead);
  free(f->mark);
  free(f->touch);
  free(f->touched);
}

/* The graph, its degrees and heights, and every node's fill and area from
 * the triangles through it. 0 if that alone exceeds the budget. */
static int init_fgraph(fgraph *f, const cgraph *g, int64_t budget) {
  int n = g->n;
  memset(f, 0, sizeof *f);
  /* the triangles cost the sum of the squared degrees: known up front */
  int64_t cost = 0;
  for (int i = 0; i < n; i++) cost += (int64_t)(g->adr[i + 1] - g->adr[i]) * (g->adr[i + 1] - g->adr[i]) + 1;
  f->work = n;
  if (cost > budget) return 0;
  f->g = g;
  f->d = g->degree;
  f->n = n;
  f->budget = budget;
  f->adj = xcalloc((size_t)n, sizeof *f->adj);
  f->deg = xcalloc((size_t)n, sizeof *f->deg);
  f->h = xcalloc((size_t)n, sizeof *f->h);
  f->fill = xcalloc((size_t)n, sizeof *f->fill);
  f->area = xcalloc((size_t)n, sizeof *f->area);
  f->key[0] = xcalloc((size_t)n, sizeof(int64_t));
  f->key[1] = xcalloc((size_t)n, sizeof(int64_t));
  f->level = xcalloc((size_t)n, sizeof *f->level);
  f->dead = xcalloc((size_t)n, 1);
  f->mark = xcalloc((size_t)n, sizeof *f->mark);
  f->touch = xcalloc((size_t)n, sizeof *f->touch);
  f->touched = xcalloc((size_t)n, sizeof *f->touched);
  for (int i = 0; i < n; i++) {
    for (int k = g->adr[i]; k < g->adr[i + 1]; k++) {
      nbrs_push(&f->adj[i], g->adj[k]);
      f->h[i] += f->d[g->adj[k]];
    }
    f->deg[i] = f->adj[i].len;
  }
  for (int v = 0; v < n; v++) {
    int64_t st = ++f->stamp, tri = 0, triw = 0, sq = 0;
    const nbrs *nv = &f->adj[v];
    for (int t = 0; t < nv->len; t++) f->mark[nv->v[t]] = st;
    for (int t = 0; t < nv->len; t++) {
      int u = nv->v[t];
      const nbrs *nu = &f->adj[u];
      sq += (int64_t)f->d[u] * f->d[u];
      for (int s = 0; s < nu->len; s++) {
        int w = nu->v[s];
        if (w > u && f->mark[w] == st) {
          tri++;
          triw += (int64_t)f->d[u] * f->d[w];
        }
      }
      f->work += nu->len + 1;
    }
    if (f->work > f->budget) return 0;
    f->fill[v] = f->deg[v] * (f->deg[v] - 1) / 2 - tri;
    f->area[v] = (f->h[v] * f->h[v] - sq) / 2 - triw;
  }
  return 1;
}

/* Eliminates v: joins its neighbours pairwise, then removes it, keeping the
 * counts exact (top of the file). 0 if the budget ran out. */
static int eliminate(fgraph *f, int v) {
  compact(f, v, 0);
  const int *nv = f->adj[v].v;
  int k = f->adj[v].len;
  for (int x = 0; x + 1 < k; x++) {
    int a = nv[x];
    int64_t st = ++f->stamp;
    compact(f, a, st);
    for (int y = x + 1; y < k; y++) {
      int b = nv[y];
      if (f->mark[b] == st) continue;
      /* a-b is missing: C = the common neighbours, before the edge exists */
      int64_t cc = 0, cw = 0;
      compact(f, b, 0);
      const nbrs *nb = &f->adj[b];
      for (int t = 0; t < nb->len; t++) {
        int c = nb->v[t];
        if (f->mark[c] != st) continue;
        cc++;
        cw += f->d[c];
        f->fill[c] -= 1;
        f->area[c] -= (int64_t)f->d[a] * f->d[b];
        touch(f, c);
      }
      f->fill[a] += f->deg[a] - cc;
      f->area[a] += (int64_t)f->d[b] * (f->h[a] - cw);
      f->fill[b] += f->deg[b] - cc;
      f->area[b] += (int64_t)f->d[a] * (f->h[b] - cw);
      nbrs_push(&f->adj[a], b);
      nbrs_push(&f->adj[b], a);
      f->mark[b] = st;
      f->deg[a]++;
      f->deg[b]++;
      f->h[a] += f->d[b];
      f->h[b] += f->d[a];
      touch(f, a);
      touch(f, b);
    }
    if (f->work > f->budget) return 0;
  }
  for (int x = 0; x < k; x++) {
    int u = nv[x];
    f->fill[u] -= f->deg[u] - k;
    f->area[u] -= (int64_t)f->d[v] * ((f->h[u] - f->d[v]) - (f->h[v] - f->d[u]));
    f->deg[u]--;
    f->h[u] -= f->d[v];
    pqueue_raise(f->level, v, u);
    touch(f, u);
  }
  f->dead[v] = 1;
  free(f->adj[v].v);
  memset(&f->adj[v], 0, sizeof f->adj[v]);
  return 1;
}

/* Greedy order by heuristic hi on the elimination graph, at most `budget`
 * work and stopping as soon as the flops reach `stop` (it cannot win then).
 * Returns 3 x flops, or FILL_OVER_BUDGET or FILL_STOPPED. */
enum { FILL_OVER_BUDGET = -1, FILL_STOPPED = -2 };
static int64_t fill_order(const cgraph *g, int hi, int64_t budget, int64_t stop, int *perm, int64_t *work) {
  const heuristic *hr = &heuristics[hi];
  fgraph f;
  int64_t f3 = 0;
  if (!init_fgraph(&f, g, budget)) {
    *work = f.work;
    free_fgraph(&f);
    return FILL_OVER_BUDGET;
  }
  for (int v = 0; v < g->n; v++)
    for (int t = 0; t < 2; t++) f.key[t][v] = term_value(&f, v, hr->key[t]);
  pqueue pq;
  pqueue_init(&pq, g->n, f.key[0], f.key[1], hr->level ? f.level : NULL, g->rank);
  for (int v = 0; v < g->n; v++) pqueue_push(&pq, v);
  for (int p = 0; p < g->n; p++) {
    int v = pqueue_pop(&pq);
    perm[p] = v;
    f3 += symbolic_pivot_flops3(f.d[v], f.h[v]);
    f.tstamp++;
    f.ntouched = 0;
    if (f3 >= stop) {
      f3 = FILL_STOPPED;
      break;
    }
    if (!eliminate(&f, v)) {
      f3 = FILL_OVER_BUDGET;
      break;
    }
    for (int t = 0; t < f.ntouched; t++) {
      int u = f.touched[t];
      if (f.dead[u]) continue;
      for (int k = 0; k < 2; k++) f.key[k][u] = term_value(&f, u, hr->key[k]);
      pqueue_update(&pq, u);
    }
  }
  pqueue_free(&pq);
  *work = f.work;
  free_fgraph(&f);
  return f3;
}

//---- the heuristics --------------------------------------------------------------------

/* The natural order: declaration order (cgraph.natural), or node order. */
static void natural(const cgraph *g, int *perm) {
  for (int p = 0; p < g->n; p++) perm[p] = g->natural ? g->natural[p] : p;
}

static int on_quotient_graph(const heuristic *h) {
  for (int t = 0; t < 2; t++)
    if (h->key[t] != T_NONE && h->key[t] != T_DEGREE && h->key[t] != T_HEIGHT) return 0;
  return h->key[1] == T_NONE;
}

/* Runs heuristic hi into perm: 3 x flops, or fill_order's FILL_ codes.
 * Adds the work done to *work. */
static int64_t run_heuristic(const cgraph *g, int hi, int64_t budget, int64_t stop, int *perm, int64_t *work) {
  const heuristic *h = &heuristics[hi];
  if (h->key[0] == T_NONE) {
    natural(g, perm);
    symbolic_totals t;
    symbolic_totals_of(g, perm, &t);
    *work += g->adr[g->n] + g->n; /* the counts' passes over the graph */
    return t.flops3;
  }
  if (on_quotient_graph(h)) {
    qg_cost c;
    qgraph_min_degree(g, h->key[0] == T_HEIGHT, h->level, perm, &c);
    *work += c.work;
    return c.flops3;
  }
  int64_t w = 0, f3 = fill_order(g, hi, budget, stop, perm, &w);
  *work += w;
  return f3;
}

void order_by_heuristic(const cgraph *g, int hi, int *perm) {
  int64_t work = 0;
  run_heuristic(g, hi, INT64_MAX, INT64_MAX, perm, &work);
}

/* The natural order is declaration order: swapping two declarations or
 * adding one part would reorder its pivots. `best` takes it only when it
 * saves more than ORDER_NATURAL_MARGIN percent of the greedy orders' flops,
 * so that the greedy orders, which depend on the graph alone, decide every
 * tie and near tie. */
static int natural_wins(int64_t f_nat, int64_t f_greedy) {
  return f_nat * 100 < f_greedy * (100 - ORDER_NATURAL_MARGIN);
}

static int64_t span3_of(const cgraph *g, const int *perm) {
  symbolic_totals t;
  symbolic_totals_of(g, perm, &t);
  return t.span3;
}

/* Whether an order of f (3 x flops) beats the best so far (f_best, span
 * *s_best): fewer flops, or as many on a shorter critical path; *s_best
 * then receives its span. */
static int better(const cgraph *g, int64_t f, const int *perm, int64_t f_best, int64_t *s_best) {
  if (f > f_best) return 0;
  const int64_t s = span3_of(g, perm);
  if (f == f_best && s >= *s_best) return 0;
  *s_best = s;
  return 1;
}

/* order_run; with every = 0, the flops of kinds other than `kind` may be
 * left out (best's then). */
static void run_kinds(const cgraph *g, order_kind kind, int every, int *perm, order_result *r) {
  int n = g->n;
  size_t bytes = sizeof(int) * (size_t)n;
  memset(r, 0, sizeof *r);
  int *mda = xcalloc((size_t)n, sizeof(int)), *meca = xcalloc((size_t)n, sizeof(int));
  int *trial = xcalloc((size_t)n, sizeof(int)), *best = xcalloc((size_t)n, sizeof(int));
  int *bal = xcalloc((size_t)n, sizeof(int));
  /* minimum degree first: always finishes, and sets everyone's budget */
  int64_t work = 0;
  int64_t f_mda = run_heuristic(g, H_MDA, 0, INT64_MAX, mda, &work);
  int64_t budget = ORDER_BUDGET_BASE + ORDER_BUDGET_FACTOR * (work + g->adr[n] + n);
  int64_t f_nat = run_heuristic(g, H_NATURAL, budget, INT64_MAX, trial, &work);
  int64_t f_meca = run_heuristic(g, H_MECA, budget, INT64_MAX, meca, &work);
  int meca_cut = f_meca < 0;
  if (meca_cut) { /* over budget: --order meca is minimum degree then */
    r->cut++;
    f_meca = f_mda;
    memcpy(meca, mda, bytes);
  }
  r->flops3[ORDER_NATURAL] = f_nat;
  r->flops3[ORDER_MDA] = f_mda;
  r->flops3[ORDER_MECA] = f_meca;
  /* best: the first greedy heuristic in the table with the fewest flops; one
   * that reaches the fewest so far cannot win, and stops there. balanced:
   * the level variants too, and of the orders with the fewest flops the one
   * with the shortest critical path (span), then the first in the table.
   * The natural order competes last (natural_wins). */
  const int balance = kind == ORDER_BALANCED; /* its extra runs only when asked */
  int best_h = H_MDA, bal_h = H_MDA;
  int64_t f_best = f_mda, f_bal = f_mda, s_bal = balance ? span3_of(g, mda) : 0;
  memcpy(best, mda, bytes);
  memcpy(bal, mda, bytes);
  if (!meca_cut && f_meca < f_best) {
    best_h = H_MECA;
    f_best = f_meca;
    memcpy(best, meca, bytes);
  }
  if (!meca_cut && balance && better(g, f_meca, meca, f_bal, &s_bal)) {
    bal_h = H_MECA;
    f_bal = f_meca;
    memcpy(bal, meca, bytes);
  }
  for (int hi = H_MECA + 1; hi < NHEUR && (every || order_searches(kind)); hi++) {
    if (heuristics[hi].level && !balance) continue;
    /* an order of f_best may still be balanced's (f_bal <= f_best) */
    int64_t f = run_heuristic(g, hi, budget, balance ? f_best + 1 : f_best, trial, &work);
    if (f == FILL_OVER_BUDGET) r->cut++;
    if (f < 0) continue;
    if (!heuristics[hi].level && f < f_best) {
      best_h = hi;
      f_best = f;
      memcpy(best, trial, bytes);
    }
    if (balance && better(g, f, trial, f_bal, &s_bal)) {
      bal_h = hi;
      f_bal = f;
      memcpy(bal, trial, bytes);
    }
  }
  if (natural_wins(f_nat, f_best)) {
    best_h = H_NATURAL;
    f_best = f_nat;
    natural(g, best);
  }
  if (natural_wins(f_nat, f_bal)) {
    bal_h = H_NATURAL;
    f_bal = f_nat;
    natural(g, bal);
  }
  r->flops3[ORDER_BEST] = f_best;
  r->flops3[ORDER_BALANCED] = balance ? f_bal : -1; /* not run */
  r->work = work;
  switch (kind) {
  case ORDER_NATURAL:
    natural(g, perm);
    r->heuristic = heuristics[H_NATURAL].name;
    break;
  case ORDER_MDA:
    memcpy(perm, mda, bytes);
    r->heuristic = heuristics[H_MDA].name;
    break;
  case ORDER_MECA:
    memcpy(perm, meca, bytes);
    r->heuristic = heuristics[meca_cut ? H_MDA : H_MECA].name;
    break;
  case ORDER_BALANCED:
    memcpy(perm, bal, bytes);
    r->heuristic = heuristics[bal_h].name;
    break;
  default:
    memcpy(perm, best, bytes);
    r->heuristic = heuristics[best_h].name;
    break;
  }
  symbolic_totals_of(g, perm, &r->totals);
  free(mda);
  free(meca);
  free(trial);
  free(best);
  free(bal);
}

void order_run(const cgraph *g, order_kind kind, int *perm, order_result *r) { run_kinds(g, kind, 1, perm, r); }

int64_t order_compute(const cgraph *g, order_kind kind, int *perm, const char **chosen) {
  order_result r;
  run_kinds(g, kind, 0, perm, &r);
  if (chosen) *chosen = r.heuristic;
  return r.totals.flops3;
}
