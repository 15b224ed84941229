/* step.c -- the one place that says what a step does, in order
 * (docs/DESIGN.md section 2). Each stage is a module that works on the
 * world's state (world.h) and calls nothing back here:
 *
 *   1. forces        bodies.c    gravity, applied forces and torques, the
 *                                gyroscopic term; driven rods' lengths (rows.c);
 *                    stiffness.c the joints' geometric stiffness
 *   -- kick          worker.c    (threaded) the factorization thread takes
 *                                the poses and builds and factors H~ itself
 *   2. rows          bodies.c    solver bodies (shards) take their bodies'
 *                                velocities and masses
 *                    stiffness.c less any spin the added inertia would
 *                                make energy of
 *                    rows.c      equality rows, motors, limits, ropes
 *                    contact.c   contact rows
 *                    rows.c      W J^T, inverse diagonals
 *   3. warm start    rows.c      last step's impulses within this step's bounds
 *   4. factor        factor.c    assembly of H~ and its factorization
 *   5. sweeps        pgs.c       N-1 PGS sweeps (N-2 with the block step
 *                                before the last sweep; N under pure PGS;
 *                                fewer, from the second on over the rows
 *                                outside the block, when S couples all of
 *                                those; two when contacts left to the
 *                                contact passes settled in the last step)
 *   6. block step    block.c     delta = H~^-1 (R - J V) on the equality rows,
 *                                refined (rt_settings.refine): the factor's
 *                                solve, or PCR, which needs no factor (then 4
 *                                is void);
 *                    schur.c     the joints' rows outside the block (motors,
 *                                springs, ropes, limits) solved against it
 *                                through the Schur complement, and the block
 *                                step again; then the contact passes
 *                    stiffness.c what the added inertia holds, for the
 *                                next step
 *   7. position pass pgs.c,      (split correction) pseudo-velocities from
 *                    block.c     zero that remove beta of the drift: sweeps
 *                                (LDL-PGS: over the rows outside the block,
 *                                then the block step with the same factor);
 *                                none when no row has a target
 *   8. integration   contact.c   impulses kept for the next step's warm start
 *                    bodies.c    bodies take their shards' mean velocity,
 *                                then semi-implicit Euler with the velocity
 *                                plus the pseudo-velocity (without it, if
 *                                it left the joints further apart)
 *   9. stabilization stabilize.c the drift the integration left (fed forward
 *                                to the next step's velocity rows), then the
 *                                joints meet again at the new poses: passes
 *                                of projection with the step's factor
 *                                (rt_settings.project) and, optionally,
 *                                post-stabilization with a new one
 *
 * A step is atomic: rt_world_step_begin saves what the step will change
 * that outlives it (snapshot.c), and a step that ends with a state that is
 * not finite puts it all back (RT_ERR_DIVERGED).
 *
 * rt_world_step runs them all; rt_world_step_begin (1-3), rt_world_factor
 * (4), rt_world_iterate (5) and rt_world_step_end (6-9) let a job system
 * run 4 beside 5, with the same bits. */
#include <math.h>
#include <string.h>

#include "rtmath.h"
#include "world.h"

static int use_block(const rt_world *w) { return w->set.solver == RT_SOLVER_LDLPGS; }

/* The block step solves with the program's factor (not with PCR, which
 * needs none: docs/DESIGN.md section 8). */
static int use_factor(const rt_world *w) { return use_block(w) && w->set.block_solver == RT_BLOCK_LDL; }

/* Whether the block step has what it needs: a factor, or none needed. */
static int block_ready(const rt_world *w) { return w->info.factor_status == -1 || (use_block(w) && !use_factor(w)); }

