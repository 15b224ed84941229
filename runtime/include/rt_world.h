/* rt_world.h -- the numeric phase: a world of rigid bodies and constraints
 * stepped by the projected Gauss-Seidel impulse solver (PGS) or by LDL-PGS,
 * which replaces one PGS pass over the equality rows by a block Gauss-Seidel
 * step with the program's factorization of H~ (docs/DESIGN.md section 3).
 *
 * A world is made from a mechanism's numeric description (bodies, and
 * constraints with body-frame anchors and frames: rt_world_desc) and a
 * program (generated unrolled code, const tables, or one built in memory).
 * Creation checks that the program was compiled for this mechanism (its
 * structure hash) and allocates everything once: stepping never allocates.
 *
 * One step (semi-implicit Euler, rt_world_step):
 *   1. v += dt (g + F/m); w += dt I^-1 tau, then the gyroscopic term
 *      implicitly (one Newton step in the body frame); the joints'
 *      geometric stiffness under last step's loads joins the solver bodies'
 *      inertias (rt_settings.geometric_stiffness);
 *   2. every solver body (a shard of a shattered body: rt.h) takes its
 *      body's velocity; constraint rows are evaluated at the current poses:
 *      equality rows with the target R = -(beta/dt) c - drift/dt (the
 *      drift the last step's integration left, fed forward), of which the
 *      velocity row keeps at most max_bias and the position pass takes the
 *      rest (RT_CORRECT_SPLIT), motor rows with their target velocity;
 *   3. warm start: the impulses of the previous step, kept whole if they
 *      start the solve no worse than zero impulses would, else scaled down
 *      (rows.c: the solve can add no kinetic energy its targets do not ask
 *      for);
 *   4. LDL-PGS: the assembly of H~ = J W J^T + epsilon diag(J W J^T) and its
 *      factorization (rt_world_factor), then N-1 PGS sweeps (2 with
 *      contacts that S takes, or that the contact passes take and settled
 *      in the last step; none without contacts when S takes every row
 *      outside the block), then
 *      one block GS step on the equality rows, refined (rt_settings.refine),
 *      the joints' inequality rows solved against it through the Schur
 *      complement (coupled_rows) and the block step again, then passes of
 *      contacts and block step while the contacts settle
 *      (contact_passes); or, with RT_BLOCK_BEFORE_LAST, N-2 sweeps, the
 *      block step, one last sweep. PGS: N sweeps. With rt_settings.threaded
 *      the assembly and factorization run on a second thread from the end of
 *      1. on, beside 2., 3. and the sweeps;
 *   5. the position pass (RT_CORRECT_SPLIT): pseudo-velocities from zero
 *      impulses for the rest of the correction, which move the poses in
 *      this step only;
 *   6. every body takes the momentum-weighted mean of its shards' velocities
 *      (shards have equal masses and inertias, so the plain mean), then
 *      p += dt (v + pseudo-v), q += dt/2 (0, w + pseudo-w) q, normalized;
 *   7. LDL-PGS: the joints are projected back onto their positions with the
 *      step's factor (rt_settings.project) and, if asked, post-stabilized
 *      (rt_settings.stabilize); velocities untouched.
 * A step is atomic: one that fails leaves the world bitwise as it was.
 *
 * The split entry points let a game's job system run the factorization
 * itself: rt_world_step_begin, then rt_world_factor and rt_world_iterate
 * concurrently (they touch disjoint data), then rt_world_step_end. Results
 * are identical to rt_world_step's, threaded or not. (rt_world_factor
 * assembles from the rows step_begin built, which both threads then read;
 * rt_world_step's own thread evaluates the equality rows again from the
 * poses instead, which costs the stepping thread less: worker.c.) */
#ifndef LDLPGS_RT_WORLD_H
#define LDLPGS_RT_WORLD_H

#include <stddef.h>

