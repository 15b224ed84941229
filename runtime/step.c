/* step.c -- one step of a world (rt_world.h): forces and the gyroscopic
 * term, constraint rows, assembly, the PGS sweeps and the block step,
 * the shards' velocities back to their bodies, and integration. */
#include <math.h>
#include <string.h>

#include "rtmath.h"
#include "world.h"

/*---- bodies ------------------------------------------------------------------*/

static void mat3_vec(const double m[9], const double v[3], double out[3]) {
  double x = m[0] * v[0] + m[1] * v[1] + m[2] * v[2];
  double y = m[3] * v[0] + m[4] * v[1] + m[5] * v[2];
  double z = m[6] * v[0] + m[7] * v[1] + m[8] * v[2];
  rt__v3_set(out, x, y, z);
}

/* The gyroscopic term w x (I w) taken implicitly: in the body frame, one
 * Newton step on f(w) = I (w - w0) + dt w x (I w) = 0 from w0. Unlike the
 * explicit term it does not add energy to a spinning body. */
static void gyroscopic(rt_body_desc *b, double dt) {
  double w[3], Iw[3];
  rt__q_rotate_inv(w, b->pose.q, b->angvel);
  for (int k = 0; k < 3; k++) Iw[k] = b->inertia[k] * w[k];
  double f[3];
  rt__v3_cross(f, w, Iw);
  rt__v3_scale(f, f, dt);
  /* Jacobian I + dt ([w]x I - [I w]x) */
  const double *I = b->inertia;
  double A[3][3] = {
      {I[0], -dt * w[2] * I[1] + dt * Iw[2], dt * w[1] * I[2] - dt * Iw[1]},
      {dt * w[2] * I[0] - dt * Iw[2], I[1], -dt * w[0] * I[2] + dt * Iw[0]},
      {-dt * w[1] * I[0] + dt * Iw[1], dt * w[0] * I[1] - dt * Iw[0], I[2]},
  };
  /* solve A x = f by Cramer's rule */
  double c0[3], c1[3], c2[3];
  const double r0[3] = {A[0][0], A[0][1], A[0][2]}, r1[3] = {A[1][0], A[1][1], A[1][2]},
               r2[3] = {A[2][0], A[2][1], A[2][2]};
  rt__v3_cross(c0, r1, r2);
  rt__v3_cross(c1, r2, r0);
  rt__v3_cross(c2, r0, r1);
  const double det = rt__v3_dot(r0, c0);
  if (!(fabs(det) > 0.0)) return;
  /* A^-1 = [c0 c1 c2] / det (columns) */
  double x[3];
  for (int k = 0; k < 3; k++) x[k] = (c0[k] * f[0] + c1[k] * f[1] + c2[k] * f[2]) / det;
  rt__v3_sub(w, w, x);
  rt__q_rotate(b->angvel, b->pose.q, w);
}

static void apply_forces(rt_world *w) {
  const double dt = w->set.dt;
  for (int i = 0; i < w->nbody; i++) {
    rt_body_desc *b = &w->body[i];
    if (b->fixed) continue;
    for (int k = 0; k < 3; k++) b->vel[k] += dt * (w->set.gravity[k] + w->force[3 * i + k] / b->mass);
    double ii[9], dw[3];
    rt_inv_inertia_world(b->pose.q, b->inertia, 1.0, ii);
    mat3_vec(ii, w->torque + 3 * i, dw);
    for (int k = 0; k < 3; k++) b->angvel[k] += dt * dw[k];
    gyroscopic(b, dt);
  }
}

void rt__solver_masses(const rt_world *w, const rt_body_desc *body, double *inv_mass, double *inv_inertia) {
  const rt_program *p = w->prog;
  for (int s = 0; s < w->nsbody; s++) {
    const rt_body_desc *b = &body[p->sbody_body[s]];
    double *ii = inv_inertia + 9 * s;
    if (b->fixed) {
      inv_mass[s] = 0.0;
      memset(ii, 0, 9 * sizeof *ii);
      continue;
    }
    const double k = (double)p->shard_num[p->sbody_body[s]];
    inv_mass[s] = k / b->mass;
    rt_inv_inertia_world(b->pose.q, b->inertia, k, ii);
  }
}

