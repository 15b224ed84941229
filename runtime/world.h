/* world.h -- the world's state (rt_world, rt_world.h) in one internal
 * header, and the internal interfaces of the runtime's modules: world.c
 * (creation, state, measures), step.c (the step, in order) and the stages
 * it calls: bodies.c, rows.c, contact.c, pgs.c, assemble.c, factor.c,
 * block.c, schur.c, stabilize.c, worker.c, pick.c, settings.c, snapshot.c,
 * validate.c. */
#ifndef LDLPGS_RUNTIME_WORLD_H
#define LDLPGS_RUNTIME_WORLD_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifndef LDLPGS_NO_THREADS
#include <pthread.h>
#include <stdatomic.h>
#endif

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
  int *normal;       /* friction rows: their contact's normal row; soft rows
                        (springs): RT__ROW_SOFT; else -1 */
  double *mu;        /* friction rows: bound mu * lambda[normal] */
  double *soft;      /* soft rows: the compliance gamma of J V + gamma lambda
                        = rhs (inv_diag is then 1 / ((1 + epsilon) J W J^T
                        + gamma)) */
} rt__rows;

/* rt__rows.normal of a soft row. */
#define RT__ROW_SOFT (-2)

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

/* The Schur complement of the equality rows on the coupled rows C
 * (schur.c): C's rows, S (k x k, column c = the response of C to a unit
 * impulse on C's row c with the equality rows re-solved), and scratch. */
typedef struct rt__schur {
  int cap;         /* the most rows C can hold (allocated) */
  int k;           /* C's rows this step; 0: none coupled */
  int moved;       /* the rows whose impulse rt__schur_step last changed */
  int *row;        /* cap: C's rows */
  double *S;       /* cap * cap: S_ij at i k + j (symmetric) */
  double *reg;     /* cap: each row's epsilon J W J^T + gamma */
  double *y, *res; /* cap: S dl so far; the rows' residuals */
  double *b, *xs, *xn, *z; /* cap: the active-set solve's vectors */
  double *M;       /* cap * cap: its Cholesky factor */
  double *minv;    /* cap: 1 / M's diagonal (its solves multiply: a
                      division's latency was on their dependent chains) */
  int *state, *free; /* cap: 0 free, 1 at lower, 2 at upper, 3 out */
  int *nz;         /* cap: the rows whose x is not zero (scratch) */
  double *zk;      /* cap: take_products' sums for every row; rt__schur_response's impulses (scratch) */
  int nfree, nfact; /* the active-set method's free rows (in free), and the
                      rows of their Cholesky factor in M so far */
  double *dl;      /* rows: impulses of C's rows (0 elsewhere) */
  double *kept;    /* cap: C's inverse diagonals while the contact passes
                      leave C out (rt__schur_mask) */
  double *Y;       /* cap * dim: D^-1 L^-1 A_Ec for each row c of C (0 off
                      its path; kbuilt columns on the rows of upath written) */
  int kbuilt;      /* the columns of Y the last rt__schur_build wrote */
  int *path;       /* ncons + 1: the pivots the group's columns touched, -1 ended
                      (rt__schur_build, group by group) */
  double *D;       /* dim: the factor's diagonal */
  double *yd;      /* RT__SCHUR_GROUP * (dim + 1): y_c D on y_c's path for
                      the rows c of a group, row-interleaved (entry t of
                      column j at t G + j, G the group's size, rounded up
                      to even past 1; rt__schur_build) */
  double *z6;      /* RT__SCHUR_GROUP * dim: a group's columns of Y during
                      their forward solve, row-interleaved (entry i of
                      column j at i g + j for a group of g; rt__schur_build;
                      all 0 between groups) */
  int *at;         /* dim: the rows of that path */
  unsigned char *reach; /* ncons: the pivots the group's forward solve is to
                      visit (rt__schur_build; all 0 between groups) */
  int *row_piv;    /* dim: the pivot of each equality row */
  int *adj_adr, *adj; /* the equality rows on each solver body (CSR, nsbody + 1) */
  double *resp;    /* cap: the rows' response to the equality rows' residual
                      (rt__schur_build with z), taken by the next
                      rt__schur_step and zeroed */
  unsigned char *ureach; /* ncons: the pivots on some column's path (all 0
                      outside rt__schur_build) */
  int *upath, nupath; /* ncons: those pivots, in order (rt__schur_build) */
  int nurows;      /* their rows */
  int contacts_run; /* the steps in a row, up to the last, whose S held the
                      contacts (rt__schur_expects) */
} rt__schur;

/* pick.c: a choice between two kinds of call (0 and 1) that give the
 * same bits, by their times where they run. Calls of each kind a window
 * times, calls from one window's start to the next, calls before the
 * first, and the fewest from one window's start to the next when the work
 * changed (rt__pick_again). */
