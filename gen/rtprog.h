/* rtprog.h -- the program IR as a runtime program (rt_program) in memory:
 * what tools and tests run through the interpreter without compiling C, and
 * the single source of the arrays the emitter writes out. */
#ifndef LDLPGS_GEN_RTPROG_H
#define LDLPGS_GEN_RTPROG_H

#include "arena.h"
#include "program.h"
#include "target.h"

/* The temporary of unrolled code (gen/emit.h): two slots of
 * RTPROG_TEMP_RINV reciprocals 1/D (even and odd pivots), then Y^T from
 * RTPROG_TEMP_ET, row k at RTPROG_TEMP_ET + k * rtprog_et_ld(). Panels of
 * the edge column are RTPROG_PANEL_BYTES of scalars high (rtprog_lanes
 * rows): the panel height of the target description, gen/target.h.
 * Every program's temp_size covers that layout and the interpreter's
 * largest h*d, so a mechanism's unrolled and table programs have the same
 * sizes. */
#define RTPROG_TEMP_RINV 8
#define RTPROG_TEMP_ET 16
#define RTPROG_PANEL_BYTES TARGET_PANEL_BYTES
int rtprog_lanes(rt_precision precision);
/* The row stride of Y^T: the largest column height, rounded up to a whole
 * panel. */
int rtprog_et_ld(const rt_program *r);

/* Fills *out with arrays allocated in a; factor/solve stay NULL (the
 * interpreter runs it). */
void rtprog_build(arena *a, const program *p, rt_precision precision, rt_program *out);

#endif
