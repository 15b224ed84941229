/* mechworld.h -- a loaded mechanism as the runtime's world description
 * (rt_world.h): bodies at their initial state, every constraint in body
 * frames (mech_joint_desc), and the mechanism's settings as rt_settings:
 * gen/mechdesc.h's, which ldlgen also writes into generated files. */
#ifndef LDLPGS_SIM_MECHWORLD_H
#define LDLPGS_SIM_MECHWORLD_H

#include "arena.h"
#include "mech.h"
#include "rt_world.h"

/* Fills *out with arrays allocated in a. */
void mechworld_desc(arena *a, const mech *m, rt_world_desc *out);

/* rt_settings_default overridden by the mechanism's settings (dt, gravity,
 * iterations, beta, epsilon, max_contacts, stabilize). */
void mechworld_settings(const mech *m, rt_settings *out);

#endif