/* Every solver body takes its body's velocity, inverse mass and inertia. */
static void split_shards(rt_world *w) {
  const rt_program *p = w->prog;
  rt__solver_masses(w, w->body, w->inv_mass, w->inv_inertia);
  for (int s = 0; s < w->nsbody; s++) {
    const rt_body_desc *b = &w->body[p->sbody_body[s]];
    double *v = w->vel + 6 * s;
    if (b->fixed) {
      memset(v, 0, 6 * sizeof *v);
      continue;
    }
    rt__v3_copy(v, b->vel);
    rt__v3_copy(v + 3, b->angvel);
  }
}

/* Every body takes the mean velocity of its shards: shards have equal
 * masses and inertias at one pose, so that conserves its momentum and its
 * angular momentum. */
static void merge_shards(rt_world *w) {
  const rt_program *p = w->prog;
  for (int i = 0; i < w->nbody; i++) {
    rt_body_desc *b = &w->body[i];
    if (b->fixed) continue;
    const int first = p->shard_adr[i], k = p->shard_num[i];
    double acc[6] = {0, 0, 0, 0, 0, 0};
    for (int s = first; s < first + k; s++)
      for (int j = 0; j < 6; j++) acc[j] += w->vel[6 * s + j];
    for (int j = 0; j < 3; j++) {
      b->vel[j] = acc[j] / k;
      b->angvel[j] = acc[3 + j] / k;
    }
  }
}

static void integrate(rt_world *w) {
  const double dt = w->set.dt;
  for (int i = 0; i < w->nbody; i++) {
    rt_body_desc *b = &w->body[i];
    if (b->fixed) continue;
    for (int k = 0; k < 3; k++) b->pose.p[k] += dt * b->vel[k];
    const double wq[4] = {0.0, b->angvel[0], b->angvel[1], b->angvel[2]};
    double dq[4];
    rt__q_mul(dq, wq, b->pose.q);
    for (int k = 0; k < 4; k++) b->pose.q[k] += 0.5 * dt * dq[k];
    rt__q_normalize(b->pose.q);
  }
}

/* Driven rods change their length, within their bounds; the rate of the
 * change becomes a velocity target of the row (feed-forward), so the rod
 * follows its drive without lagging behind by speed dt / beta. The row's
 * bias already sees the change as an error c = -rate dt and asks beta of
 * it back, so the feed-forward is the rest, (1 - beta) rate: a rod that
 * held its length reaches the new one within the step (a full rate would
 * put it one step, speed dt, ahead of its drive). */
static void drive_rods(rt_world *w) {
  for (int j = 0; j < w->njoint; j++) {
    rt_joint_desc *d = &w->joint[j];
    w->drive_rate[j] = 0.0;
    if (d->type != RT_ROD || d->speed == 0.0) continue;
    const double len = fmin(fmax(d->length + d->speed * w->set.dt, d->lower), d->upper);
    w->drive_rate[j] = (len - d->length) / w->set.dt;
    d->length = len;
  }
}

/*---- rows ----------------------------------------------------------------------*/

/* A side of a row: no solver body if it is the world or fixed (in body:
 * w->body or the thread's copy). */
static int dynamic_in(const rt_world *w, const rt_body_desc *body, int sbody) {
  return sbody == RT_WORLD || body[w->prog->sbody_body[sbody]].fixed ? RT_WORLD : sbody;
}

static int dynamic(const rt_world *w, int sbody) { return dynamic_in(w, w->body, sbody); }

int rt__row_body(const rt_world *w, int body) {
  return body == RT_WORLD ? RT_WORLD : dynamic(w, w->prog->shard_adr[body]);
}

