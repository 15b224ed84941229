/* world.c -- creating a world, its settings, state accessors and measures
 * (rt_world.h). The step itself is in step.c. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_joint_type.h"
#include "rtmath.h"
#include "world.h"

const char *rt_status_message(rt_status s) {
  switch (s) {
  case RT_OK: return "ok";
  case RT_ERR_INPUT: return "invalid input";
  case RT_ERR_HASH: return "the program was compiled for another mechanism";
  case RT_ERR_NOMEM: return "out of memory";
  case RT_ERR_THREAD: return "the factorization thread could not be started";
  case RT_ERR_NONFINITE: return "non-finite state, force or setting: step refused";
  case RT_ERR_DIVERGED: return "the step produced a non-finite state and was undone";
  }
  return "unknown status";
}

/*---- creation ------------------------------------------------------------------*/

static void say(char *err, size_t errlen, const char *fmt, ...) {
  if (err == NULL || errlen == 0) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

/* Motors, limits and ropes: rows of PGS only. */
static int is_inequality(rt_joint_type t) { return rt_joint_degree(t) == 0; }

/* Checks the description; returns 0, or -1 with a message (-2: the body
 * count is not the program's). */
static int check_desc(const rt_world_desc *d, const rt_program *p, char *err, size_t errlen) {
  if (d->nbody != p->nbody) {
    say(err, errlen, "the mechanism has %d bodies, program '%s' was generated for %d", d->nbody, p->name, p->nbody);
    return -2;
  }
  if (d->njoint < 0 || (d->njoint > 0 && d->joints == NULL) || (d->nbody > 0 && d->bodies == NULL)) {
    say(err, errlen, "invalid description: missing bodies or joints");
    return -1;
  }
  for (int i = 0; i < d->nbody; i++)
    if (!rt__validate_body(&d->bodies[i])) {
      say(err, errlen,
          "body %d: a non-finite state, a rotation that is not a unit quaternion, mass or inertia not > 0, or a bad "
          "shape or friction",
          i);
      return -1;
    }
  for (int j = 0; j < d->njoint; j++) {
    const rt_joint_desc *jd = &d->joints[j];
    if ((unsigned)jd->type >= RT_JOINT_NTYPES || jd->body_a < RT_WORLD || jd->body_a >= d->nbody ||
        jd->body_b < RT_WORLD || jd->body_b >= d->nbody) {
      say(err, errlen, "joint %d: invalid type or body index", j);
      return -1;
    }
    const rt_joint_type_def *def = rt_joint_type_def_of(jd->type);
    if (def->targets) {
      const int t = jd->target >= 0 && jd->target < d->njoint ? (int)d->joints[jd->target].type : -1;
      if (t < 0 || !(def->targets >> t & 1u)) {
        say(err, errlen, "joint %d: a %s acts on %s joint", j, def->name, def->targets_text);
        return -1;
      }
      if ((unsigned)jd->free_axis > RT_AXIS_LINEAR || rt_joint_free_angular(jd->free_axis, (rt_joint_type)t) < 0) {
        say(err, errlen, "joint %d: its free_axis is not one its target (a %s) frees", j, rt_joint_type_name((rt_joint_type)t));
        return -1;
      }
    }
    rt_joint_problem why;
    if (def->check && def->check(jd, &why) != 0) {
      say(err, errlen, "joint %d: %s", j, why.msg);
      return -1;
    }
    const char *bad = rt__validate_joint(jd, d->bodies);
    if (bad != NULL) {
      say(err, errlen, "joint %d: %s", j, bad);
      return -1;
    }
  }
  return 0;
}

static uint64_t desc_hash(const rt_world_desc *d) {
  unsigned char *fixed = calloc((size_t)d->nbody + 1, 1);
  int *t = calloc((size_t)d->njoint + 1, sizeof *t), *a = calloc((size_t)d->njoint + 1, sizeof *a),
      *b = calloc((size_t)d->njoint + 1, sizeof *b);
  uint64_t h = 0;
  if (fixed && t && a && b) {
    int n = 0;
    for (int i = 0; i < d->nbody; i++) fixed[i] = d->bodies[i].fixed != 0;
    for (int j = 0; j < d->njoint; j++) {
      if (rt_joint_degree(d->joints[j].type) == 0) continue;
      t[n] = (int)d->joints[j].type;
      a[n] = d->joints[j].body_a;
      b[n] = d->joints[j].body_b;
      n++;
    }
    h = rt_structure_hash(d->nbody, fixed, n, t, a, b);
  }
  free(fixed);
  free(t);
  free(a);
  free(b);
  return h;
}

/* The program's view must agree with the description beyond the hash too
 * (the hash could collide, and a hand-made program could lie). */
/* Index of the k-th equality joint of d, or d->njoint if there is none. */
static int equality_joint(const rt_world_desc *d, int k) {
  int j = 0;
  for (; j < d->njoint; j++)
    if (rt_joint_degree(d->joints[j].type) > 0 && k-- == 0) break;
  return j;
}

static int check_program(const rt_world_desc *d, const rt_program *p, char *err, size_t errlen) {
  /* the rows of constraint c follow those of c - 1, and fill [0, dim): the
   * rows, the sweeps and the warm start walk them so */
  int row = 0, c = 0;
  for (; c < p->ncons && p->cons_row[c] == row && p->cons_degree[c] >= 1 && p->cons_degree[c] <= RT_MAX_DEGREE; c++)
    row += p->cons_degree[c];
  if (c < p->ncons || row != p->dim) {
    say(err, errlen, "program '%s': its constraints' rows do not fill rows [0, %d) one after another", p->name, p->dim);
    return -1;
  }
  for (c = 0; c < p->ncons; c++) {
    const int j = p->cons_joint[c] >= 0 ? equality_joint(d, p->cons_joint[c]) : -1;
    const int sa = p->cons_a[c], sb = p->cons_b[c];
    const int ba = sa == RT_WORLD ? RT_WORLD : p->sbody_body[sa], bb = sb == RT_WORLD ? RT_WORLD : p->sbody_body[sb];
    int ok = j < d->njoint && (j >= 0 ? rt_joint_degree(d->joints[j].type) == p->cons_degree[c] &&
                                            d->joints[j].body_a == ba && d->joints[j].body_b == bb
                                      : p->cons_degree[c] == 6 && ba == bb && ba != RT_WORLD);
    if (!ok) {
      say(err, errlen, "program '%s': solver constraint %d does not match the mechanism", p->name, c);
      return -1;
    }
  }
  return 0;
}

rt_world *rt_world_create(const rt_world_desc *desc, const rt_program *prog, const rt_settings *settings,
                          rt_status *status, char *err, size_t errlen) {
  rt_status st = RT_ERR_INPUT;
  rt_world *w = NULL;
  rt_program *view = NULL; /* without a program: the world's own solver view (view.c) */
  if (status) *status = RT_OK;
  if (err && errlen) err[0] = 0;
  if (desc == NULL || settings == NULL) {
    say(err, errlen, "missing description or settings");
    goto fail;
  }
  if (prog == NULL && desc->nbody >= 0 && (desc->njoint == 0 || desc->joints != NULL)) {
    if ((view = rt__view_build(desc)) == NULL) goto nomem;
    prog = view;
  } else if (prog == NULL) {
    say(err, errlen, "invalid description: missing bodies or joints");
    goto fail;
  }
  if (!rt__settings_valid(settings)) {
    say(err, errlen, "invalid settings (dt > 0, iterations >= 1, beta in [0, 1], epsilon >= 0, all finite)");
    goto fail;
  }
  const int bad = check_desc(desc, prog, err, errlen);
  if (bad == -2) st = RT_ERR_HASH;
  if (bad != 0) goto fail;
  const uint64_t h = view ? 0 : desc_hash(desc); /* a view is the description's own */
  if (!view && h != prog->structure_hash) {
    st = RT_ERR_HASH;
    say(err, errlen,
        "program '%s' was generated for another mechanism (structure hash %016" PRIx64 ", this mechanism %016" PRIx64
        "): regenerate it with ldlgen",
        prog->name, prog->structure_hash, h);
    goto fail;
  }
  if (check_program(desc, prog, err, errlen) != 0) goto fail;

  int nomem = 0;
  w = rt__alloc(1, sizeof *w, &nomem);
  if (w == NULL) goto nomem;
  w->view = view;
  w->prog = prog;
  w->set = *settings;
  if (view) w->set.block_solver = RT_BLOCK_PCR; /* no factor to solve with */
  w->info.factor_status = -2;
  w->nbody = desc->nbody;
  w->njoint = desc->njoint;
  w->nsbody = prog->nsbody;
  w->dim = prog->dim;
  int nmotor = 0; /* inequality rows of joints: motors, limits, ropes */
  for (int j = 0; j < desc->njoint; j++) nmotor += is_inequality(desc->joints[j].type);
  const int ncap = settings->max_contacts;
  const int nrow = prog->dim + nmotor + 3 * ncap;
  w->nfixed_rows = prog->dim + nmotor;
  const size_t scalar = prog->precision == RT_FLOAT ? sizeof(float) : sizeof(double);
  w->body = rt__alloc((size_t)w->nbody, sizeof *w->body, &nomem);
  w->force = rt__alloc(3 * (size_t)w->nbody, sizeof(double), &nomem);
  w->torque = rt__alloc(3 * (size_t)w->nbody, sizeof(double), &nomem);
  w->joint = rt__alloc((size_t)w->njoint, sizeof *w->joint, &nomem);
  w->joint_row = rt__alloc((size_t)w->njoint, sizeof(int), &nomem);
  w->joint_cons = rt__alloc((size_t)w->njoint, sizeof(int), &nomem);
  w->eq_joint = rt__alloc((size_t)w->njoint, sizeof(int), &nomem);
  w->row_letter = rt__alloc((size_t)prog->dim, 1, &nomem);
  w->drive_rate = rt__alloc((size_t)w->njoint, sizeof(double), &nomem);
  w->drive_stall = rt__alloc((size_t)w->njoint, sizeof(unsigned char), &nomem);
  w->inv_mass = rt__alloc((size_t)w->nsbody, sizeof(double), &nomem);
  w->inv_inertia = rt__alloc(9 * (size_t)w->nsbody, sizeof(double), &nomem);
  w->inertia = rt__alloc(9 * (size_t)w->nsbody, sizeof(double), &nomem);
  w->vel = rt__alloc(6 * (size_t)w->nsbody, sizeof(double), &nomem);
  rt__rows *r = &w->rows;
  r->n = w->nfixed_rows;
  r->a = rt__alloc((size_t)nrow, sizeof(int), &nomem);
  r->b = rt__alloc((size_t)nrow, sizeof(int), &nomem);
  r->J = rt__alloc(12 * (size_t)nrow, sizeof(double), &nomem);
  r->WJ = rt__alloc(12 * (size_t)nrow, sizeof(double), &nomem);
  r->rhs = rt__alloc((size_t)nrow, sizeof(double), &nomem);
  r->inv_diag = rt__alloc((size_t)nrow, sizeof(double), &nomem);
  r->lambda = rt__alloc((size_t)nrow, sizeof(double), &nomem);
  r->lo = rt__alloc((size_t)nrow, sizeof(double), &nomem);
  r->hi = rt__alloc((size_t)nrow, sizeof(double), &nomem);
  r->normal = rt__alloc((size_t)nrow, sizeof(int), &nomem);
  r->mu = rt__alloc((size_t)nrow, sizeof(double), &nomem);
  r->soft = rt__alloc((size_t)nrow, sizeof(double), &nomem);
  rt__rows *pr = &w->prows;
  pr->n = r->n;
  pr->a = r->a;
  pr->b = r->b;
  pr->J = r->J;
  pr->WJ = r->WJ;
  pr->mu = r->mu;
  pr->soft = r->soft;
  pr->rhs = rt__alloc((size_t)nrow, sizeof(double), &nomem);
  pr->inv_diag = rt__alloc((size_t)nrow, sizeof(double), &nomem);
  pr->lambda = rt__alloc((size_t)nrow, sizeof(double), &nomem);
  pr->lo = rt__alloc((size_t)nrow, sizeof(double), &nomem);
  pr->hi = rt__alloc((size_t)nrow, sizeof(double), &nomem);
  pr->normal = rt__alloc((size_t)nrow, sizeof(int), &nomem);
  if (rt__schur_alloc(w) != 0) nomem = 1;
  w->pvel = rt__alloc(6 * (size_t)w->nsbody, sizeof(double), &nomem);
  w->dvel = rt__alloc(6 * (size_t)w->nsbody, sizeof(double), &nomem);
  w->gstiff = rt__alloc(9 * (size_t)w->nsbody, sizeof(double), &nomem);
  w->gcarry = rt__alloc((size_t)w->nsbody, sizeof(double), &nomem);
  w->drift = rt__alloc((size_t)w->dim, sizeof(double), &nomem);
  w->expect = rt__alloc((size_t)w->dim, sizeof(double), &nomem);
  w->start = rt__alloc((size_t)w->dim, sizeof(double), &nomem);
  w->contact = rt__alloc((size_t)ncap, sizeof *w->contact, &nomem);
  w->prev = rt__alloc((size_t)ncap, sizeof *w->prev, &nomem);
  w->prev_lambda = rt__alloc(3 * (size_t)ncap, sizeof(double), &nomem);
  for (w->prev_slots = 1; w->prev_slots < 2 * ncap;) w->prev_slots *= 2;
  w->prev_table = rt__alloc((size_t)w->prev_slots, sizeof(int), &nomem);
  if (w->prev_table != NULL) memset(w->prev_table, 0xff, sizeof(int) * (size_t)w->prev_slots); /* all -1 */
  w->c = rt__alloc((size_t)w->dim, sizeof(double), &nomem);
  w->r = rt__alloc((size_t)w->dim, sizeof(double), &nomem);
  w->shift = rt__alloc(6 * (size_t)w->nsbody, sizeof(double), &nomem);
  w->pose_before = rt__alloc((size_t)w->nbody, sizeof *w->pose_before, &nomem);
  w->round = rt__alloc((size_t)w->nbody, sizeof(int), &nomem);
  w->box = rt__alloc((size_t)w->nbody, sizeof(int), &nomem);
  w->radius = rt__alloc((size_t)w->nbody, sizeof(double), &nomem);
  w->partner_at = rt__alloc((size_t)w->nbody + 1, sizeof(int), &nomem);
  w->partner = rt__alloc(2 * (size_t)w->njoint, sizeof(int), &nomem);
  w->kept_c = rt__alloc((size_t)w->dim, sizeof(double), &nomem);
  w->kept_J = rt__alloc(12 * (size_t)nrow, sizeof(double), &nomem); /* the rows' J's size: rows.c swaps them */
  w->kept_pose = rt__alloc((size_t)w->nbody, sizeof *w->kept_pose, &nomem);
  w->work = rt__alloc((size_t)prog->work_size, scalar, &nomem);
  w->work_bytes = (size_t)prog->work_size * scalar;
  w->temp = rt__alloc((size_t)prog->temp_size, scalar, &nomem);
  w->x = rt__alloc((size_t)w->dim, scalar, &nomem);
  rt__worker *wk = &w->worker;
  wk->J = rt__alloc(12 * (size_t)w->dim, sizeof(double), &nomem);
  wk->WJ = rt__alloc(12 * (size_t)w->dim, sizeof(double), &nomem);
  wk->c = rt__alloc((size_t)w->dim, sizeof(double), &nomem);
  wk->inv_mass = rt__alloc((size_t)w->nsbody, sizeof(double), &nomem);
  wk->inv_inertia = rt__alloc(9 * (size_t)w->nsbody, sizeof(double), &nomem);
  wk->body = rt__alloc((size_t)w->nbody, sizeof *wk->body, &nomem);
  wk->pose = rt__alloc((size_t)w->nbody, sizeof *wk->pose, &nomem);
  w->bdreg = rt__alloc((size_t)w->dim, sizeof(double), &nomem);
  w->bx = rt__alloc((size_t)w->dim, sizeof(double), &nomem);
  w->bs = rt__alloc((size_t)w->dim, sizeof(double), &nomem);
  w->bu = rt__alloc(6 * (size_t)w->nsbody, sizeof(double), &nomem);
  w->bbuf = rt__alloc(6 * (size_t)w->dim, sizeof(double), &nomem);
  const size_t nasm = (size_t)prog->ncons + (size_t)prog->nblk;
  w->assembly.block = rt__alloc(nasm, sizeof *w->assembly.block, &nomem);
  w->assembly.zero_off = rt__alloc(nasm + 1, sizeof(int), &nomem);
  w->assembly.zero_len = rt__alloc(nasm + 1, sizeof(int), &nomem);
  if (rt__snapshot_alloc(w, nrow, ncap) != 0) nomem = 1;
  unsigned char *fixed_sbody = rt__alloc((size_t)prog->nsbody, 1, &nomem);
  if (!nomem && !view) { /* a view has nothing to assemble or factor */
    for (int sb = 0; sb < prog->nsbody; sb++) fixed_sbody[sb] = desc->bodies[prog->sbody_body[sb]].fixed != 0;
    nomem = rt__assemble_plan(prog, fixed_sbody, &w->assembly) != 0;
  }
  free(fixed_sbody);
  if (nomem) goto nomem;
  w->thread_pays = view ? 0 : rt__factor_thread_pays(prog, &w->assembly);

  memcpy(w->body, desc->bodies, sizeof *w->body * (size_t)w->nbody);
  for (int i = 0; i < w->nbody; i++) {
    rt_body_desc *b = &w->body[i];
    rt__q_normalize(b->pose.q);
    if (b->fixed) memset(b->vel, 0, sizeof b->vel), memset(b->angvel, 0, sizeof b->angvel);
  }
  memcpy(w->worker.body, w->body, sizeof *w->body * (size_t)w->nbody);
  if (w->njoint) memcpy(w->joint, desc->joints, sizeof *w->joint * (size_t)w->njoint);
  rt__collide_plan(w);
  for (int j = 0; j < w->njoint; j++) w->joint_row[j] = w->joint_cons[j] = -1;
  for (int i = 0; i < nrow; i++) r->normal[i] = w->prows.normal[i] = -1;
  for (int j = 0, k = 0; j < w->njoint; j++)
    if (rt_joint_degree(w->joint[j].type) > 0) w->eq_joint[k++] = j;
  for (int c = 0; c < prog->ncons; c++) {
    const int j = rt__cons_joint(w, c);
    if (j >= 0) w->joint_cons[j] = c;
    const char *letters = rt_joint_type_def_of(j >= 0 ? w->joint[j].type : RT_WELD)->rows;
    for (int k = 0; k < prog->cons_degree[c]; k++) w->row_letter[prog->cons_row[c] + k] = (unsigned char)letters[k];
  }
  for (int j = 0, row = prog->dim; j < w->njoint; j++)
    if (is_inequality(w->joint[j].type)) w->joint_row[j] = row++;
  if (w->set.threaded && rt__worker_start(w) != 0) {
    st = RT_ERR_THREAD;
    say(err, errlen, "%s", rt_status_message(st));
    goto fail;
  }
  return w;

nomem:
  st = RT_ERR_NOMEM;
  say(err, errlen, "%s", rt_status_message(st));
fail:
  if (w == NULL) free(view); /* else the world owns it */
  rt_world_destroy(w);
  if (status) *status = st;
  return NULL;
}

void rt_world_destroy(rt_world *w) {
  if (w == NULL) return;
  rt__worker_stop(w);
  rt__snapshot_free(w);
  rt__rows *r = &w->rows;
  void *ptrs[] = {w->body,      w->force,  w->torque, w->joint, w->joint_row, w->joint_cons,
                  w->inv_mass,  w->inv_inertia, w->inertia, w->vel, r->a,      r->b,     r->J,         r->WJ,
                  r->rhs,       r->inv_diag, r->lambda, r->lo,     r->hi,    w->c,         w->r,
                  w->work,      w->temp,     w->x,      r->normal, r->mu, r->soft, w->contact,   w->prev,
                  w->prev_lambda, w->prev_table, w->drive_rate, w->drive_stall, w->shift, w->eq_joint, w->row_letter,
                  w->pose_before, w->round, w->box, w->radius, w->partner_at, w->partner,
                  w->assembly.block, w->assembly.zero_off, w->assembly.zero_len, w->worker.J, w->worker.WJ, w->worker.c,
                  w->worker.inv_mass, w->worker.inv_inertia, w->worker.body, w->worker.pose, w->view,
                  w->bdreg, w->bx, w->bs, w->bu, w->bbuf,
                  w->prows.rhs, w->prows.inv_diag, w->prows.lambda, w->prows.lo, w->prows.hi,
                  w->prows.normal, w->pvel, w->dvel, w->gstiff, w->gcarry, w->drift, w->expect, w->start,
                  w->kept_c, w->kept_J, w->kept_pose};
  for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++) free(ptrs[i]);
  rt__schur_free(&w->schur);
  free(w);
}

