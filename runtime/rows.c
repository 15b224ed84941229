/* rows.c -- the constraint rows of a step (step.c sequences them): driven
 * rods' lengths, the equality rows (the program's block pi_0) and the
 * inequality rows of motors, limits and ropes at the current poses, W J^T
 * and the regularized inverse diagonals, and the warm start. Contact rows
 * are contact.c's. It reads the bodies and joints and writes w->rows; the
 * only other module it calls is pgs.c (a row's velocity). */
#include <math.h>
#include <string.h>

#include "rt_joint_type.h"
#include "rtmath.h"
#include "world.h"

/*---- drives ------------------------------------------------------------------*/

/* Driven rods change their length, within their bounds; the rate of the
 * change becomes a velocity target of the row (feed-forward), so the rod
 * follows its drive without lagging behind by speed dt / beta. The row's
 * bias already sees the change as an error c = -rate dt and asks beta of
 * it back, so the feed-forward is the rest, (1 - beta) rate: a rod that
 * held its length reaches the new one within the step (a full rate would
 * put it one step, speed dt, ahead of its drive).
 *
 * A rod that follows its drive starts each step within rounding of its
 * length (the scissor lift's: 7e-9 m, against a step of 5e-4 m). One that
 * starts a step more than a whole step of its drive short of it, in the
 * drive's direction, could not follow: the mechanism does not allow the
 * length (a rod pushed past the reach of a ball joint on the same link, or
 * between bodies welded together), and an infinitely strong drive pushing
 * on asks for the impossible every step -- the impulses of the rod and of
 * the joints it fights grow without bound, and their targets (feed-forward
 * and bias) do work with them (random mechanism seed 2: 3e4 N s more a
 * step, until it explodes). Such a drive stalls, as an actuator with
 * overload protection does: it stops, its rod takes the length it has, and
 * it holds there until its speed is set again (rt_world_set_drive). While
 * stalled the rod yields to the mechanism in the direction against its
 * drive (its length follows the rod's when the rod is shorter than it, for
 * a drive that lengthens it) but never pushes to regain it: a length held
 * while the other joints close their errors is again one the mechanism
 * does not allow (seed 8's rod, welded at both ends, stalled 0.4 mm long
 * and its impulse grew by 6e4 N s a step against the weld). Stopping the
 * drive alone does not help: the rod keeps the length it was given, past
 * the reach, and its capped bias, 0.05 m/s, asks for it as the
 * feed-forward did (seed 2 exploded at 5.9 s instead of 9.7). */
void rt__rows_drive(rt_world *w) {
  for (int j = 0; j < w->njoint; j++) {
    rt_joint_desc *d = &w->joint[j];
    w->drive_rate[j] = 0.0;
    if (d->type != RT_ROD || d->speed == 0.0) continue;
    const int c = w->joint_cons[j];
    if (c >= 0) {
      double err; /* |d| - length */
      rt__rows_cons_eval(w, w->body, c, &err, NULL);
      const double lag = d->speed > 0 ? -err : err; /* short of the length, in the drive's direction */
      if (lag > fabs(d->speed) * w->set.dt) w->drive_stall[j] = 1;
      if (w->drive_stall[j]) {
        if (lag > 0) d->length = rt__clamp(d->length + err, d->lower, d->upper);
        continue;
      }
    }
    const double len = rt__clamp(d->length + d->speed * w->set.dt, d->lower, d->upper);
    w->drive_rate[j] = (len - d->length) / w->set.dt;
    d->length = len;
  }
}

/*---- solver bodies of rows -----------------------------------------------------*/

static int dynamic(const rt_world *w, int sbody) { return rt__rows_dynamic(w, w->body, sbody); }

int rt__rows_body(const rt_world *w, int body) {
  return body == RT_WORLD ? RT_WORLD : dynamic(w, w->prog->shard_adr[body]);
}

/*---- equality rows -----------------------------------------------------------*/

/* A shard weld is the body's centre with identity frames. */
void rt__rows_cons_eval(const rt_world *w, const rt_body_desc *body, int c, double *cval, double *J) {
  const rt_program *p = w->prog;
  const int j = rt__cons_joint(w, c);
  rt_joint_desc weld;
  const rt_joint_desc *jd = j >= 0 ? &w->joint[j] : &weld;
  if (j < 0) rt_shard_weld_desc(p->sbody_body[p->cons_a[c]], &weld);
  rt_joint_eval(jd, rt__pose_in(body, jd->body_a), rt__pose_in(body, jd->body_b), cval, J);
}

