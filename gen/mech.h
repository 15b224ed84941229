/* mech.h -- a mechanism as loaded from a mechanism file: bodies and
 * constraints with their world-frame data at the initial pose, plus settings.
 * Indices are ints into the arrays; MECH_WORLD (= RT_WORLD) is the world. */
#ifndef LDLPGS_GEN_MECH_H
#define LDLPGS_GEN_MECH_H

#include "arena.h"
#include "../runtime/include/rt.h"

#define MECH_WORLD RT_WORLD

typedef enum mech_shape {
  MECH_SHAPE_NONE = 0,
  MECH_SHAPE_SPHERE,   /* size[0] = radius */
  MECH_SHAPE_BOX,      /* size = full side lengths x, y, z */
  MECH_SHAPE_CYLINDER, /* size[0] = radius, size[1] = length along body z */
  MECH_SHAPE_CAPSULE   /* size[0] = radius, size[1] = length of the segment along z */
} mech_shape;

typedef struct mech_body {
  const char *name;
  int line;               /* source line of the body's table */
  double mass;            /* kg; > 0 for dynamic bodies, ignored when fixed */
  double inertia[3];      /* principal moments in the body frame */
  double pos[3];          /* world position of the centre of mass */
  double rot[4];          /* unit quaternion w, x, y, z (body -> world) */
  double vel[3];          /* linear velocity, world frame */
  double angvel[3];       /* angular velocity, world frame */
  int fixed;              /* 1: does not move, contributes no Jacobian columns */
  mech_shape shape;       /* collision shape (for contacts; not used by gen) */
  double shape_size[3];
  mech_shape solid;       /* the solid given for the inertia (box = ..., sphere = ...),
                             NONE for inertia = {...}: what a viewer draws when
                             there is no collision shape; not used by gen */
  double solid_size[3];
  double friction;        /* friction coefficient of the shape; < 0 = default */
} mech_body;

typedef struct mech_constraint {
  const char *name;
  int line;               /* source line of the constraint's table */
  int decl;               /* position in the file's list (the constraints are
                             numbered in name order: canon.h) */
  rt_joint_type type;
  int a, b;               /* body indices or MECH_WORLD; for limits and motors
                             these are the bodies of the referenced joint */
  int target;             /* limits, motors: index of the referenced constraint; else -1 */
  double anchor_a[3];     /* world-frame pivot on a (single-anchor types: same as anchor_b) */
  double anchor_b[3];     /* world-frame pivot on b */
  double axis_a[3];       /* world-frame unit axis on a (universal: axis_a) */
  double axis_b[3];       /* world-frame unit axis on b (universal: axis_b; else = axis_a) */
  double length;          /* rod: rest length; rope: maximum length */
  double lower, upper;    /* limits: angle (rad) or travel (m) bounds */
  double speed;           /* motor: target velocity (rad/s or m/s) */
  double max_force;       /* motor: maximum force (N) or torque (N m) */
  rt_free_axis free_axis; /* motor, spring: the target's coordinate */
  double stiffness, damping, rest; /* spring */
} mech_constraint;

typedef struct mech_settings {
  double gravity[3];      /* default (0, 0, -9.81) */
  double dt;              /* default 1/60 s */
  int iterations;         /* default 10 */
  double epsilon;         /* regularization of H: default 1e-6 */
  double beta;            /* position drift correction: default 0.2 */
  int shatter;            /* shattering threshold (sum of degrees); 0 = off; default 20 */
  int has_ground;         /* a ground plane z = ground_height exists */
  double ground_height;
  double ground_friction; /* friction coefficient of the ground; < 0 = default */
  double friction;        /* default friction coefficient */
  int probe;              /* body whose height ldlsim reports; -1 = the last body */
  int collide;            /* standalone runs detect body-body contacts too (rt_world_body_contacts) */
  int max_contacts;       /* contact capacity of a world; default 256 */
  int stabilize;          /* post-stabilization (rt_settings.stabilize); default off */
} mech_settings;

typedef struct mech {
  const char *file;       /* path as given on the command line */
  const char *name;
  int line;               /* line of the returned table */
  int return_line;        /* line of the chunk's return (0: unknown): where limits point */
  mech_body *bodies;
  int nbody;
  mech_constraint *cons;
  int ncons;
  mech_settings settings;
} mech;

/* Default settings (gravity, dt, ...), as documented in README.md. */
void mech_default_settings(mech_settings *s);
/* 1 if the constraint takes part in H (an equality constraint). */
int mech_is_equality(const mech_constraint *c);
/* Degree of a constraint in H (0 for inequality types). */
int mech_degree(const mech_constraint *c);
/* Index of the body or constraint with that name, or -1 (bodies: MECH_WORLD
 * for "world" is returned as -1 too; use mech_find_body_or_world). */
int mech_find_body(const mech *m, const char *name);
int mech_find_constraint(const mech *m, const char *name);
/* 1 if body index i is the world or a fixed body. */
int mech_body_is_fixed(const mech *m, int i);
/* Body-frame description of equality constraint i at the initial pose. */
void mech_joint_desc(const mech *m, int i, rt_joint_desc *out);
/* Initial pose of body i (identity for MECH_WORLD). */
void mech_body_pose(const mech *m, int i, rt_pose *out);
/* Structure hash (rt_structure_hash) of the mechanism's equality block. */
uint64_t mech_structure_hash(const mech *m, arena *scratch);

#endif