const rt_settings *rt_world_settings(const rt_world *w) { return &w->set; }

rt_status rt_world_set_settings(rt_world *w, const rt_settings *s) {
  if (!rt__settings_valid(s) || s->max_contacts != w->set.max_contacts) return RT_ERR_INPUT;
  if (s->threaded && rt__worker_start(w) != 0) return RT_ERR_THREAD;
  if (!s->threaded) rt__worker_stop(w);
  w->set = *s;
  if (w->view) w->set.block_solver = RT_BLOCK_PCR; /* no factor to solve with */
  w->settings_set++;
  rt__worker_again(w);
  return RT_OK;
}

const rt_step_info *rt_world_step_info(const rt_world *w) { return &w->info; }

/*---- state ---------------------------------------------------------------------*/

int rt_world_body_count(const rt_world *w) { return w->nbody; }

static int body_index(const rt_world *w, int body) { return body >= 0 && body < w->nbody; }

rt_status rt_world_body_pose(const rt_world *w, int body, rt_pose *out) {
  if (!body_index(w, body) || out == NULL) return RT_ERR_INPUT;
  *out = w->body[body].pose;
  return RT_OK;
}

rt_status rt_world_body_velocity(const rt_world *w, int body, double vel[3], double angvel[3]) {
  if (!body_index(w, body)) return RT_ERR_INPUT;
  if (vel) rt__v3_copy(vel, w->body[body].vel);
  if (angvel) rt__v3_copy(angvel, w->body[body].angvel);
  return RT_OK;
}

