/* stabilize.c -- post-stabilization (rt_settings.stabilize): after a step
 * has integrated the poses, the equality joints have drifted by c, the
 * second-order error of velocity-level constraints on curved motion (a
 * track plate turning around a sprocket). One Newton step at the new poses
 * moves the bodies by dx = W J^T H~^-1 (-c), with J, W and H~ = J W J^T
 * rebuilt there (a second assembly and factorization in the step), so the
 * joints meet again to second order. Velocities are not changed: the
 * correction adds no kinetic energy, unlike a larger beta. A move that
 * leaves a larger error than it found (far from the joints' manifold, where
 * the linearization fails) is undone. */

#include <math.h>
#include <string.h>

#include "rtmath.h"
#include "world.h"

/* Largest |c| over the equality rows at the current poses, with c into
 * w->c and, if J is not NULL, the rows into J. */
static double max_error(rt_world *w, double *J) {
  const rt_program *p = w->prog;
  double e = 0.0;
  for (int c = 0; c < p->ncons; c++) {
    const int row = p->cons_row[c];
    rt__rows_cons_eval(w, w->body, c, w->c + row, J ? J + 12 * (size_t)row : NULL);
    for (int k = 0; k < p->cons_degree[c]; k++) e = rt__most(e, fabs(w->c[row + k]));
  }
  return e;
}

/* max_error(w, J) from the kept evaluation (w->kept_*), which is at the
 * poses (rt__kept_at_poses): its c and J copied, the largest |c| taken in
 * max_error's order, so the same bits without evaluating the joints. */
static double kept_max_error(rt_world *w, double *J) {
  const rt_program *p = w->prog;
  memcpy(w->c, w->kept_c, sizeof *w->c * (size_t)w->dim);
  memcpy(J, w->kept_J, 12 * sizeof *J * (size_t)w->dim);
  double e = 0.0;
  for (int c = 0; c < p->ncons; c++)
    for (int k = 0; k < p->cons_degree[c]; k++) e = rt__most(e, fabs(w->c[p->cons_row[c] + k]));
  return e;
}

/* max_error with the rows' J, kept (w->kept_*) with the poses for the next
 * step's rows, which take them when the bodies have not moved since
 * (rows.c): the evaluation at a step's last poses is the one the next
 * step's rows would repeat. A projection pass's check is at the poses the
 * pass moved the bodies to, which are the step's last when the pass is
 * kept (but for post-stabilization, which moves them again): the sample
 * lift's step 856k -> 839k instructions (make bench-cg), the same bits.
 * Without a pass, the drift's evaluation is the last one (the chain's
 * steps, about half the car's and buggy's). */
static double kept_error(rt_world *w) {
  const double e = max_error(w, w->kept_J);
  memcpy(w->kept_c, w->c, sizeof *w->c * (size_t)w->dim);
  for (int i = 0; i < w->nbody; i++) w->kept_pose[i] = w->body[i].pose;
  w->kept = 1;
  return e;
}

/* Moves every body by the mean of its shards' moves in w->shift (v, w
 * over one unit of time), keeping the poses before in w->pose_before. */
static void move_bodies(rt_world *w) {
  const rt_program *p = w->prog;
  for (int i = 0; i < w->nbody; i++) {
    rt_body_desc *b = &w->body[i];
    w->pose_before[i] = b->pose;
    if (b->fixed) continue;
    const int first = p->shard_adr[i], k = p->shard_num[i];
    double d[6] = {0, 0, 0, 0, 0, 0};
    for (int s = first; s < first + k; s++)
      for (int j = 0; j < 6; j++) d[j] += w->shift[6 * s + j] / k;
    rt__v3_add(b->pose.p, b->pose.p, d);
    const double wq[4] = {0.0, d[3], d[4], d[5]};
    double dq[4];
    rt__q_mul(dq, wq, b->pose.q);
    for (int j = 0; j < 4; j++) b->pose.q[j] += 0.5 * dq[j];
    rt__q_normalize(b->pose.q);
  }
}

static void undo_move(rt_world *w) {
  for (int i = 0; i < w->nbody; i++) w->body[i].pose = w->pose_before[i];
}

double rt__stabilize_drift(rt_world *w, int measure) {
  if (!measure) {
    memset(w->drift, 0, sizeof *w->drift * (size_t)w->dim);
    return 0.0;
  }
  const double e = w->projected ? max_error(w, NULL) : kept_error(w);
  w->projected = 0; /* until this step's projection keeps a pass */
  for (int i = 0; i < w->dim; i++) w->drift[i] = w->c[i] - w->expect[i];
  return e;
}

/* The projection stops once no equality row is off by more than this (m,
 * or rad for angular rows): what is left is far below what the joints'
 * drift or the solve leave in a step. */