#include "rt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Collision shapes, centred on the body's centre of mass in its frame. */
typedef enum rt_shape {
  RT_SHAPE_NONE = 0,
  RT_SHAPE_SPHERE,   /* size[0] = radius */
  RT_SHAPE_BOX,      /* size = full side lengths along body x, y, z */
  RT_SHAPE_CYLINDER, /* size[0] = radius, size[1] = length along body z */
  RT_SHAPE_CAPSULE   /* size[0] = radius, size[1] = segment length along body z */
} rt_shape;

/* A body as the world starts it. fixed bodies never move (their mass and
 * inertia are ignored). */
typedef struct rt_body_desc {
  double mass;           /* kg, > 0 unless fixed */
  double inertia[3];     /* principal moments in the body frame, > 0 */
  rt_pose pose;          /* centre of mass and orientation */
  double vel[3];         /* world-frame linear velocity */
  double angvel[3];      /* world-frame angular velocity */
  int fixed;
  rt_shape shape;        /* for rt_world_ground_contacts, rt_world_body_contacts */
  double shape_size[3];
  double friction;       /* friction coefficient of the shape, >= 0 */
} rt_body_desc;

/* A contact found by collision detection, fed in before a step
 * (rt_world_set_contacts). The normal points from b towards a (for a body
 * a on the ground, b = RT_WORLD and normal = up); depth > 0 is penetration,
 * depth < 0 a gap (a speculative contact: the bodies may approach by the
 * gap within the step, no further). */
typedef struct rt_contact {
  int body_a, body_b;    /* mechanism bodies or RT_WORLD */
  double point[3];       /* world frame */
  double normal[3];      /* unit */
  double depth;          /* m */
  double friction;       /* coefficient mu >= 0 */
  unsigned feature;      /* identifies the contact frame to frame (with the
                            bodies), for warm starting */
} rt_contact;

/* A motor drives the joint it names (rt_joint_desc.target, a hinge,
 * prismatic or cylindrical joint) towards a relative velocity: rotation
 * about the axis for a hinge or cylindrical joint (rad/s), sliding along it
 * for a prismatic joint (m/s), with an impulse bounded by max_force * dt. */

/* The mechanism: bodies and constraints in mechanism order (the order the
 * program's structure hash and cons_joint refer to). Equality joints use
 * the geometry fields of rt_joint_desc; motors use type, target, speed and
 * max_force (their bodies and geometry are the target's). */
typedef struct rt_world_desc {
  int nbody;
  const rt_body_desc *bodies;
  int njoint;
  const rt_joint_desc *joints;
} rt_world_desc;

typedef enum rt_solver { RT_SOLVER_PGS = 0, RT_SOLVER_LDLPGS = 1 } rt_solver;

/* Where LDL-PGS places its block step among the N iterations. */
typedef enum rt_block_at {
  RT_BLOCK_LAST = 0,       /* N-1 PGS sweeps, then the block step */
  RT_BLOCK_BEFORE_LAST = 1 /* N-2 sweeps, the block step, one last sweep */
} rt_block_at;

/* How LDL-PGS solves its block step's system H~ delta = R - J V
 * (docs/DESIGN.md section 8). */
typedef enum rt_block_solver {
  RT_BLOCK_LDL = 0, /* the program's factor (plus rt_settings.refine steps) */
  RT_BLOCK_PCR = 1  /* preconditioned conjugate residual, matrix-free: no
                       factor, no program needed */
} rt_block_solver;

/* The largest rt_settings.refine. */

/* How positional drift (joints apart, contacts penetrating, limits
 * overrun) is corrected. */
typedef enum rt_correction {
  RT_CORRECT_SPLIT = 0,    /* split impulses: the velocity solve keeps at most
                              max_bias of the correction beta c / dt (which
                              gives back the energy that projecting the
                              velocities loses on curved motion); a second,
                              position pass solves for pseudo-velocities that
                              remove the rest (from zero impulses every step;
                              LDL-PGS: one more block solve with the step's
                              factor); they move the poses in this step and
                              are then dropped, so a large drift adds no
                              velocity and the warm start carries none of it */
  RT_CORRECT_BAUMGARTE = 1 /* the correction as a velocity bias -(beta/dt) c in
                              the one solve (the scheme before split impulses:
                              it stays in the velocities and in the impulses
                              warm-started next step, which can pump energy) */
} rt_correction;