rt_status rt_world_set_body_state(rt_world *w, int body, const rt_pose *pose, const double vel[3],
                                  const double angvel[3]) {
  if (!body_index(w, body) || (pose && !rt__validate_pose(pose)) || (vel && !rt__v3_finite(vel)) ||
      (angvel && !rt__v3_finite(angvel)))
    return RT_ERR_INPUT;
  rt_body_desc *b = &w->body[body];
  if (b->fixed) return RT_OK;
  if (pose) b->pose = *pose;
  if (vel) rt__v3_copy(b->vel, vel);
  if (angvel) rt__v3_copy(b->angvel, angvel);
  return RT_OK;
}

rt_status rt_world_add_force(rt_world *w, int body, const double force[3], const double torque[3]) {
  if (!body_index(w, body)) return RT_ERR_INPUT;
  double f[3], t[3];
  rt__v3_copy(f, w->force + 3 * body);
  rt__v3_copy(t, w->torque + 3 * body);
  if (force) rt__v3_add(f, f, force);
  if (torque) rt__v3_add(t, t, torque);
  if (!rt__v3_finite(f) || !rt__v3_finite(t)) return RT_ERR_INPUT; /* also a sum that overflows */
  rt__v3_copy(w->force + 3 * body, f);
  rt__v3_copy(w->torque + 3 * body, t);
  return RT_OK;
}

