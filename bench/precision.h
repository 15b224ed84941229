/* precision.h -- the precision presets (sim/preset.h) and the block
 * solvers side by side on one sample (issue 22): on H~ at the initial pose,
 * the residual and cost of a float solve, of float plus one refinement
 * step (the fast preset), of a double solve (accurate) and of PCR (to the
 * LDL double residual, and to 1e-6); and a short run of each preset, PCR,
 * and PCR in a world without a program, for the joint error they hold and
 * the time a step takes. */
#ifndef LDLPGS_BENCH_PRECISION_H
#define LDLPGS_BENCH_PRECISION_H

#include "measure.h"
#include "mech.h"
#include "method.h"
#include "results.h"

/* pf, pd: the sample's float and double programs (unrolled when make built
 * them); in: H~, b, J and the masses (sample.c). Fills out. */
void pr_measure(const mech *m, const rt_program *pf, const rt_program *pd, const bm_input *in, const ms_config *cfg,
                br_prec *out);

#endif