/* The largest rt_settings.max_contacts. */
#define RT_MAX_CONTACTS 1000000

typedef struct rt_settings {
  double dt;             /* s, > 0 */
  double gravity[3];     /* m/s^2 */
  int iterations;        /* N >= 1 */
  double beta;           /* position drift correction in [0, 1] */
  double epsilon;        /* regularization of H (and of PGS diagonals), >= 0 */
  rt_solver solver;
  rt_block_at block_at;
  int threaded;          /* 0, 1 or RT_THREADED_ALWAYS (2). 1: rt_world_step
                            assembles and factors H~ on the world's own
                            thread, which evaluates the equality rows
                            itself from the poses, while the stepping
                            thread builds the rows and sweeps; the thread
                            spins up to 200 us for the next step before it
                            sleeps, and the stepping thread factors itself
                            if the thread has not started by the end of the
                            sweeps (worker.c); a mechanism whose assembly
                            and factorization are under 4k multiply-adds is
                            stepped on one thread (the hand-off would cost
                            more: step.c), and so are the others while the
                            hand-off measures slower than one thread: the
                            steps are timed, alternating, 16 of each kind
                            every 2048 steps from the 32nd, and 256 steps
                            after the last window began once settings are
                            set (rt_world_set_settings; rt_step_info.
                            factor_thread says which kind a step was; both
                            give the same bits). RT_THREADED_ALWAYS: the
                            thread whenever the mechanism is over 4k,
                            unmeasured */
  int max_contacts;      /* capacity for contacts; read at creation only */
  double restitution;    /* of contacts, in [0, 1]; default 0 (off) */
  double contact_slop;   /* penetration left uncorrected (m), >= 0 */
  int stabilize;         /* LDL-PGS: 1 to project the equality joints back onto
                            their positions after integrating (one Newton step
                            through the step's factorization, velocities
                            untouched: post-stabilization); default 0 */
  rt_correction correction; /* default RT_CORRECT_SPLIT */
  double max_bias;       /* RT_CORRECT_SPLIT: the largest correction the
                            velocity solve makes (m/s, rad/s for angular
                            rows), >= 0; default 0.05 */
  int project;           /* LDL-PGS: passes of projection after integrating,
                            with the step's own factor: the bodies move by
                            W J^T H~^-1 (-c), c the equality joints' error at
                            the new poses, J, W, H~ the step's (a solve and an
                            evaluation of c per pass, no factorization), a pass
                            kept only if it lowers the largest |c|, none once
                            it is below 1e-7; in [0, RT_MAX_REFINE]; default
                            8; velocities untouched. With it (or stabilize)
                            the drift the integration left is fed forward:
                            the next step's velocity rows aim to cancel it
                            (within max_bias), which keeps the energy that
                            projecting positions alone would take from
                            curved motion */
  int contact_passes;    /* LDL-PGS with rows outside the block (contacts,
                            limits, motors): after the block step, at most
                            this many passes of a sweep over those rows and
                            the block step again, while a sweep still changes
                            a row's velocity by more than 1 mm/s (a light
                            wheel under a heavy load is otherwise pushed out
                            by its contact and pulled back by the block step
                            every step, and never comes to rest); in
                            [0, RT_MAX_CONTACT_PASSES]; default 24 */
  int geometric_stiffness; /* 1 (default): a solver body's inertia includes
                            the geometric stiffness of its joints under load
                            (the last step's impulses; stiffness.c), so a
                            light link between heavily loaded joints does not
                            swing out of line; 0: off */
  int refine;            /* LDL-PGS: passes of iterative refinement after the
                            block step, each a residual R - J V in double
                            through the rows (with H = J W J^T, unregularized)
                            and one more solve with the step's factor, in
                            [0, RT_MAX_REFINE]; default 1. They take out what
                            the regularization epsilon leaves (its error grows
                            with the mass ratio the rows see) and a float
                            program's rounding (README, "Precision presets") */
  /* the block solver (docs/DESIGN.md section 8) */
  rt_block_solver block_solver; /* default RT_BLOCK_LDL; a world created
                            without a program always uses RT_BLOCK_PCR */
  double pcr_tolerance;  /* RT_BLOCK_PCR: stop at this relative residual
                            ||R - J V - H~ delta|| / ||R - J V||, >= 0;
                            default 1e-6 */
  int pcr_max_iterations; /* RT_BLOCK_PCR: iteration cap, >= 0; 0 means the
                            number of equality rows; default 1000 (the
                            scissor lift needs about 770 a step: README,
                            "Precision presets"); a capped solve still
                            lowers the residual, less */
  int coupled_rows;      /* LDL-PGS with the factor: the most joint rows
                            outside the block (motors, springs, ropes and
                            limits near their bounds; not contacts) solved
                            against it
                            through the Schur complement of the equality
                            rows after the block step (schur.c: one solve
                            with the step's factor per row, then a small
                            dense problem), so a limit at its stop is as
                            stiff as a joint and a motor with the force to
                            hold a load holds it; rows beyond it keep the
                            contact passes; in [0, RT_MAX_COUPLED_ROWS];
                            0: none; default 16 */
  int coupled_contacts;  /* LDL-PGS with the factor: a step with at most
                            this many contacts solves all of them (each its
                            normal and two friction rows) against the block
                            with the coupled rows, so a light wheel under a
                            heavy load meets the load's effective mass at
                            once instead of over many contact passes;
                            friction's bound follows the normal impulse; a
                            step with more leaves them all to the contact
                            passes; in [0, RT_MAX_COUPLED_CONTACTS]; 0: none;
                            default 16. The world holds columns for at most
                            min(max_contacts, RT_MAX_COUPLED_CONTACTS) of
                            them, fewer on a mechanism so large that they
                            would take over 16 MiB (3 (8 dim + 4 pivots)
                            bytes each) */
} rt_settings;