/* PGS sweeps before the block step (all N sweeps under pure PGS). Fewer
 * when every row outside the block will be coupled to it through S
 * (rt__schur_covers): the block step and S's exact solve then give the
 * same impulses from wherever sweeps would have left them. Without
 * contacts none (a chain or a Stewart platform: measured, the same joint
 * errors, motor slip and energy to two digits at 25-40 % less a step);
 * with contacts RT__FRICTION_START_SWEEPS, because friction's boxes follow
 * the normals and the friction loop's answer depends on where it starts
 * (the sample car with none: a hold slip of 8 mrad and a limit overrun by
 * 2.2 mm; with 1, 2 or 9 under 0.7 mrad and 0.011 mm), the second over
 * the rows outside the block only (sweep_from). With contacts that S
 * does not couple (more than coupled_contacts) also only
 * RT__FRICTION_START_SWEEPS, both over all rows, when the contact passes
 * follow the block step (rt__step_contact_passes) and the last step's
 * passes took no block step (its contacts settled at their first sweep):
 * the passes would settle what the other N - 3 sweeps refine (the sample
 * multi_wheel, 28 contacts, standing: 646k -> 491k instructions a step
 * over 10 s of ldlsim, its largest joint error 5.6e-8 -> 8.0e-8 m). Not after
 * a step whose passes took block steps: contacts that do not settle
 * within the passes (the tank's: its passes reach their cap in most
 * steps) need the sweeps too -- with two sweeps in every step the tank's
 * tracks slipped on the ground, and it drove 15.9 m instead of 16.8 in
 * 20 s of a steady 3 rad/s (mechanisms/convoy/tank1.drive). If the
 * factorization then fails, the sweeps run in its place
 * (rt__step_end_finish). */
#define RT__FRICTION_START_SWEEPS 2
static int sweeps_before(const rt_world *w) {
  const int n = w->set.iterations;
  if (!use_block(w)) return n;
  if (w->set.block_at == RT_BLOCK_BEFORE_LAST && n >= 2) return n - 2;
  const int start = n - 1 < RT__FRICTION_START_SWEEPS ? n - 1 : RT__FRICTION_START_SWEEPS;
  if (use_factor(w) && rt__schur_covers(w)) return w->ncontact == 0 ? 0 : start;
  return w->ncontact > 0 && w->set.contact_passes > 0 && w->info.contact_passes == 0 ? start : n - 1;
}

/* The first row that the sweeps after the first before the block step
 * take: 0, or, when they only give friction a start (every row outside
 * the block coupled through S, with contacts), the first row outside the
 * block. The block step and S solve the equality rows exactly from
 * wherever the sweeps leave them; one sweep over them hands the contacts
 * their joints' response (the weight a wheel carries), and more only
 * refine what the block step computes anyway. Measured (instructions a
 * step over 200 steps, stepcg --run): both sweeps over all rows, lift
 * 955k, car 229k, buggy 171k; the first only, 927k, 228k, 169k; neither,
 * 903k, 249k, 164k -- the car's contacts then no longer settle within the
 * block step (schur.c) and S couples them in every step. Joint errors,
 * slips and limits the same to two digits (ldlsim --json with the drive
 * scripts). */
static int sweep_from(const rt_world *w) {
  return use_factor(w) && w->set.block_at == RT_BLOCK_LAST && w->ncontact > 0 && rt__schur_covers(w) ? w->dim : 0;
}

int rt__step_factors(const rt_world *w) { return use_factor(w); }
int rt__step_sweeps(const rt_world *w) { return sweeps_before(w); }
int rt__step_sweep_from(const rt_world *w) { return sweep_from(w); }

/* Stages 1-3; with kick, the thread takes the factorization as soon as the
 * poses and joints are final for the step (after the forces and drives):
 * from there to step_end nothing writes what it reads (the forces write
 * velocities only, the drives the rods' lengths), so it builds H~ while the
 * rows are built. */
