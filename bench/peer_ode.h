/* peer_ode.h -- a loaded mechanism built in ODE (Debian's libode-dev, double
 * precision), for the whole-step comparison (stepper.h). Bodies map one to
 * one (a fixed body is ODE's static environment); constraints map onto the
 * ODE joint that imposes the same rows:
 *
 *   ball -> ball        hinge -> hinge        prismatic -> slider
 *   cylindrical -> piston                     universal -> universal
 *   weld -> fixed       rod -> double ball (dJointCreateDBall: the distance
 *                              between two anchors; a driven rod's distance
 *                              is changed before every step as ours is)
 *   motor on a hinge or prismatic joint -> that joint's motor (dParamVel,
 *   dParamFMax); angular limit on a hinge, positional limit on a prismatic
 *   joint -> that joint's stops
 *
 * What has no ODE counterpart is listed by po_unmapped and left out, never
 * imitated: ropes, and motors and limits on cylindrical joints. Contacts are
 * the caller's (the same rt_contact list every stepper gets), turned into
 * ODE contact joints with the friction pyramid (dContactApprox1: |f_t| <=
 * mu f_n per direction, the runtime's box) before every step. ERP is the
 * mechanism's beta; CFM, the QuickStep over-relaxation (1.3) and the rest
 * are ODE's defaults. */
#ifndef LDLPGS_BENCH_PEER_ODE_H
#define LDLPGS_BENCH_PEER_ODE_H

#include <stddef.h>

#include "mech.h"
#include "rt_world.h"

typedef struct po_world po_world;

/* Writes "name (type), ..." of the constraints ODE cannot model into buf
 * ("" if none) and returns their count. */
int po_unmapped(const mech *m, char *buf, size_t n);

/* The mechanism in a new ODE world, stepped by dWorldQuickStep with
 * `iterations` iterations, or by dWorldStep (direct = 1, the dense direct
 * solver). NULL if ODE could not make it. */
po_world *po_create(const mech *m, int direct, int iterations);
void po_destroy(po_world *w);

/* The contacts of the following steps (copied). */
void po_set_contacts(po_world *w, const rt_contact *c, int n);
void po_step(po_world *w);

/* State of mechanism body i (a fixed body: its initial pose, at rest). */
void po_body(const po_world *w, int i, rt_pose *pose, double vel[3], double angvel[3]);

/* Constraint rows ODE solves in a step: the mapped equality joints' rows,
 * one per motor, three per contact (one for a frictionless contact); limit
 * rows, which come and go, are not counted. */
int po_rows(const po_world *w);

#endif
