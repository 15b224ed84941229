/* pgs_check.c -- see pgs_check.h. */
#include "pgs_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "diag.h"
#include "load.h"
#include "mechworld.h"
#include "program.h"
#include "rt_world.h"
#include "rtprog.h"
#include "simrun.h"
#include "../runtime/world.h" /* rt__rows and rt__pgs_sweep */

/* The reference sweep: the plain loop, docs/DESIGN.md section 3. */
static void reference_sweep(rt__rows *r, int first, int last, double *vel) {
  for (int i = first; i < last; i++) {
    if (r->inv_diag[i] == 0.0) continue;
    double *va = r->a[i] == RT_WORLD ? NULL : vel + 6 * (size_t)r->a[i];
    double *vb = r->b[i] == RT_WORLD ? NULL : vel + 6 * (size_t)r->b[i];
    const double *J = r->J + 12 * (size_t)i, *WJ = r->WJ + 12 * (size_t)i;
    double jv = 0.0;
    if (va != NULL)
      for (int k = 0; k < 6; k++) jv += J[k] * va[k];
    if (vb != NULL)
      for (int k = 0; k < 6; k++) jv += J[6 + k] * vb[k];
    const double old = r->lambda[i];
    double l = old + (r->rhs[i] - jv) * r->inv_diag[i];
    if (r->normal[i] >= 0) {
      r->hi[i] = r->mu[i] * r->lambda[r->normal[i]];
      r->lo[i] = -r->hi[i];
    }
    if (l < r->lo[i]) l = r->lo[i];
    if (l > r->hi[i]) l = r->hi[i];
    r->lambda[i] = l;
    const double dl = l - old;
    if (va != NULL)
      for (int k = 0; k < 6; k++) va[k] += WJ[k] * dl;
    if (vb != NULL)
      for (int k = 0; k < 6; k++) vb[k] += WJ[6 + k] * dl;
  }
}

/* Rows with their own arrays, and velocities. */
typedef struct rowset {
  rt__rows r;
  int nvel;
  double *vel;
} rowset;

static void rowset_alloc(rowset *s, int n, int nvel) {
  memset(s, 0, sizeof *s);
  s->r.n = n;
  s->nvel = nvel;
  const size_t m = (size_t)n + 1;
  s->r.a = calloc(m, sizeof(int));
  s->r.b = calloc(m, sizeof(int));
  s->r.normal = calloc(m, sizeof(int));
  s->r.J = calloc(12 * m, sizeof(double));
  s->r.WJ = calloc(12 * m, sizeof(double));
  s->r.rhs = calloc(m, sizeof(double));
  s->r.inv_diag = calloc(m, sizeof(double));
  s->r.lambda = calloc(m, sizeof(double));
  s->r.lo = calloc(m, sizeof(double));
  s->r.hi = calloc(m, sizeof(double));
  s->r.mu = calloc(m, sizeof(double));
  s->vel = calloc((size_t)nvel + 1, sizeof(double));
  if (!s->r.a || !s->r.b || !s->r.normal || !s->r.J || !s->r.WJ || !s->r.rhs || !s->r.inv_diag || !s->r.lambda ||
      !s->r.lo || !s->r.hi || !s->r.mu || !s->vel)
    abort();
}

static void rowset_free(rowset *s) {
  free(s->r.a);
  free(s->r.b);
  free(s->r.normal);
  free(s->r.J);
  free(s->r.WJ);
  free(s->r.rhs);
  free(s->r.inv_diag);
  free(s->r.lambda);
  free(s->r.lo);
  free(s->r.hi);
  free(s->r.mu);
  free(s->vel);
}

#define COPY(f, k) memcpy(d->r.f, s->f, sizeof *s->f * (k))
static void rowset_from(rowset *d, const rt__rows *s, const double *vel, int nvel) {
  const size_t n = (size_t)s->n;
  rowset_alloc(d, s->n, nvel);
  COPY(a, n);
  COPY(b, n);
  COPY(normal, n);
  COPY(J, 12 * n);
  COPY(WJ, 12 * n);
  COPY(rhs, n);
  COPY(inv_diag, n);
  COPY(lambda, n);
  COPY(lo, n);
  COPY(hi, n);
  COPY(mu, n);
  memcpy(d->vel, vel, sizeof *vel * (size_t)nvel);
}
#undef COPY