/* rt_settings.threaded: the factorization thread in every step (of a
 * mechanism over 4k multiply-adds), not only while it measures faster. */
#define RT_THREADED_ALWAYS 2
/* The largest rt_settings.refine and project. */
#define RT_MAX_REFINE 100
/* The largest rt_settings.contact_passes. */
#define RT_MAX_CONTACT_PASSES 64
/* The largest rt_settings.coupled_rows. */
#define RT_MAX_COUPLED_ROWS 128
/* The largest rt_settings.coupled_contacts. */
#define RT_MAX_COUPLED_CONTACTS 64

/* dt 1/60, gravity (0, 0, -9.81), 10 iterations, beta 0.2, epsilon 1e-6,
 * LDL-PGS with the block step last, single-threaded, 256 contacts,
 * restitution 0, contact slop 1 mm, no post-stabilization, split correction
 * with max_bias 0.05, one pass of refinement (the block solved with the program's factor; PCR:
 * tolerance 1e-6, at most 1000 iterations), 8 passes of projection and 24
 * contact passes at most, geometric stiffness, 16 joint rows and 16
 * contacts coupled to the block. */
void rt_settings_default(rt_settings *s);

typedef struct rt_world rt_world;

typedef enum rt_status {
  RT_OK = 0,
  RT_ERR_INPUT,      /* invalid description, settings or argument */
  RT_ERR_HASH,       /* the program was compiled for another mechanism */
  RT_ERR_NOMEM,
  RT_ERR_THREAD,     /* the factorization thread could not be started */
  RT_ERR_NONFINITE,  /* non-finite state, force or setting: step refused
                        before it changed anything (the setters refuse such
                        input, so only a world written past them sees it) */
  RT_ERR_DIVERGED    /* the step produced a non-finite state: it was undone,
                        and the world is bitwise as it was before the step
                        (bodies, pending forces, impulses, contacts, driven
                        rods' lengths, step info): step again with a
                        smaller dt or load */
} rt_status;