static rt_status step_begin(rt_world *w, int kick) {
  if (!rt__settings_valid(&w->set) || !rt__bodies_finite(w)) return RT_ERR_NONFINITE; /* nothing changed */
  rt__snapshot_save(w);
  w->info.factor_status = -2;
  w->info.sweeps = 0;
  w->info.refine_steps = w->info.pcr_iterations = 0;
  w->info.block_residual = NAN;
  w->info.coupled_rows = w->info.coupled_sweeps = 0;
  w->info.program_sweeps = 0;
  w->info.factor_thread = 0;
  w->schur.k = 0;
  rt__bodies_apply_forces(w);
  rt__rows_drive(w);
  if (w->set.geometric_stiffness) rt__stiffness_compute(w);
  if (kick) rt__worker_kick(w);
  rt__bodies_split(w);
  if (w->set.geometric_stiffness) rt__stiffness_bound(w);
  rt__rows_build(w);
  rt__contact_rows(w);
  w->info.rows = w->rows.n;
  rt__rows_masses(w, w->rows.n);
  rt__rows_warm_start(w);
  w->sweep_fits = -1; /* checked by the step's first sweep, if it has one */
  return RT_OK;
}

rt_status rt_world_step_begin(rt_world *w) { return step_begin(w, 0); }

/* Assembly and factorization read only J and W J^T of the equality rows,
 * which the sweeps leave alone, so they can run beside rt_world_iterate. */
void rt_world_factor(rt_world *w) {
  if (use_factor(w)) rt__factor_rows(w, w->rows.J, w->rows.WJ);
}

/* One sweep over all rows: the equality rows by the program's generated
 * sweep when it fits the step's rows, else generically; the same bits
 * (pgs.c). The rows' sides, bounds and inverse diagonals are final from
 * step_begin on, so the first sweep of the step checks them for all (a
 * step without sweeps -- LDL-PGS with every row outside the block coupled
 * -- pays no check). */
static void sweep(rt_world *w) {
  if (w->sweep_fits < 0) w->sweep_fits = rt__pgs_program_fits(w->prog, &w->rows);
  rt__pgs_sweep_program(w->prog, w->sweep_fits, &w->rows, w->vel);
  w->info.program_sweeps += w->sweep_fits;
}

/* Whether the step's first block step will be split around S, as far as
 * is known before its factor (rt__step_split_block, but for the factor's
 * success: threaded or not, the sweeps are the same). */
static int split_expected(const rt_world *w) {
  return use_factor(w) && w->set.refine >= 1 && rt__block_splits(w) && rt__schur_expects(w);
}

/* Whether the step will couple its contacts through S, around which its
 * first block step's solve is split. */
static int contacts_to_s(const rt_world *w) { return w->ncontact > 0 && split_expected(w); }

/* Sweep k before the block step: all rows, or those from sweep_from --
 * the first sweep too when the contacts go to S (contacts_to_s), which
 * solves them with the equality rows exactly: the first sweep's joints'
 * response, which lets contacts settle without S, buys nothing there
 * (make bench-cg's window: the lift 647k -> 623k instructions a step, its
 * generated sweep no longer run; ldlsim --json with the drive scripts,
 * 10 s, with the split's RT__SPLIT_RUN 3: the buggy's held motors slip
 * 1.9e-6 rad instead of 1.8e-6, the car's 2.1e-7 instead of 3.8e-7 -- a
 * figure that moves by chance with any change -- the others the same to
 * three digits). */
static void sweep_before(rt_world *w, int k, int from) {
  if (from == 0 || (k == 0 && !contacts_to_s(w)))
    sweep(w);
  else
    rt__pgs_sweep(&w->rows, from, w->rows.n, w->vel);
}

void rt_world_iterate(rt_world *w) {
  const int n = sweeps_before(w), from = sweep_from(w);
  for (int k = 0; k < n; k++) sweep_before(w, k, from);
  w->info.sweeps = n;
}

/* rt_world_iterate on the threaded path. The factor the thread wrote is in
 * the other core's cache, or in the shared one (the thread demotes it:
 * worker.c): read line by line by the block step it cost up to 3.5 us more
 * than a factor in this core's cache (scissor_lift, 36 KiB). So if the
 * thread is done by the last sweep, that sweep prefetches the factor into
 * this core's L2 slice by slice, and the transfer overlaps the sweep. */