/* Bitwise comparison of everything a sweep writes. */
static int same(const rowset *x, const rowset *y, char *why, size_t n) {
  const size_t k = (size_t)x->r.n;
  if (memcmp(x->vel, y->vel, sizeof *x->vel * (size_t)x->nvel) != 0)
    snprintf(why, n, "velocities differ");
  else if (memcmp(x->r.lambda, y->r.lambda, sizeof(double) * k) != 0)
    snprintf(why, n, "impulses differ");
  else if (memcmp(x->r.lo, y->r.lo, sizeof(double) * k) != 0 || memcmp(x->r.hi, y->r.hi, sizeof(double) * k) != 0)
    snprintf(why, n, "bounds differ");
  else
    return 1;
  return 0;
}

static uint64_t next(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static double uniform(uint64_t *s) { return (double)(next(s) >> 11) * 0x1p-53; }
static int below(uint64_t *s, int n) { return (int)(next(s) % (uint64_t)n); }

int pgs_check_random(uint64_t seed, char *why, size_t wn) {
  uint64_t s = seed;
  const int nbody = 1 + below(&s, 6), n = 1 + below(&s, 48);
  rowset x;
  rowset_alloc(&x, n, 6 * nbody);
  for (int i = 0; i < n;) {
    /* a run: 1-6 rows on one pair of sides (RT_WORLD, a body, or the same
     * body twice), or a contact's normal and two friction rows */
    const int a = below(&s, nbody + 1) - 1, b = below(&s, 4) == 0 ? a : below(&s, nbody + 1) - 1;
    const int contact = below(&s, 4) == 0;
    const int len = contact ? 3 : 1 + below(&s, 6);
    for (int k = 0; k < len && i < n; k++, i++) {
      x.r.a[i] = a;
      x.r.b[i] = b;
      x.r.normal[i] = contact && k > 0 ? i - k : -1;
      x.r.mu[i] = uniform(&s);
      for (int q = 0; q < 12; q++) {
        x.r.J[12 * i + q] = uniform(&s) * 2 - 1;
        x.r.WJ[12 * i + q] = (uniform(&s) * 2 - 1) * 0.3;
      }
      x.r.rhs[i] = uniform(&s) * 2 - 1;
      x.r.inv_diag[i] = below(&s, 8) == 0 ? 0.0 : 0.2 + uniform(&s);
      x.r.lambda[i] = uniform(&s) * 0.1;
      const int kind = contact ? (k == 0 ? 1 : 3) : below(&s, 4); /* 0 equality, 1 >= 0, 2 <= 0, 3 box */
      x.r.lo[i] = kind == 0 || kind == 2 ? -INFINITY : kind == 1 ? 0.0 : -0.05;
      x.r.hi[i] = kind == 0 || kind == 1 ? INFINITY : kind == 2 ? 0.0 : 0.05;
    }
  }
  for (int k = 0; k < 6 * nbody; k++) x.vel[k] = uniform(&s) * 2 - 1;
  /* J v of each row and impulses applied (the warm start, the block step)
   * against the plain loops */
  for (int i = 0; i < n; i++) {
    double *va = x.r.a[i] == RT_WORLD ? NULL : x.vel + 6 * (size_t)x.r.a[i];
    double *vb = x.r.b[i] == RT_WORLD ? NULL : x.vel + 6 * (size_t)x.r.b[i];
    double ref = 0.0;
    if (va != NULL)
      for (int k = 0; k < 6; k++) ref += x.r.J[12 * i + k] * va[k];
    if (vb != NULL)
      for (int k = 0; k < 6; k++) ref += x.r.J[12 * i + 6 + k] * vb[k];
    const double got = rt__pgs_row_velocity(&x.r, i, x.vel);
    if (memcmp(&got, &ref, sizeof ref) != 0) {
      snprintf(why, wn, "row %d: J v differs", i);
      rowset_free(&x);
      return -1;
    }
  }
  {
    double *dl = calloc((size_t)n + 1, sizeof *dl), *v = malloc(sizeof *v * (size_t)(6 * nbody + 1));
    if (!dl || !v) abort();
    for (int i = 0; i < n; i++) dl[i] = below(&s, 5) == 0 ? 0.0 : uniform(&s) - 0.5;
    memcpy(v, x.vel, sizeof *v * (size_t)(6 * nbody));
    for (int i = 0; i < n; i++) {
      if (dl[i] == 0.0) continue;
      double *va = x.r.a[i] == RT_WORLD ? NULL : v + 6 * (size_t)x.r.a[i];
      double *vb = x.r.b[i] == RT_WORLD ? NULL : v + 6 * (size_t)x.r.b[i];
      if (va != NULL)
        for (int k = 0; k < 6; k++) va[k] += x.r.WJ[12 * i + k] * dl[i];
      if (vb != NULL)
        for (int k = 0; k < 6; k++) vb[k] += x.r.WJ[12 * i + 6 + k] * dl[i];
    }
    double *u = malloc(sizeof *u * (size_t)(6 * nbody + 1));
    if (!u) abort();
    memcpy(u, x.vel, sizeof *u * (size_t)(6 * nbody));
    rt__pgs_apply(&x.r, 0, n, dl, u);
    const int differs = memcmp(u, v, sizeof *u * (size_t)(6 * nbody)) != 0;
    free(dl);
    free(v);
    free(u);
    if (differs) {
      snprintf(why, wn, "impulses applied differ");
      rowset_free(&x);
      return -1;
    }
  }
  rowset y, z;
  rowset_from(&y, &x.r, x.vel, x.nvel);
  rowset_from(&z, &x.r, x.vel, x.nvel);
  int ok = 1;
  const int cut = below(&s, n + 1);
  for (int sweep = 0; sweep < 3 && ok; sweep++) {
    rt__pgs_sweep(&x.r, 0, n, x.vel);
    rt__pgs_sweep(&z.r, 0, cut, z.vel); /* in two slices */
    rt__pgs_sweep(&z.r, cut, n, z.vel);
    reference_sweep(&y.r, 0, n, y.vel);
    ok = same(&x, &y, why, wn);
    if (ok && !same(&z, &y, why, wn)) {
      ok = 0;
      snprintf(why + strlen(why), wn - strlen(why), " (sliced at %d)", cut);
    }
  }
  rowset_free(&x);
  rowset_free(&y);
  rowset_free(&z);
  return ok ? 0 : -1;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  const unsigned char *c = p;
  for (size_t i = 0; i < n; i++) h = (h ^ c[i]) * 0x100000001b3ull;
  return h;
}

int pgs_check_mechanism(const char *path, int steps, uint64_t *hash, char *why, size_t wn) {
  arena a;
  arena_init(&a);
  diag_list d;
  diag_init(&d);
  mech m;
  program p;
  program_options o;
  program_default_options(&o);
  if (load_mech(&a, path, NULL, &m, &d) != GEN_OK || program_build(&a, &m, &o, &p, &d) != GEN_OK) {
    diag_free(&d);
    arena_free(&a);
    snprintf(why, wn, "does not load");
    return -1;
  }
  diag_free(&d);
  rt_program rp;
  rtprog_build(&a, &p, RT_DOUBLE, &rp);
  rt_world_desc desc;
  mechworld_desc(&a, &m, &desc);
  rt_settings set;
  mechworld_settings(&m, &set);
  rt_world *w = rt_world_create(&desc, &rp, &set, NULL, NULL, 0);
  if (!w) {
    arena_free(&a);
    snprintf(why, wn, "no world");
    return -1;
  }
  const int cap = set.max_contacts;
  rt_contact *c = calloc((size_t)cap + 1, sizeof *c);
  if (!c) abort();
  const double mu = m.settings.ground_friction >= 0 ? m.settings.ground_friction : m.settings.friction;
  int rc = 0;
  for (int k = 0; k < steps && rc == 0; k++) {
    if (m.settings.has_ground) {
      const int nc = rt_world_ground_contacts(w, m.settings.ground_height, mu, SIMRUN_CONTACT_MARGIN, c, cap);
      rt_world_set_contacts(w, c, nc < cap ? nc : cap);
    }
    if (rt_world_step_begin(w) != RT_OK) {
      snprintf(why, wn, "step %d refused", k);
      rc = -1;
      break;
    }
    rowset x, y;
    rowset_from(&x, &w->rows, w->vel, 6 * w->nsbody);
    rowset_from(&y, &w->rows, w->vel, 6 * w->nsbody);
    for (int sweep = 0; sweep < set.iterations && rc == 0; sweep++) {
      rt__pgs_sweep(&x.r, 0, x.r.n, x.vel);
      reference_sweep(&y.r, 0, y.r.n, y.vel);
      if (!same(&x, &y, why, wn)) {
        snprintf(why + strlen(why), wn - strlen(why), " (step %d, sweep %d)", k, sweep);
        rc = -1;
      }
    }
    rowset_free(&x);
    rowset_free(&y);
    rt_world_factor(w);
    rt_world_iterate(w);
    if (rt_world_step_end(w) != RT_OK) {
      snprintf(why, wn, "step %d diverged", k);
      rc = -1;
    }
  }
  uint64_t h = 0xcbf29ce484222325ull;
  for (int i = 0; i < w->nbody; i++) {
    h = fnv(h, &w->body[i].pose, sizeof w->body[i].pose);
    h = fnv(h, w->body[i].vel, sizeof w->body[i].vel);
    h = fnv(h, w->body[i].angvel, sizeof w->body[i].angvel);
  }
  *hash = h;
  free(c);
  rt_world_destroy(w);
  arena_free(&a);
  return rc;
}