/* A message for a status ("the program was compiled for another mechanism"...). */
const char *rt_status_message(rt_status s);

/* Creates a world. On failure returns NULL, *status (if not NULL) says why
 * and err (if not NULL, errlen > 0) receives a one-line explanation. The
 * program and desc need not outlive the call except the program, which the
 * world keeps using. Refused:
 *   RT_ERR_HASH   the program was made for another mechanism: its body
 *                 count differs, its structure hash differs, or a solver
 *                 constraint does not match the description;
 *   RT_ERR_INPUT  a NULL description or settings; invalid settings (rt_world_set_settings);
 *                 a body whose pose, velocities, mass or inertia (unless
 *                 fixed), shape sizes or friction are not finite, whose
 *                 rotation is not a unit quaternion within 1e-6 (|q.q - 1|),
 *                 mass or a moment of inertia <= 0, shape not one of
 *                 rt_shape or a size <= 0, friction < 0; a joint of an
 *                 unknown type, on a body index out of range, between a
 *                 body and itself or two fixed bodies, with a non-finite
 *                 anchor, frames (hinge, prismatic, cylindrical, universal,
 *                 weld) that are not orthonormal within 1e-6; a rod whose
 *                 length is not finite and > 0, or -- driven, speed != 0 --
 *                 whose bounds are not 0 <= lower <= length <= upper (e.g.
 *                 both 0); a rope whose length is not > 0; a motor whose
 *                 target is not a hinge, cylindrical or prismatic joint, or
 *                 whose speed or max_force is not finite, max_force < 0; a
 *                 limit whose target does not fit, lower > upper or NaN;
 *   RT_ERR_NOMEM, RT_ERR_THREAD.
 *
 * program may be NULL: the world then makes a solver view of its own (every
 * body whole, the equality joints in mechanism order) and, having no factor,
 * solves its block step with PCR whatever settings->block_solver says
 * (rt_world_settings shows RT_BLOCK_PCR, and so does every
 * rt_world_set_settings; refine is unused). It steps every mechanism, slower
 * where H is stiff or redundant (README, "Precision presets"). */
rt_world *rt_world_create(const rt_world_desc *desc, const rt_program *program,
                          const rt_settings *settings, rt_status *status, char *err, size_t errlen);
void rt_world_destroy(rt_world *w);

/* Settings may change between steps (rt_world_set_settings validates them:
 * RT_ERR_INPUT unless dt > 0, gravity, beta, epsilon, contact_slop and
 * max_bias finite, iterations >= 1, beta in [0, 1], epsilon >= 0,
 * restitution in [0, 1], contact_slop >= 0, max_bias >= 0, the enums in
 * range, stabilize 0 or 1, and max_contacts unchanged; switching `threaded`
 * on starts the thread: RT_ERR_THREAD if it cannot. A refused call leaves
 * the settings as they were). */
const rt_settings *rt_world_settings(const rt_world *w);
rt_status rt_world_set_settings(rt_world *w, const rt_settings *s);

/*---- stepping -------------------------------------------------------------*/
rt_status rt_world_step(rt_world *w);

/* The same step in parts, for a job system:
 *   rt_world_step_begin(w);           forces, rows, warm start
 *   rt_world_factor(w);               \  may run concurrently (factor:
 *                                         assembly and factorization of H~)
 *   rt_world_iterate(w);              /
 *   rt_world_step_end(w);             block step, last sweep, integration
 * rt_world_factor does nothing under RT_SOLVER_PGS. If begin fails, do not
 * call the others. */
rt_status rt_world_step_begin(rt_world *w);
void rt_world_factor(rt_world *w);
void rt_world_iterate(rt_world *w);
rt_status rt_world_step_end(rt_world *w);

