/* rtprog.h -- the program IR as a runtime program (rt_program) in memory:
 * what tools and tests run through the interpreter without compiling C, and
 * the single source of the arrays the emitter writes out. */
#ifndef LDLPGS_GEN_RTPROG_H
#define LDLPGS_GEN_RTPROG_H

#include "arena.h"
#include "program.h"

/* Fills *out with arrays allocated in a; factor/solve stay NULL (the
 * interpreter runs it). */
void rtprog_build(arena *a, const program *p, rt_precision precision, rt_program *out);

#endif
