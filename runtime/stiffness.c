/* stiffness.c -- geometric stiffness: the inertia a solver body seems to
 * have, under load, to rotations that swing its anchors.
 *
 * A velocity-level step treats the joints' impulses implicitly but their
 * directions explicitly: a light link between two heavily loaded joints (a
 * chain holding a weight) turns freely about its centre as far as the step
 * can see, though the load would pull it back at once -- the joint forces'
 * stiffness to such rotations is (force) x (lever), the "geometric
 * stiffness" of the constraints, and at dt 1/60 it exceeds what the step
 * can leave explicit by far (0.1 kg links under 1000 N: the links' swing
 * modes have omega dt ~ 5), so the links swing out of line and the chain
 * comes apart. Backward Euler on the joint forces puts it into the step as
 * M + dt^2 K (Tournier et al., "Stable constrained dynamics", 2015). Its
 * rotational diagonal blocks are per body: for a joint row that pushes the
 * body's anchor, at lever r from its centre, with impulse F (the row's
 * impulse through J_v), K dt^2 = dt ((F . r) I - sym(F r^T)), which for F
 * along r is dt (F . r) (I - r r^T / |r|^2): positive under tension,
 * negative under compression. Each solver body's sum over its rows is
 * taken with the last step's impulses (the warm start), and only its
 * positive semidefinite part is kept, which keeps M + dt^2 K positive
 * definite (summing first makes impulses that cancel -- a joint and its
 * duplicate pulling opposite ways -- cancel here too); it is added to the
 * solver bodies' world inertias (bodies.c) for this step's rows, assembly
 * and factorization: the structure of H does not change. Ball rows (ball,
 * hinge, universal, weld) and rods carry it; other rows do not.
 *
 * The added inertia is the solve's, not the bodies': the kinetic energy
 * the velocity solve sees, 1/2 w^T (I + G) w, exceeds the bodies' own by
 * 1/2 w^T G w, and the solve, which never increases its own energy beyond
 * what its targets ask, may turn that excess into real motion. The excess
 * a body ends a solve with is a fair part of its state (a link swinging
 * with a loaded chain keeps it from step to step, and gives it back as
 * the swing slows); what it must not do is grow between two solves, for
 * nothing: when G grows under a turning body, or when the body's spin
 * turns into G's range (G has none along the lever of a single loaded
 * joint) -- random mechanism seed 26: a 1.26 kg link left a solve spinning
 * at 61 rad/s about its lever (75 J, none of it in G), the gyroscopic term
 * turned the spin, and the next solve started with 1.2e5 J of excess,
 * which it gave back as 1.6e4 J of motion; the mechanism exploded. So
 * each solver body starts the solve with its angular velocity w cut back
 * along (I + G)^-1 G w (the direction in which backward Euler would damp
 * it) by the least that keeps its w^T (I + G) w within its own w^T I w
 * plus the w^T G w it ended the last solve with (w->gcarry): the solve's
 * energy, which bounds the bodies' own, then grows only by the work of
 * forces and targets. While G is steady nothing is cut. */
#include <math.h>
#include <string.h>

#include "rtmath.h"
#include "sym3.h"
#include "world.h"

/* Adds dt ((F . r) I - sym(F r^T)) to K (row-major 3x3): each entry
 * dt ([i == j] F . r - (F_i r_j + F_j r_i) / 2), the upper triangle
 * computed once and mirrored (a sum of two products is the same either
 * way round, and on the diagonal (a + a) / 2 is a), so the bits of all
 * nine computed apart at 60 % of the instructions. Written out, with F and
 * r read once and K restrict: as loops, every store to K made the compiler
 * read F and r again (they might have been K), 120 instructions a call;
 * now 46 (make bench-cg's window: the sample lift's step 9.8k fewer). */
static void add_side(double *restrict K, const double F[3], const double r[3], double dt) {
  const double f0 = F[0], f1 = F[1], f2 = F[2], r0 = r[0], r1 = r[1], r2 = r[2];
  const double fr = f0 * r0 + f1 * r1 + f2 * r2;
  const double o01 = dt * (0.0 - 0.5 * (f0 * r1 + f1 * r0)), o02 = dt * (0.0 - 0.5 * (f0 * r2 + f2 * r0)),
               o12 = dt * (0.0 - 0.5 * (f1 * r2 + f2 * r1));
  K[0] += dt * (fr - f0 * r0);
  K[4] += dt * (fr - f1 * r1);
  K[8] += dt * (fr - f2 * r2);
  K[1] += o01;
  K[3] += o01;
  K[2] += o02;
  K[6] += o02;
  K[5] += o12;
  K[7] += o12;
}

