/* rt_batch.h -- many copies of one mechanism stepped together: N worlds
 * (N = 4, 8 or 16), each with its own state, forces, motors, drives and
 * contacts, stepped by one call that does the copies' common work in vector
 * lanes (docs/DESIGN.md section 10).
 *
 * A batch program (ldlgen --batch N) holds the mechanism's scalar program,
 * ID_program, with which every copy is an ordinary world, and the factor
 * and solve of N copies at once, every value lane-interleaved (entry k of
 * copy j at k * N + j: rt_lanes.h). It describes itself to the runtime as
 *
 *   extern const rt_batch_program ID_batch;
 *
 * A batch borrows N worlds the caller made with rt_world_create from the
 * mechanism's description and its program (ID_program, or any program of
 * the same mechanism and precision: the structure hash is checked) and
 * steps them with rt_batch_step. Between steps each copy is driven and
 * read through the rt_world functions of its own world (rt_batch_world):
 * forces, motors, drives, contacts, poses. rt_batch_set_settings gives
 * every copy the same settings.
 *
 * Each copy's trajectory is bitwise the one rt_world_step gives that copy
 * alone (tests/test_rt_batch.c, -ffp-contract=off): the lanes do exactly
 * the scalar step's operations, copy by copy, in the scalar order. What
 * runs in lanes: the factorization of the N copies' H~ (the batch
 * program) and the solves with it (the block steps', the projection's);
 * the PGS sweeps before the block step and the contact passes after it
 * -- over the rows of all N copies at once, a copy with fewer rows (fewer
 * contacts) padded by inert ones (rt_batch_set_lane_stages); and
 * post-stabilization's factorization and solve. The rest of the step
 * (forces, rows, assembly, the block steps' residuals and corrections,
 * the rows coupled through S, position pass, integration) runs copy by
 * copy. By default a batch times its
 * steps in lanes against its copies stepped one by one (rt_world_step
 * each) and keeps the faster (rt_batch_set_stepping). */
#ifndef LDLPGS_RT_BATCH_H
#define LDLPGS_RT_BATCH_H

#include "rt_world.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A batch program's entry points (ldlgen --batch N emits ID_batch). */
typedef int (*rt_batch_factor_fn)(void *work, void *temp, int *lane_pivot);
typedef void (*rt_batch_solve_fn)(const void *work, void *x);
typedef struct rt_batch_program {
  const rt_program *program; /* the scalar program of the mechanism */
  int lanes;                 /* N: 4, 8 or 16 */
  /* Factors N assembled workspaces (program->work_size scalars each),
   * lane-interleaved, in place; temp: N * program->temp_size scalars.
   * lane_pivot (N ints, or NULL) gets -1 for each copy that factored, else
   * its failing pivot. Returns -1 if all did, else the first failing pivot. */
  rt_batch_factor_fn factor;
  /* Solves H x = b for the N copies in place (N * program->dim scalars). */
  rt_batch_solve_fn solve;
  /* solve's forward and backward halves, as the scalar program's
   * solve_forward and solve_backward (rt.h); NULL in programs generated
   * before them (their copies then complete a block step's solve copy by
   * copy). */
  rt_batch_solve_fn solve_forward;
  rt_batch_solve_fn solve_backward;
} rt_batch_program;

typedef struct rt_batch rt_batch;

/* A batch stepping worlds[0 .. n-1] together (copy j is worlds[j]). The
 * worlds stay the caller's: destroy the batch before them. Every world
 * keeps its settings; rt_batch_set_settings sets them all. Batches share
 * nothing a step writes: two may step on two threads at once (not one
 * batch, nor a batch and one of its worlds).
 * Errors (*status, if status is not NULL; NULL returned):
 *   RT_ERR_INPUT  bp, worlds or a world NULL; bp without a program, factor
 *                 or solve; bp->lanes not 4, 8 or 16; n != bp->lanes; one
 *                 world given twice;
 *   RT_ERR_HASH   a world of another mechanism or precision: its program's
 *                 structure hash, sizes or precision differ from
 *                 bp->program's;
 *   RT_ERR_NOMEM. */
rt_batch *rt_batch_create(const rt_batch_program *bp, rt_world *const worlds[], int n, rt_status *status);
void rt_batch_destroy(rt_batch *b);

/* N; 0 for NULL. */
int rt_batch_lanes(const rt_batch *b);
/* Copy j's world, or NULL if j is out of range. */
rt_world *rt_batch_world(const rt_batch *b, int j);

/* Leaves copy j out of the batch's steps (on = 0) or takes it back in (on
 * nonzero); every copy is in when the batch is made. For a convoy with
 * fewer vehicles than lanes, or one destroyed or parked: a copy left out is
 * not stepped -- rt_batch_step leaves its world bitwise as it was (forces,
 * motor targets and contacts set on it wait for its next step) and reports
 * RT_OK for it -- and costs nothing in the stages that run copy by copy;
 * its lanes are inert (so with fewer copies the lanes pay less, and
 * RT_BATCH_STEP_MEASURED measures its choice again). Its world is the
 * game's to step alone meanwhile, with rt_world_step, if it wants. Taken
 * back in, it steps on from where it stood, each step the bits of
 * rt_world_step on it.
 * RT_ERR_INPUT for b NULL or j not in [0, N) (nothing changes). */
rt_status rt_batch_set_active(rt_batch *b, int j, int on);
/* Whether copy j takes part in the steps: 1, or 0 (left out, or b NULL or
 * j out of range). */
int rt_batch_active(const rt_batch *b, int j);

