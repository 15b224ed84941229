/* keep.c -- the previous program's elimination order and shattering kept
 * (keep.h).
 *
 * A pivot of the previous program keeps its place, and so does a renamed
 * one (renamed() below); a new pivot goes just
 * before the earliest of its neighbours that has a place (a part hung on a
 * chain is eliminated just before the joint it hangs from, as a leaf
 * should be), a new pivot that only new ones lead to just before those
 * (further out first), and new pivots no old one leads to come last, in
 * the fresh order. Eliminating the old pivots in their old order keeps
 * their code where their blocks do not change, which a fresh greedy order
 * does not promise: one T-junction in the middle of a chain turns its
 * lower half around (docs/DESIGN.md, "Orderings"). Its shattering is kept
 * too (keep_shards below), and program.c takes what is kept only when it
 * costs at most --keep-tolerance more flops than the fresh program. */
#include "keep.h"

#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "shatter.h"
#include "symbolic.h"

typedef struct key {
  int base;  /* place of the old pivot it goes before (n_old: none) */
  int depth; /* 0 for an old pivot; steps from the old ones for a new one */
  int fresh; /* its place in the fresh order */
  int node;
} key;

static int cmp_key(const void *x, const void *y) {
  const key *a = x, *b = y;
  if (a->base != b->base) return a->base < b->base ? -1 : 1;
  if (a->depth != b->depth) return a->depth > b->depth ? -1 : 1; /* further out first */
  return (a->fresh > b->fresh) - (a->fresh < b->fresh);
}

typedef struct named_node {
  const char *name;
  int node;
} named_node;

static int cmp_named(const void *x, const void *y) {
  return strcmp(((const named_node *)x)->name, ((const named_node *)y)->name);
}

/* A pivot renamed: a new one that sits in the fresh order right after the
 * old pivot that came before a gone one in the previous order (or both
 * first) takes the gone one's place, one for one in order. (Placed as new,
 * a renamed constraint went before its first neighbour: the sample tank's
 * middle hinge, renamed, moved 16 lines more than a fresh order.) */
static void renamed(arena *a, key *k, const int *fresh, int n, const int *gone, int nnames, int *queue, int *nq) {
  /* the fresh order's runs of new pivots, by the place of the old pivot
   * before each run (+1; 0: before every old one) */
  int *start = ARENA_ARRAY(a, int, nnames + 2), *len = ARENA_ARRAY(a, int, nnames + 2);
  int *run = ARENA_ARRAY(a, int, n + 1);
  int last = 0, m = 0;
  for (int p = 0; p < n; p++) {
    const int v = fresh[p];
    if (k[v].base >= 0) {
      last = k[v].base + 1;
      continue;
    }
    if (len[last]++ == 0) start[last] = m;
    run[m++] = v;
  }
  int before = 0;
  for (int i = 0; i < nnames; i++) {
    if (!gone[i]) {
      before = i + 1;
      continue;
    }
    if (len[before] == 0) continue;
    const int v = run[start[before]++];
    len[before]--;
    k[v].base = i;
    queue[(*nq)++] = v;
  }
}

int64_t keep_order(const cgraph *g, const char *const *names, int nnames, const int *fresh, int *perm, int *kept,
                   int *old_of) {
  const int n = g->n;
  arena a; /* scratch */
  arena_init(&a);
  key *k = ARENA_ARRAY(&a, key, n + 1);
  named_node *byname = ARENA_ARRAY(&a, named_node, n + 1);
  int *queue = ARENA_ARRAY(&a, int, n + 1);
  for (int v = 0; v < n; v++) {
    byname[v] = (named_node){g->name[v], v};
    k[v] = (key){-1, 0, 0, v};
  }
  for (int p = 0; p < n; p++) k[fresh[p]].fresh = p;
  qsort(byname, (size_t)n, sizeof *byname, cmp_named);
  int nq = 0, old = 0;
  int *gone = ARENA_ARRAY(&a, int, nnames + 1); /* names g lacks */
  for (int i = 0; i < nnames; i++) {
    const named_node want = {names[i], -1};
    const named_node *hit = bsearch(&want, byname, (size_t)n, sizeof *byname, cmp_named);
    if (!hit || k[hit->node].base >= 0) { /* gone, or named twice */
      gone[i] = 1;
      continue;
    }
    k[hit->node].base = i;
    queue[nq++] = hit->node;
    old++;
  }
  renamed(&a, k, fresh, n, gone, nnames, queue, &nq);
  /* new pivots by breadth from the old ones: each before the earliest
   * neighbour one step nearer */
  for (int q = 0; q < nq; q++) {
    const int u = queue[q];
    for (int e = g->adr[u]; e < g->adr[u + 1]; e++) {
      const int v = g->adj[e];
      if (k[v].base >= 0 && (k[v].depth == 0 || k[v].depth <= k[u].depth)) continue;
      if (k[v].base < 0) {
        k[v].base = k[u].base;
        k[v].depth = k[u].depth + 1;
        queue[nq++] = v;
      } else if (k[u].base < k[v].base) { /* same depth, an earlier neighbour */
        k[v].base = k[u].base;
      }
    }
  }
  for (int v = 0; v < n; v++) {
    if (old_of) old_of[v] = k[v].base >= 0 && k[v].depth == 0 ? k[v].base : -1;
    if (k[v].base < 0) k[v].base = nnames; /* no old pivot leads to it */
  }
  qsort(k, (size_t)n, sizeof *k, cmp_key);
  for (int p = 0; p < n; p++) perm[p] = k[p].node;
  arena_free(&a);
  *kept = old;
  symbolic_totals t;
  symbolic_totals_of(g, perm, &t);
  return t.flops3;
}