/* What the last step did. */
typedef struct rt_step_info {
  int factor_status;     /* -1 factored; else the pivot that was not positive
                            definite (the block step was replaced by a sweep);
                            -2 no factorization (PGS, or the PCR block
                            solver) */
  int rows;              /* constraint rows solved (equality + motors) */
  int sweeps;            /* PGS sweeps run (LDL-PGS's before the block step
                            take, from the second on, only the rows outside
                            it when S couples every one of them) */
  double warm_start;     /* the scale s in [0, 1] of last step's impulses the
                            solve started from (rows.c) */
  long long steps;       /* steps taken since creation (failed ones are not) */
  int projections;       /* projection passes the last step kept */
  int contact_passes;    /* contact passes the last step ran */
  /* appended (docs/DESIGN.md section 8) */
  int refine_steps;      /* refinement steps the block solve kept */
  int pcr_iterations;    /* RT_BLOCK_PCR: iterations of the block solve */
  double block_residual; /* RT_BLOCK_PCR: relative residual the block solve
                            reached; NAN otherwise (refinement does not
                            measure its last step) */
  int coupled_rows;      /* rows solved against the block (schur.c) */
  int coupled_sweeps;    /* passes of the active-set method on them (and
                            sweeps, if its cap stopped it) */
  int program_sweeps;    /* sweeps (of sweeps, and of the position pass)
                            whose equality rows the program's generated
                            sweep ran (rt_program.sweep); the others ran
                            the runtime's generic sweep, with the same bits */
  int factor_thread;     /* 1: the step handed its factorization to the
                            world's thread (rt_settings.threaded) */
} rt_step_info;
const rt_step_info *rt_world_step_info(const rt_world *w);

/*---- state and control ----------------------------------------------------
 * Every setter checks its input and returns RT_ERR_INPUT, leaving the world
 * untouched, for a body or joint index out of range or of the wrong kind,
 * or a number that is not finite. Accessors given a bad index return
 * RT_ERR_INPUT (leaving their outputs untouched), -1 or NaN, as stated;
 * they never read out of bounds. */
int rt_world_body_count(const rt_world *w);
/* RT_ERR_INPUT if body is out of range or out is NULL. */
rt_status rt_world_body_pose(const rt_world *w, int body, rt_pose *out);
/* RT_ERR_INPUT if body is out of range. */
rt_status rt_world_body_velocity(const rt_world *w, int body, double vel[3], double angvel[3]);
/* Sets a body's state (any of pose, vel, angvel may be NULL: kept).
 * RT_ERR_INPUT if body is out of range, a value is not finite or the
 * rotation is not a unit quaternion within 1e-6 (|q.q - 1|). Fixed bodies
 * ignore it (RT_OK). */
rt_status rt_world_set_body_state(rt_world *w, int body, const rt_pose *pose, const double vel[3],
                                  const double angvel[3]);
/* Adds a force through the centre of mass and a torque (world frame) for the
 * next step only (either may be NULL). RT_ERR_INPUT if body is out of range
 * or a value -- or the sum with what was added before -- is not finite. A
 * step that fails keeps them for the next try. */
rt_status rt_world_add_force(rt_world *w, int body, const double force[3], const double torque[3]);
/* Changes a motor's target velocity and maximum force (joint: its index in
 * the description). Returns RT_ERR_INPUT if joint is not a motor or
 * max_force < 0 or either is not finite. */
rt_status rt_world_set_motor(rt_world *w, int joint, double speed, double max_force);
/* A motor's current maximum force (0 for other joints; NaN for an index
 * out of range). */
double rt_world_motor_max_force(const rt_world *w, int joint);
/* A motor's current target velocity (rad/s or m/s: its description's speed
 * until rt_world_set_motor changes it; 0 for other joints; NaN for an index
 * out of range). */
double rt_world_motor_speed(const rt_world *w, int joint);
/* The impulse the last step applied through a motor, limit, rope or spring (N s,
 * or N m s); 0 for other joints; NaN for an index out of range. */
double rt_world_motor_impulse(const rt_world *w, int joint);
/* A driven rod (a linear actuator: an equality row, solved with the rest of
 * H): its length changes by speed * dt at the start of every step, within
 * [lower, upper] of its description. A drive whose rod starts a step more
 * than speed * dt short of its length (the mechanism does not allow the
 * length) stalls: it stops, and holds the length the rod has, until its
 * speed is set to another value here. Returns RT_ERR_INPUT if joint is not a
 * rod, speed is not finite, or speed != 0 and the rod's bounds are not
 * 0 <= lower <= length <= upper. */
