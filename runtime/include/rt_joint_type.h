/* rt_joint_type.h -- what a constraint type is, in one record: its degree,
 * its rows (an equality type's constraint function and Jacobian, an
 * inequality type's PGS row), its fields in mechanism files with their
 * validation and error text, its DOT style and its documentation. Each type
 * defines one rt_joint_type_def in runtime/joints/<name>.c and has one line
 * in RT_JOINT_TYPES (rt.h); ldlgen's loader, the runtime's rows and checks,
 * the DOT writer and the README's table all read it from here.
 *
 * Rows act on two bodies today (12 Jacobian numbers over (v_a, w_a, v_b,
 * w_b)); couplings of more bodies (gears, racks, differentials) would
 * widen RT_ROW_SIDES (docs/adding-a-constraint-type.md says how). */
#ifndef LDLPGS_RT_JOINT_TYPE_H
#define LDLPGS_RT_JOINT_TYPE_H

#include <stddef.h>

#include "rt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bodies a row acts on, and the Jacobian numbers of one row. */
#define RT_ROW_SIDES 2
#define RT_ROW_WIDTH (6 * RT_ROW_SIDES)

/* Where a field's value goes. Anchors and axes are world-frame at the
 * initial pose; RT_SLOT_ANCHOR and RT_SLOT_AXIS fill both sides. */
typedef enum rt_joint_slot {
  RT_SLOT_A,         /* body name or "world" */
  RT_SLOT_B,
  RT_SLOT_ANCHOR,    /* point {x, y, z} */
  RT_SLOT_ANCHOR_A,
  RT_SLOT_ANCHOR_B,
  RT_SLOT_AXIS,      /* direction {x, y, z}, normalized; zero length is an error */
  RT_SLOT_AXIS_A,
  RT_SLOT_AXIS_B,
  RT_SLOT_LENGTH,    /* numbers */
  RT_SLOT_LOWER,
  RT_SLOT_UPPER,
  RT_SLOT_SPEED,
  RT_SLOT_MAX_FORCE,
  RT_SLOT_TARGET,    /* name of the constraint it acts on */
  RT_SLOT_FREE_AXIS, /* "angular" or "linear": the target's coordinate */
  RT_SLOT_STIFFNESS, /* numbers */
  RT_SLOT_DAMPING,
  RT_SLOT_REST,
  RT_NSLOTS
} rt_joint_slot;

enum {
  RT_FIELD_REQUIRED = 1, /* "missing required field" when absent */
  RT_FIELD_POSITIVE = 2, /* a number that must be > 0 */
  RT_FIELD_NONNEGATIVE = 4 /* a number that must be >= 0 */
};

typedef struct rt_joint_field {
  const char *key; /* NULL ends a type's list */
  rt_joint_slot slot;
  unsigned flags;
} rt_joint_field;

/* A constraint's values as read from a mechanism file, before they become
 * an rt_joint_desc (world frame, initial pose). */
typedef struct rt_joint_spec {
  rt_joint_type type;
  unsigned have; /* bit 1 << slot for every field given */
  double anchor_a[3], anchor_b[3];
  double axis_a[3], axis_b[3];
  double length, lower, upper, speed, max_force;
  rt_free_axis free_axis;
  double stiffness, damping, rest;
} rt_joint_spec;

/* A rule broken: the message (after "constraint 'NAME': "), and the field
 * whose line it concerns (NULL: the constraint's table). */
typedef struct rt_joint_problem {
  char msg[200];
  const char *key;
} rt_joint_problem;

/* An inequality type's PGS row at the current poses. */
typedef enum rt_row_kind {
  RT_ROW_LIMIT, /* keep the coordinate q within [lower, upper] */
  RT_ROW_MOTOR, /* drive q's rate to speed with |impulse| <= max_force dt */
  RT_ROW_SPRING /* a force -stiffness (q - rest) - damping q', implicit */
} rt_row_kind;

typedef struct rt_joint_row {
  rt_row_kind kind;
  double q, lower, upper; /* limit */
  double speed, max_force; /* motor */
  double stiffness, damping, rest; /* spring */
} rt_joint_row;

typedef struct rt_joint_type_def {
  const char *name;    /* as in mechanism files; equals the X() name */
  int degree;          /* rows in H; 0: an inequality row of PGS only */
  int npos;            /* equality: how many of its rows are positional
                          (metres); the rest are angular (sine of the error) */
  /* Equality types: the zeros of eval's Jacobian rows that hold at every
   * pose, one letter per row, the same on both sides: 'x', 'y', 'z' a
   * ball row along that world axis k (linear part +-e_k, angular part 0
   * in component k), 'a' an angular row (linear part 0), 'g' none. Every
   * such entry is +-0 exactly; ldlgen's assembly and the block step's
   * residual (runtime/pgs.c) leave their products out
   * (tests/test_joint_types.c checks the letters). */
  const char *rows;
  const char *doc;     /* one line for the README's table: what it holds */
  const rt_joint_field *fields; /* besides name and type; NULL-key ended */
  /* Types it acts on (a limit on a hinge, a motor on a slider): bit
   * 1 << type each, with their names for messages ("a hinge or
   * cylindrical"); 0: it joins its own two bodies. */
  unsigned targets;
  const char *targets_text;
  const char *dot_style; /* DOT attributes of its edge in the body graph */
  /* Defaults and rules across fields, once all were read; 0, or -1 with
   * *why filled. NULL: none. */
  int (*finish)(rt_joint_spec *s, rt_joint_problem *why);
  /* Rules at the initial pose, after the Jacobian's rank was checked
   * (equality types); NULL: none. */
  int (*at_rest)(const rt_joint_spec *s, rt_joint_problem *why);
  /* Equality types: c (degree values) and, if J is not NULL, the degree x 12
   * Jacobian at poses pa, pb (NULL: the world). */
  void (*eval)(const rt_joint_desc *j, const rt_pose *pa, const rt_pose *pb, double *c, double *J);
  /* Inequality types: the row of j at the poses of the bodies it acts on
   * (those of target, or its own when targets is 0) into *row and J. */
  void (*row)(const rt_joint_desc *j, const rt_joint_desc *target, const rt_pose *pa, const rt_pose *pb,
              rt_joint_row *row, double *J);
  /* A runtime description's values (rt_world_create); 0, or -1 with *why
   * filled. NULL: nothing beyond the generic checks. */
  int (*check)(const rt_joint_desc *j, rt_joint_problem *why);
} rt_joint_type_def;

/* The definition of a type (NULL for a value outside the enum). */
const rt_joint_type_def *rt_joint_type_def_of(rt_joint_type type);

/* The shortest "%g" form of v that reads back exactly (for messages). */
void rt_joint_num(char out[32], double v);

#ifdef __cplusplus
}
#endif

#endif