/*---- the shattering ---------------------------------------------------------*/

static int cmp_end(const void *x, const void *y) {
  const keep_end *a = x, *b = y;
  const int c = strcmp(a->cons, b->cons);
  return c ? c : strcmp(a->body, b->body);
}

static int body_named(const mech *m, const char *name, size_t len) {
  for (int i = 0; i < m->nbody; i++)
    if (strlen(m->bodies[i].name) == len && strncmp(m->bodies[i].name, name, len) == 0) return i;
  return -1;
}

int keep_shards(const mech *m, const char *const *names, int nnames, const keep_end *ends, int nends,
                const int *fresh, int threshold, int *shards, int *assign) {
  arena a; /* scratch */
  arena_init(&a);
  const int nb = m->nbody, nc = m->ncons;
  int *old = ARENA_ARRAY(&a, int, nb + 1), *attached = ARENA_ARRAY(&a, int, nb + 1);
  for (int i = 0; i < nnames; i++) { /* "BODY#weldN": BODY had N + 1 shards at least */
    const char *w = strstr(names[i], "#weld");
    for (const char *q = w; q; q = strstr(q + 1, "#weld")) w = q;
    if (!w || !w[5]) continue;
    char *end;
    const long n = strtol(w + 5, &end, 10);
    const int b = *end == '\0' && n >= 1 ? body_named(m, names[i], (size_t)(w - names[i])) : -1;
    if (b >= 0 && n + 1 > old[b]) old[b] = (int)n + 1;
  }
  for (int c = 0; c < nc; c++) {
    const mech_constraint *k = &m->cons[c];
    if (!mech_is_equality(k)) continue;
    if (k->a >= 0) attached[k->a]++;
    if (k->b >= 0) attached[k->b]++;
  }
  for (int i = 0; i < nb; i++) {
    shards[i] = fresh[i] > 1 ? fresh[i] : 1;
    if (old[i] < 2 || m->bodies[i].fixed || shatter_body_load(m, i) <= threshold || attached[i] < 2) old[i] = 0;
    else shards[i] = old[i] < attached[i] ? old[i] : attached[i];
  }
  shatter_assign(m, shards, assign);
  /* the kept bodies' constraints, by name: those the previous program had
   * on a shard that still exists keep it, then the others fill in */
  keep_end *sorted = ARENA_ARRAY(&a, keep_end, nends + 1);
  if (nends > 0) memcpy(sorted, ends, sizeof *sorted * (size_t)nends);
  qsort(sorted, (size_t)nends, sizeof *sorted, cmp_end);
  named_node *byname = ARENA_ARRAY(&a, named_node, nc + 1);
  int neq = 0;
  for (int c = 0; c < nc; c++)
    if (mech_is_equality(&m->cons[c])) byname[neq++] = (named_node){m->cons[c].name, c};
  qsort(byname, (size_t)neq, sizeof *byname, cmp_named);
  int *count = ARENA_ARRAY(&a, int, nc + 1), *pending = ARENA_ARRAY(&a, int, 2 * nc + 1);
  for (int b = 0; b < nb; b++) {
    if (!old[b]) continue;
    int np = 0;
    memset(count, 0, sizeof *count * (size_t)shards[b]);
    for (int t = 0; t < neq; t++) {
      const int c = byname[t].node;
      const int e = m->cons[c].a == b ? 0 : m->cons[c].b == b ? 1 : -1;
      if (e < 0) continue;
      const keep_end want = {m->cons[c].name, m->bodies[b].name, 0};
      const keep_end *hit = bsearch(&want, sorted, (size_t)nends, sizeof *sorted, cmp_end);
      if (hit && hit->shard >= 0 && hit->shard < shards[b]) {
        assign[2 * c + e] = hit->shard;
        count[hit->shard]++;
      } else {
        pending[np++] = 2 * c + e;
      }
    }
    for (int q = 0; q < np; q++) {
      int s = 0;
      for (int j = 1; j < shards[b]; j++)
        if (count[j] < count[s]) s = j;
      assign[pending[q]] = s;
      count[s]++;
    }
  }
  int differs = 0;
  int *base = ARENA_ARRAY(&a, int, 2 * nc + 1);
  shatter_assign(m, fresh, base);
  for (int i = 0; i < nb && !differs; i++) differs = shards[i] != (fresh[i] > 1 ? fresh[i] : 1);
  for (int j = 0; j < 2 * nc && !differs; j++) differs = assign[j] != base[j];
  arena_free(&a);
  return differs;
}