double rt__rows_velocity_bias(const rt_world *w, double bias) {
  return rt__clamp(bias, -w->set.max_bias, w->set.max_bias);
}

/* Row r in the position pass: its target and bounds (lo = hi = 0: it
 * takes no part). */
static void position_target(rt_world *w, int r, double target, double lo, double hi) {
  w->prows.rhs[r] = target;
  w->prows.lo[r] = lo;
  w->prows.hi[r] = hi;
}

/* The rows of solver constraint c at the poses of its bodies. Under split
 * correction the velocity row targets the drive's rate and at most
 * max_bias of the correction -beta c / dt, the position pass the rest;
 * otherwise the row's target is both. (A driven rod's feed-forward stays
 * (1 - beta) of its rate in both: the rod's c sees the change of length as
 * -rate dt and the correction returns beta of it.) */
static void equality_rows(rt_world *w, int c, int kept) {
  const rt_program *p = w->prog;
  const int row = p->cons_row[c], d = p->cons_degree[c];
  const int j = rt__cons_joint(w, c);
  /* kept: c and J are the kept evaluation's (rt__rows_build), but a rod's,
   * whose length may have changed (rt__rows_drive) */
  if (!kept || (j >= 0 && w->joint[j].type == RT_ROD))
    rt__rows_cons_eval(w, w->body, c, w->c + row, w->rows.J + 12 * (size_t)row);
  const double dt = w->set.dt, k = -w->set.beta / dt, max_bias = w->set.max_bias;
  const int split = w->set.correction == RT_CORRECT_SPLIT;
  const int a = dynamic(w, p->cons_a[c]), b = dynamic(w, p->cons_b[c]);
  const double ff = j >= 0 ? (1.0 - w->set.beta) * w->drive_rate[j] : 0.0;
  /* the settings and arrays read once: the rows' stores might otherwise
   * have changed them (rt__rows_velocity_bias's clamp, written out) */
  const double *cv = w->c, *drift = w->drift;
  rt__rows *rows = &w->rows;
  for (int r = row; r < row + d; r++) {
    const double bias = k * cv[r] - drift[r] / dt;
    const double vb = split ? rt__clamp(bias, -max_bias, max_bias) : bias;
    rows->a[r] = a;
    rows->b[r] = b;
    rows->rhs[r] = ff + vb;
    rows->lo[r] = -INFINITY;
    rows->hi[r] = INFINITY;
    position_target(w, r, split ? bias - vb : 0.0, split ? -INFINITY : 0.0, split ? INFINITY : 0.0);
  }
}

/*---- inequality rows: motors, limits, ropes ---------------------------------------*/

/* Solver bodies of an inequality row on joint t (the solver constraint's
 * shards for an equality joint, else the bodies' first shards). */
static void row_bodies(rt_world *w, int row, const rt_joint_desc *t, int tj) {
  const int c = w->joint_cons[tj];
  w->rows.a[row] = c >= 0 ? dynamic(w, w->prog->cons_a[c]) : rt__rows_body(w, t->body_a);
  w->rows.b[row] = c >= 0 ? dynamic(w, w->prog->cons_b[c]) : rt__rows_body(w, t->body_b);
}

/* A motor's row: the rate of its target's free coordinate, driven towards
 * the motor's speed with an impulse of at most max_force dt. */
static void motor_row(rt_world *w, int row, const rt_joint_row *m) {
  w->rows.rhs[row] = m->speed;
  w->rows.hi[row] = m->max_force * w->set.dt;
  w->rows.lo[row] = -w->rows.hi[row];
  if (w->set.solver == RT_SOLVER_LDLPGS)
    position_target(w, row, 0.0, w->rows.lo[row], w->rows.hi[row]);
  else
    position_target(w, row, 0.0, 0.0, 0.0);
}

/* A limit row takes part while its bound is within this of the joint
 * (m or rad) beyond what the joint moves in two steps at its current rate.
 * The rate is the one before the solve: a joint at rest against its stop
 * can be pulled into it within the step by what the solve adds (a heavy
 * weight hinged to a light arm), so the margin is not the slop (it was:
 * at slop 0.5 mm such an arm's stop went inert 0.7 mrad from the bound
 * and was overrun by 3.7 mrad in the next step). */
#define RT__LIMIT_NEAR 1e-2