/* A shard weld is the body's centre with identity frames. */
void rt__cons_eval(const rt_world *w, const rt_body_desc *body, int c, double *cval, double *J) {
  const rt_program *p = w->prog;
  const int j = rt__cons_joint(w, c);
  rt_joint_desc weld;
  const rt_joint_desc *jd = j >= 0 ? &w->joint[j] : &weld;
  if (j < 0) rt_shard_weld_desc(p->sbody_body[p->cons_a[c]], &weld);
  rt_joint_eval(jd, rt__pose_in(body, jd->body_a), rt__pose_in(body, jd->body_b), cval, J);
}

/* The rows of solver constraint c at the poses of its bodies. */
static void equality_rows(rt_world *w, int c) {
  const rt_program *p = w->prog;
  const int row = p->cons_row[c], d = p->cons_degree[c];
  const int j = rt__cons_joint(w, c);
  rt__cons_eval(w, w->body, c, w->c + row, w->rows.J + 12 * (size_t)row);
  const double k = -w->set.beta / w->set.dt;
  for (int r = row; r < row + d; r++) {
    w->rows.a[r] = dynamic(w, p->cons_a[c]);
    w->rows.b[r] = dynamic(w, p->cons_b[c]);
    w->rows.rhs[r] = k * w->c[r] + (j >= 0 ? (1.0 - w->set.beta) * w->drive_rate[j] : 0.0);
    w->rows.lo[r] = -INFINITY;
    w->rows.hi[r] = INFINITY;
  }
}

/* Solver bodies of an inequality row on joint t (the solver constraint's
 * shards for an equality joint, else the bodies' first shards). */
static void row_bodies(rt_world *w, int row, const rt_joint_desc *t, int tj) {
  const int c = w->joint_cons[tj];
  w->rows.a[row] = c >= 0 ? dynamic(w, w->prog->cons_a[c]) : rt__row_body(w, t->body_a);
  w->rows.b[row] = c >= 0 ? dynamic(w, w->prog->cons_b[c]) : rt__row_body(w, t->body_b);
}

/* A motor's row: the rate of its target's free coordinate, driven towards
 * the motor's speed with an impulse of at most max_force dt. */
static void motor_row(rt_world *w, int j, int row) {
  const rt_joint_desc *m = &w->joint[j];
  w->rows.rhs[row] = m->speed;
  w->rows.hi[row] = m->max_force * w->set.dt;
  w->rows.lo[row] = -w->rows.hi[row];
}

/* A coordinate q kept within [lower, upper] by one row on its rate. Only
 * the nearer bound can act. Away from it by a gap g > 0 the row allows the
 * gap to close within the step and no more (rate >= -g/dt): a limit that is
 * approached fast stops at it without bouncing back. Past it by p, the
 * excess beyond the slop is removed within one step (a limit's error comes
 * from curved motion along it, e.g. a swinging rope, and beta would let it
 * build up to several times the slop). The impulse can only
 * push away from the bound, so a limit never holds a joint that leaves it
 * (no sticking). A row whose bound is further than the joint can move in
 * two steps at its current rate is left out (inert). */
static void limit_row(rt_world *w, int row, double q, double lower, double upper) {
  rt__rows *r = &w->rows;
  const double dt = w->set.dt, slop = w->set.contact_slop;
  const int at_lower = q - lower < upper - q;
  const double gap = at_lower ? q - lower : upper - q; /* < 0: past the bound */
  const double sign = at_lower ? 1.0 : -1.0;           /* rate away from the bound */
  const double rate = rt__row_velocity(r, row, w->vel);
  if (gap > 2.0 * dt * fabs(rate) + slop) {
    r->a[row] = r->b[row] = RT_WORLD; /* no bodies: rt__row_masses makes it inert */
    r->lo[row] = r->hi[row] = 0.0;
    r->rhs[row] = 0.0;
    r->lambda[row] = 0.0;
    return;
  }
  const double target = gap >= 0 ? -gap / dt : fmax(-gap - slop, 0.0) / dt;
  r->rhs[row] = sign * target;
  r->lo[row] = at_lower ? 0.0 : -INFINITY;
  r->hi[row] = at_lower ? INFINITY : 0.0;
}