/* rt_world_set_settings on every copy, or on none: RT_ERR_INPUT for NULL
 * or settings a world refuses (what rt_world_set_settings checks), then
 * every world keeps the settings it had. Copies whose settings differ
 * (one set through its own world) still step correctly, each with its
 * own; the sweeps then run copy by copy unless every copy's solver,
 * iterations and block placement agree. */
rt_status rt_batch_set_settings(rt_batch *b, const rt_settings *s);

/* Whether the sweeps and the contact passes run in lanes (on: nonzero) or
 * copy by copy (0), or in lanes while the step's rows in lanes fit in the
 * budget (RT_BATCH_LANES_AUTO; rt_batch_set_lane_budget); the factorization
 * always runs in lanes. The default is RT_BATCH_LANES_AUTO where the
 * runtime was built with AVX (make ARCH=avx2 or avx512) and 0 without it:
 * SSE2 does two doubles at a time, and there the lanes made 8 tanks step
 * 1.7x slower than copy by copy. The budget: a sweep in lanes goes over
 * every copy's rows before the next sweep, where copy by copy each copy's
 * rows stay in the cache through its sweeps; the sample tank's 16 float
 * copies (4.5 MiB of rows in lanes), their contacts on other links in each
 * copy after 300 steps, stepped 0.63x as fast as 16 scalar steps in lanes
 * and 0.93x copy by copy; its 8 double copies (2.3 MiB) 1.29x in lanes
 * over their first 110 steps, its 4 copies 1.55x (AVX-512 machine, 2 MiB
 * L2 a core). On an AMD EPYC (AVX-512, 1 MiB L2 a core), with the lanes'
 * runs in registers: 8 double tanks 1.63x in lanes; 16 float tanks 1.27x
 * in lanes over their first 70 steps but 0.75x after 500 steps, 0.99x copy
 * by copy; with the lanes' vectors on cache lines (2bee251), 1.37-1.40x
 * and 0.81x in lanes, still 0.99x copy by copy. Either way each copy's
 * bits are the same. RT_ERR_INPUT for b
 * NULL. */
#define RT_BATCH_LANES_AUTO (-1)
rt_status rt_batch_set_lane_stages(rt_batch *b, int on);
/* The budget of RT_BATCH_LANES_AUTO, in bytes of rows in lanes (about 260
 * per row and lane, the most rows of any copy; the lanes take the copies
 * in groups, one after another, as many as a vector register holds
 * doubles, so a batch of 16 counts 8 lanes with AVX-512, 4 with AVX2):
 * RT_BATCH_LANES_BUDGET by default, a little more than one core's
 * L2 cache on the machine measured; raise it where the cache is larger.
 * RT_ERR_INPUT for b NULL. */
#define RT_BATCH_LANES_BUDGET ((size_t)3 << 20)
rt_status rt_batch_set_lane_budget(rt_batch *b, size_t bytes);
/* Whether the last rt_batch_step let its sweeps and contact passes run in
 * lanes (the setting, or RT_BATCH_LANES_AUTO's decision; the sweeps still
 * run copy by copy where the copies' sweep counts differ or are under 4);
 * 0 for a step that stepped the copies one by one, before the first step
 * and for NULL. */
int rt_batch_lanes_used(const rt_batch *b);

/* How rt_batch_step steps the copies: RT_BATCH_STEP_LANES, in lanes as
 * above; RT_BATCH_STEP_COPIES, one by one, rt_world_step on each (a copy
 * stepped alone keeps its rows and velocities in the core's first cache
 * through its whole step, where a batch step takes every copy through
 * each stage before the next: for small mechanisms, whose lanes save
 * little, that is the faster); RT_BATCH_STEP_MEASURED, the default: in
 * lanes for the first 32 steps, then 16 steps of each kind (in the order
 * copies, lanes, lanes, copies, ...) every 2048 steps, whichever's median
 * time was lower until the next such window (a window costs under 1 % of
 * the steps' time); when the number of copies left out changes
 * (rt_batch_set_active), a copy's settings change (rt_batch_set_settings,
 * or rt_world_set_settings on a copy) or the lanes' do
 * (rt_batch_set_lane_stages, rt_batch_set_lane_budget: to another value),
 * the next window comes 256 steps after the last began, or at once if
 * those have passed. Every way gives each copy the
 * same bits, so only the time depends on it. RT_ERR_INPUT for b NULL or
 * another value. */
#define RT_BATCH_STEP_COPIES 0
#define RT_BATCH_STEP_LANES 1
#define RT_BATCH_STEP_MEASURED (-1)
rt_status rt_batch_set_stepping(rt_batch *b, int how);
/* Whether the last rt_batch_step ran in lanes (0: the copies one by one,
 * before the first step, and for NULL). */
int rt_batch_stepped_in_lanes(const rt_batch *b);

/* One step of every copy but those left out (rt_batch_set_active). Each
 * copy's step is atomic as rt_world_step's is: a copy whose step fails
 * (RT_ERR_NONFINITE: refused; RT_ERR_DIVERGED: undone) is bitwise as it
 * was, and the others step all the same -- one tank that diverges does not
 * stop the convoy. status (N entries, or NULL) gets each copy's result
 * (RT_OK for a copy left out). Returns RT_OK if every copy stepped, else
 * the failure of the first copy that failed; RT_ERR_INPUT for b NULL (then
 * nothing happens). */
rt_status rt_batch_step(rt_batch *b, rt_status *status);

#ifdef __cplusplus
}
#endif

#endif
