/* peer_mujoco.h -- a loaded mechanism as a MuJoCo model (Debian's
 * libmujoco-dev), for the whole-step comparison (stepper.h): MuJoCo's Newton
 * and PGS solvers in generalized coordinates.
 *
 * The model is an MJCF text made here. A spanning forest of the
 * mechanism's equality constraints becomes the kinematic tree (prismatic,
 * cylindrical and universal joints are taken first, then hinges, balls and
 * welds: a hinge is a hinge joint, a prismatic joint a slide, a cylindrical
 * joint a slide and a hinge on one axis, a universal joint two hinges, a
 * ball a ball joint, a weld a body with no joint; each tree's root is a
 * free joint unless it hangs from the world). Every other equality
 * constraint closes a loop as an equality: a ball as a `connect`, a weld as
 * a `weld`, a hinge as two `connect`s on its axis (0.25 m apart: the axis
 * coincides; one of their six rows is redundant), a rod as a spatial tendon
 * between its anchors whose length an equality fixes (a driven rod's length
 * is changed before every step as ours is). Angular and positional limits
 * on tree joints become joint ranges. A loop that is a prismatic,
 * cylindrical or universal joint has no such form: then the mechanism is
 * not mapped. Motors and ropes are left out and listed (MuJoCo's
 * actuators are forces, not bounded-impulse rows). Shapes become geoms
 * that touch the ground plane (and each other with settings.collide),
 * found by MuJoCo's own collision detection, which is part of its step.
 * Solver parameters (soft constraints, Newton's tolerance) are MuJoCo's
 * defaults; the PGS solver runs N iterations. */
#ifndef LDLPGS_BENCH_PEER_MUJOCO_H
#define LDLPGS_BENCH_PEER_MUJOCO_H

#include <stddef.h>

#include "mech.h"
#include "rt_world.h"

typedef struct pm_world pm_world;

/* NULL if the mechanism does not map (why says which constraint) or MuJoCo
 * refused the model (why has its message). */
pm_world *pm_create(const mech *m, int newton, int iterations, char *why, size_t n);
void pm_destroy(pm_world *w);
/* "name (type), ..." of what was left out ("" if nothing). */
const char *pm_unmapped(const pm_world *w);
void pm_step(pm_world *w);
void pm_body(const pm_world *w, int i, rt_pose *pose, double vel[3], double angvel[3]);
/* Constraint rows of the last step (mjData.nefc). */
int pm_rows(const pm_world *w);
/* The MJCF text of the model (for inspection). */
const char *pm_xml(const pm_world *w);

#endif
