/* target.h -- the one description of the instruction-set targets of
 * generated unrolled code. Every number the emitter and the templates use
 * about vector widths, panel heights and alignment comes from here
 * (docs/adding-a-target.md says how to add a row).
 *
 * A generated file holds one plan -- the same panels, kernels, offsets and
 * temporary layout for every target -- and writes each vector kernel
 * (kernels.tpl: the panels and the reductions) once per target, under the
 * target's preprocessor condition: `#if` for the first row, `#elif` for the
 * next ones, `#else` for the last, which has no condition and is what every
 * other compiler gets. The compiler that builds the file picks the branch.
 * The first row is plain C (vector_bytes 0): no vector types at all, for
 * compilers without GCC/Clang vector extensions and for builds that define
 * LDLPGS_NO_VECTOR, so that a generated file is ISO C11 there.
 * Vector lanes only ever hold independent results, each computed with the
 * reference arithmetic of rt.h, so every branch gives the same bits
 * (test_generated holds the baseline build and an -mavx2 build of some
 * programs to the interpreter).
 *
 * Because the plan is shared, two parameters belong to the description as
 * a whole rather than to a row:
 *   TARGET_PANEL_BYTES   the height of a panel of the edge column, in bytes
 *                        of scalars (8 float or 4 double rows, one lane per
 *                        row): the widest row's vector, so that its panel
 *                        kernels fill whole vectors and narrower targets run
 *                        a panel as several vectors. target.c fails to
 *                        compile if it is not the widest row's vector_bytes.
 *   TARGET_VECTOR_ALIGN  the alignment vector loads and stores assume, in
 *                        scalars: 1, any scalar-aligned address, because
 *                        workspace and temporary offsets are literals of any
 *                        value (the vector types are declared
 *                        aligned(sizeof(scalar)) and may_alias).
 * Changing either, or the table, changes generated output: regenerate
 * (make generate) and the golden files of test_emit. */
#ifndef LDLPGS_GEN_TARGET_H
#define LDLPGS_GEN_TARGET_H

#include "rt.h"

#define TARGET_PANEL_BYTES 32
#define TARGET_VECTOR_ALIGN 1

typedef struct target_desc {
  const char *name;      /* "avx", "baseline" */
  const char *condition; /* the preprocessor condition that selects it, e.g.
                            "defined(__AVX__)"; NULL for the last row */
  const char *summary;   /* its comment in the generated file */
  int vector_bytes;      /* the widest vector its kernels use: a power of
                            two, at least one double, at most
                            TARGET_PANEL_BYTES; or 0: plain C, no vector
                            types (one lane: scalars) */
} target_desc;

/* The rows, in the order the generated #if chain tests them; the last has
 * no condition. */
extern const target_desc target_table[];
extern const int target_count;

/* Scalars of the precision in `bytes` bytes: a panel's rows (bytes =
 * TARGET_PANEL_BYTES). */
int target_lanes(int bytes, rt_precision precision);
/* The lanes of a row's widest vector: 1 for a plain-C row. */
int target_row_lanes(const target_desc *t, rt_precision precision);

#endif
