/* collide.c -- body-body contacts between the shapes of a world's bodies
 * (rt_world_body_contacts in rt_world.h), for standalone use: a wheel on
 * a track plate, a ball on a box. Only the pairs below are detected; a game
 * brings its own collision detection for everything else.
 *
 *   sphere   - box: the closest point of the box to the sphere's centre;
 *   cylinder - box: when the cylinder's axis is parallel to one of the box's
 *                   axes (a wheel rolling on a plate): the circle against the
 *                   box's cross-section, two points at the ends of the
 *                   overlap along the axis. */
#include <math.h>
#include <string.h>

#include "rtmath.h"
#include "world.h"

/* |cos| of the angle between a cylinder's axis and a box axis above which
 * they count as parallel (about 5 degrees). */
#define COLLIDE_PARALLEL 0.996

static double bounding_radius(const rt_body_desc *b) {
  const double *z = b->shape_size;
  switch (b->shape) {
  case RT_SHAPE_SPHERE:
    return z[0];
  case RT_SHAPE_BOX:
    return 0.5 * sqrt(z[0] * z[0] + z[1] * z[1] + z[2] * z[2]);
  case RT_SHAPE_CYLINDER:
    return sqrt(z[0] * z[0] + 0.25 * z[1] * z[1]);
  case RT_SHAPE_CAPSULE:
    return z[0] + 0.5 * z[1];
  case RT_SHAPE_NONE:
    break;
  }
  return 0.0;
}

static int joined(const rt_world *w, int i, int j) {
  for (int k = w->partner_at[i]; k < w->partner_at[i + 1]; k++)
    if (w->partner[k] == j) return 1;
  return 0;
}

typedef struct pair_sink {
  rt_contact *out;
  int cap, n;
  int a, b; /* a: the round shape, b: the box */
  double mu;
} pair_sink;

static void emit(pair_sink *s, const double p[3], const double normal[3], double depth, unsigned feature) {
  if (s->n < s->cap) {
    rt_contact *c = &s->out[s->n];
    memset(c, 0, sizeof *c);
    c->body_a = s->a;
    c->body_b = s->b;
    rt__v3_copy(c->point, p);
    rt__v3_copy(c->normal, normal);
    c->depth = depth;
    c->friction = s->mu;
    c->feature = feature;
  }
  s->n++;
}

/* The box's world axes (columns of its rotation) and half sizes. */
static void box_frame(const rt_body_desc *b, double axis[3][3], double half[3]) {
  for (int k = 0; k < 3; k++) {
    const double e[3] = {k == 0, k == 1, k == 2};
    rt__q_rotate(axis[k], b->pose.q, e);
    half[k] = 0.5 * b->shape_size[k];
  }
}

/* Closest point q (box coordinates, n of them) of the box [-half, half] to
 * x, and the outward normal (box coordinates) and distance from the box to x
 * (negative inside, then along the least penetrated face). */
static double closest(int n, const double x[3], const double half[3], double q[3], double nrm[3]) {
  int inside = 1;
  double d2 = 0.0;
  for (int k = 0; k < n; k++) {
    q[k] = fmax(-half[k], fmin(half[k], x[k]));
    nrm[k] = x[k] - q[k];
    d2 += nrm[k] * nrm[k];
    inside &= q[k] == x[k];
  }
  if (!inside) {
    const double d = sqrt(d2);
    for (int k = 0; k < n; k++) nrm[k] /= d;
    return d;
  }
  int face = 0;
  for (int k = 1; k < n; k++)
    if (half[k] - fabs(x[k]) < half[face] - fabs(x[face])) face = k;
  for (int k = 0; k < n; k++) nrm[k] = 0.0;
  nrm[face] = x[face] < 0 ? -1.0 : 1.0;
  q[face] = nrm[face] * half[face];
  return fabs(x[face]) - half[face];
}

static void sphere_box(pair_sink *s, const rt_body_desc *sph, const rt_body_desc *box, double margin) {
  double axis[3][3], half[3], d[3], x[3], q[3], nl[3];
  box_frame(box, axis, half);
  rt__v3_sub(d, sph->pose.p, box->pose.p);
  for (int k = 0; k < 3; k++) x[k] = rt__v3_dot(d, axis[k]);
  const double depth = sph->shape_size[0] - closest(3, x, half, q, nl);
  if (!(depth > -margin)) return;
  double p[3], normal[3];
  rt__v3_copy(p, box->pose.p);
  rt__v3_set(normal, 0.0, 0.0, 0.0);
  for (int k = 0; k < 3; k++)
    for (int c = 0; c < 3; c++) {
      p[c] += q[k] * axis[k][c];
      normal[c] += nl[k] * axis[k][c];
    }
  emit(s, p, normal, depth, 0);
}