/* The row of inequality joint j (motor, limit or rope). */
static void inequality_row(rt_world *w, int j) {
  const rt_joint_desc *d = &w->joint[j];
  const int row = w->joint_row[j];
  double *J = w->rows.J + 12 * (size_t)row;
  if (d->type == RT_ROPE) {
    rt_joint_desc rod = *d;
    rod.type = RT_ROD;
    double c;
    rt_joint_eval(&rod, rt__pose_of(w, d->body_a), rt__pose_of(w, d->body_b), &c, J);
    row_bodies(w, row, d, j);
    limit_row(w, row, c, -INFINITY, 0.0);
    return;
  }
  const rt_joint_desc *t = &w->joint[d->target];
  const int angular = d->type == RT_ANGULAR_LIMIT || (d->type == RT_MOTOR && t->type != RT_PRISMATIC);
  double q;
  rt_joint_axis_eval(t, angular, rt__pose_of(w, t->body_a), rt__pose_of(w, t->body_b), &q, J);
  row_bodies(w, row, t, d->target);
  if (d->type == RT_MOTOR)
    motor_row(w, j, row);
  else
    limit_row(w, row, q, d->lower, d->upper);
}

/* W J^T of the row J on solver bodies a and b (RT_WORLD: none) into WJ;
 * returns J W J^T. */
static double row_wj(const double *J, int a, int b, const double *inv_mass, const double *inv_inertia, double *WJ) {
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
    mat3_vec(inv_inertia + 9 * (size_t)sb, j6 + 3, out + 3);
    for (int k = 0; k < 6; k++) diag += j6[k] * out[k];
  }
  return diag;
}

void rt__row_masses(rt_world *w, int first, int last) {
  rt__rows *r = &w->rows;
  const double reg = 1.0 + w->set.epsilon;
  for (int i = first; i < last; i++) {
    const double diag =
        row_wj(r->J + 12 * (size_t)i, r->a[i], r->b[i], w->inv_mass, w->inv_inertia, r->WJ + 12 * (size_t)i);
    r->inv_diag[i] = diag > 0.0 ? 1.0 / (reg * diag) : 0.0;
  }
}

/*---- the step ------------------------------------------------------------------*/

static int state_finite(const rt_world *w) {
  for (int i = 0; i < w->nbody; i++) {
    const rt_body_desc *b = &w->body[i];
    const double *v[] = {b->pose.p, b->pose.q, b->pose.q + 1, b->vel, b->angvel, w->force + 3 * i, w->torque + 3 * i};
    for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
      if (!(isfinite(v[k][0]) && isfinite(v[k][1]) && isfinite(v[k][2]))) return 0;
  }
  return 1;
}

static void clear_forces(rt_world *w) {
  memset(w->force, 0, 3 * sizeof *w->force * (size_t)w->nbody);
  memset(w->torque, 0, 3 * sizeof *w->torque * (size_t)w->nbody);
}

static int use_block(const rt_world *w) { return w->set.solver == RT_SOLVER_LDLPGS; }

rt_status rt__step_begin(rt_world *w, int kick) {
  if (!rt__settings_valid(&w->set) || !state_finite(w)) {
    clear_forces(w); /* forces are for one step: refused ones are dropped with it */
    return RT_ERR_NONFINITE;
  }
  memcpy(w->backup, w->body, sizeof *w->body * (size_t)w->nbody);
  w->info.factor_status = -2;
  w->info.sweeps = 0;
  apply_forces(w);
  drive_rods(w);
  /* From here to step_end nothing writes what the thread reads (poses,
   * masses, the equality joints: apply_forces wrote velocities only,
   * drive_rods the rods' lengths), so it can build H~ while the rows below
   * are built. */
  if (kick) rt__worker_kick(w);
  split_shards(w);
  for (int c = 0; c < w->prog->ncons; c++) equality_rows(w, c);
  for (int j = 0; j < w->njoint; j++)
    if (w->joint_row[j] >= 0) inequality_row(w, j);
  rt__contact_rows(w);
  w->info.rows = w->rows.n;
  rt__row_masses(w, 0, w->rows.n);
  /* warm start: last step's impulses, inside this step's bounds */
  rt__rows *r = &w->rows;
  for (int i = 0; i < r->n; i++) {
    if (r->normal[i] >= 0) {
      r->hi[i] = r->mu[i] * r->lambda[r->normal[i]];
      r->lo[i] = -r->hi[i];
    }
    r->lambda[i] = fmin(fmax(r->lambda[i], r->lo[i]), r->hi[i]);
  }
  rt__rows_apply(r, 0, r->n, r->lambda, w->vel);
  return RT_OK;
}