static void iterate_threaded(rt_world *w) {
  const int n = sweeps_before(w), from = sweep_from(w);
  for (int k = 0; k < n - 1; k++) sweep_before(w, k, from);
  if (n > 0) rt__pgs_sweep_prefetch(&w->rows, n > 1 ? from : 0, w->vel, rt__worker_done(w) ? w->work : NULL, w->work_bytes);
  w->info.sweeps = n;
}

/* After the block step: the joints' rows outside it that take part, up to
 * coupled_rows of them, and the first coupled_contacts contacts, solved
 * against it through the Schur complement of the equality rows
 * (schur.c); the block step again is the caller's. Only with the factor:
 * each coupled row costs a partial forward solve with it (PCR would cost a
 * whole solve of its own per row). Returns whether it coupled any. */
static int couple_schur(rt_world *w) {
  if (!use_factor(w) || (w->set.coupled_rows == 0 && w->set.coupled_contacts == 0) || rt__schur_build(w, NULL) == 0) return 0;
  w->info.coupled_rows = w->schur.k;
  w->info.coupled_sweeps += rt__schur_step(w, &w->rows, w->vel);
  return 1;
}

/* After the block step: while the rows outside the block (contacts,
 * limits, motors) are not settled, a sweep over them and the block step
 * again, at most contact_passes times. A block step leaves those rows
 * unsatisfied by whatever it changed: a light wheel under a heavy load is
 * pushed out of the ground by its contact, the block step pulls it back
 * with the chassis, and with one pass the two undo each other every step
 * -- the sample scissor lift never came to rest (its platform swayed by
 * +-0.5 m with up to 1 kJ of kinetic energy, 10 or 40 iterations alike);
 * each pass takes the rows a step further (measured, 30 s: the lift's
 * kinetic energy 5.6e-5 J at the end, 6.2 passes a step on average while
 * it rose and settled; the tank 4.1, multi_wheel 0.1, the buggy 0.2).
 *
 * The rows coupled through S (motors, limits; contacts, when all of them
 * are) take part in the first sweep only: once a pass goes on, the passes
 * leave them to S, which solves them again after the last pass
 * (rt__step_contacts_done). A sweep moves a coupled row by its own
 * diagonal, which knows nothing of the block, and the next block step
 * undoes most of it: the sample tank's drive motors and track contacts
 * pulled on each other through all 24 passes of every step, and its
 * speed-0 motors slipped by up to 2.7 mm; left to S, 1e-9 m, and the
 * car's steering 0.59 mrad -> 0.002 mrad (ldlsim --json, max_hold_slip,
 * with their drive scripts). The buggy, car and lift, whose passes the
 * coupled rows kept going, run a tenth as many. */
void rt__step_contacts(rt_world *w) {
  rt__rows *r = &w->rows;
  const int passes = rt__step_contact_passes(w);
  int k = 0;
  for (; k < passes; k++) {
    const double change = k == 0 ? rt__step_contacts_first(w) : rt__pgs_sweep_change(r, w->dim, r->n, w->vel);
    if (change <= RT__CONTACT_TOLERANCE) break;
    if (k == 0) rt__schur_mask(w);
    rt__block_step(w, r, w->vel, 0);
    w->info.contact_passes++;
  }
  if (k == 0) return;
  rt__schur_unmask(w);
  rt__step_contacts_done(w);
}