#define RT__PICK_SAMPLES 16
#define RT__PICK_PERIOD 2048
#define RT__PICK_WARMUP 32
#define RT__PICK_AGAIN 256
typedef struct rt__pick {
  long long calls;                   /* rt__pick_plan's so far */
  long long next;                    /* the call that starts the next window, or started the current one */
  long long start;                   /* the call that started the last window; -1 before the first */
  int soon;                          /* the window after the current one RT__PICK_AGAIN calls after its start */
  double times[2][RT__PICK_SAMPLES]; /* the current window's, by kind */
  int ntimes[2];
  int choice;                        /* the kind the last window found faster */
} rt__pick;
/* Kind `first` until the first window has measured. */
void rt__pick_init(rt__pick *p, int first);
/* The kind of this call, and in *timed whether it is one of a window's,
 * whose time rt__pick_timed then takes: RT__PICK_SAMPLES calls of each
 * kind in the order ABBA ABBA..., every RT__PICK_PERIOD calls from the
 * RT__PICK_WARMUP-th on; the others the last window's choice. */
int rt__pick_plan(rt__pick *p, int *timed);
/* The work the calls do changed (batch.c: copies left out or taken
 * back, settings; worker.c: settings): the next window as soon as
 * RT__PICK_AGAIN calls have passed since the last one started -- after
 * the current one, if one is under way -- rather than RT__PICK_PERIOD;
 * nothing before the first window, which is still to measure. */
void rt__pick_again(rt__pick *p);
/* A timed call's time (seconds) of its kind; the window's last decides:
 * kind 1 while its median time is below margin times kind 0's. */
void rt__pick_timed(rt__pick *p, int kind, double seconds, double margin);
/* Seconds on a monotonic clock. */
double rt__pick_now(void);

/* The factorization thread (worker.c). The flags change under mu and are
 * read without it while spinning. Built with LDLPGS_NO_THREADS the runtime
 * has no thread (no pthread, no atomics): running stays 0 and a threaded
 * setting is refused with RT_ERR_THREAD. */
typedef struct rt__worker {
  int running;
#ifndef LDLPGS_NO_THREADS
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  atomic_int pending; /* a factorization was asked for and nobody took it */
  atomic_int done;    /* the thread took it and has finished */
  atomic_int quit;
  atomic_int parked;  /* the thread waits on cv */
  atomic_int warm;    /* wake up and spin: a request is coming */
  atomic_int waiting; /* the stepping thread waits on cv for done */
#endif
  /* The thread's own copy of what the assembly reads, which it evaluates
   * from the poses (rt__factor_from_poses in factor.c), allocated with the world: the
   * equality rows' J and W J^T (12 per row) and values, the solver bodies'
   * inverse masses (1 each) and inertias (9). */
  double *J, *WJ, *c, *inv_mass, *inv_inertia;
  /* The bodies as the thread sees them: its own copy of w->body (masses,
   * inertias and fixed flags never change), whose poses it takes from
   * pose, where rt__worker_poses copies them (nbody each). */
  rt_body_desc *body;
  rt_pose *pose;
  /* Whether the hand-off pays, measured (rt_settings.threaded 1, worker.c)
   * over the steps since the thread started: kind 0 on one thread, 1
   * handed off. */
  rt__pick pays;
} rt__worker;

/* What a step changes that outlives it, as it was before the step
 * (snapshot.c). */
typedef struct rt__snapshot {
  rt_body_desc *body;      /* nbody */
  double *force, *torque;  /* 3 per body */
  int nrow, nlambda;       /* rows.n; impulses kept */
  double *lambda;          /* rows' impulses */
  int nprev;
  rt_contact *prev;        /* last step's contacts, with */
  double *prev_lambda;     /* their impulses (3 each) */
  double *length;          /* every joint's length */
  unsigned char *stall;    /* driven rods: stalled (w->drive_stall) */
  double *drift;           /* the equality rows' drift (dim) */
  double *gcarry;          /* 1 per solver body */
  int contacts_run;       /* w->schur.contacts_run */
  rt_step_info info;
} rt__snapshot;

