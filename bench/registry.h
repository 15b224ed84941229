/* registry.h -- the generated programs linked into the bench driver. make
 * writes build/bench/programs.c from bench/bench.mk: one entry per
 * generated file (sample mechanisms in float and double, the scaling series
 * in double, extra MECHS), with the statistics of its compilation, and
 * for the samples the same file's -mavx2 build. */
#ifndef LDLPGS_BENCH_REGISTRY_H
#define LDLPGS_BENCH_REGISTRY_H

#include "rt.h"

typedef struct bench_entry {
  const char *mech;       /* mechanism file the program was generated from */
  const char *series;     /* NULL for a sample; else the series ("track", "scissor_lift") */
  int param;              /* the series' size: plates or stages */
  const rt_program *prog; /* the unrolled program */
  const char *source;     /* the generated .c file */
  long lines;             /* its lines */
  double compile_s;       /* CPU time (user + sys) of compiling it */
  long text, data;        /* object size: text and data bytes */
  /* The same file compiled again with bench_avx2_flags (samples on x86-64
   * only; NULL otherwise): run it only where the CPU has AVX2. */
  const rt_program *prog_avx2;
  double compile_avx2_s;  /* CPU time of that compilation */
  long text_avx2;         /* its text bytes */
} bench_entry;

extern const bench_entry bench_entries[]; /* ends with mech == NULL */
extern const char bench_cflags[];         /* flags the generated files were compiled with */
extern const char bench_avx2_flags[];     /* added for prog_avx2 ("" when none was built) */

#endif