/* The contacts' tolerance in the first pass: RT__CONTACT_TOLERANCE's, but
 * RT__CONTACTS_LET_GO for contacts that C would take and S let go this
 * step (it found them settled before the block step: rt__schur_let_go).
 * Those have no exact solve in the step, and the block step moves them by
 * up to the passes' tolerance unseen: the sample scissor lift, parked on
 * its free wheels, rolled to and fro by up to 0.8 m over 4 minutes (its
 * kinetic energy 1e-4 -> 0.07 J), a mode that the geometric stiffness
 * feeds (it did not with the stiffness off) and that the first pass's
 * sweep of the contacts had damped until that sweep was skipped for
 * settled contacts (27a7d89). Now such contacts take the first pass --
 * their sweep and, since it moved them, a block step, which keeps the
 * joints closed -- unless none of them would change its velocity by more
 * than RT__CONTACTS_LET_GO: the lift crept 2-5 mm in those 4 minutes
 * (build/soak --steps 14400, float and double), its step at rest (steps
 * 1200-1500 of ldlsim, callgrind) 938k -> 996k instructions, its rise's
 * and the car's, buggy's and multi_wheel's steps within 1.2 % of what they
 * were (10 s of each with its drive script: +0.7-1.2 %). A sweep without
 * the block step stopped the lift too, but now and then left the parked
 * car's contacts unsettled, which S then coupled (its step at rest 199k ->
 * 218-222k). */
#define RT__CONTACTS_LET_GO 1e-9
double rt__step_contacts_tolerance(const rt_world *w) {
  return use_factor(w) && rt__schur_let_go(w) ? RT__CONTACTS_LET_GO : RT__CONTACT_TOLERANCE;
}

/* The first pass's sweep, where most steps' passes end: the joints' rows
 * outside the block (motors, limits, ropes, springs) swept, and the
 * contacts too unless none of them would change its velocity by more than
 * their tolerance (rt__step_contacts_tolerance, rt__pgs_rows_settled) --
 * then the same sweep as one over all of them. Swept though settled, the
 * contacts moved off where the block step and S had left them (by less
 * than the tolerance), and no block step followed: the sample lift's wheel
 * axles left the step's velocities up to 8e-5 rad/s apart, 1.4e-6 rad apart
 * at the new poses, and its every step took a projection pass to close
 * them. Now (make
 * bench-cg's window) the lift's step costs 684k instructions, not 750k,
 * multi_wheel's 460k, not 499k; over 10 s (ldlsim --json, with the drive
 * scripts) multi_wheel's largest joint angle error is 2.1e-10 rad, not
 * 9.9e-8, the car's held motors slip 3.8e-7 rad, not 5.6e-7, and the
 * other samples' figures are the same to two digits. The joints' rows
 * keep their sweep: left unswept too, the held motors of the car, buggy
 * and excavator slipped 4-33x more. Returns the sweep's largest change of
 * a row's velocity, the contacts' scaled by RT__CONTACT_TOLERANCE over
 * their tolerance (times 1 for most: the same bits), so that the passes go
 * on if it is above RT__CONTACT_TOLERANCE. */
double rt__step_contacts_first(rt_world *w) {
  rt__rows *r = &w->rows;
  const double tol = rt__step_contacts_tolerance(w);
  const double joints = rt__pgs_sweep_change(r, w->dim, w->nfixed_rows, w->vel);
  if (joints <= RT__CONTACT_TOLERANCE && rt__pgs_rows_settled(r, w->nfixed_rows, r->n, w->vel, tol)) return joints;
  return rt__most(joints, rt__pgs_sweep_change(r, w->nfixed_rows, r->n, w->vel) * (RT__CONTACT_TOLERANCE / tol));
}

/* After contact passes that took a block step: the rows coupled through S
 * solved again against the block, from where the passes left the contacts
 * (the passes after the first sweep leave them out: rt__step_contacts),
 * and the block step again, which gives the equality rows the response
 * the solve assumed. */
int rt__step_contacts_coupled(rt_world *w) {
  if (w->schur.k == 0) return -1;
  w->info.coupled_sweeps += rt__schur_step(w, &w->rows, w->vel);
  return w->set.refine;
}

void rt__step_contacts_done(rt_world *w) {
  const int refine = rt__step_contacts_coupled(w);
  if (refine >= 0) rt__step_refined(w, 1, rt__block_step(w, &w->rows, w->vel, refine));
}