struct rt_world {
  const rt_program *prog;
  rt_settings set;
  rt_step_info info;
  /* mechanism */
  int nbody, njoint;
  rt_body_desc *body;      /* live state */
  rt__snapshot snap;       /* the state before the current step */
  double *force, *torque;  /* accumulated for the next step (3 per body) */
  rt_joint_desc *joint;
  int *joint_row;          /* motors, limits, ropes: their row; others -1 */
  int *joint_cons;         /* equality joints: their solver constraint; -1 */
  int *eq_joint;           /* the k-th equality joint (program's cons_joint) */
  unsigned char *row_letter; /* dim: each equality row's letter of its joint
                              type's rt_joint_type_def.rows (a shard weld's: the
                              weld's), the entries of J that are +-0 at every pose */
  double *drive_rate;      /* driven rods: d length / dt this step */
  unsigned char *drive_stall; /* driven rods: 1 while the drive is stalled */
  /* solver bodies */
  int nsbody;
  double *inv_mass, *inv_inertia; /* 1 and 9 per solver body */
  double *inertia;         /* 9 per solver body: the world inertia the solve
                              sees, what inv_inertia inverts */
  double *vel;             /* 6 per solver body: v, w during the solve */
  /* rows */
  rt__rows rows;
  int sweep_fits;          /* rt__pgs_program_fits of rows, this step; -1 not
                              checked yet (step.c) */
  /* The position pass's view of the same rows (split correction, step.c):
   * a, b, J, WJ are rows' own; rhs holds the position targets (-beta c / dt
   * for the equality rows, the penetration beyond the slop for contacts and
   * limits), lambda the pass's impulses (from 0 every step, never warm
   * started), lo and hi their bounds, inv_diag 0 for the rows that take no
   * part (friction, motors) and normal -1 throughout. */
  rt__rows prows;
  double *pvel;            /* 6 per solver body: the pass's pseudo-velocities,
                              which move the poses in this step only */
  double *dvel;            /* 6 per solver body: the warm start's velocity
                              change; after integration, what the poses
                              moved with */
  double *drift;           /* dim: the equality rows' error the last step's
                              integration left before its projection (the
                              curvature of the motion; stabilize.c) */
  double *expect;          /* dim: the equality rows' error expected after this
                              step's integration, to first order (rows.c) */
  double *start;           /* dim: the equality rows' error as this step's rows
                              were built (w->c before integration overwrites it) */
  double *gcarry;          /* 1 per solver body: w^T G w at the end of the last
                              step's velocity solve, G its gstiff (stiffness.c) */
  double *gstiff;          /* 9 per solver body: geometric stiffness dt^2 K added
                              to its world inertia this step (stiffness.c) */
  int dim;                 /* equality rows */
  double *c;               /* constraint values of the equality rows */
  int nfixed_rows;         /* equality and motor rows; contact rows follow */
  /* contacts: the current ones, and the last step's with their impulses
   * (3 per contact: normal, two friction) for warm starting */
  int ncontact, nprev;
  rt_contact *contact, *prev;
  double *prev_lambda;
  int *prev_table;         /* prev_slots entries, -1 or an index into prev:
                              rt__contact_rows' warm-start lookup, all -1
                              between steps */
  int prev_slots;          /* a power of two, at least 2 max_contacts */
  /* factorization (program precision) */
  rt__assembly assembly;
  int thread_pays;         /* assembly + factor worth a hand-off (factor.c) */
  void *work, *temp, *x;
  size_t work_bytes;       /* of work */
  double *r;
  double *shift;           /* 6 per solver body: post-stabilization's move */
  rt_pose *pose_before;    /* poses before it, to undo a move that fails */
  /* rt_world_body_contacts' shapes (collide.c), listed at creation, where
   * the bodies' shapes and joints are set: the round bodies (spheres,
   * cylinders) and the boxes, each in index order, each body's bounding
   * radius, and the bodies joined to body i, partner[partner_at[i] ..
   * partner_at[i + 1]] */
  int nround, nbox;
  int *round, *box;
  double *radius;
  int *partner_at, *partner;
  rt__worker worker;
  /* appended: the block solve beyond one solve with the factor (block.c,
   * blocksolve.h: refinement, PCR), dim each unless said */
  rt_program *view;        /* a world created without a program: its own
                              solver view (view.c), which prog points to */
  double *bdreg;           /* epsilon diag(J W J^T) of the equality rows */
  double *bx;              /* the block step's delta, PCR's next warm start */
  double *bs;              /* the solution of a solve from scratch */
  double *bu;              /* 6 per solver body: the product's scratch */
  double *bbuf;            /* 6 dim: refinement's and PCR's vectors */
  rt__schur schur;         /* the coupled rows (schur.c) */
  /* The equality rows evaluated by the step's last evaluation that keeps
   * them (stabilize.c: post-stabilization's check, a projection pass's
   * check, or the drift's), at the
   * poses kept_pose: the next step's rows take c and J from here when the
   * bodies are still there, bit for bit (rows.c). */
  double *kept_c;          /* dim (c's size) */
  double *kept_J;          /* 12 rows (rows.J's size) */
  rt_pose *kept_pose;      /* nbody */
  int kept;                /* kept_* hold an evaluation */
  int projected;           /* the last step's projection kept a pass */
  long long settings_set;  /* successful rt_world_set_settings calls: the
                              work may have changed, so the measured choices
                              (the thread's, a batch's) measure again */
};

/* Whether w->kept_* (the last evaluation kept, stabilize.c) is at the
 * bodies' poses, bit for bit: nothing has moved them since (neither
 * integration, nor a failed step's restore, nor rt_world_set_body_state),
 * so evaluating the joints again would give its bits. */
static inline int rt__kept_at_poses(const rt_world *w) {
  if (!w->kept) return 0;
  for (int i = 0; i < w->nbody; i++)
    if (memcmp(&w->kept_pose[i], &w->body[i].pose, sizeof w->body[i].pose) != 0) return 0;
  return 1;
}

/* Zeroed memory for n items of size (at least one), or NULL with *fail
 * set: creation allocates everything, then checks once. */
static inline void *rt__alloc(size_t n, size_t size, int *fail) {
  void *q = calloc(n ? n : 1, size);
  if (q == NULL) *fail = 1;
  return q;
}

/* As rt__alloc, at the start of a 64-byte cache line, freed with
 * rt__free_lines: for the arrays of lanes (batch.c, batch_pgs.c), whose
 * vectors of 8 doubles or 16 floats then each lie in one line. glibc's
 * calloc puts a large block 16 bytes past a page, so that 3 of 4 such
 * vectors straddled two lines: the lanes' sweep over 8 tanks' rows took
 * 25.4 ns a slot, 21.7 ns on lines (steps 10-110; 28.8 and 25.9 ns over
 * 300-400; a temporary timer). The block calloc gave lies just before the
 * line, its address just before the first item. */
