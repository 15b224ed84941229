/* snapshot.c -- what a step changes that outlives it, saved before the step
 * and put back if the step fails (rt_world_step's RT_ERR_DIVERGED), so that
 * a failed step leaves the world bitwise as it was and the next step -- with
 * a smaller dt or load -- starts from where the failed one did: the bodies,
 * the forces and torques waiting for the step, the rows' impulses (the warm
 * start, motor and contact impulses), the last step's contacts with their
 * impulses, the joints' lengths (driven rods change theirs) and whether
 * their drives stalled (rows.c), the drift fed forward to the next step
 * (stabilize.c), what the geometric stiffness held at the end of the last
 * solve (stiffness.c), in how many steps in a row S held the contacts
 * (which decides how the next step's block step starts: schur.c) and the
 * step info.
 * Everything else a step writes it computes afresh each step. The buffers
 * are allocated with the world (rt__snapshot_alloc), so a step allocates
 * nothing. */
#include <stdlib.h>
#include <string.h>

#include "world.h"

int rt__snapshot_alloc(rt_world *w, int nrow, int ncap) {
  rt__snapshot *s = &w->snap;
  const size_t nb = (size_t)w->nbody + 1;
  s->body = calloc(nb, sizeof *s->body);
  s->force = calloc(3 * nb, sizeof *s->force);
  s->torque = calloc(3 * nb, sizeof *s->torque);
  s->lambda = calloc((size_t)nrow + 1, sizeof *s->lambda);
  s->prev = calloc((size_t)ncap + 1, sizeof *s->prev);
  s->prev_lambda = calloc(3 * (size_t)ncap + 1, sizeof *s->prev_lambda);
  s->length = calloc((size_t)w->njoint + 1, sizeof *s->length);
  s->stall = calloc((size_t)w->njoint + 1, sizeof *s->stall);
  s->drift = calloc((size_t)w->dim + 1, sizeof *s->drift);
  s->gcarry = calloc((size_t)w->nsbody + 1, sizeof *s->gcarry);
  return s->body && s->force && s->torque && s->lambda && s->prev && s->prev_lambda && s->length && s->stall &&
                 s->drift && s->gcarry
             ? 0
             : -1;
}

void rt__snapshot_free(rt_world *w) {
  rt__snapshot *s = &w->snap;
  free(s->body);
  free(s->force);
  free(s->torque);
  free(s->lambda);
  free(s->prev);
  free(s->prev_lambda);
  free(s->length);
  free(s->stall);
  free(s->drift);
  free(s->gcarry);
}

/* The rows whose impulses are kept: all that a step before this one or
 * this one can have written (the step may have more or fewer contacts). */
static int kept_rows(const rt_world *w) {
  const int now = w->nfixed_rows + 3 * w->ncontact;
  return w->rows.n > now ? w->rows.n : now;
}

void rt__snapshot_save(rt_world *w) {
  rt__snapshot *s = &w->snap;
  const size_t nb = (size_t)w->nbody;
  memcpy(s->body, w->body, sizeof *w->body * nb);
  memcpy(s->force, w->force, 3 * sizeof *w->force * nb);
  memcpy(s->torque, w->torque, 3 * sizeof *w->torque * nb);
  s->nrow = w->rows.n;
  s->nlambda = kept_rows(w);
  memcpy(s->lambda, w->rows.lambda, sizeof *s->lambda * (size_t)s->nlambda);
  s->nprev = w->nprev;
  memcpy(s->prev, w->prev, sizeof *w->prev * (size_t)w->nprev);
  memcpy(s->prev_lambda, w->prev_lambda, 3 * sizeof *w->prev_lambda * (size_t)w->nprev);
  for (int j = 0; j < w->njoint; j++) s->length[j] = w->joint[j].length;
  memcpy(s->stall, w->drive_stall, sizeof *s->stall * (size_t)w->njoint);
  memcpy(s->drift, w->drift, sizeof *s->drift * (size_t)w->dim);
  memcpy(s->gcarry, w->gcarry, sizeof *s->gcarry * (size_t)w->nsbody);
  s->contacts_run = w->schur.contacts_run;
  s->info = w->info;
}

void rt__snapshot_restore(rt_world *w) {
  const rt__snapshot *s = &w->snap;
  const size_t nb = (size_t)w->nbody;
  memcpy(w->body, s->body, sizeof *w->body * nb);
  memcpy(w->force, s->force, 3 * sizeof *w->force * nb);
  memcpy(w->torque, s->torque, 3 * sizeof *w->torque * nb);
  w->rows.n = w->prows.n = s->nrow;
  memcpy(w->rows.lambda, s->lambda, sizeof *s->lambda * (size_t)s->nlambda);
  w->nprev = s->nprev;
  memcpy(w->prev, s->prev, sizeof *w->prev * (size_t)s->nprev);
  memcpy(w->prev_lambda, s->prev_lambda, 3 * sizeof *w->prev_lambda * (size_t)s->nprev);
  for (int j = 0; j < w->njoint; j++) w->joint[j].length = s->length[j];
  memcpy(w->drive_stall, s->stall, sizeof *s->stall * (size_t)w->njoint);
  memcpy(w->drift, s->drift, sizeof *s->drift * (size_t)w->dim);
  memcpy(w->gcarry, s->gcarry, sizeof *s->gcarry * (size_t)w->nsbody);
  w->schur.contacts_run = s->contacts_run;
  w->info = s->info;
}

void rt__snapshot_restore_poses(rt_world *w) {
  for (int i = 0; i < w->nbody; i++) w->body[i].pose = w->snap.body[i].pose;
}
