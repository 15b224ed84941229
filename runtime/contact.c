/* contact.c -- contacts (rt_world.h): the rows of the contacts a game feeds
 * in each step, their warm starting, and a ground-plane contact generator
 * for the shapes a body description can carry. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "rtmath.h"
#include "world.h"

static int body_ok(const rt_world *w, int b) { return b == RT_WORLD || (b >= 0 && b < w->nbody); }

rt_status rt_world_set_contacts(rt_world *w, const rt_contact *c, int n) {
  if (n < 0 || n > w->set.max_contacts || (n > 0 && c == NULL)) return RT_ERR_INPUT;
  for (int i = 0; i < n; i++) {
    const double nn = rt__v3_dot(c[i].normal, c[i].normal);
    if (!body_ok(w, c[i].body_a) || !body_ok(w, c[i].body_b) || c[i].body_a == c[i].body_b ||
        !isfinite(c[i].point[0] + c[i].point[1] + c[i].point[2]) || !isfinite(c[i].depth) ||
        !(fabs(nn - 1.0) < 1e-6) || !isfinite(c[i].friction) || c[i].friction < 0)
      return RT_ERR_INPUT;
  }
  if (n > 0) memcpy(w->contact, c, sizeof *c * (size_t)n);
  w->ncontact = n;
  return RT_OK;
}

int rt_world_contact_count(const rt_world *w) { return w->ncontact; }

double rt_world_contact_impulse(const rt_world *w, int i) {
  if (i < 0 || i >= w->ncontact) return NAN;
  return w->rows.lambda[w->nfixed_rows + 3 * i];
}

static int same_contact(const rt_contact *a, const rt_contact *b) {
  return a->body_a == b->body_a && a->body_b == b->body_b && a->feature == b->feature;
}

/*---- warm starting: last step's contact with the same bodies and feature ----
 * A table of the last step's contacts by their key (w->prev_table, open
 * addressing, linear probing), filled for a step's rows and emptied after
 * them: each contact finds the first of last step's with its key, as a
 * scan of them in order would, in time independent of their count (the
 * scan compared every pair: 8 tanks' 250 contacts a copy, 62,500 compares
 * a step, over half of rt__contact_rows' time). */

static unsigned key_slot(const rt_world *w, const rt_contact *c) {
  uint32_t h = (uint32_t)c->body_a * 0x9e3779b1u;
  h ^= (uint32_t)c->body_b * 0x85ebca77u + (h >> 15);
  h ^= (uint32_t)c->feature * 0xc2b2ae3du + (h >> 13);
  h *= 0x27d4eb2fu;
  return (h ^ (h >> 16)) & (unsigned)(w->prev_slots - 1);
}

/* The slot of c's key in the table: its entry, or the empty one where it
 * would go. */
static int *prev_find(const rt_world *w, const rt_contact *c) {
  for (unsigned s = key_slot(w, c);; s = (s + 1) & (unsigned)(w->prev_slots - 1)) {
    int *e = &w->prev_table[s];
    if (*e < 0 || same_contact(c, &w->prev[*e])) return e;
  }
}

/* Every key of the last step's contacts into the table, the first contact
 * with each (at most half the table full: prev_slots >= 2 max_contacts). */
static void prev_fill(rt_world *w) {
  for (int p = 0; p < w->nprev; p++) {
    int *e = prev_find(w, &w->prev[p]);
    if (*e < 0) *e = p;
  }
}

/* The table empty again: every slot the contacts took (a probe from their
 * key's slot passes only taken slots). */
static void prev_clear(rt_world *w) {
  for (int p = 0; p < w->nprev; p++)
    for (unsigned s = key_slot(w, &w->prev[p]); w->prev_table[s] >= 0; s = (s + 1) & (unsigned)(w->prev_slots - 1))
      w->prev_table[s] = -1;
}

/* Two unit tangents perpendicular to n, by a fixed rule. */
static void tangents(const double n[3], double t1[3], double t2[3]) {
  double e[3] = {0, 0, 0};
  if (fabs(n[0]) <= fabs(n[1]) && fabs(n[0]) <= fabs(n[2]))
    e[0] = 1;
  else if (fabs(n[1]) <= fabs(n[2]))
    e[1] = 1;
  else
    e[2] = 1;
  rt__v3_cross(t1, n, e);
  rt__v3_normalize(t1);
  rt__v3_cross(t2, n, t1);
}