static inline void *rt__alloc_lines(size_t n, size_t size, int *fail) {
  const size_t head = 64 + sizeof(void *);
  if (n == 0) n = 1;
  if (size != 0 && n > (SIZE_MAX - head) / size) {
    *fail = 1;
    return NULL;
  }
  char *base = calloc(n * size + head, 1);
  if (base == NULL) {
    *fail = 1;
    return NULL;
  }
  char *p = base + sizeof(void *);
  p += (64 - (uintptr_t)p % 64) % 64;
  memcpy(p - sizeof base, &base, sizeof base);
  return p;
}

static inline void rt__free_lines(void *p) {
  if (p == NULL) return;
  void *base;
  memcpy(&base, (char *)p - sizeof base, sizeof base);
  free(base);
}

/* The distance of a spring's coordinate q from its rest, an angle's the
 * short way round (rows.c, world.c's energy). */
static inline double rt__spring_stretch(double q, double rest, int angular) {
  return angular ? remainder(q - rest, 6.283185307179586) : q - rest;
}

/* Pose of mechanism body i in the bodies body (w->body, or the thread's
 * copy); NULL for RT_WORLD. */
static inline const rt_pose *rt__pose_in(const rt_body_desc *body, int i) {
  return i == RT_WORLD ? NULL : &body[i].pose;
}
static inline const rt_pose *rt__pose_of(const rt_world *w, int body) { return rt__pose_in(w->body, body); }

/*---- the modules of a step (step.c sequences them; none calls step.c or
 * world.c, and none calls back into a module that calls it) -------------*/

/* bodies.c */
void rt__bodies_apply_forces(rt_world *w);
void rt__bodies_clear_forces(rt_world *w);
/* Whether every pose, velocity, force and torque is finite. */
int rt__bodies_finite(const rt_world *w);
/* Inverse masses and world inertias of the solver bodies (a shard of a
 * body split in k: k / m and k I^-1) at the poses of body (w->body or the
 * thread's copy), 1 and 9 per solver body; with the geometric stiffness G,
 * the inertias' inverses are (I / k + G)^-1. If inertia is not NULL, the
 * inertias the solve sees, I / k (+ G), 9 per solver body, go there. */
void rt__bodies_solver_masses(const rt_world *w, const rt_body_desc *body, double *inv_mass, double *inv_inertia,
                              double *inertia);
/* Every solver body takes its body's velocity, inverse mass and inertia. */
void rt__bodies_split(rt_world *w);
/* Every body takes the mean velocity of its shards. */
void rt__bodies_merge(rt_world *w);
/* Semi-implicit Euler on the poses, with the velocities plus the mean of
 * the shards' pseudo-velocities of the position pass (w->pvel) if pass
 * (else without them); what each solver body moved with goes to w->dvel. */
void rt__bodies_integrate(rt_world *w, int pass);



/* Mechanism joint of solver constraint c; -1 for a shard weld. */
static inline int rt__cons_joint(const rt_world *w, int c) {
  return w->prog->cons_joint[c] >= 0 ? w->eq_joint[w->prog->cons_joint[c]] : -1;
}

/* rows.c */
/* Driven rods' lengths for this step, and their rates (w->drive_rate). */
void rt__rows_drive(rt_world *w);
/* A side of a row: solver body sbody, or RT_WORLD if it is the world or
 * fixed (in body: w->body or the thread's copy). Inline: stiffness.c calls
 * it twice for each constraint of every step. */
static inline int rt__rows_dynamic(const rt_world *w, const rt_body_desc *body, int sbody) {
  return sbody == RT_WORLD || body[w->prog->sbody_body[sbody]].fixed ? RT_WORLD : sbody;
}
/* Solver body of a row on mechanism body `body` (its first shard). */
int rt__rows_body(const rt_world *w, int body);
/* Evaluates solver constraint c (its joint, or a shard weld) at the poses
 * of body (w->body or the thread's copy): its values into cval and, if J is
 * not NULL, its rows. */
void rt__rows_cons_eval(const rt_world *w, const rt_body_desc *body, int c, double *cval, double *J);
/* The equality rows and the motors', limits' and ropes' rows. */
void rt__rows_build(rt_world *w);
/* W J^T of the row J on solver bodies a and b (RT_WORLD: none) into WJ;
 * returns J W J^T. */
double rt__rows_wj(const double *J, int a, int b, const double *inv_mass, const double *inv_inertia, double *WJ);
/* W J^T of solver constraint c's d rows J (12 apart; on solver bodies a
 * and b) into WJ, by their letters (w->row_letter from c's first row):
 * the bits of rt__rows_wj row by row but for zeros' signs; their
 * J W J^T into diag. */
void rt__rows_cons_wj(const double *J, int a, int b, const unsigned char *letter, int d, const double *inv_mass,
                      const double *inv_inertia, double *WJ, double *diag);
/* W J^T of the equality rows, by constraint, and of rows [dim, n), and
 * their regularized inverse diagonals. */
