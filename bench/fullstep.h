/* fullstep.h -- the cost of a whole solver step with the runtime stepper
 * (rt_world_step): assembly + factor + N-1 PGS sweeps + the block GS step,
 * single-threaded and with the factorization on the world's second thread,
 * against N pure PGS sweeps, on a mechanism's own program. */
#ifndef LDLPGS_BENCH_FULLSTEP_H
#define LDLPGS_BENCH_FULLSTEP_H

#include "measure.h"
#include "mech.h"
#include "results.h"

/* Fills out (seconds per step, median and min-max over cfg->runs runs, each
 * the median of cfg->batches batches of a few steps, the three solvers'
 * batches interleaved). Each method's contacts are found at its own poses
 * before every step, outside the timing (collision detection is the
 * game's, not measured; MuJoCo finds its own in its step): with the
 * contacts of the initial pose kept for hundreds of steps, the sample
 * lift's stale contact points left S's solve and the block step 1-3 m/s
 * apart on every wheel from its 82nd step on, and a contact pass ran in
 * 337 of 600 steps (1.19M instructions a step; with fresh contacts 985k,
 * and ODE QuickStep's unchanged). Returns 0, or -1 if a world could not be
 * made. */
int fs_measure(const mech *m, const rt_program *prog, int iterations, const ms_config *cfg, br_step *out);

#endif