/* Row J = [d, r_a x d, -d, -(r_b x d)]: the velocity of a's contact point
 * relative to b's along d. */
static void contact_row(const rt_world *w, const rt_contact *c, const double d[3], double *J) {
  memset(J, 0, 12 * sizeof *J);
  for (int s = 0; s < 2; s++) {
    const int b = s ? c->body_b : c->body_a;
    if (b == RT_WORLD) continue;
    double r[3], rxd[3];
    rt__v3_sub(r, c->point, w->body[b].pose.p);
    rt__v3_cross(rxd, r, d);
    const double sign = s ? -1.0 : 1.0;
    for (int k = 0; k < 3; k++) {
      J[6 * s + k] = sign * d[k];
      J[6 * s + 3 + k] = sign * rxd[k];
    }
  }
}

void rt__contact_rows(rt_world *w) {
  rt__rows *r = &w->rows;
  const double dt = w->set.dt;
  prev_fill(w);
  for (int i = 0; i < w->ncontact; i++) {
    const rt_contact *c = &w->contact[i];
    const int row = w->nfixed_rows + 3 * i;
    double t1[3], t2[3];
    tangents(c->normal, t1, t2);
    contact_row(w, c, c->normal, r->J + 12 * (size_t)row);
    contact_row(w, c, t1, r->J + 12 * (size_t)(row + 1));
    contact_row(w, c, t2, r->J + 12 * (size_t)(row + 2));
    for (int k = 0; k < 3; k++) {
      r->a[row + k] = rt__rows_body(w, c->body_a);
      r->b[row + k] = rt__rows_body(w, c->body_b);
      r->normal[row + k] = k ? row : -1;
      r->mu[row + k] = c->friction;
      r->rhs[row + k] = 0.0;
      r->lambda[row + k] = 0.0;
    }
    /* normal: separate at least fast enough to remove the penetration
     * beyond the slop (beta of it per step); a gap may close within the
     * step; restitution bounces back a fraction of an approach faster than
     * 1 m/s */
    const double push = c->depth > w->set.contact_slop ? w->set.beta * (c->depth - w->set.contact_slop) / dt : 0.0;
    const double gap = c->depth < 0.0 ? c->depth / dt : 0.0;
    /* split correction: the velocity row pushes out at most max_bias, the
     * position pass the rest, and the pass closes no gap */
    const int split = w->set.correction == RT_CORRECT_SPLIT;
    const double vpush = split ? rt__rows_velocity_bias(w, push) : push;
    double target = gap + vpush;
    const double vn = rt__pgs_row_velocity(r, row, w->vel);
    if (w->set.restitution > 0 && vn < -1.0) target = fmax(target, -w->set.restitution * vn);
    r->rhs[row] = target;
    r->lo[row] = 0.0;
    r->hi[row] = INFINITY;
    rt__rows *pr = &w->prows;
    for (int k = 0; k < 3; k++) pr->rhs[row + k] = pr->lo[row + k] = pr->hi[row + k] = 0.0; /* friction: no part */
    if (split) {
      pr->rhs[row] = push - vpush;
      pr->hi[row] = INFINITY;
    }
    const int p = w->nprev > 0 ? *prev_find(w, c) : -1;
    if (p >= 0)
      for (int k = 0; k < 3; k++) r->lambda[row + k] = w->prev_lambda[3 * p + k];
  }
  prev_clear(w);
  r->n = w->prows.n = w->nfixed_rows + 3 * w->ncontact;
}

void rt__contact_save(rt_world *w) {
  if (w->ncontact > 0) memcpy(w->prev, w->contact, sizeof *w->prev * (size_t)w->ncontact);
  w->nprev = w->ncontact;
  for (int i = 0; i < 3 * w->ncontact; i++) w->prev_lambda[i] = w->rows.lambda[w->nfixed_rows + i];
}

/*---- ground plane ---------------------------------------------------------------*/