/* Sweeps of the position pass: a third of the iterations (rounded up).
 * Measured with 10 iterations, dt 1/60, PGS: 1 sweep left the scissor lift
 * 1.2 m apart, 3 and 10 sweeps 0.6 m; chain, tank, buggy, jansen: 3 as
 * good as 10. LDL-PGS sweeps only the rows outside its block. */
static int position_sweeps(const rt_world *w) { return (w->set.iterations + 2) / 3; }

/* Stage 7 (split correction): the pseudo-velocities, from zero impulses,
 * that remove beta of the drift. With a factor, the rows outside the block
 * are swept and the block step solves the equality rows; else every row is
 * swept. Without a target (every row's correction within max_bias, which
 * the velocity rows carry whole: a mechanism that holds together) the
 * solution is zero, and the pass is not run (the sample lift: its sweeps,
 * block step and S, 25k instructions a step, gave zero in every step). */
static int position_pass(rt_world *w) {
  if (w->set.correction != RT_CORRECT_SPLIT || !rt__rows_position_start(w)) return 0;
  rt__rows *p = &w->prows;
  const int n = position_sweeps(w);
  if (use_block(w) && block_ready(w)) {
    if (p->n > w->dim)
      for (int k = 0; k < n; k++) rt__pgs_sweep(p, w->dim, p->n, w->pvel);
    rt__block_step(w, p, w->pvel, 0);
    /* the equality rows' response to what S changed, if it changed any
     * row (contacts at rest have no position target: the sample lift's
     * second block step found nothing to solve in every step, and its
     * residual cost 10k instructions a step) */
    if (w->schur.k > 0 && rt__schur_step(w, p, w->pvel) > 0 && w->schur.moved > 0) rt__block_step(w, p, w->pvel, 0);
  } else {
    const int fits = rt__pgs_program_fits(w->prog, p);
    for (int k = 0; k < n; k++) rt__pgs_sweep_program(w->prog, fits, p, w->pvel);
    w->info.program_sweeps += fits * n;
  }
  return 1;
}

/* Largest |c| over the equality rows at the step's start (w->start). */
static double start_error(const rt_world *w) {
  double e = 0.0;
  for (int i = 0; i < w->dim; i++) e = rt__most(e, fabs(w->start[i]));
  return e;
}

/* The poses integrated, with the position pass's pseudo-velocities if
 * pass, and their drift (measured if measure): the largest |c| there. */
static double move(rt_world *w, int pass, int measure) {
  rt__bodies_integrate(w, pass);
  rt__rows_expect(w);
  return rt__stabilize_drift(w, measure);
}

/* Stage 8 and the drift of stage 9 (measured if measure): returns the
 * largest |c| at the new poses. The position pass (if pass: it ran) is
 * linear: where the joints' geometry is near a singular pose (a driven
 * rod pulled past the reach its other joints allow) it can move a body by
 * metres, and the drift it leaves, fed forward, asks the next pass for
 * more in the other direction (a random mechanism's light link swung
 * +-12 m, then +-1e10 m, while no velocity passed 100 m/s). So when the
 * joints end further apart than they started, the poses are integrated
 * again without the pass, and the pass is kept only if that is worse. */
static double integrate(rt_world *w, int pass, int measure) {
  rt__rows_keep_start(w);
  const double with = move(w, pass, measure);
  if (!measure || !pass || !(with > start_error(w))) return with;
  rt__snapshot_restore_poses(w);
  const double without = move(w, 0, measure);
  if (without < with) return without;
  rt__snapshot_restore_poses(w);
  return move(w, 1, measure);
}

