/* mechdesc.h -- a loaded mechanism as the runtime's world description
 * (rt_world.h): bodies at their initial state, every constraint in body
 * frames (mech_joint_desc), and the mechanism's settings as rt_settings.
 * ldlgen writes exactly this into generated files (emit_world.c), and the
 * simulation harness (sim/mechworld.c, ldlsim) builds its worlds from it,
 * so a world made from a generated file steps like ldlsim's. */
#ifndef LDLPGS_GEN_MECHDESC_H
#define LDLPGS_GEN_MECHDESC_H

#include "arena.h"
#include "mech.h"
#include "rt_world.h"

/* Fills *out with arrays allocated in a: bodies (a body without its own
 * friction gets settings.friction) and constraints in mechanism order. */
void mechdesc_world(arena *a, const mech *m, rt_world_desc *out);

/* rt_settings_default overridden by the mechanism's settings (dt, gravity,
 * iterations, beta, epsilon, max_contacts, stabilize). */
void mechdesc_settings(const mech *m, rt_settings *out);

/* The ground's friction coefficient as contacts with it use it: its own,
 * else settings.friction. */
double mechdesc_ground_friction(const mech *m);

#endif
