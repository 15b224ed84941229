/* mechworld.c -- see mechworld.h. The description itself is gen's
 * (mechdesc.c), the one ldlgen writes into generated files, so that a world
 * made from a generated file and one made here step alike. */
#include "mechworld.h"

#include "mechdesc.h"

void mechworld_desc(arena *a, const mech *m, rt_world_desc *out) { mechdesc_world(a, m, out); }

void mechworld_settings(const mech *m, rt_settings *out) { mechdesc_settings(m, out); }