rt_status rt_world_set_motor(rt_world *w, int joint, double speed, double max_force) {
  if (joint < 0 || joint >= w->njoint || w->joint[joint].type != RT_MOTOR || !isfinite(speed) ||
      !isfinite(max_force) || max_force < 0)
    return RT_ERR_INPUT;
  w->joint[joint].speed = speed;
  w->joint[joint].max_force = max_force;
  return RT_OK;
}

rt_status rt_world_set_drive(rt_world *w, int joint, double speed) {
  if (joint < 0 || joint >= w->njoint || w->joint[joint].type != RT_ROD || !isfinite(speed)) return RT_ERR_INPUT;
  const rt_joint_desc *j = &w->joint[joint];
  if (speed != 0 && !rt__validate_drive_bounds(j->length, j->lower, j->upper)) return RT_ERR_INPUT;
  if (speed != j->speed) w->drive_stall[joint] = 0;
  w->joint[joint].speed = speed;
  return RT_OK;
}

int rt_world_drive_stalled(const rt_world *w, int joint) {
  if (joint < 0 || joint >= w->njoint) return -1;
  return w->joint[joint].type == RT_ROD && w->drive_stall[joint];
}

double rt_world_joint_length(const rt_world *w, int joint) {
  if (joint < 0 || joint >= w->njoint) return NAN;
  const rt_joint_desc *j = &w->joint[joint];
  return j->type == RT_ROD || j->type == RT_ROPE ? j->length : 0.0;
}

