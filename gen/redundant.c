/* redundant.c -- see redundant.h. */
#include "redundant.h"

#include <string.h>

#include "rtprog.h"

/* J, inverse masses and inertias of the solver view at the initial pose, as
 * rt_assemble takes them (a shard of a body split in k: mass m/k, inertia
 * I/k; a shard weld is the body's centre with identity frames). */
static void initial_rows(const program *p, const rt_program *tp, double *J, double *inv_mass, double *inv_inertia) {
  const smech *s = &p->s;
  const mech *m = p->m;
  for (int b = 0; b < s->nbody; b++) {
    const int i = s->body_orig[b];
    const mech_body *mb = &m->bodies[i];
    if (mb->fixed) continue; /* zero (the caller's arrays are zeroed) */
    const double k = (double)s->shard_num[i];
    inv_mass[b] = k / mb->mass;
    rt_inv_inertia_world(mb->rot, mb->inertia, k, inv_inertia + 9 * (size_t)b);
  }
  for (int c = 0; c < s->ncons; c++) {
    const int ba = s->cons_a[c] == MECH_WORLD ? MECH_WORLD : s->body_orig[s->cons_a[c]];
    const int bb = s->cons_b[c] == MECH_WORLD ? MECH_WORLD : s->body_orig[s->cons_b[c]];
    rt_joint_desc jd;
    if (s->cons_orig[c] >= 0)
      mech_joint_desc(m, s->cons_orig[c], &jd);
    else
      rt_shard_weld_desc(ba, &jd);
    rt_pose pa, pb;
    mech_body_pose(m, ba, &pa);
    mech_body_pose(m, bb, &pb);
    double val[RT_MAX_DEGREE];
    rt_joint_eval(&jd, ba == MECH_WORLD ? NULL : &pa, bb == MECH_WORLD ? NULL : &pb, val,
                  J + 12 * (size_t)tp->cons_row[c]);
  }
}

int redundant_analyze(arena *a, const program *p, redundant *out) {
  memset(out, 0, sizeof *out);
  const int dim = p->s.dim, nc = p->s.ncons;
  out->dim = out->rank = dim;
  out->cons = ARENA_ARRAY(a, int, nc + 1);
  out->rows = ARENA_ARRAY(a, unsigned, nc + 1);
  if (dim == 0) return 0;
  arena t;
  arena_init(&t);
  rt_program tp;
  rtprog_build(&t, p, RT_DOUBLE, &tp);
  double *J = ARENA_ARRAY(&t, double, 12 * (size_t)dim + 1);
  double *inv_mass = ARENA_ARRAY(&t, double, p->s.nbody + 1);
  double *inv_inertia = ARENA_ARRAY(&t, double, 9 * (size_t)p->s.nbody + 1);
  double *work = ARENA_ARRAY(&t, double, (size_t)tp.work_size + 1);
  double *temp = ARENA_ARRAY(&t, double, (size_t)tp.temp_size + 1);
  double *hdiag = ARENA_ARRAY(&t, double, (size_t)dim + 1);
  memset(J, 0, sizeof *J * 12 * (size_t)dim);
  memset(inv_mass, 0, sizeof *inv_mass * (size_t)p->s.nbody);
  memset(inv_inertia, 0, sizeof *inv_inertia * 9 * (size_t)p->s.nbody);
  initial_rows(p, &tp, J, inv_mass, inv_inertia);
  double eps = RED_EPSILON;
  int failed = 1;
  for (int attempt = 0; attempt < 3 && failed; attempt++, eps *= 100.0) {
    rt_assemble(&tp, J, inv_mass, inv_inertia, eps, work);
    for (int k = 0; k < nc; k++) { /* H~'s diagonal, before the factor overwrites it */
      const int c = tp.piv_cons[k], d = tp.cons_degree[c];
      for (int i = 0; i < d; i++) hdiag[tp.cons_row[c] + i] = work[tp.piv_node[k] + i * d + i];
    }
    failed = rt_program_factor(&tp, work, temp) >= 0;
  }
  if (failed) {
    arena_free(&t);
    return -1;
  }
  const double tol = eps / 100.0 * RED_TOL_FACTOR; /* eps: one step past the one used */
  /* D_i against its row's diagonal, constraint by constraint */
  unsigned *mask = ARENA_ARRAY(&t, unsigned, nc + 1);
  memset(mask, 0, sizeof *mask * (size_t)nc);
  for (int k = 0; k < nc; k++) {
    const int c = tp.piv_cons[k], d = tp.cons_degree[c];
    for (int i = 0; i < d; i++)
      if (work[tp.piv_node[k] + i * d + i] < tol * hdiag[tp.cons_row[c] + i]) {
        mask[c] |= 1u << i;
        out->rank--;
      }
  }
  /* in mechanism order: mechanism constraints, then shard welds */
  for (int pass = 0; pass < 2; pass++)
    for (int c = 0; c < nc; c++) {
      if (!mask[c] || (p->s.cons_orig[c] < 0) != pass) continue;
      out->cons[out->ncons] = c;
      out->rows[out->ncons++] = mask[c];
    }
  if (out->ncons > 1) { /* mechanism constraints by their index */
    for (int i = 1; i < out->ncons; i++)
      for (int j = i; j > 0; j--) {
        const int x = p->s.cons_orig[out->cons[j - 1]], y = p->s.cons_orig[out->cons[j]];
        if (x < 0 || y < 0 || x <= y) break;
        const int tc = out->cons[j];
        const unsigned tr = out->rows[j];
        out->cons[j] = out->cons[j - 1];
        out->rows[j] = out->rows[j - 1];
        out->cons[j - 1] = tc;
        out->rows[j - 1] = tr;
      }
  }
  arena_free(&t);
  return 0;
}

int redundant_count(unsigned rows) {
  int n = 0;
  for (; rows; rows &= rows - 1) n++;
  return n;
}

/* Row layouts (docs/DESIGN.md section 3): ball rows 0-2 for ball, hinge,
 * universal and weld; angular rows 3-4 (hinge), 3 (universal), 3-5 (weld),
 * 2-4 (prismatic: after its two linear rows). */
static const char *drop(int *drops, int n, const char *phrase) {
  *drops = n;
  return phrase;
}

const char *redundant_suggestion(rt_joint_type t, unsigned rows, int degree, int *drops) {
  *drops = 0;
  if (degree > 0 && redundant_count(rows) == degree)
    return drop(drops, degree, "the others already impose all of its rows: it could be left out");
  switch (t) {
  case RT_HINGE: {
    const int ang = redundant_count(rows & 0x18u);
    if (ang == 2)
      return drop(drops, 2, "a ball joint would drop its two angular rows (the others already keep the axis)");
    if (ang == 1) return drop(drops, 1, "a universal joint would drop one of its angular rows");
    return NULL;
  }
  case RT_WELD: {
    const int ang = redundant_count(rows & 0x38u);
    if (ang == 3) return drop(drops, 3, "a ball joint would drop its three angular rows");
    if (ang == 2) return drop(drops, 2, "a universal joint would drop two of its angular rows");
    if (ang == 1) return drop(drops, 1, "a hinge would drop one of its angular rows");
    return NULL;
  }
  case RT_UNIVERSAL:
    return rows & 0x8u ? drop(drops, 1, "a ball joint would drop its angular row") : NULL;
  case RT_PRISMATIC:
    if (!(rows & 0x1cu)) return NULL;
    return drop(drops, 1, "a cylindrical joint would drop one of its angular rows (the turn about the axis)");
  default:
    return NULL;
  }
}