/* A coordinate q kept within [lower, upper] by one row on its rate. Only
 * the nearer bound can act. Away from it by a gap g > 0 the row allows the
 * gap to close within the step and no more (rate >= -g/dt): a limit that is
 * approached fast stops at it without bouncing back. Past it by p, the
 * excess is removed within one step: no slop, unlike contacts (a limit's
 * error comes from curved motion along it, e.g. a swinging rope, and with
 * the contact slop of 1 mm a limit rested up to 1.1 mm past its bound;
 * without it a stop holds within 0.2 mrad and a rope within 0.8 mm at dt
 * 1/60, tests/test_inequality.c). The impulse can only push away from the
 * bound, so a limit never holds a joint that leaves it (no sticking). A
 * row whose bound is out of reach (RT__LIMIT_NEAR) is left out (inert). */
static void limit_row(rt_world *w, int row, double q, double lower, double upper) {
  rt__rows *r = &w->rows;
  const double dt = w->set.dt;
  const int at_lower = q - lower < upper - q;
  const double gap = at_lower ? q - lower : upper - q; /* < 0: past the bound */
  const double sign = at_lower ? 1.0 : -1.0;           /* rate away from the bound */
  const double rate = rt__pgs_row_velocity(r, row, w->vel);
  if (gap > 2.0 * dt * fabs(rate) + RT__LIMIT_NEAR) {
    r->a[row] = r->b[row] = RT_WORLD; /* no bodies: rt__rows_masses makes it inert */
    r->lo[row] = r->hi[row] = 0.0;
    r->rhs[row] = 0.0;
    r->lambda[row] = 0.0;
    position_target(w, row, 0.0, 0.0, 0.0);
    return;
  }
  const double target = -gap / dt;
  r->lo[row] = at_lower ? 0.0 : -INFINITY;
  r->hi[row] = at_lower ? INFINITY : 0.0;
  if (w->set.correction == RT_CORRECT_SPLIT && gap < 0) { /* past the bound: max_bias of the excess in the velocity */
    const double vb = rt__rows_velocity_bias(w, target);
    r->rhs[row] = sign * vb;
    position_target(w, row, sign * (target - vb), r->lo[row], r->hi[row]);
  } else if (w->set.correction == RT_CORRECT_SPLIT) { /* a gap: the position pass may not close it */
    r->rhs[row] = sign * target;
    position_target(w, row, 0.0, r->lo[row], r->hi[row]);
  } else {
    r->rhs[row] = sign * target;
    position_target(w, row, 0.0, 0.0, 0.0);
  }
}

/* A spring's row (spring.c): with step h the impulse lambda =
 * -h (k (q + h q' - rest) + c q') is implicit in the new rate q', i.e.
 * q' + gamma lambda = -k (q - rest) / (h k + c), gamma = 1 / (h (h k + c)):
 * a soft row, unbounded, stable at any k and h. An angle's distance from
 * its rest is taken the short way round. It takes no part in the position
 * pass (its force is elastic: it pulls towards rest, it corrects no error). */
static void spring_row(rt_world *w, int row, const rt_joint_row *sp, int angular) {
  rt__rows *r = &w->rows;
  const double h = w->set.dt, k = sp->stiffness, hk_c = h * k + sp->damping;
  const double x = rt__spring_stretch(sp->q, sp->rest, angular);
  r->normal[row] = RT__ROW_SOFT;
  r->soft[row] = 1.0 / (h * hk_c);
  r->rhs[row] = -k * x / hk_c;
  r->lo[row] = -INFINITY;
  r->hi[row] = INFINITY;
  position_target(w, row, 0.0, 0.0, 0.0);
}

/* The row of inequality joint j, as its type defines it on the joint it
 * acts on (its target, or itself). */
static void inequality_row(rt_world *w, int j) {
  const rt_joint_desc *d = &w->joint[j];
  const rt_joint_type_def *def = rt_joint_type_def_of(d->type);
  const int row = w->joint_row[j], tj = def->targets ? d->target : j;
  const rt_joint_desc *t = &w->joint[tj];
  rt_joint_row out;
  def->row(d, t, rt__pose_of(w, t->body_a), rt__pose_of(w, t->body_b), &out, w->rows.J + 12 * (size_t)row);
  row_bodies(w, row, t, tj);
  if (out.kind == RT_ROW_MOTOR)
    motor_row(w, row, &out);
  else if (out.kind == RT_ROW_SPRING)
    spring_row(w, row, &out, rt_joint_free_angular(d->free_axis, t->type) == 1);
  else
    limit_row(w, row, out.q, out.lower, out.upper);
}