double rt_world_motor_max_force(const rt_world *w, int joint) {
  if (joint < 0 || joint >= w->njoint) return NAN;
  return w->joint[joint].type == RT_MOTOR ? w->joint[joint].max_force : 0.0;
}

double rt_world_motor_speed(const rt_world *w, int joint) {
  if (joint < 0 || joint >= w->njoint) return NAN;
  return w->joint[joint].type == RT_MOTOR ? w->joint[joint].speed : 0.0;
}

double rt_world_rod_impulse(const rt_world *w, int joint) {
  if (joint < 0 || joint >= w->njoint) return NAN;
  const int c = w->joint_cons[joint];
  return w->joint[joint].type == RT_ROD && c >= 0 ? w->rows.lambda[w->prog->cons_row[c]] : 0.0;
}

double rt_world_motor_impulse(const rt_world *w, int joint) {
  if (joint < 0 || joint >= w->njoint) return NAN;
  return w->joint_row[joint] >= 0 ? w->rows.lambda[w->joint_row[joint]] : 0.0;
}

/*---- measures --------------------------------------------------------------------*/


int rt_world_joint_error(const rt_world *w, int joint, double *pos, double *ang) {
  *pos = *ang = 0.0;
  if (joint < 0 || joint >= w->njoint) return -1;
  const rt_joint_desc *j = &w->joint[joint];
  double c[RT_MAX_DEGREE];
  const int d = rt_joint_eval(j, rt__pose_of(w, j->body_a), rt__pose_of(w, j->body_b), c, NULL);
  if (d <= 0) return -1;
  double s = 0.0;
  /* the positional rows; the rest are angular dot rows, c = sin of the
   * deviation */
  const int npos = rt_joint_type_def_of(j->type)->npos;
  for (int k = 0; k < npos; k++) s += c[k] * c[k];
  *pos = sqrt(s);
  for (int k = npos; k < d; k++) {
    const double a = asin(fmin(1.0, fabs(c[k])));
    if (!(a <= *ang)) *ang = a; /* a NaN propagates */
  }
  return 0;
}