/* Stage 6 in three parts, so that a batch can run the contact passes of
 * its copies in lanes (batch.c): the block step and the coupled rows; the
 * contact passes (rt__step_contacts, if rt__step_contact_passes says they run);
 * then the rest of stage 6 and stages 7-9 (rt__step_end_finish).
 *
 * With the factor the first block step is unrefined: when S couples rows
 * to it, the block step after S is refined from where S left the
 * velocities, and the first one's refinement bought S a start closer by
 * epsilon kappa (measured, make bench-cg's window: the lift 923k -> 894k
 * instructions a step; ldlsim --json with the drive scripts: the tank's
 * braked sprockets slip 4e-8 m instead of 1e-9 m in 10 s, its motors 1.8
 * instead of 3.1 mm, the lift's largest joint angle error 1.2e-7 instead
 * of 1.0e-7 rad, the others' the same to two digits). When S couples
 * nothing, the refinement follows as one block step would have run it
 * (the same bits: each pass starts from the velocities' residual). With
 * PCR, whose first pass starts from the last step's solution, one block
 * step as it is.
 *
 * When the step expects S to couple rows (rt__step_split_block: joints'
 * rows that take part, or contacts S held in the last 3 steps), the first
 * block step's solve is split around S instead: the residual R_E and its
 * forward half z = D^-1 L^-1 R_E; S built and solved with the equality
 * rows' response to R_E, (D y_c)^T z, in its rows' residuals (schur.c);
 * then the backward half of z - Y x_C = D^-1 L^-1 (R_E - A_EC x_C) gives
 * the equality rows their response to both, and the refinement follows.
 * That is one residual, one solve and one correction fewer than the first
 * block step, S and the block step after it: the lift's step 684k -> 647k
 * instructions (make bench-cg's window). What is lost is the first block
 * step's own refinement, which the block step after S gave it: ldlsim
 * --json with the drive scripts, 10 s, the split alone (after one coupled
 * step) took the lift's largest joint error 2.85e-8 -> 2.93e-8 m and the
 * car's held motors' slip 3.75e-7 -> 3.97e-7 rad; as it is now (after
 * RT__SPLIT_RUN coupled steps, with the sweeps above) 2.85e-8 m and
 * 2.1e-7 rad, the others' the same to three digits. Not split: a step whose
 * contacts do not fit C (rt__schur_expects), whose contact passes run to
 * their cap (the tank's 24, of which the split would save one block step:
 * its motors slipped 3.1 mm instead of 1.8 with it), refine 0, and
 * programs without the solve's halves. */
void rt__step_end_block(rt_world *w) {
  if (rt__step_split_block(w)) {
    if (rt__block_residual(w, &w->rows, w->vel) > RT__BLOCK_TOLERANCE) {
      rt__block_forward(w, w->r);
      rt__step_split_s(w, w->r);
      rt__block_backward(w, w->r);
      rt__block_correct(w, &w->rows, w->r, w->vel);
      rt__step_refined(w, 0, rt__block_step(w, &w->rows, w->vel, w->set.refine - 1));
    } else {
      rt__step_end_block_after(w, 0);
    }
    return;
  }
  if (rt__step_first_block(w)) {
    rt__step_end_block_after(w, rt__block_step(w, &w->rows, w->vel, 0));
    return;
  }
  w->info.contact_passes = 0;
  if (use_block(w) && block_ready(w)) rt__block_step(w, &w->rows, w->vel, w->set.refine);
}

int rt__step_first_block(const rt_world *w) { return use_block(w) && block_ready(w) && use_factor(w); }

int rt__step_split_block(const rt_world *w) { return rt__step_first_block(w) && split_expected(w); }

void rt__step_split_s(rt_world *w, double *z) {
  w->info.contact_passes = 0;
  if (rt__schur_build(w, z) == 0) return;
  w->info.coupled_rows = w->schur.k;
  w->info.coupled_sweeps += rt__schur_step(w, &w->rows, w->vel);
  rt__schur_response(w, z);
}

/* After the first block step (solves: whether it solved): the rows
 * coupled through S; then the block step that follows, from where S left
 * the velocities with the refinement passes (which gives the equality
 * rows the response S assumed), else the first one's refinement (none if
 * it solved nothing): rt__step_second_block says which, and
 * rt__step_refined records the refinement passes it took. */
int rt__step_second_block(rt_world *w, int solves, int *coupled) {
  w->info.contact_passes = 0;
  *coupled = couple_schur(w);
  if (*coupled) return w->set.refine;
  return solves == 0 || w->set.refine == 0 ? -1 : w->set.refine - 1;
}

