/* shatter.c -- solver view of a mechanism with shattered bodies. */
#include "shatter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int shatter_body_load(const mech *m, int i) {
  int load = 0;
  for (int c = 0; c < m->ncons; c++) {
    const mech_constraint *k = &m->cons[c];
    if (mech_is_equality(k) && (k->a == i || k->b == i)) load += mech_degree(k);
  }
  return load;
}

static const char *fmt_name(arena *a, const char *base, const char *suffix, int n) {
  char buf[160];
  snprintf(buf, sizeof buf, "%s#%s%d", base, suffix, n);
  return arena_strdup(a, buf);
}

typedef struct named_cons {
  const char *name;
  int c;
} named_cons;

static int cmp_named_cons(const void *x, const void *y) {
  return strcmp(((const named_cons *)x)->name, ((const named_cons *)y)->name);
}

/* The default shard of every equality constraint's ends (shatter.h): on a
 * body in k shards, its t-th of the n equality constraints on it in name
 * order goes to shard t*k/n: name order, not declaration order, so that
 * swapping two declarations moves no constraint to another shard (names are
 * unique). Counting constraints, not rows: by rows multi_wheel took 14
 * shards, not the talk's 10. */
void shatter_assign(const mech *m, const int *shards, int *assign) {
  int *seen = calloc((size_t)m->nbody + 1, sizeof *seen), *load = calloc((size_t)m->nbody + 1, sizeof *load);
  named_cons *byname = malloc(sizeof *byname * ((size_t)m->ncons + 1));
  if (!seen || !load || !byname) abort();
  int neq = 0;
  for (int c = 0; c < m->ncons; c++) {
    const mech_constraint *k = &m->cons[c];
    assign[2 * c] = assign[2 * c + 1] = 0;
    if (!mech_is_equality(k)) continue;
    byname[neq++] = (named_cons){k->name, c};
    if (k->a >= 0) load[k->a]++;
    if (k->b >= 0 && k->b != k->a) load[k->b]++;
  }
  qsort(byname, (size_t)neq, sizeof *byname, cmp_named_cons);
  for (int t = 0; t < neq; t++) {
    const int c = byname[t].c;
    const int ends[2] = {m->cons[c].a, m->cons[c].b};
    for (int e = 0; e < 2; e++) {
      const int b = ends[e];
      if (b < 0 || (e == 1 && b == ends[0])) continue;
      const int k = shards && shards[b] > 1 ? shards[b] : 1;
      assign[2 * c + e] = (int)((long long)seen[b]++ * k / load[b]);
    }
  }
  free(seen);
  free(load);
  free(byname);
}

void smech_build(arena *a, const mech *m, const int *shards, smech *out) {
  smech_build_assigned(a, m, shards, NULL, out);
}

void smech_build_assigned(arena *a, const mech *m, const int *shards, const int *assign, smech *out) {
  memset(out, 0, sizeof *out);
  out->m = m;
  out->shard_adr = ARENA_ARRAY(a, int, m->nbody);
  out->shard_num = ARENA_ARRAY(a, int, m->nbody);
  int nb = 0, nweld = 0;
  for (int i = 0; i < m->nbody; i++) {
    int k = shards && shards[i] > 1 && !m->bodies[i].fixed ? shards[i] : 1;
    out->shard_adr[i] = nb;
    out->shard_num[i] = k;
    nb += k;
    if (k > 1) {
      out->nshattered++;
      out->nshards += k;
      nweld += k - 1;
    }
  }
  out->nbody = nb;
  out->body_orig = ARENA_ARRAY(a, int, nb);
  out->body_shard = ARENA_ARRAY(a, int, nb);
  out->body_name = ARENA_ARRAY(a, const char *, nb);
  out->body_fixed = ARENA_ARRAY(a, unsigned char, nb);
  for (int i = 0; i < m->nbody; i++)
    for (int s = 0; s < out->shard_num[i]; s++) {
      int j = out->shard_adr[i] + s;
      out->body_orig[j] = i;
      out->body_shard[j] = s;
      out->body_fixed[j] = (unsigned char)(m->bodies[i].fixed != 0);
      out->body_name[j] = out->shard_num[i] > 1 ? fmt_name(a, m->bodies[i].name, "", s)
                                                 : m->bodies[i].name;
    }

  int neq = 0;
  for (int c = 0; c < m->ncons; c++) neq += mech_is_equality(&m->cons[c]);
  int nc = neq + nweld;
  out->ncons = nc;
  out->cons_orig = ARENA_ARRAY(a, int, nc);
  out->cons_a = ARENA_ARRAY(a, int, nc);
  out->cons_b = ARENA_ARRAY(a, int, nc);
  out->cons_degree = ARENA_ARRAY(a, int, nc);
  out->cons_name = ARENA_ARRAY(a, const char *, nc);

  int *own = NULL;
  if (!assign) {
    own = ARENA_ARRAY(a, int, 2 * (size_t)m->ncons + 1);
    shatter_assign(m, shards, own);
    assign = own;
  }
  int j = 0;
  for (int c = 0; c < m->ncons; c++) {
    const mech_constraint *k = &m->cons[c];
    if (!mech_is_equality(k)) continue;
    out->cons_orig[j] = c;
    out->cons_a[j] = k->a < 0 ? MECH_WORLD : out->shard_adr[k->a] + assign[2 * c];
    out->cons_b[j] = k->b < 0 ? MECH_WORLD : k->b == k->a ? out->cons_a[j] : out->shard_adr[k->b] + assign[2 * c + 1];
    out->cons_degree[j] = mech_degree(k);
    out->cons_name[j] = k->name;
    j++;
  }
  for (int i = 0; i < m->nbody; i++)
    for (int s = 1; s < out->shard_num[i]; s++) {
      out->cons_orig[j] = -1;
      out->cons_a[j] = out->shard_adr[i] + s - 1;
      out->cons_b[j] = out->shard_adr[i] + s;
      out->cons_degree[j] = rt_joint_degree(RT_WELD);
      out->cons_name[j] = fmt_name(a, m->bodies[i].name, "weld", s);
      j++;
    }
  for (int c = 0; c < nc; c++) out->dim += out->cons_degree[c];
}