static void lever(const rt_body_desc *body, int b, const double anchor[3], double r[3], double pt[3]) {
  if (b == RT_WORLD) {
    rt__v3_copy(r, anchor);
    rt__v3_copy(pt, anchor);
    return;
  }
  rt__q_rotate(r, body[b].pose.q, anchor);
  rt__v3_add(pt, body[b].pose.p, r);
}

void rt__stiffness_compute(rt_world *w) {
  const rt_program *p = w->prog;
  double *G = w->gstiff;
  memset(G, 0, 9 * sizeof *G * (size_t)w->nsbody);
  const double dt = w->set.dt;
  for (int c = 0; c < p->ncons; c++) {
    const int j = rt__cons_joint(w, c);
    if (j < 0) continue;
    const rt_joint_desc *d = &w->joint[j];
    const int sa = rt__rows_dynamic(w, w->body, p->cons_a[c]), sb = rt__rows_dynamic(w, w->body, p->cons_b[c]);
    const double *l = w->rows.lambda + p->cons_row[c];
    double ra[3], rb[3], pa[3], pb[3], Fa[3], Fb[3];
    lever(w->body, d->body_a, d->anchor_a, ra, pa);
    lever(w->body, d->body_b, d->anchor_b, rb, pb);
    if (d->type == RT_BALL || d->type == RT_HINGE || d->type == RT_UNIVERSAL || d->type == RT_WELD) {
      rt__v3_copy(Fa, l); /* ball rows: J_va = I, J_vb = -I */
      rt__v3_scale(Fb, l, -1.0);
    } else if (d->type == RT_ROD) {
      double n[3];
      rt__v3_sub(n, pb, pa);
      if (!(rt__v3_normalize(n) > 0.0)) continue;
      rt__v3_scale(Fa, n, -l[0]); /* J_va = -n, J_vb = n */
      rt__v3_scale(Fb, n, l[0]);
    } else {
      continue;
    }
    if (sa != RT_WORLD) add_side(G + 9 * (size_t)sa, Fa, ra, dt);
    if (sb != RT_WORLD) add_side(G + 9 * (size_t)sb, Fb, rb, dt);
  }
  for (int b = 0; b < w->nsbody; b++) rt__sym3_positive_part(G + 9 * (size_t)b);
}

/* For a solver body with angular velocity w, added inertia G and inverse
 * inertia A = (I + G)^-1, e(t) = (w - t u)^T (I + G) (w - t u), u = A G w,
 * is e(0) - 2 t g + t^2 q with g = w^T G w, q = (G w)^T u (q <= g); the
 * least t with e(t) <= w^T I w + carry, i.e. q t^2 - 2 g t + g - carry
 * <= 0, is the smaller root, (g - carry) / (g + sqrt(g^2 - q (g - carry)))
 * (in [0, 1]: at t = 1, e = w^T I A I w <= w^T I w). */
void rt__stiffness_bound(rt_world *w) {
  for (int s = 0; s < w->nsbody; s++) {
    double *om = w->vel + 6 * (size_t)s + 3, Gw[3];
    rt__m3_vec(Gw, w->gstiff + 9 * (size_t)s, om);
    /* carry >= 0 up to rounding: a negative one would let g = 0 through */
    const double g = rt__v3_dot(om, Gw), over = g - fmax(w->gcarry[s], 0.0);
    if (!(over > 0.0)) continue;
    double u[3];
    rt__m3_vec(u, w->inv_inertia + 9 * (size_t)s, Gw);
    const double q = rt__v3_dot(Gw, u);
    const double t = over / (g + sqrt(fmax(g * g - q * over, 0.0)));
    for (int k = 0; k < 3; k++) om[k] -= t * u[k];
  }
}

void rt__stiffness_carry(rt_world *w) {
  for (int s = 0; s < w->nsbody; s++) {
    if (!w->set.geometric_stiffness) {
      w->gcarry[s] = 0.0;
      continue;
    }
    const double *om = w->vel + 6 * (size_t)s + 3;
    double Gw[3];
    rt__m3_vec(Gw, w->gstiff + 9 * (size_t)s, om);
    w->gcarry[s] = rt__v3_dot(om, Gw);
  }
}