void rt__rows_masses(rt_world *w, int n);
void rt__rows_warm_start(rt_world *w);
/* The part of a correction (beta c / dt, or a push out of a contact or a
 * limit) a velocity row keeps under split correction: at most max_bias. */
double rt__rows_velocity_bias(const rt_world *w, double bias);
/* The equality rows' error expected after integration, to first order:
 * c + dt J u with u the velocities the poses moved with (w->dvel, which
 * rt__bodies_integrate leaves), into w->expect. */
void rt__rows_expect(rt_world *w);
/* Whether any row of the position pass has a target (else the pass would
 * leave its impulses and pseudo-velocities zero, and it does not run); if
 * so, the pass's zero start. Integration reads the pseudo-velocities only
 * after a pass (step.c), so a step without one does not clear them. */
int rt__rows_position_start(rt_world *w);

/* contact.c: the rows of the current contacts (after the fixed rows),
 * warm-started from the last step's matching contacts; and saving the
 * impulses for the next step. */
void rt__contact_rows(rt_world *w);
void rt__contact_save(rt_world *w);

/* collide.c: w->round, box, radius and partners from the bodies and joints */
void rt__collide_plan(rt_world *w);

/* pgs.c */
/* J v of row i: the relative velocity it constrains. */
double rt__pgs_row_velocity(const rt__rows *rows, int i, const double *vel);
/* What a sweep would change row i's velocity by (m/s, rad/s), changing
 * nothing. */
double rt__pgs_row_change(const rt__rows *r, int i, const double *vel);
/* The same from the row's velocity jv. */
double rt__pgs_row_change_at(const rt__rows *r, int i, double jv);
/* Whether no row of [first, last) would change its velocity by more than
 * tol (rt__pgs_row_change, each from vel; it stops at the first that
 * would), changing nothing. */
int rt__pgs_rows_settled(const rt__rows *r, int first, int last, const double *vel, double tol);
/* One PGS sweep over rows [first, last). */
void rt__pgs_sweep(rt__rows *rows, int first, int last, double *vel);
/* The same sweep (the same bits), returning the largest change of a row's
 * velocity it made (|delta lambda| J W J^T). */
double rt__pgs_sweep_change(rt__rows *rows, int first, int last, double *vel);
/* Whether program p's generated sweep (rt_program.sweep) may run the
 * equality rows [0, dim) of rows as they are: it exists, and every
 * equality row has the sides it assumes (sweep_side: a body fixed at run
 * time is the world in the rows), bounds -inf and +inf, no friction or
 * soft term, and inv_diag != 0 (the generic sweep skips an inert row). */
int rt__pgs_program_fits(const rt_program *p, const rt__rows *rows);
/* One sweep over all rows: with fits (rt__pgs_program_fits), p's generated
 * sweep over [0, dim) and the generic sweep over [dim, n); else the
 * generic sweep over all. The same bits either way. */
void rt__pgs_sweep_program(const rt_program *p, int fits, rt__rows *rows, double *vel);
/* One sweep over rows first..n that prefetches [data, data + bytes) as it
 * goes (a plain sweep if data is NULL). */
void rt__pgs_sweep_prefetch(rt__rows *rows, int first, double *vel, const void *data, size_t bytes);
/* res[i] = rhs[i] - J v of the equality rows of program p (rows 0..dim;
 * the bits of rhs[i] - rt__pgs_row_velocity; letter: each row's letter of
 * rt_joint_type_def.rows, w->row_letter); returns the largest |res[i]|
 * (a NaN is skipped). */
double rt__pgs_residual(const rt__rows *rows, const rt_program *p, const unsigned char *letter, const double *vel,
                        double *res);
/* out[i] = J v of the equality rows, the same way (the bits of
 * rt__pgs_row_velocity). */
void rt__pgs_velocities(const rt__rows *rows, const rt_program *p, const unsigned char *letter, const double *vel,
                        double *out);
/* rt__pgs_apply(rows, 0, p->dim, dl, vel), the same bits. */
void rt__pgs_apply_equality(const rt__rows *rows, const rt_program *p, const double *dl, double *vel);
/* Applies impulses dl[i] of rows [first, last) to the velocities. */
void rt__pgs_apply(const rt__rows *rows, int first, int last, const double *dl, double *vel);

/* schur.c: S of the coupled rows at this step's rows and factor; returns
 * their number k (0: none). z: NULL, or (rt__step_split_block's split)
 * D^-1 L^-1 of the equality rows' residual, whose solve the velocities do
 * not have yet: the rows' residuals in the solve that follows then take
 * the equality rows' response to it, and contacts (coupled while S held
 * them in the steps before: rt__schur_expects) that it leaves settled are
 * left out. Then one solve of the coupled rows of r (w->rows, or the
 * position pass's) on S from the velocities vel, their
 * impulses applied to lambda and vel; returns the active-set passes (and
 * sweeps) it took. The caller's block step then gives the equality rows the
 * response S assumed. */
int rt__schur_build(rt_world *w, const double *z);
/* Whether this step's S will couple rows, known before the block step:
 * with no contacts, the joints' rows that take part; with contacts, only
 * if they fit C and S held them in each of the last steps (RT__SPLIT_RUN,
 * schur.c: whether they are settled is known after the block step,
 * rt__schur_build with z). */