void rt_world_max_error(const rt_world *w, double *pos, double *ang) {
  *pos = *ang = 0.0;
  for (int j = 0; j < w->njoint; j++) {
    double p, a;
    if (rt_world_joint_error(w, j, &p, &a) != 0) continue;
    if (!(p <= *pos)) *pos = p;
    if (!(a <= *ang)) *ang = a;
  }
}

void rt_world_energy(const rt_world *w, double *kinetic, double *potential) {
  double ke = 0.0, pe = 0.0;
  for (int i = 0; i < w->nbody; i++) {
    const rt_body_desc *b = &w->body[i];
    if (b->fixed) continue;
    /* w . I_world w = sum_k I_k (R^T w)_k^2 */
    double wb[3];
    rt__q_rotate_inv(wb, b->pose.q, b->angvel);
    const double rot = b->inertia[0] * wb[0] * wb[0] + b->inertia[1] * wb[1] * wb[1] + b->inertia[2] * wb[2] * wb[2];
    ke += 0.5 * (b->mass * rt__v3_dot(b->vel, b->vel) + rot);
    pe -= b->mass * rt__v3_dot(w->set.gravity, b->pose.p);
  }
  for (int j = 0; j < w->njoint; j++) { /* springs: 1/2 k (q - rest)^2 */
    const rt_joint_desc *d = &w->joint[j];
    if (d->type != RT_SPRING) continue;
    const rt_joint_desc *t = &w->joint[d->target];
    const int angular = rt_joint_free_angular(d->free_axis, t->type) == 1;
    double q;
    rt_joint_axis_eval(t, angular, rt__pose_of(w, t->body_a), rt__pose_of(w, t->body_b), &q, NULL);
    const double x = rt__spring_stretch(q, d->rest, angular);
    pe += 0.5 * d->stiffness * x * x;
  }
  *kinetic = ke;
  *potential = pe;
}