/* With the kept evaluation at the poses, the rows take its c and J by
 * swapping the arrays (the rows' J and kept_J have the same size): the
 * lift's 24 KiB of J were copied a step, constraint by constraint (4k
 * instructions; make bench-cg's window). The kept arrays then hold the
 * last step's rows, so the evaluation is no longer kept: a failed step's
 * restore (or anything else before the step's own evaluation) finds none,
 * and its next step evaluates the joints again, to the same bits. */
void rt__rows_build(rt_world *w) {
  const int kept = rt__kept_at_poses(w);
  if (kept) {
    double *c = w->c, *J = w->rows.J;
    w->c = w->kept_c;
    w->kept_c = c;
    w->rows.J = w->prows.J = w->kept_J;
    w->kept_J = J;
    w->kept = 0;
  }
  for (int c = 0; c < w->prog->ncons; c++) equality_rows(w, c, kept);
  for (int j = 0; j < w->njoint; j++)
    if (w->joint_row[j] >= 0) inequality_row(w, j);
}

/*---- masses and warm start ----------------------------------------------------------*/

double rt__rows_wj(const double *J, int a, int b, const double *inv_mass, const double *inv_inertia, double *WJ) {
  double diag = 0.0;
  for (int s = 0; s < 2; s++) {
    const int sb = s ? b : a;
    double *out = WJ + 6 * s;
    if (sb == RT_WORLD) {
      memset(out, 0, 6 * sizeof *out);
      continue;
    }
    const double *j6 = J + 6 * s;
    rt__v3_scale(out, j6, inv_mass[sb]);
    rt__m3_vec(out + 3, inv_inertia + 9 * (size_t)sb, j6 + 3);
    for (int k = 0; k < 6; k++) diag += j6[k] * out[k];
  }
  return diag;
}

#if defined(__GNUC__) || defined(__clang__)
#define ROWS_INLINE static inline __attribute__((always_inline))
#else
#define ROWS_INLINE static inline
#endif
/* A ball row's side along axis (constant where it is called): angular
 * entries p < q kept. */
ROWS_INLINE double wj_ball(const double *j, int axis, int p, int q, double im, const double *ii, double *out,
                           double diag) {
  out[0] = out[1] = out[2] = 0.0;
  out[axis] = im * j[axis];
  out[3] = ii[p] * j[3 + p] + ii[q] * j[3 + q];
  out[4] = ii[3 + p] * j[3 + p] + ii[3 + q] * j[3 + q];
  out[5] = ii[6 + p] * j[3 + p] + ii[6 + q] * j[3 + q];
  diag += j[axis] * out[axis];
  diag += j[3 + p] * out[3 + p];
  return diag + j[3 + q] * out[3 + q];
}

/* One side of W J^T of a row by its letter (rt_joint_type_def.rows): a
 * ball row along x, y or z ('x', 'y', 'z') has one linear entry and no
 * angular one about that axis, an angular row ('a') no linear one; the
 * entries of J the letter leaves out are +-0 at every pose. So the
 * products with them are left out: the entries of W J^T they would only
 * have added +-0 to are the bits of rt__rows_wj's (x + +-0 = x for x != 0),
 * the others +0, and the side's products of J W J^T are added to diag in
 * rt__rows_wj's order (a sum from +0 that skips +-0 terms has the same
 * bits). With each constraint's bodies' masses read once (rt__rows_cons_wj)
 * the sample lift's step costs 9k instructions less, the chain's 1.3k
 * (make bench-cg's window). */
static inline double wj_side(const double *j, int letter, double im, const double *ii, double *out, double diag) {
  switch (letter) {
  case 'x': return wj_ball(j, 0, 1, 2, im, ii, out, diag);
  case 'y': return wj_ball(j, 1, 0, 2, im, ii, out, diag);
  case 'z': return wj_ball(j, 2, 0, 1, im, ii, out, diag);
  case 'a': out[0] = out[1] = out[2] = 0.0; break;
  default:
    rt__v3_scale(out, j, im);
    for (int k = 0; k < 3; k++) diag += j[k] * out[k];
  }
  rt__m3_vec(out + 3, ii, j + 3);
  for (int k = 3; k < 6; k++) diag += j[k] * out[k];
  return diag;
}