int rt__schur_expects(const rt_world *w);
/* After rt__schur_build with z and rt__schur_step: z -= Y x, x the
 * impulses S's solve applied (rt__step_split_s). */
void rt__schur_response(rt_world *w, double *z);
/* Its arrays, for the world's joint rows (0, or -1 if out of memory), and
 * their release (what was allocated; NULLs are fine). */
int rt__schur_alloc(rt_world *w);
void rt__schur_free(rt__schur *s);
int rt__schur_step(rt_world *w, rt__rows *r, double *vel);
/* The motors that held in the step's solve, held against the projection's
 * move shift (stabilize.c): their impulses onto shift; returns how many, 0
 * if shift was left as it was (then the equality rows need no new solve). */
int rt__schur_hold(rt_world *w, double *shift);
/* Whether every row outside the block that takes part this step will be
 * coupled to it: the joint rows that take part within coupled_rows, the
 * contacts (if any) within coupled_contacts, and all of them within C's
 * capacity. (Contacts that a sweep would not move are then left out of C
 * by schur.c's settled gate: the contact passes' first check ends them.) */
int rt__schur_covers(const rt_world *w);
/* Whether this step's C holds the contacts (they were solved through S). */
int rt__schur_has_contacts(const rt_world *w);
/* Whether this step's contacts fit C but C does not hold them (S found
 * them settled before the block step, or built nothing). */
int rt__schur_let_go(const rt_world *w);
/* C's rows out of the sweeps of w->rows (their inverse diagonals kept and
 * 0: a sweep leaves them as they are), and back in: the contact passes
 * after the first leave C to S's solve after them (step.c). */
void rt__schur_mask(rt_world *w);
void rt__schur_unmask(rt_world *w);

/* assemble.c: the plan of p's assembly (a's arrays allocated by the
 * caller; fixed_sbody[b] = 1 for a fixed solver body); 0, or -1 if out of
 * memory. Then H~ from the rows' J and W J^T into work, the same bits as
 * rt_assemble. */
int rt__assemble_plan(const rt_program *p, const unsigned char *fixed_sbody, rt__assembly *a);
void rt__assemble_rows(const rt_program *p, const rt__assembly *a, const double *J, const double *WJ, double epsilon,
                       void *work);

/* factor.c */
/* Assembly of H~ from the equality rows' J and W J^T, and its
 * factorization (w->work, w->temp, w->info.factor_status). */
void rt__factor_rows(rt_world *w, const double *J, const double *WJ);
/* The assembly alone, from w->rows into w->work (a batch factors the
 * copies' workspaces together: batch.c). */
void rt__factor_assemble(rt_world *w);
/* The same from the poses alone, on the thread (worker.c): the equality
 * rows' J and W J^T and the solver bodies' masses evaluated into the
 * thread's own buffers, then assembled and factored (the same bits). It
 * reads the poses rt__worker_kick copied, the equality joints and the
 * settings, which nothing writes from the kick until rt_world_step_end,
 * and its own buffers. */
void rt__factor_from_poses(rt_world *w);
/* Whether assembling and factoring p's H~ (with the plan a) is enough work
 * to hand to the thread. */
int rt__factor_thread_pays(const rt_program *p, const rt__assembly *a);

/* step.c, for batch.c: whether w's step factors H~ (rt_world_factor does
 * work), the sweeps rt_world_iterate runs, and the first row that those
 * after the first take (each sweeps rows from..n; the first all). */
int rt__step_factors(const rt_world *w);
int rt__step_sweeps(const rt_world *w);
int rt__step_sweep_from(const rt_world *w);
/* rt_world_step_end in three parts: the block step and the coupled rows;
 * then, at most rt__step_contact_passes(w) times (0: none run), a sweep
 * over the rows outside the block (rows dim..n; in the first pass the
 * contacts only if one is unsettled: rt__step_contacts_first) and, unless
 * it changed no row's velocity by more than RT__CONTACT_TOLERANCE, the block step
 * without refinement, each counted in info.contact_passes, with the rows
 * coupled through S out of the sweeps after the first
 * (rt__step_contacts; a batch masks them in its lanes); after passes that
 * took a block step, S's solve and the block step again
 * (rt__step_contacts_done); then the rest
 * (rt__step_end_finish returns the step's status). */
void rt__step_end_block(rt_world *w);
/* Whether rt__step_end_block starts with the factor's block step without
 * refinement (rt__block_step(w, &w->rows, w->vel, 0)); if so, a batch
 * takes that step itself, its solve in lanes, and then calls
 * rt__step_end_block_after with the solves it made (0 or 1), which does
 * the rest of rt__step_end_block. */
int rt__step_first_block(const rt_world *w);
void rt__step_end_block_after(rt_world *w, int solves);
/* Whether rt__step_end_block splits that first block step's solve around
 * S (its first block step is then rt__step_first_block's, as above, until
 * the solve): the residual into w->r (rt__block_residual) and, if it is
 * above RT__BLOCK_TOLERANCE, its forward half (rt__block_forward); then
 * rt__step_split_s(w, w->r); the backward half and the correction
 * (rt__block_backward, rt__block_correct); then the refinement,
 * rt__block_step(w, &w->rows, w->vel, w->set.refine - 1), recorded by
 * rt__step_refined(w, 0, its passes). A residual within the tolerance goes
 * on as rt__step_end_block_after(w, 0). */
