/* numeric.h -- the numeric inputs of rt_assemble for a program (its solver
 * view of a mechanism) at a set of body poses: the packed Jacobian J, the
 * constraint values c, and the inverse mass and world-frame inverse inertia
 * of every solver body.
 *
 * Solver constraints that are mechanism constraints are evaluated with
 * mech_joint_desc + rt_joint_eval at the poses of their solver bodies (a
 * shard has its body's pose). A shard weld is a weld between two shards of
 * one body, anchored at the body's centre of mass with both frames the body
 * frame (identity in body coordinates), so its c is zero while the shards
 * share the body's pose. A shard of a body split in k has mass m/k and
 * inertia I/k; fixed bodies have inverse mass and inertia 0. */
#ifndef LDLPGS_SIM_NUMERIC_H
#define LDLPGS_SIM_NUMERIC_H

#include "arena.h"
#include "program.h"

typedef struct numeric {
  int ncons;            /* solver constraints (program order) */
  int nsbody;           /* solver bodies */
  int dim;              /* rows */
  const int *row;       /* first row of solver constraint c       (ncons) */
  double *J;            /* dim x 12: c's rows at J + 12 * row[c]  (12 dim) */
  double *c;            /* constraint function values             (dim) */
  double *inv_mass;     /*                                        (nsbody) */
  double *inv_inertia;  /* world-frame 3x3, row-major             (9 nsbody) */
} numeric;

/* Allocates the arrays for program p in a (contents zero). */
void numeric_alloc(arena *a, const program *p, numeric *out);

/* Evaluates everything at the mechanism-body poses pose[0 .. m->nbody-1]
 * (NULL: the mechanism's initial pose). */
void numeric_eval(const program *p, const rt_pose *pose, numeric *out);

/* numeric_alloc + numeric_eval at the initial pose. */
void numeric_build(arena *a, const program *p, numeric *out);

#endif
