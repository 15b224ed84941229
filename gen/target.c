/* target.c -- the target table (see target.h). The rows are written once,
 * in TARGETS, so that the build checks TARGET_PANEL_BYTES against them. */
#include "target.h"

#include <stddef.h>

/* X(name, condition, vector bytes, summary), in #if order; the last row's
 * condition is NULL. The first row is plain C (0 vector bytes: one scalar
 * at a time, no vector types): what a compiler without GCC/Clang vector
 * extensions gets (tcc, MSVC: no __GNUC__), and any compiler when
 * LDLPGS_NO_VECTOR is defined. */
#define TARGETS(X)                                                                                       \
  X("scalar", "defined(LDLPGS_NO_VECTOR) || !defined(__GNUC__)", 0,                                     \
    "plain C, one scalar at a time: LDLPGS_NO_VECTOR, or no GCC/Clang vector extensions")              \
  X("avx", "defined(__AVX__)", 32, "AVX: 32-byte vectors")                                               \
  X("baseline", NULL, 16, "16-byte vectors (SSE2, the x86-64 baseline; NEON)")

/* No row is wider than a panel, and one row is as wide: a panel is exactly
 * the widest vector. */
#define NOT_WIDER(name, condition, bytes, summary) \
  _Static_assert((bytes) <= TARGET_PANEL_BYTES, "target " name ": vector wider than TARGET_PANEL_BYTES");
TARGETS(NOT_WIDER)
#define AS_WIDE(name, condition, bytes, summary) +((bytes) == TARGET_PANEL_BYTES)
_Static_assert(0 TARGETS(AS_WIDE) > 0, "TARGET_PANEL_BYTES is not the widest target's vector");
_Static_assert(TARGET_PANEL_BYTES % (int)sizeof(double) == 0, "a panel holds whole double rows");

#define ROW(name, condition, bytes, summary) {name, condition, summary, bytes},
const target_desc target_table[] = {TARGETS(ROW)};
const int target_count = (int)(sizeof target_table / sizeof target_table[0]);

int target_row_lanes(const target_desc *t, rt_precision precision) {
  return t->vector_bytes == 0 ? 1 : target_lanes(t->vector_bytes, precision);
}

int target_lanes(int bytes, rt_precision precision) {
  return bytes / (precision == RT_DOUBLE ? (int)sizeof(double) : (int)sizeof(float));
}