int rt__step_split_block(const rt_world *w);
void rt__step_split_s(rt_world *w, double *z);
/* rt__step_end_block_after in two halves, so that a batch can take the
 * block step between them with its solves in lanes: the rows coupled
 * through S (*coupled: whether S coupled any), returning the refine of the
 * block step that follows (rt__block_step(w, &w->rows, w->vel, refine)),
 * or -1 if none follows; then rt__step_refined(w, *coupled, the passes
 * that block step took) records them in info.refine_steps. */
int rt__step_second_block(rt_world *w, int solves, int *coupled);
void rt__step_refined(rt_world *w, int after_s, int passes);
int rt__step_contact_passes(const rt_world *w);
void rt__step_contacts(rt_world *w);
/* The first pass's sweep (the contacts swept only if one of them is not
 * settled, within rt__step_contacts_tolerance), on w's own rows; returns
 * its largest change, the contacts' scaled by RT__CONTACT_TOLERANCE over
 * their tolerance (a batch runs it copy by copy, or in its lanes:
 * rt__lanes_first_pass). */
double rt__step_contacts_tolerance(const rt_world *w);
double rt__step_contacts_first(rt_world *w);
void rt__step_contacts_done(rt_world *w);
/* rt__step_contacts_done's first half, for a batch as above: S's solve,
 * returning the refine of the block step that follows (-1: S coupled
 * nothing, and none follows); then rt__step_refined(w, 1, its passes). */
int rt__step_contacts_coupled(rt_world *w);
rt_status rt__step_end_finish(rt_world *w);
/* rt__step_end_finish in parts, for a batch that takes the projection's
 * and post-stabilization's solves in lanes: the rest of stage 6, stages 7
 * and 8 (returns whether the projection and post-stabilization follow,
 * with the largest |c| at the new poses into *error); then, if so, and if
 * settings.project > 0, rt__stabilize_project(w, settings.project,
 * *error), and if settings.stabilize, rt__stabilize(w); then the rest
 * (rt__step_finish_after: the step's status). */
int rt__step_finish_move(rt_world *w, double *error);
rt_status rt__step_finish_after(rt_world *w);

/* Contact passes stop once a sweep over the rows outside the block changes
 * no row's velocity by more than this (m/s, rad/s). */
#define RT__CONTACT_TOLERANCE 1e-3
/* The most active-set solves on the Schur complement while the coupled
 * friction rows' bounds follow their normals (schur.c). */
#define RT__FRICTION_SOLVES 3

/* block.c */
/* A residual no larger than this (m/s, rad/s) is not solved for: it would
 * move a joint by less than 1e-14 m in a step. (The position pass's block
 * step with no drift to correct costs nothing.) */
#define RT__BLOCK_TOLERANCE 1e-12
/* The block GS step on the equality rows of r (w->rows, or the position
 * pass's w->prows) and the velocities vel, with the factored H~ in
 * w->work (or PCR, settings.block_solver), and `refine` passes of iterative
 * refinement. Returns the solves it made (0: nothing to solve for). */
int rt__block_step(rt_world *w, rt__rows *r, double *vel, int refine);
/* A pass of it in two halves, for a solve made elsewhere (batch.c, in
 * lanes): the residual R - J V of r's equality rows into w->r, returning
 * its largest magnitude; then lambda += delta and V += W J^T delta. */
double rt__block_residual(rt_world *w, const rt__rows *r, const double *vel);
void rt__block_correct(rt_world *w, rt__rows *r, const double *delta, double *vel);
/* The solve with the factor in its two halves (w->dim values in place,
 * through the program's precision): x = D^-1 L^-1 x, then x = L^-T x; the
 * one after the other is a block step's solve, to the bit. Whether the
 * program has them (a program generated before them has not; PCR never). */
void rt__block_forward(rt_world *w, double *x);
void rt__block_backward(rt_world *w, double *x);
int rt__block_splits(const rt_world *w);
/* x = H~^-1 x on the equality rows (w->dim values), passing through the
 * program's precision (refined if settings.refine), or PCR from zero. */
void rt__block_solve(rt_world *w, double *x);

/* stabilize.c: after integration, moves the bodies by W J^T H~^-1 (-c) so
 * the equality joints meet at the new poses (post-stabilization). */
void rt__stabilize(rt_world *w);
/* rt__stabilize in parts, for a batch that factors and solves in lanes:
 * the joints' error at the poses (its largest |c| into *before), -c into
 * w->r, the masses there and, returning 1, H~ assembled into w->work (0:
 * PCR, which needs no factor); then, unless that H~ is not positive
 * definite (rt_program_factor's -1 is the caller's check: no move then),
 * w->r solved in place (rt__block_solve with the new factor), and
 * rt__stabilize_move: the move and its check. */
int rt__stabilize_assemble(rt_world *w, double *before);
void rt__stabilize_move(rt_world *w, double before);
/* After integration, `passes` times: moves the bodies by W J^T H~^-1 (-c)
 * with c at the new poses and J, W and H~ the step's own (no second
 * factorization), each pass kept only if it lowers the largest |c|. */
