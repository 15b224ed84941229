/* targets.h -- the speed targets of issue 5, evaluated on the measured
 * results as explicit PASS/MISS lines:
 *   - unrolled double >= 5x SuiteSparse LDL+AMD and >= 2x the fastest library
 *     (any precision, dense LAPACK included) on scissor_lift, track and
 *     multi_wheel (shattered);
 *   - unrolled float faster still: faster than unrolled double, and meeting
 *     both ratios itself;
 *   - the same three for the programs' -mavx2 build where it was measured,
 *     as extra lines labelled "-mavx2 build" (the baseline build's lines
 *     stay the verdict), with a line on its bitwise identity to the
 *     baseline build;
 *   - best ordering: no more block flops than AMD and than METIS on every
 *     sample;
 *   - full step with the factorization on a second thread <= 1.2x pure PGS
 *     (one line per sample), the talk's step: post-stabilization off; a
 *     mechanism that asks for it gets an INFO line on its step with it;
 *   - issue 22's precision goal, per sample: float plus one refinement step
 *     at or below 1e-6 relative residual and at most 1.3x the float factor
 *     and solve, and the fast preset holding the joints as well as double.
 *   - issue 16, the whole step against ODE: on scissor_lift at N = 10,
 *     LDL-PGS's median step time and instructions per step (make bench-cg)
 *     at most ODE QuickStep N's, its sweep at most 120 instructions per row
 *     and iteration; on chain, time and instructions at most ODE dWorldStep's.
 * A ratio passes when its median over the runs meets the target. */
#ifndef LDLPGS_BENCH_TARGETS_H
#define LDLPGS_BENCH_TARGETS_H

#include "results.h"

/* BR_INFO: a figure reported next to the targets, with none of its own */
typedef enum br_verdict { BR_PASS = 0, BR_MISS, BR_NOT_MEASURED, BR_INFO } br_verdict;

typedef struct br_target {
  br_verdict verdict;
  char text[320];
} br_target;

/* Fills up to max targets; returns how many. */
int br_targets(const br_report *r, br_target *t, int max);

const char *br_verdict_name(br_verdict v);

#endif
