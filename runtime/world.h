/* world.h -- runtime-internal layout of rt_world (rt_world.h), shared by
 * world.c (creation, state, measures), step.c (the step), pgs.c (the
 * sweeps and the block step) and worker.c (the factorization thread). */
#ifndef LDLPGS_RUNTIME_WORLD_H
#define LDLPGS_RUNTIME_WORLD_H

#include <pthread.h>
#include <stdatomic.h>

#include "rt_world.h"

/* Constraint rows, PGS's unit of work. Row i acts on solver bodies a[i] and
 * b[i] (RT_WORLD: none) through J[12 i ..] over (v_a, w_a, v_b, w_b); WJ
 * holds W_a J_a^T and W_b J_b^T, so applying an impulse is an axpy. The
 * impulse lambda[i] is kept in [lo[i], hi[i]]. Rows [0, dim) are the
 * equality rows in the program's row order (the block pi_0 of H~). */
typedef struct rt__rows {
  int n;
  int *a, *b;
  double *J, *WJ;
  double *rhs;       /* target of J V */
  double *inv_diag;  /* 1 / ((1 + epsilon) J W J^T); 0: the row is inert */
  double *lambda;
  double *lo, *hi;
  int *normal;       /* friction rows: their contact's normal row; else -1 */
  double *mu;        /* friction rows: bound mu * lambda[normal] */
} rt__rows;

/* Assembly of H~ from the rows (assemble.c): one entry per node block and
 * per edge block that is not fill-in, and the runs of the workspace that no
 * block writes. A block (q, p) sums, for each of its nterm shared bodies,
 * J rows of q (from J + jq[t]) against W J^T rows of p (from WJ + wp[t]). */
typedef struct rt__asm_block {
  int dst;        /* workspace offset */
  int dq, dp;     /* rows, columns */
  int node;       /* a node block: lower triangle mirrored, regularized */
  int nterm;
  int jq[2], wp[2];
} rt__asm_block;

typedef struct rt__assembly {
  int nblock, nzero;
  rt__asm_block *block; /* ncons + nblk */
  int *zero_off, *zero_len; /* ncons + nblk + 1 */
} rt__assembly;

/* The factorization thread (worker.c). The flags change under mu and are
 * read without it while spinning. */
typedef struct rt__worker {
  int running;
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  atomic_int pending; /* a factorization was asked for and nobody took it */
  atomic_int done;    /* the thread took it and has finished */
  atomic_int quit;
  atomic_int parked;  /* the thread waits on cv */
  atomic_int warm;    /* wake up and spin: a request is coming */
  atomic_int waiting; /* the stepping thread waits on cv for done */
  /* The thread's own copy of what the assembly reads, which it evaluates
   * from the poses (rt__factor_from_poses), allocated with the world: the
   * equality rows' J and W J^T (12 per row) and values, the solver bodies'
   * inverse masses (1 each) and inertias (9). */
  double *J, *WJ, *c, *inv_mass, *inv_inertia;
  /* The bodies as the thread sees them: its own copy of w->body (masses,
   * inertias and fixed flags never change), whose poses it takes from
   * pose, where rt__worker_poses copies them (nbody each). */
  rt_body_desc *body;
  rt_pose *pose;
} rt__worker;

struct rt_world {
  const rt_program *prog;
  rt_settings set;
  rt_step_info info;
  /* mechanism */
  int nbody, njoint;
  rt_body_desc *body;      /* live state */
  rt_body_desc *backup;    /* state before the current step */
  double *force, *torque;  /* accumulated for the next step (3 per body) */
  rt_joint_desc *joint;
  int *joint_row;          /* motors, limits, ropes: their row; others -1 */
  int *joint_cons;         /* equality joints: their solver constraint; -1 */
  int *eq_joint;           /* the k-th equality joint (program's cons_joint) */
  double *drive_rate;      /* driven rods: d length / dt this step */
  /* solver bodies */
  int nsbody;
  double *inv_mass, *inv_inertia; /* 1 and 9 per solver body */
  double *vel;             /* 6 per solver body: v, w during the solve */
  /* rows */
  rt__rows rows;
  int dim;                 /* equality rows */
  double *c;               /* constraint values of the equality rows */
  int nfixed_rows;         /* equality and motor rows; contact rows follow */
  /* contacts: the current ones, and the last step's with their impulses
   * (3 per contact: normal, two friction) for warm starting */
  int ncontact, nprev;
  rt_contact *contact, *prev;
  double *prev_lambda;
  /* factorization (program precision) */
  rt__assembly assembly;
  int thread_pays;         /* assembly + factor worth a hand-off (step.c) */
  void *work, *temp, *x;
  size_t work_bytes;       /* of work */
  double *r;
  double *shift;           /* 6 per solver body: post-stabilization's move */
  rt_pose *pose_before;    /* poses before it, to undo a move that fails */
  rt__worker worker;
};