void rt__stabilize_project(rt_world *w, int passes, double before);
/* rt__stabilize_project in steps, for a batch that solves its copies'
 * systems in lanes: begun with its passes and before, each call of
 * rt__project_next does the projection's work up to its next solve and
 * returns 1 with its right-hand side in w->r, to be solved in place with
 * the step's factor (rt__block_solve) before the next call; 0 when the
 * projection is done. */
typedef struct rt__project {
  int pass, passes;
  int hold, held; /* the held motors held in the passes; in this one */
  int phase;      /* 0: a pass begins; 1: -c solved; 2: the held motors' response solved */
  double before;  /* the largest |c| before the pass */
} rt__project;
void rt__project_begin(rt__project *p, int passes, double before);
int rt__project_next(rt_world *w, rt__project *p);
/* The warm start's sums for the rows' impulses l with dv = W J^T l (every
 * row's, w->dvel in rt__rows_warm_start): num = l^T (rhs - J v) and
 * den = l^T J dv + the sum of gamma l^2 over soft rows, v = w->vel. */
void rt__rows_warm_sums(const rt_world *w, const double *dv, double *num, double *den);
/* The equality rows' error at the step's start (w->c) into w->start. */
void rt__rows_keep_start(rt_world *w);
/* After integration: the equality rows' error at the new poses less what
 * the step expected (w->expect) into w->drift: the curvature of the
 * motion, which the next step's velocity rows aim to cancel (rows.c); 0
 * unless measure (no projection follows: nothing to feed forward). The
 * error is left in w->c; returns its largest |c| (the `before` of
 * rt__stabilize_project, which starts from that w->c). When the last
 * step's projection kept no pass, this evaluation is likely the step's
 * last one, and it keeps J with c for the next step's rows (w->kept_*). */
double rt__stabilize_drift(rt_world *w, int measure);

/* worker.c */
/* Starts the thread (0), or -1 if it cannot be started, always under
 * LDLPGS_NO_THREADS. */
int rt__worker_start(rt_world *w);
void rt__worker_stop(rt_world *w);
/* Wakes a parked thread ahead of rt__worker_kick (cheap if it spins). */
void rt__worker_warm(rt_world *w);
/* The bodies' poses into the thread's w->worker.pose. */
void rt__worker_poses(rt_world *w);
/* Hands the thread the poses (rt__worker_poses) and the factorization. */
void rt__worker_kick(rt_world *w);
/* Settings changed: if the thread runs, whether it pays is measured again
 * soon (rt__pick_again). */
void rt__worker_again(rt_world *w);
/* Waits for the thread's factorization, or does it here if the thread has
 * not taken it. */
void rt__worker_wait(rt_world *w);
/* Whether the thread has finished the factorization it took. */
int rt__worker_done(rt_world *w);
/* Whether a step that may hand its factorization to the thread does
 * (rt_settings.threaded 2: always; 1: rt__pick_plan's on the steps since
 * the thread started), and in *timed whether the step is one of a
 * window's, whose time rt__worker_timed then takes. */
int rt__worker_plan(rt_world *w, int *timed);
/* A timed step's time (seconds) of its kind (handed: 1); the window's
 * last decides: the thread's steps are used while their median time is
 * 3 % below the single-threaded steps' or more. */
void rt__worker_timed(rt_world *w, int handed, double seconds);

/* snapshot.c: the state a step changes, saved before it and put back if it
 * fails. alloc: 0, or -1 if out of memory (free frees what there is). */
int rt__snapshot_alloc(rt_world *w, int nrow, int ncap);
void rt__snapshot_free(rt_world *w);
void rt__snapshot_save(rt_world *w);
void rt__snapshot_restore(rt_world *w);
/* The bodies' poses alone, as they were before the step. */
void rt__snapshot_restore_poses(rt_world *w);

/* validate.c: the runtime's input checks (1: valid). A joint's checks
 * beyond its type, indices, motor and limit fields (world.c) return NULL,
 * or what is wrong. */
int rt__validate_pose(const rt_pose *p);
int rt__validate_body(const rt_body_desc *b);
const char *rt__validate_joint(const rt_joint_desc *j, const rt_body_desc *bodies);
/* A driven rod's bounds: 0 <= lower <= length <= upper, length > 0. */
int rt__validate_drive_bounds(double length, double lower, double upper);

/* stiffness.c: the geometric stiffness of the equality joints (from the
 * last step's impulses, at the current poses) into w->gstiff; the solver
 * bodies' angular velocities at the start of the solve cut back so that
 * the added inertia brings in no energy of its own (after
 * rt__bodies_split); what it holds at the end of the velocity solve, into
 * w->gcarry (0 throughout without the stiffness). */
void rt__stiffness_compute(rt_world *w);
void rt__stiffness_bound(rt_world *w);
void rt__stiffness_carry(rt_world *w);

/* settings.c */
int rt__settings_valid(const rt_settings *s);

/* view.c: the solver view of a world without a program (malloc'd, one
 * block: free() it), or NULL if out of memory. */
rt_program *rt__view_build(const rt_world_desc *d);

#endif