static void cylinder_box(pair_sink *s, const rt_body_desc *cyl, const rt_body_desc *box, double margin) {
  double axis[3][3], half[3], cax[3], d[3];
  const double ez[3] = {0.0, 0.0, 1.0};
  box_frame(box, axis, half);
  rt__q_rotate(cax, cyl->pose.q, ez);
  int k = 0;
  for (int i = 1; i < 3; i++)
    if (fabs(rt__v3_dot(cax, axis[i])) > fabs(rt__v3_dot(cax, axis[k]))) k = i;
  if (!(fabs(rt__v3_dot(cax, axis[k])) >= COLLIDE_PARALLEL)) return;
  /* the cross-section: box axes u, v across the cylinder's axis */
  const int u = (k + 1) % 3, v = (k + 2) % 3;
  rt__v3_sub(d, cyl->pose.p, box->pose.p);
  const double x[3] = {rt__v3_dot(d, axis[u]), rt__v3_dot(d, axis[v]), 0.0};
  const double h2[3] = {half[u], half[v], 0.0};
  double q[3], nl[3];
  const double depth = cyl->shape_size[0] - closest(2, x, h2, q, nl);
  if (!(depth > -margin)) return;
  /* overlap of the two along the axis */
  const double z = rt__v3_dot(d, axis[k]), hl = 0.5 * cyl->shape_size[1];
  const double lo = fmax(z - hl, -half[k]), hi = fmin(z + hl, half[k]);
  if (!(lo <= hi)) return;
  double normal[3];
  for (int c = 0; c < 3; c++) normal[c] = nl[0] * axis[u][c] + nl[1] * axis[v][c];
  const int ends = hi - lo > 1e-3 ? 2 : 1;
  for (int e = 0; e < ends; e++) {
    const double along = ends == 1 ? 0.5 * (lo + hi) : e ? hi : lo;
    double p[3];
    for (int c = 0; c < 3; c++) p[c] = box->pose.p[c] + q[0] * axis[u][c] + q[1] * axis[v][c] + along * axis[k][c];
    emit(s, p, normal, depth, (unsigned)e);
  }
}

static int is_round(const rt_body_desc *b) { return b->shape == RT_SHAPE_SPHERE || b->shape == RT_SHAPE_CYLINDER; }

void rt__collide_plan(rt_world *w) {
  w->nround = w->nbox = 0;
  for (int i = 0; i < w->nbody; i++) {
    const rt_body_desc *b = &w->body[i];
    if (is_round(b)) w->round[w->nround++] = i;
    if (b->shape == RT_SHAPE_BOX) w->box[w->nbox++] = i;
    w->radius[i] = bounding_radius(b);
  }
  /* each joint's bodies as each other's partners, counted, then placed */
  memset(w->partner_at, 0, sizeof(int) * ((size_t)w->nbody + 1));
  for (int k = 0; k < w->njoint; k++) {
    const int a = w->joint[k].body_a, b = w->joint[k].body_b;
    if (a >= 0 && b >= 0) w->partner_at[a + 1]++, w->partner_at[b + 1]++;
  }
  for (int i = 0; i < w->nbody; i++) w->partner_at[i + 1] += w->partner_at[i];
  for (int k = 0; k < w->njoint; k++) {
    const int a = w->joint[k].body_a, b = w->joint[k].body_b;
    if (a < 0 || b < 0) continue;
    w->partner[w->partner_at[a]++] = b;
    w->partner[w->partner_at[b]++] = a;
  }
  for (int i = w->nbody; i > 0; i--) w->partner_at[i] = w->partner_at[i - 1]; /* back to each body's first */
  w->partner_at[0] = 0;
}

/* Body i (round or box) with body j (the other kind), i < j. */
static void pair(pair_sink *s, const rt_world *w, int i, int j, double margin) {
  const int i_box = w->body[i].shape == RT_SHAPE_BOX;
  const int r = i_box ? j : i, b = i_box ? i : j;
  const rt_body_desc *round = &w->body[r], *box = &w->body[b];
  if (round->fixed && box->fixed) return;
  double d[3];
  rt__v3_sub(d, round->pose.p, box->pose.p);
  const double reach = w->radius[r] + w->radius[b] + margin;
  if (rt__v3_dot(d, d) > reach * reach || joined(w, i, j)) return;
  s->a = r;
  s->b = b;
  s->mu = sqrt(fmax(round->friction, 0.0) * fmax(box->friction, 0.0));
  if (round->shape == RT_SHAPE_SPHERE)
    sphere_box(s, round, box, margin);
  else
    cylinder_box(s, round, box, margin);
}

/* The pairs of one round body and one box in the order of their indices
 * (i < j, i first), as the loop over all pairs of bodies gave them: each
 * body i with the bodies of the other kind after it (over all pairs of
 * the sample tank's 89 bodies, each pair within reach checked against
 * every joint, it took 258k instructions a step in ldlsim, 108k so). */
int rt_world_body_contacts(const rt_world *w, double margin, rt_contact *out, int cap) {
  pair_sink s = {out, out != NULL && cap > 0 ? cap : 0, 0, 0, 0, 0.0}; /* no room: count only */
  int after_round = 0, after_box = 0; /* the first round body, box, after i */
  for (int i = 0; i < w->nbody; i++) {
    while (after_round < w->nround && w->round[after_round] <= i) after_round++;
    while (after_box < w->nbox && w->box[after_box] <= i) after_box++;
    if (w->body[i].shape == RT_SHAPE_BOX)
      for (int k = after_round; k < w->nround; k++) pair(&s, w, i, w->round[k], margin);
    else if (is_round(&w->body[i]))
      for (int k = after_box; k < w->nbox; k++) pair(&s, w, i, w->box[k], margin);
  }
  return s.n;
}