/* A constraint whose rows start with a ball's (x, y, z: the ball, hinge,
 * universal and weld) has those three sides by their letters without the
 * letters' dispatch, and so have the angular rows after them (the sample
 * lift's step: 2.8k instructions fewer, make bench-cg's window); the same
 * operations. */
void rt__rows_cons_wj(const double *J, int a, int b, const unsigned char *letter, int d, const double *inv_mass,
                      const double *inv_inertia, double *WJ, double *diag) {
  for (int r = 0; r < d; r++) diag[r] = 0.0;
  const int ball = d >= 3 && letter[0] == 'x' && letter[1] == 'y' && letter[2] == 'z';
  for (int s = 0; s < 2; s++) {
    const int sb = s ? b : a;
    if (sb == RT_WORLD) {
      for (int r = 0; r < d; r++) memset(WJ + 12 * r + 6 * s, 0, 6 * sizeof *WJ);
      continue;
    }
    const double im = inv_mass[sb], *ii = inv_inertia + 9 * (size_t)sb;
    int r = 0;
    if (ball) {
      diag[0] = wj_ball(J + 6 * s, 0, 1, 2, im, ii, WJ + 6 * s, diag[0]);
      diag[1] = wj_ball(J + 12 + 6 * s, 1, 0, 2, im, ii, WJ + 12 + 6 * s, diag[1]);
      diag[2] = wj_ball(J + 24 + 6 * s, 2, 0, 1, im, ii, WJ + 24 + 6 * s, diag[2]);
      for (r = 3; r < d && letter[r] == 'a'; r++) /* then a hinge's or weld's angular rows */
        diag[r] = wj_side(J + 12 * r + 6 * s, 'a', im, ii, WJ + 12 * r + 6 * s, diag[r]);
    }
    for (; r < d; r++) diag[r] = wj_side(J + 12 * r + 6 * s, letter[r], im, ii, WJ + 12 * r + 6 * s, diag[r]);
  }
}

static void row_diag(rt_world *w, int i, double diag, double reg) {
  rt__rows *r = &w->rows;
  const double soft = r->normal[i] == RT__ROW_SOFT ? r->soft[i] : 0.0;
  r->inv_diag[i] = diag > 0.0 ? 1.0 / (reg * diag + soft) : 0.0;
  w->prows.inv_diag[i] = w->prows.lo[i] == 0.0 && w->prows.hi[i] == 0.0 ? 0.0 : r->inv_diag[i];
}

void rt__rows_masses(rt_world *w, int n) {
  rt__rows *r = &w->rows;
  const rt_program *p = w->prog;
  const double reg = 1.0 + w->set.epsilon;
  for (int c = 0; c < p->ncons; c++) {
    const int row = p->cons_row[c], d = p->cons_degree[c];
    double diag[RT_MAX_DEGREE];
    rt__rows_cons_wj(r->J + 12 * (size_t)row, r->a[row], r->b[row], w->row_letter + row, d, w->inv_mass,
                     w->inv_inertia, r->WJ + 12 * (size_t)row, diag);
    for (int k = 0; k < d; k++) row_diag(w, row + k, diag[k], reg);
  }
  for (int i = w->dim; i < n; i++)
    row_diag(w, i,
             rt__rows_wj(r->J + 12 * (size_t)i, r->a[i], r->b[i], w->inv_mass, w->inv_inertia, r->WJ + 12 * (size_t)i),
             reg);
}

void rt__rows_keep_start(rt_world *w) { memcpy(w->start, w->c, sizeof *w->start * (size_t)w->dim); }

/* The rows' velocities by their letters (rt__pgs_velocities): the sample
 * lift's 246 rows 20k -> 10k instructions a step. */
void rt__rows_expect(rt_world *w) {
  rt__pgs_velocities(&w->rows, w->prog, w->row_letter, w->dvel, w->expect);
  for (int i = 0; i < w->dim; i++) w->expect[i] = w->start[i] + w->set.dt * w->expect[i];
}

int rt__rows_position_start(rt_world *w) {
  for (int i = 0; i < w->prows.n; i++)
    if (w->prows.rhs[i] != 0.0) {
      memset(w->prows.lambda, 0, sizeof *w->prows.lambda * (size_t)w->prows.n);
      memset(w->pvel, 0, 6 * sizeof *w->pvel * (size_t)w->nsbody);
      return 1;
    }
  return 0;
}

