/* qgraph.c -- elimination on the quotient graph (see qgraph.h).
 *
 * Invariant: a live element holds only live variables, and variable i is
 * in live element e exactly when e is in i's element list. Eliminating p
 * absorbs every element holding p, so no live element ever holds a dead
 * variable; an element list may still name absorbed elements, which are
 * skipped (elem_len < 0) and dropped when the list is next rewritten. */
#include "qgraph.h"

#include <stdlib.h>
#include <string.h>

#include "pqueue.h"
#include "symbolic.h"

static void *xcalloc(size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size);
  if (!p) abort();
  return p;
}

static void list_push(qg_list *l, int x) {
  if (l->len == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 4;
    l->v = realloc(l->v, sizeof *l->v * (size_t)l->cap);
    if (!l->v) abort();
  }
  l->v[l->len++] = x;
}

void qgraph_init(qgraph *q, const cgraph *g) {
  memset(q, 0, sizeof *q);
  int n = g->n, m = g->nelem;
  q->n = n;
  q->nelem = m;
  q->d = g->degree;
  q->var_elem = xcalloc((size_t)n, sizeof *q->var_elem);
  q->elem_var = xcalloc((size_t)(m + n), sizeof *q->elem_var);
  q->elem_len = xcalloc((size_t)(m + n), sizeof *q->elem_len);
  q->elem_wt = xcalloc((size_t)(m + n), sizeof *q->elem_wt);
  q->dead = xcalloc((size_t)n, 1);
  q->mark = xcalloc((size_t)n, sizeof *q->mark);
  q->list = xcalloc((size_t)n, sizeof *q->list);
  for (int e = 0; e < m; e++) {
    int len = g->elem_adr[e + 1] - g->elem_adr[e];
    q->elem_var[e] = xcalloc((size_t)len, sizeof(int));
    memcpy(q->elem_var[e], g->elem_var + g->elem_adr[e], sizeof(int) * (size_t)len);
    q->elem_len[e] = len;
    for (int k = 0; k < len; k++) {
      int i = q->elem_var[e][k];
      q->elem_wt[e] += q->d[i];
      list_push(&q->var_elem[i], e);
    }
  }
  q->nlive = n;
  for (int i = 0; i < n; i++) q->live_wt += q->d[i];
}

void qgraph_free(qgraph *q) {
  if (!q->var_elem) return;
  for (int i = 0; i < q->n; i++) free(q->var_elem[i].v);
  for (int e = 0; e < q->nelem; e++) free(q->elem_var[e]);
  free(q->var_elem);
  free(q->elem_var);
  free(q->elem_len);
  free(q->elem_wt);
  free(q->dead);
  free(q->mark);
  free(q->list);
  memset(q, 0, sizeof *q);
}

static void absorb(qgraph *q, int e) {
  free(q->elem_var[e]);
  q->elem_var[e] = NULL;
  q->elem_len[e] = -1;
}

/* L_p into q->list, marked with q->stamp; absorbs p's elements. */
static int gather(qgraph *q, int p) {
  int64_t st = ++q->stamp;
  int len = 0;
  q->mark[p] = st;
  qg_list *ep = &q->var_elem[p];
  for (int k = 0; k < ep->len; k++) {
    int e = ep->v[k];
    if (q->elem_len[e] < 0) continue;
    const int *ve = q->elem_var[e];
    for (int t = 0; t < q->elem_len[e]; t++) {
      int i = ve[t];
      if (q->mark[i] != st) {
        q->mark[i] = st;
        q->list[len++] = i;
      }
    }
    q->work += q->elem_len[e] + 1;
    absorb(q, e);
  }
  free(ep->v);
  memset(ep, 0, sizeof *ep);
  return len;
}

/* Makes L_p (q->list, len entries) the element of id q->nelem. */
static int new_element(qgraph *q, int len) {
  int e = q->nelem++;
  q->elem_var[e] = xcalloc((size_t)len, sizeof(int));
  memcpy(q->elem_var[e], q->list, sizeof(int) * (size_t)len);
  q->elem_len[e] = len;
  int64_t w = 0;
  for (int k = 0; k < len; k++) w += q->d[q->list[k]];
  q->elem_wt[e] = w;
  return e;
}

static void kill_variable(qgraph *q, int p) {
  q->dead[p] = 1;
  q->nlive--;
  q->live_wt -= q->d[p];
}

int qgraph_eliminate(qgraph *q, int p, const int **list) {
  int len = gather(q, p);
  kill_variable(q, p);
  int e = new_element(q, len);
  /* The new element joins every neighbour's list; absorbed elements are
   * left there and skipped (every entry is read once, when its variable is
   * eliminated), so a neighbour's list costs nothing here. */
  for (int k = 0; k < len; k++) list_push(&q->var_elem[q->list[k]], e);
  q->work += len;
  *list = q->list;
  return len;
}

static void add_cost(qg_cost *c, int dp, int len, int64_t h) {
  c->flops3 += symbolic_pivot_flops3(dp, h);
  c->nblock += len;
  c->nrsi += h * (h + 1) / 2;
}

void qgraph_count(const cgraph *g, const int *perm, qg_cost *c) {
  memset(c, 0, sizeof *c);
  qgraph q;
  qgraph_init(&q, g);
  for (int k = 0; k < g->n; k++) {
    const int *l;
    int len = qgraph_eliminate(&q, perm[k], &l);
    int64_t h = 0;
    for (int t = 0; t < len; t++) h += g->degree[l[t]];
    add_cost(c, g->degree[perm[k]], len, h);
  }
  c->work = q.work;
  qgraph_free(&q);
}

//---- minimum degree ------------------------------------------------------------