typedef struct sink {
  rt_contact *out;
  int cap, n;
  double height, margin, mu;
  int body;
} sink;

/* A contact at world point p of the body (the deepest point of a feature),
 * if it is closer to the plane than the margin. */
static void emit(sink *s, const double p[3], unsigned feature) {
  const double depth = s->height - p[2];
  if (!(depth > -s->margin)) return;
  if (s->n < s->cap) {
    rt_contact *c = &s->out[s->n];
    memset(c, 0, sizeof *c);
    c->body_a = s->body;
    c->body_b = RT_WORLD;
    rt__v3_set(c->point, p[0], p[1], s->height);
    rt__v3_set(c->normal, 0.0, 0.0, 1.0);
    c->depth = depth;
    c->friction = s->mu;
    c->feature = feature;
  }
  s->n++;
}

static void to_world(const rt_pose *pose, const double local[3], double out[3]) {
  rt__q_rotate(out, pose->q, local);
  rt__v3_add(out, out, pose->p);
}

/* Lowest point(s) of a circle of radius r centred at local (0, 0, z) in the
 * plane perpendicular to body z. */
static void rim(sink *s, const rt_pose *pose, double r, double z, unsigned feature) {
  double axis[3], down[3] = {0.0, 0.0, -1.0}, centre[3];
  const double ez[3] = {0.0, 0.0, 1.0}, local[3] = {0.0, 0.0, z};
  rt__q_rotate(axis, pose->q, ez);
  to_world(pose, local, centre);
  /* -z without its component along the axis */
  double along = rt__v3_dot(down, axis), dir[3];
  for (int k = 0; k < 3; k++) dir[k] = down[k] - along * axis[k];
  if (rt__v3_normalize(dir) > 1e-3) {
    double p[3];
    for (int k = 0; k < 3; k++) p[k] = centre[k] + r * dir[k];
    emit(s, p, feature);
    return;
  }
  /* standing upright: the flat cap rests on four rim points */
  for (int i = 0; i < 4; i++) {
    const double l[3] = {i == 0 ? r : i == 2 ? -r : 0.0, i == 1 ? r : i == 3 ? -r : 0.0, z};
    double p[3];
    to_world(pose, l, p);
    emit(s, p, feature + 1 + (unsigned)i);
  }
}

int rt_world_ground_contacts(const rt_world *w, double height, double friction, double margin, rt_contact *out,
                             int cap) {
  sink s = {out, out != NULL && cap > 0 ? cap : 0, 0, height, margin, 0.0, 0}; /* no room: count only */
  for (int i = 0; i < w->nbody; i++) {
    const rt_body_desc *b = &w->body[i];
    if (b->fixed || b->shape == RT_SHAPE_NONE) continue;
    s.body = i;
    s.mu = sqrt(fmax(b->friction, 0.0) * fmax(friction, 0.0));
    const rt_pose *pose = &b->pose;
    const double *z = b->shape_size;
    switch (b->shape) {
    case RT_SHAPE_SPHERE:
    case RT_SHAPE_CAPSULE: {
      const double half = b->shape == RT_SHAPE_CAPSULE ? z[1] / 2 : 0.0;
      for (int e = 0; e < (half > 0 ? 2 : 1); e++) {
        const double l[3] = {0.0, 0.0, e ? -half : half};
        double p[3];
        to_world(pose, l, p);
        p[2] -= z[0];
        emit(&s, p, (unsigned)e);
      }
      break;
    }
    case RT_SHAPE_BOX:
      for (unsigned k = 0; k < 8; k++) {
        const double l[3] = {(k & 1 ? 0.5 : -0.5) * z[0], (k & 2 ? 0.5 : -0.5) * z[1], (k & 4 ? 0.5 : -0.5) * z[2]};
        double p[3];
        to_world(pose, l, p);
        emit(&s, p, k);
      }
      break;
    case RT_SHAPE_CYLINDER:
      rim(&s, pose, z[0], z[1] / 2, 0);
      rim(&s, pose, z[0], -z[1] / 2, 8);
      break;
    case RT_SHAPE_NONE:
      break;
    }
  }
  return s.n;
}