/* Both products with J go through the solver bodies, not the rows:
 * J^T l = W^-1 dv on every dynamic solver body (W = diag(m^-1, (I + G)^-1),
 * w->inertia the I + G it inverts) and a fixed one has dv = 0, so
 * l^T J x = sum over the solver bodies of (W^-1 dv) . x. The same sums to
 * rounding as row by row, in 12 products a body instead of 24 a row (the
 * sample lift: 270 rows, 48 solver bodies; 27k -> 3k instructions a
 * step). */
void rt__rows_warm_sums(const rt_world *w, const double *dv, double *num, double *den) {
  const rt__rows *r = &w->rows;
  double lr = 0.0, soft = 0.0;
  for (int i = 0; i < r->n; i++) {
    const double l = r->lambda[i];
    if (l == 0.0) continue; /* a row without impulse adds nothing, whatever its target */
    lr += l * r->rhs[i];
    if (r->normal[i] == RT__ROW_SOFT) soft += r->soft[i] * l * l;
  }
  double jv = 0.0, jd = 0.0;
  for (int s = 0; s < w->nsbody; s++) {
    if (w->inv_mass[s] == 0.0) continue;
    const double *d = dv + 6 * (size_t)s, *v = w->vel + 6 * (size_t)s, *I = w->inertia + 9 * (size_t)s;
    const double m = 1.0 / w->inv_mass[s];
    double p[6]; /* W^-1 dv */
    for (int k = 0; k < 3; k++) {
      p[k] = m * d[k];
      p[3 + k] = I[3 * k] * d[3] + I[3 * k + 1] * d[4] + I[3 * k + 2] * d[5];
    }
    for (int k = 0; k < 6; k++) {
      jv += p[k] * v[k];
      jd += p[k] * d[k];
    }
  }
  *num = lr - jv;
  *den = jd + soft;
}

/* Last step's impulses, inside this step's bounds, are where the sweeps
 * start -- unless they would start the solve worse off than no warm start
 * at all. Projected Gauss-Seidel is coordinate descent on the dual
 * f(l) = 1/2 l^T H l - l^T (rhs - J v), H = J W J^T, and f(0) = 0: with
 * Dv = W J^T l, f(s l) = s^2/2 l^T J Dv - s l^T (rhs - J v) (soft rows add
 * gamma l^2 to l^T J Dv: their H has gamma on its diagonal). If f(l) <= 0
 * the impulses are kept whole; else they are scaled by the s that
 * minimizes f along them (s = l^T (rhs - J v) / l^T J Dv < 1/2), or
 * dropped. The sweeps and the block step never increase f, so the solve
 * ends no worse than a cold start; and since the change of kinetic energy
 * is f + l^T rhs, the rows can add no more kinetic energy than their
 * targets ask for (motors, drives, restitution, the capped bias): impulses
 * that no longer fit the step (stale, or grown along redundant rows) are
 * scaled down instead of pumping energy in. Rows whose last impulses have
 * no effect on the velocities (J^T l = 0) start from 0. */
void rt__rows_warm_start(rt_world *w) {
  rt__rows *r = &w->rows;
  for (int i = 0; i < r->n; i++) {
    if (r->normal[i] >= 0) {
      r->hi[i] = r->mu[i] * r->lambda[r->normal[i]];
      r->lo[i] = -r->hi[i];
    }
    r->lambda[i] = rt__clamp(r->lambda[i], r->lo[i], r->hi[i]);
  }
  double *dv = w->dvel;
  memset(dv, 0, 6 * sizeof *dv * (size_t)w->nsbody);
  rt__pgs_apply_equality(r, w->prog, r->lambda, dv);
  rt__pgs_apply(r, w->dim, r->n, r->lambda, dv);
  double num, den;
  rt__rows_warm_sums(w, dv, &num, &den);
  /* f(l) = den / 2 - num <= 0: as good as a cold start or better, kept
   * whole; else the minimizer along it (< 1/2), or nothing */
  const double s = !(den > 0.0) ? 0.0 : den <= 2.0 * num ? 1.0 : fmax(num / den, 0.0);
  w->info.warm_start = s;
  if (s != 1.0)
    for (int i = 0; i < r->n; i++) r->lambda[i] *= s;
  if (s != 0.0)
    for (int k = 0; k < 6 * w->nsbody; k++) w->vel[k] += s * dv[k];
}
