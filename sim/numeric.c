/* numeric.c -- see numeric.h. */
#include "numeric.h"

#include <string.h>


void numeric_alloc(arena *a, const program *p, numeric *out) {
  const smech *s = &p->s;
  memset(out, 0, sizeof *out);
  out->ncons = s->ncons;
  out->nsbody = s->nbody;
  out->dim = s->dim;
  int *row = ARENA_ARRAY(a, int, s->ncons + 1);
  for (int c = 0, r = 0; c <= s->ncons; c++) {
    row[c] = r;
    if (c < s->ncons) r += s->cons_degree[c];
  }
  out->row = row;
  out->J = ARENA_ARRAY(a, double, 12 * (size_t)s->dim + 1);
  out->c = ARENA_ARRAY(a, double, (size_t)s->dim + 1);
  out->inv_mass = ARENA_ARRAY(a, double, (size_t)s->nbody + 1);
  out->inv_inertia = ARENA_ARRAY(a, double, 9 * (size_t)s->nbody + 1);
}

/* Pose of mechanism body i (or MECH_WORLD: NULL, as rt_joint_eval wants). */
static const rt_pose *body_pose(const program *p, const rt_pose *pose, int i, rt_pose *tmp) {
  if (i == MECH_WORLD) return NULL;
  if (pose) return &pose[i];
  mech_body_pose(p->m, i, tmp);
  return tmp;
}

/* Mechanism body of solver body b, or MECH_WORLD. */
static int orig_body(const smech *s, int b) { return b == MECH_WORLD ? MECH_WORLD : s->body_orig[b]; }

void numeric_eval(const program *p, const rt_pose *pose, numeric *out) {
  const smech *s = &p->s;
  const mech *m = p->m;
  /* solver bodies */
  for (int b = 0; b < s->nbody; b++) {
    const int i = s->body_orig[b];
    const mech_body *mb = &m->bodies[i];
    double *ii = out->inv_inertia + 9 * (size_t)b;
    memset(ii, 0, sizeof *ii * 9);
    out->inv_mass[b] = 0.0;
    if (mb->fixed) continue;
    const double k = (double)s->shard_num[i];
    out->inv_mass[b] = k / mb->mass;
    rt_pose tmp;
    rt_inv_inertia_world(body_pose(p, pose, i, &tmp)->q, mb->inertia, k, ii);
  }
  /* solver constraints */
  for (int c = 0; c < s->ncons; c++) {
    rt_joint_desc jd;
    const int ba = orig_body(s, s->cons_a[c]), bb = orig_body(s, s->cons_b[c]);
    if (s->cons_orig[c] >= 0) {
      mech_joint_desc(m, s->cons_orig[c], &jd);
    } else {
      rt_shard_weld_desc(ba, &jd);
    }
    rt_pose ta, tb;
    const rt_pose *pa = body_pose(p, pose, ba, &ta), *pb = body_pose(p, pose, bb, &tb);
    rt_joint_eval(&jd, pa, pb, out->c + out->row[c], out->J + 12 * (size_t)out->row[c]);
  }
}

void numeric_build(arena *a, const program *p, numeric *out) {
  numeric_alloc(a, p, out);
  numeric_eval(p, NULL, out);
}