#define RT__PROJECT_TOLERANCE 1e-7

/* A pass with the held motors held (rt__schur_hold) must at least halve
 * the joints' error; else it is undone and the passes go on without them:
 * where the joints cannot close while a motor's axis stays (the sample
 * buggy's steering rack, nearly fixed by its tie rods' loop: S 4e-3 of its
 * J W J^T) the joints come first. Held throughout, its passes stalled at
 * 3.3e-5 m, shrinking by a tenth each; a pass converges by ~0.3 when the
 * motors can hold. */
#define RT__HOLD_STALL 0.5

void rt__project_begin(rt__project *p, int passes, double before) {
  *p = (rt__project){.passes = passes, .hold = 1, .before = before};
}

/* A pass: -c into w->r, solved (the caller's), the bodies' move W J^T of
 * it into w->shift; with the held motors held (rt__schur_hold), the
 * joints' response to them, -c - J shift solved again (the caller's),
 * added; then the move, kept if it lowers the largest |c| (with the
 * motors held, if it halves it; else undone and the passes go on without
 * them). */
int rt__project_next(rt_world *w, rt__project *p) {
  rt__rows *r = &w->rows;
  for (;;) {
    switch (p->phase) {
    case 0: /* a pass begins */
      if (!(p->pass < p->passes && p->before > RT__PROJECT_TOLERANCE)) {
        w->projected = w->info.projections > 0;
        return 0;
      }
      for (int i = 0; i < w->dim; i++) w->r[i] = -w->c[i];
      p->phase = 1;
      return 1;
    case 1: /* -c solved */
      memset(w->shift, 0, 6 * sizeof *w->shift * (size_t)w->nsbody);
      rt__pgs_apply_equality(r, w->prog, w->r, w->shift);
      p->held = p->hold && rt__schur_hold(w, w->shift) > 0;
      if (p->held) { /* the joints' response to the held motors */
        for (int i = 0; i < w->dim; i++) w->r[i] = -w->c[i] - rt__pgs_row_velocity(r, i, w->shift);
        p->phase = 2;
        return 1;
      }
      break;
    default: /* the response solved */
      rt__pgs_apply_equality(r, w->prog, w->r, w->shift);
      break;
    }
    move_bodies(w);
    const double after = kept_error(w);
    p->phase = 0;
    p->pass++;
    if (p->held && !(after < RT__HOLD_STALL * p->before)) {
      undo_move(w);
      max_error(w, NULL); /* c at the poses again */
      p->hold = 0;
      continue;
    }
    if (!(after < p->before)) {
      undo_move(w);
      p->pass = p->passes; /* no further pass */
      continue;
    }
    p->before = after;
    w->info.projections++;
  }
}

void rt__stabilize_project(rt_world *w, int passes, double before) {
  rt__project p;
  rt__project_begin(&p, passes, before);
  while (rt__project_next(w, &p)) rt__block_solve(w, w->r);
}

/* The joints are evaluated at the poses it starts from only if no
 * evaluation is kept there (the projection's last pass, or the drift's,
 * left one where it moved no body since), and where it moves the bodies
 * the evaluation that checks the move is kept, for the next step's rows
 * (rt__rows_build): the sample tank's step evaluated its joints 5 times,
 * now 3 (the same bits). */
int rt__stabilize_assemble(rt_world *w, double *before) {
  rt__rows *r = &w->rows;
  *before = rt__kept_at_poses(w) ? kept_max_error(w, r->J) : max_error(w, r->J);
  for (int i = 0; i < w->dim; i++) w->r[i] = -w->c[i];
  rt__bodies_solver_masses(w, w->body, w->inv_mass, w->inv_inertia, w->inertia);
  rt__rows_masses(w, w->dim);
  if (w->set.block_solver != RT_BLOCK_LDL) return 0; /* PCR needs no factor */
  rt__assemble_rows(w->prog, &w->assembly, r->J, r->WJ, w->set.epsilon, w->work);
  return 1;
}

void rt__stabilize_move(rt_world *w, double before) {
  memset(w->shift, 0, 6 * sizeof *w->shift * (size_t)w->nsbody);
  rt__pgs_apply_equality(&w->rows, w->prog, w->r, w->shift);
  move_bodies(w); /* each body moves by the mean of its shards' moves */
  if (!(kept_error(w) <= before)) undo_move(w);
}

void rt__stabilize(rt_world *w) {
  double before;
  if (rt__stabilize_assemble(w, &before) && rt_program_factor(w->prog, w->work, w->temp) != -1) return;
  rt__block_solve(w, w->r);
  rt__stabilize_move(w, before);
}