rt_status rt_world_step_begin(rt_world *w) { return rt__step_begin(w, 0); }

/* Assembly of H~ from the equality rows' J and W J^T, and its
 * factorization. */
static void factor_rows(rt_world *w, const double *J, const double *WJ) {
  rt__assemble_rows(w->prog, &w->assembly, J, WJ, w->set.epsilon, w->work);
  w->info.factor_status = rt_program_factor(w->prog, w->work, w->temp);
}

/* Assembly and factorization of H~: they read only J and W J^T of the
 * equality rows, which the sweeps leave alone, so they can run beside
 * rt_world_iterate. */
void rt_world_factor(rt_world *w) {
  if (use_block(w)) factor_rows(w, w->rows.J, w->rows.WJ);
}

/* The thread's rows are the stepping thread's (equality_rows,
 * rt__row_masses), computed by the same functions from the same poses. */
void rt__factor_from_poses(rt_world *w) {
  const rt_program *p = w->prog;
  rt__worker *k = &w->worker;
  for (int i = 0; i < w->nbody; i++) k->body[i].pose = k->pose[i];
  rt__solver_masses(w, k->body, k->inv_mass, k->inv_inertia);
  for (int c = 0; c < p->ncons; c++) {
    const int row = p->cons_row[c], a = dynamic_in(w, k->body, p->cons_a[c]), b = dynamic_in(w, k->body, p->cons_b[c]);
    double *J = k->J + 12 * (size_t)row, *WJ = k->WJ + 12 * (size_t)row;
    rt__cons_eval(w, k->body, c, k->c + row, J);
    for (int r = 0; r < p->cons_degree[c]; r++)
      row_wj(J + 12 * r, a, b, k->inv_mass, k->inv_inertia, WJ + 12 * r);
  }
  factor_rows(w, k->J, k->WJ);
}

/* PGS sweeps before the block step (all N sweeps under pure PGS). */
static int sweeps_before(const rt_world *w) {
  const int n = w->set.iterations;
  if (!use_block(w)) return n;
  if (w->set.block_at == RT_BLOCK_BEFORE_LAST && n >= 2) return n - 2;
  return n - 1;
}

void rt_world_iterate(rt_world *w) {
  const int n = sweeps_before(w);
  for (int k = 0; k < n; k++) rt__pgs_sweep(&w->rows, 0, w->rows.n, w->vel);
  w->info.sweeps = n;
}

/* rt_world_iterate on rt_world_step's threaded path. The factor the
 * thread wrote is in the other core's cache, or in the shared one (the
 * thread demotes it: worker.c): read line by line by the block step it cost up to
 * 3.5 us more than a factor in this core's cache (scissor_lift, 36 KiB).
 * So if the thread is done by the last sweep, that sweep runs in slices
 * with 8 of the factor's lines prefetched into this core's L2 after each,
 * and the transfer overlaps the sweep. Slicing a sweep changes no bit: the
 * rows are visited in the same order. */