typedef struct mdstate {
  qgraph q;
  int weighted;
  int64_t *deg, *hgt;       /* external degree and height (exact or from above) (n) */
  int64_t *wst;             /* stamp of the w values below            (elements) */
  int64_t *wc, *ww;         /* |L_e \ L_p| and its block sizes          (elements) */
  int64_t *mark2;           /* stamps of the exact recount              (n) */
  int64_t stamp2;
  int64_t *key;             /* heap key: deg or hgt                     (n) */
  int64_t *zero;            /* second key: none                         (n) */
  int *level;               /* height in the elimination tree so far    (n) */
} mdstate;

/* New external degree and height of i, a neighbour of the pivot whose
 * element e (L_p = q->list, len entries, weight lw, marked with q->stamp)
 * was just created; the w values of i's other elements are current. */
static void update_degree(mdstate *s, int i, int e, int len, int64_t lw) {
  qgraph *q = &s->q;
  qg_list *l = &q->var_elem[i];
  int64_t dc = len - 1, dh = lw - q->d[i], cost = 0;
  int others = 0, kept = 0;
  for (int k = 0; k < l->len; k++) {
    int f = l->v[k];
    if (q->elem_len[f] < 0) continue;
    if (f != e) {
      if (s->wc[f] == 0) { /* L_f inside L_p: aggressive absorption */
        absorb(q, f);
        continue;
      }
      dc += s->wc[f];
      dh += s->ww[f];
      cost += q->elem_len[f];
      others++;
    }
    l->v[kept++] = f;
  }
  q->work += l->len;
  l->len = kept;
  if (others >= 2 && cost <= QG_EXACT_DEGREE_COST + 2 * (int64_t)len) {
    /* the other elements may overlap outside L_p: count their union */
    int64_t st = ++s->stamp2;
    dc = len - 1;
    dh = lw - q->d[i];
    for (int k = 0; k < l->len; k++) {
      int f = l->v[k];
      if (f == e) continue;
      for (int t = 0; t < q->elem_len[f]; t++) {
        int j = q->elem_var[f][t];
        if (q->mark[j] == q->stamp || s->mark2[j] == st) continue;
        s->mark2[j] = st;
        dc++;
        dh += q->d[j];
      }
    }
    q->work += cost;
  }
  /* AMD's other bounds: what is left, and the old degree plus L_p */
  int64_t dmax = q->nlive - 1, hmax = q->live_wt - q->d[i];
  int64_t dold = s->deg[i] - 1 + len - 1;
  if (dc > dmax) dc = dmax;
  if (dc > dold) dc = dold;
  if (dh > hmax) dh = hmax;
  s->deg[i] = dc;
  s->hgt[i] = dh;
}

void qgraph_min_degree(const cgraph *g, int weighted, int level_ties, int *perm, qg_cost *c) {
  int n = g->n;
  memset(c, 0, sizeof *c);
  mdstate s;
  memset(&s, 0, sizeof s);
  qgraph *q = &s.q;
  qgraph_init(q, g);
  int ne = g->nelem + n;
  s.weighted = weighted;
  s.deg = xcalloc((size_t)n, sizeof *s.deg);
  s.hgt = xcalloc((size_t)n, sizeof *s.hgt);
  s.wst = xcalloc((size_t)ne, sizeof *s.wst);
  s.wc = xcalloc((size_t)ne, sizeof *s.wc);
  s.ww = xcalloc((size_t)ne, sizeof *s.ww);
  s.mark2 = xcalloc((size_t)n, sizeof *s.mark2);
  s.zero = xcalloc((size_t)n, sizeof *s.zero);
  s.level = xcalloc((size_t)n, sizeof *s.level);
  for (int i = 0; i < n; i++) {
    s.deg[i] = g->adr[i + 1] - g->adr[i];
    for (int k = g->adr[i]; k < g->adr[i + 1]; k++) s.hgt[i] += g->degree[g->adj[k]];
  }
  s.key = weighted ? s.hgt : s.deg;
  pqueue pq;
  pqueue_init(&pq, n, s.key, s.zero, level_ties ? s.level : NULL, g->rank);
  for (int i = 0; i < n; i++) pqueue_push(&pq, i);
  for (int k = 0; k < n; k++) {
    int p = pqueue_pop(&pq);
    perm[k] = p;
    int len = gather(q, p);
    kill_variable(q, p);
    int e = new_element(q, len);
    int64_t lw = q->elem_wt[e];
    add_cost(c, g->degree[p], len, lw);
    /* |L_f \ L_p| for every other element f of the neighbours (AMD) */
    for (int t = 0; t < len; t++) {
      int i = q->list[t];
      qg_list *l = &q->var_elem[i];
      for (int k2 = 0; k2 < l->len; k2++) {
        int f = l->v[k2];
        if (q->elem_len[f] < 0) continue;
        if (s.wst[f] != q->stamp) {
          s.wst[f] = q->stamp;
          s.wc[f] = q->elem_len[f];
          s.ww[f] = q->elem_wt[f];
        }
        s.wc[f]--;
        s.ww[f] -= q->d[i];
      }
      q->work += l->len;
    }
    for (int t = 0; t < len; t++) list_push(&q->var_elem[q->list[t]], e);
    s.wc[e] = len; /* never absorbed into itself */
    for (int t = 0; t < len; t++) {
      int i = q->list[t];
      update_degree(&s, i, e, len, lw);
      pqueue_raise(s.level, p, i);
      pqueue_update(&pq, i);
    }
  }
  c->work = q->work;
  pqueue_free(&pq);
  free(s.deg);
  free(s.hgt);
  free(s.wst);
  free(s.wc);
  free(s.ww);
  free(s.mark2);
  free(s.zero);
  free(s.level);
  qgraph_free(q);
}