rt_status rt_world_set_drive(rt_world *w, int joint, double speed);
/* 1 if joint is a driven rod whose drive has stalled (rt_world_set_drive),
 * else 0 (-1 for an index out of range). */
int rt_world_drive_stalled(const rt_world *w, int joint);
/* Current rest length of a rod or rope (0 for other joints; NaN for an
 * index out of range). */
double rt_world_joint_length(const rt_world *w, int joint);
/* The impulse the last step applied along a rod, driven or not (N s;
 * positive pushes its anchors apart); 0 for other joints; NaN for an index
 * out of range. */
double rt_world_rod_impulse(const rt_world *w, int joint);

/*---- contacts -------------------------------------------------------------------
 * Contacts change every step and never enter the program: each is one normal
 * row (impulse >= 0) and two friction rows (|impulse| <= mu * normal
 * impulse, the box approximation of the friction cone), solved by PGS after
 * the equality and motor rows. A contact on a shattered body acts on its
 * first shard. */

/* Replaces the contacts for the next step (at most max_contacts; more is
 * RT_ERR_INPUT, as are non-finite values, a non-unit normal or bad bodies).
 * Impulses of contacts with the same bodies and feature as in the last step
 * are kept for warm starting. */
rt_status rt_world_set_contacts(rt_world *w, const rt_contact *contacts, int n);
int rt_world_contact_count(const rt_world *w);
/* Normal impulse of contact i in the last step (N s); NaN for an index
 * out of range. */
double rt_world_contact_impulse(const rt_world *w, int i);

/* Contacts of every body's shape with the ground plane z = height (normal
 * +z), for points closer than margin: sphere, box (corners), cylinder (the
 * lowest rim point of each end cap; four rim points per cap when standing
 * upright), capsule (its two end spheres). mu is the geometric mean of the
 * body's and the ground's friction. Writes at most cap contacts and returns
 * how many it found (which may exceed cap; out NULL or cap <= 0: it only
 * counts). */
int rt_world_ground_contacts(const rt_world *w, double height, double friction, double margin, rt_contact *out,
                             int cap);

/* Contacts between the shapes of two bodies that no joint connects, for
 * points closer than margin, in a fixed order: sphere against box, and
 * cylinder against box when the cylinder's axis lies within 5 degrees of a
 * box axis (a wheel on a plate: two points, at the ends of their overlap
 * along the axis). body_a is the round shape, body_b the box; mu is the
 * geometric mean of their frictions. Other pairs (box-box, cylinder-cylinder,
 * capsules, tilted cylinders) are not detected: that is the game's collision
 * detection. Writes at most cap contacts and returns how many it found (out
 * NULL or cap <= 0: it only counts). */
int rt_world_body_contacts(const rt_world *w, double margin, rt_contact *out, int cap);

/*---- measures ---------------------------------------------------------------*/
/* Error of equality joint j at the current poses: pos (m) is the norm of its
 * positional rows (the distance between the two anchor points for ball,
 * hinge, universal and weld joints; the off-axis distance for prismatic and
 * cylindrical joints; | |d| - length | for a rod); ang (rad) the largest
 * angular deviation among its angular rows. Returns -1 for a non-equality
 * joint or an index out of range (pos, ang set to 0). */
int rt_world_joint_error(const rt_world *w, int joint, double *pos, double *ang);
/* Largest errors over all equality joints. */
void rt_world_max_error(const rt_world *w, double *pos, double *ang);
/* Kinetic energy (linear + rotational) of the dynamic bodies, and their
 * potential energy -m g.p plus the springs' 1/2 stiffness (q - rest)^2 (J). */
void rt_world_energy(const rt_world *w, double *kinetic, double *potential);

#ifdef __cplusplus
}
#endif

#endif