static void iterate_threaded(rt_world *w) {
  enum { LINE = 64, LINES_PER_SLICE = 8 };
  const int n = sweeps_before(w);
  rt__rows *r = &w->rows;
  for (int k = 0; k < n - 1; k++) rt__pgs_sweep(r, 0, r->n, w->vel);
  if (n > 0 && rt__worker_done(w)) {
    const char *f = w->work;
    const size_t nline = (w->work_bytes + LINE - 1) / LINE + 1; /* [f, f + bytes) however aligned */
    const size_t nslice = (nline + LINES_PER_SLICE - 1) / LINES_PER_SLICE;
    for (size_t k = 0; k < nslice; k++) {
      rt__pgs_sweep(r, (int)(r->n * k / nslice), (int)(r->n * (k + 1) / nslice), w->vel);
      for (size_t i = k * LINES_PER_SLICE; i < nline && i < (k + 1) * LINES_PER_SLICE; i++)
        __builtin_prefetch(f + i * LINE, 0, 2);
    }
  } else if (n > 0) {
    rt__pgs_sweep(r, 0, r->n, w->vel);
  }
  w->info.sweeps = n;
}

rt_status rt_world_step_end(rt_world *w) {
  if (use_block(w)) {
    if (w->info.factor_status == -1) {
      rt__block_step(w);
    } else { /* not positive definite: a sweep instead */
      rt__pgs_sweep(&w->rows, 0, w->rows.n, w->vel);
      w->info.sweeps++;
    }
    if (w->set.block_at == RT_BLOCK_BEFORE_LAST && w->set.iterations >= 2) {
      rt__pgs_sweep(&w->rows, 0, w->rows.n, w->vel);
      w->info.sweeps++;
    }
  }
  rt__contact_save(w);
  merge_shards(w);
  integrate(w);
  if (w->set.stabilize && use_block(w) && w->info.factor_status == -1) rt__stabilize(w);
  clear_forces(w);
  if (!state_finite(w)) {
    memcpy(w->body, w->backup, sizeof *w->body * (size_t)w->nbody);
    return RT_ERR_DIVERGED;
  }
  return RT_OK;
}

/* Handing the assembly and factorization to the thread costs the stepping
 * thread about a microsecond however small they are: the kick (copying the
 * poses, signalling), waiting for the result, and what is still shared
 * (worker.c). Measured on the samples (2-vCPU VM, interleaved medians and
 * bench --step-only), the hand-off paid on buggy (7.3k multiply-adds,
 * 1.7-2.9 us single-threaded: a step 1 us shorter) and on every larger
 * sample, and lost on chain (1.8k, 0.7-0.9 us: 0.2-0.5 us longer) and
 * elimination_example (0.9k: 0.45 us longer). (Before the thread evaluated
 * its own rows, the hand-off cost several microseconds and the threshold
 * was 10k.) Work is counted in multiply-adds: the factorization's by the
 * flop convention of DESIGN.md section 3, the assembly's 6 per entry and
 * shared body. */
#define RT__THREAD_MIN_MADDS 4000.0

int rt__thread_pays(const rt_program *p, const rt__assembly *a) {
  double madds = 0;
  for (int piv = 0; piv < p->ncons; piv++) {
    const double d = p->cons_degree[p->piv_cons[piv]], h = p->piv_height[piv];
    madds += d * d * d / 6 + h * d * d + d * h * (h + 1) / 2;
  }
  for (int i = 0; i < a->nblock; i++) {
    const rt__asm_block *b = &a->block[i];
    madds += 6.0 * b->nterm * (b->node ? b->dq * (b->dq + 1) / 2 : b->dq * b->dp);
  }
  return madds >= RT__THREAD_MIN_MADDS;
}

/* Threaded (worker.c): a parked thread is woken first; it is kicked as
 * soon as the poses are final (rt__step_begin) and builds H~ from rows of
 * its own while this thread builds the rows and sweeps; if it has not
 * started by the end of the sweeps, this thread factors itself
 * (rt__worker_wait). */
rt_status rt_world_step(rt_world *w) {
  const int threaded = w->set.threaded && use_block(w) && w->worker.running && w->thread_pays;
  if (threaded) rt__worker_warm(w); /* a parked thread wakes while the step begins */
  rt_status st = rt__step_begin(w, threaded);
  if (st != RT_OK) return st;
  if (threaded) {
    iterate_threaded(w);
    rt__worker_wait(w);
  } else {
    rt_world_factor(w);
    rt_world_iterate(w);
  }
  return rt_world_step_end(w);
}