/* Pose of mechanism body i in the bodies body (w->body, or the thread's
 * copy); NULL for RT_WORLD. */
static inline const rt_pose *rt__pose_in(const rt_body_desc *body, int i) {
  return i == RT_WORLD ? NULL : &body[i].pose;
}
static inline const rt_pose *rt__pose_of(const rt_world *w, int body) { return rt__pose_in(w->body, body); }

/* step.c: inverse masses and world inertias of the solver bodies (a
 * shard of a body split in k: k / m and k I^-1) at the poses of body
 * (w->body or the thread's copy), 1 and 9 per solver body. */
void rt__solver_masses(const rt_world *w, const rt_body_desc *body, double *inv_mass, double *inv_inertia);
/* step.c: W J^T of rows [first, last) and their regularized inverse
 * diagonals. */
void rt__row_masses(rt_world *w, int first, int last);

/* Mechanism joint of solver constraint c; -1 for a shard weld. */
static inline int rt__cons_joint(const rt_world *w, int c) {
  return w->prog->cons_joint[c] >= 0 ? w->eq_joint[w->prog->cons_joint[c]] : -1;
}

/* step.c: evaluates solver constraint c (its joint, or a shard weld) at the
 * poses of body (w->body or the thread's copy): its values into cval and, if
 * J is not NULL, its rows. */
void rt__cons_eval(const rt_world *w, const rt_body_desc *body, int c, double *cval, double *J);

/* pgs.c */
/* J v of row i: the relative velocity it constrains. */
double rt__row_velocity(const rt__rows *rows, int i, const double *vel);
/* One PGS sweep over rows [first, last). */
void rt__pgs_sweep(rt__rows *rows, int first, int last, double *vel);
/* Applies impulses dl[i] of rows [first, last) to the velocities. */
void rt__rows_apply(const rt__rows *rows, int first, int last, const double *dl, double *vel);
/* The block GS step on the equality rows with the factored H~ in w->work. */
void rt__block_step(rt_world *w);
/* x = H~^-1 x on the equality rows (w->dim values), passing through the
 * program's precision. */
void rt__block_solve(rt_world *w, double *x);

/* stabilize.c: after integration, moves the bodies by W J^T H~^-1 (-c) so
 * the equality joints meet at the new poses (post-stabilization). */
void rt__stabilize(rt_world *w);

/* assemble.c: the plan of p's assembly (a's arrays allocated by the
 * caller; fixed_sbody[b] = 1 for a fixed solver body); 0, or -1 if out of
 * memory. Then H~ from the rows' J and W J^T into work, the same bits as
 * rt_assemble. */
int rt__assembly_plan(const rt_program *p, const unsigned char *fixed_sbody, rt__assembly *a);
void rt__assemble_rows(const rt_program *p, const rt__assembly *a, const double *J, const double *WJ, double epsilon,
                       void *work);

/* step.c: the factorization of H~ from the poses alone, on the thread
 * (worker.c): the equality rows' J and W J^T and the solver bodies' masses
 * evaluated into the thread's own buffers, as rt_world_step_begin does for
 * w->rows, then assembled and factored as by rt_world_factor (the same
 * bits). It reads the poses rt__worker_kick copied, the equality joints
 * and the settings, which nothing writes from rt__step_begin's kick until
 * rt_world_step_end, and its own buffers; it writes w->work, w->temp and
 * w->info.factor_status. */
void rt__factor_from_poses(rt_world *w);
/* step.c: rt_world_step_begin; with kick, it hands the thread the
 * factorization (rt__worker_kick) as soon as the poses and joints are
 * final for the step (after the forces and drives). */
rt_status rt__step_begin(rt_world *w, int kick);

/* step.c: whether assembling and factoring p's H~ (with the plan a) is
 * enough work to hand to the thread. */
int rt__thread_pays(const rt_program *p, const rt__assembly *a);

/* contact.c: the rows of the current contacts (after the fixed rows),
 * warm-started from the last step's matching contacts; and saving the
 * impulses for the next step. */
void rt__contact_rows(rt_world *w);
void rt__contact_save(rt_world *w);

/* step.c: solver body of side s of a row on mechanism body i. */
int rt__row_body(const rt_world *w, int body);

/* worker.c */
int rt__worker_start(rt_world *w);
void rt__worker_stop(rt_world *w);
/* Wakes a parked thread ahead of rt__worker_kick (cheap if it spins). */
void rt__worker_warm(rt_world *w);
/* The bodies' poses into the thread's w->worker.pose. */
void rt__worker_poses(rt_world *w);
/* Hands the thread the poses (rt__worker_poses) and the factorization. */
void rt__worker_kick(rt_world *w);
void rt__worker_wait(rt_world *w);
/* Whether the thread has finished the factorization it took. */
int rt__worker_done(rt_world *w);

/* world.c */
int rt__settings_valid(const rt_settings *s);

#endif
