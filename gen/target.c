/* target.c -- the target table (see target.h). The rows are written once,
 * in TARGETS, so that the build checks TARGET_PANEL_BYTES against them. */
#include "target.h"

#include <stddef.h>

/* X(name, condition, vector bytes, summary), in #if order; the last row's
 * condition is NULL. */
#define TARGETS(X)                                                                  \
  X("avx", "defined(__AVX__)", 32, "AVX: 32-byte vectors")                          \
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

int target_lanes(int bytes, rt_precision precision) {
  return bytes / (precision == RT_DOUBLE ? (int)sizeof(double) : (int)sizeof(float));
}