void rt__step_refined(rt_world *w, int after_s, int passes) {
  w->info.refine_steps = after_s && passes > 0 ? passes - 1 : passes;
}

void rt__step_end_block_after(rt_world *w, int solves) {
  int coupled;
  const int refine = rt__step_second_block(w, solves, &coupled);
  if (refine >= 0) rt__step_refined(w, coupled, rt__block_step(w, &w->rows, w->vel, refine));
}

int rt__step_contact_passes(const rt_world *w) {
  return use_block(w) && block_ready(w) && w->rows.n > w->dim ? w->set.contact_passes : 0;
}

/* Stages 6 (what follows the contact passes) to 9, in parts (world.h): up
 * to the new poses; the projection and post-stabilization; then the
 * step's status -- a step whose state is not finite at the end is
 * undone. */
int rt__step_finish_move(rt_world *w, double *error) {
  if (use_block(w)) {
    if (!block_ready(w)) { /* not positive definite: sweeps instead, the block step's and those skipped */
      const int n = w->set.block_at == RT_BLOCK_BEFORE_LAST && w->set.iterations >= 2 ? w->set.iterations - 1
                                                                                       : w->set.iterations;
      do {
        sweep(w);
        w->info.sweeps++;
      } while (w->info.sweeps < n);
    }
    if (w->set.block_at == RT_BLOCK_BEFORE_LAST && w->set.iterations >= 2) {
      sweep(w);
      w->info.sweeps++;
    }
  }
  rt__stiffness_carry(w);
  const int pass = position_pass(w);
  rt__contact_save(w);
  rt__bodies_merge(w);
  w->info.projections = 0;
  const int post = (w->set.project > 0 || w->set.stabilize) && use_block(w) && block_ready(w);
  *error = integrate(w, pass, post);
  return post;
}

rt_status rt__step_finish_after(rt_world *w) {
  rt__bodies_clear_forces(w);
  if (!rt__bodies_finite(w)) {
    rt__snapshot_restore(w); /* the world as it was before the step, bit for bit */
    return RT_ERR_DIVERGED;
  }
  w->info.steps++;
  return RT_OK;
}

rt_status rt__step_end_finish(rt_world *w) {
  double error;
  const int post = rt__step_finish_move(w, &error);
  if (post && w->set.project > 0) rt__stabilize_project(w, w->set.project, error);
  if (post && w->set.stabilize) rt__stabilize(w);
  return rt__step_finish_after(w);
}

/* Stages 6-9. */
rt_status rt_world_step_end(rt_world *w) {
  rt__step_end_block(w);
  rt__step_contacts(w);
  return rt__step_end_finish(w);
}

/* Threaded (worker.c): a parked thread is woken first; it is kicked as
 * soon as the poses are final and builds H~ from rows of its own while
 * this thread builds the rows and sweeps; if it has not started by the end
 * of the sweeps, this thread factors itself (rt__worker_wait). Whether a
 * step hands off at all is rt__worker_plan's: while the steps that do
 * measure slower than those that do not, none does; a step of a window
 * that measures it is timed whole. */
rt_status rt_world_step(rt_world *w) {
  int timed = 0;
  const int threaded =
      w->set.threaded && use_factor(w) && w->worker.running && w->thread_pays && rt__worker_plan(w, &timed);
  const double t0 = timed ? rt__pick_now() : 0.0;
  if (threaded) rt__worker_warm(w); /* a parked thread wakes while the step begins */
  rt_status st = step_begin(w, threaded);
  if (st != RT_OK) return st;
  w->info.factor_thread = threaded;
  if (threaded) {
    iterate_threaded(w);
    rt__worker_wait(w);
  } else {
    rt_world_factor(w);
    rt_world_iterate(w);
  }
  st = rt_world_step_end(w);
  if (timed && st == RT_OK) rt__worker_timed(w, threaded, rt__pick_now() - t0);
  return st;
}
