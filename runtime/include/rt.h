/* rt.h -- public interface of the ldlpgs runtime.
 *
 * The runtime is the small C library a game links next to generated solver
 * files. It depends on nothing but the C standard library: not on gen/, not on
 * Lua. Everything here is prefixed rt_; helpers shared between runtime files
 * but not part of this header use rt__.
 */
#ifndef LDLPGS_RT_H
#define LDLPGS_RT_H

#include <stdint.h>

#define RT_WORLD (-1) /* body index of the fixed world */

/* Constraint types. The first RT_JOINT_NEQUALITY are equality constraints
 * that take part in the LDL block; the rest are inequality rows solved by
 * projected Gauss-Seidel only. */
typedef enum rt_joint_type {
  RT_BALL = 0,
  RT_HINGE,
  RT_ROD,
  RT_PRISMATIC,
  RT_CYLINDRICAL,
  RT_UNIVERSAL,
  RT_WELD,
  RT_ANGULAR_LIMIT,
  RT_POSITIONAL_LIMIT,
  RT_ROPE,
  RT_MOTOR,
  RT_JOINT_NTYPES
} rt_joint_type;

#define RT_JOINT_NEQUALITY 7
#define RT_MAX_DEGREE 6

/* Number of rows an equality constraint contributes to H (0 for inequality
 * types), and the type's name as used in mechanism files ("hinge", ...). */
int rt_joint_degree(rt_joint_type type);
const char *rt_joint_type_name(rt_joint_type type);
/* Inverse of rt_joint_type_name; returns -1 for an unknown name. */
int rt_joint_type_from_name(const char *name);

/* Position and orientation of a body: p, and the unit quaternion q = (w,x,y,z)
 * that rotates body-frame vectors into the world frame. */
typedef struct rt_pose {
  double p[3];
  double q[4];
} rt_pose;

/* An equality constraint in body frames (what the loader derives from the
 * world-frame anchors and axes of a mechanism file at its initial pose).
 * frame_a/frame_b are orthonormal frames fixed in body a/b; row 0 is the
 * joint axis (for a universal joint: axis_a on a, axis_b on b), rows 1 and 2
 * span the plane perpendicular to it. For RT_WORLD the "local" frame is the
 * world frame. */
typedef struct rt_joint_desc {
  rt_joint_type type;
  int body_a, body_b;     /* body indices, or RT_WORLD */
  double anchor_a[3];     /* pivot on a, in a's frame */
  double anchor_b[3];     /* pivot on b, in b's frame */
  double frame_a[3][3];   /* rows: axis, perp1, perp2, in a's frame */
  double frame_b[3][3];   /* rows: axis, perp1, perp2, in b's frame */
  double length;          /* rod: rest distance between the pivots */
} rt_joint_desc;

/* Evaluates an equality constraint at poses pa, pb (pass NULL for RT_WORLD):
 * c receives rt_joint_degree(type) values of the constraint function (zero
 * when satisfied) and J, if not NULL, the row-major degree x 12 Jacobian
 * acting on (v_a, w_a, v_b, w_b) with world-frame linear and angular
 * velocities. Returns the degree, or -1 for an inequality type. */
int rt_joint_eval(const rt_joint_desc *joint, const rt_pose *pa, const rt_pose *pb,
                  double *c, double *J);

/* Structure hash of a mechanism's equality block: FNV-1a 64 over the body
 * count, each body's fixed flag, and each equality constraint's type and
 * bodies, in mechanism order. Generated programs record it; the runtime
 * refuses a mechanism whose hash differs. Numeric data (masses, anchors)
 * does not enter it. */
uint64_t rt_structure_hash(int nbody, const unsigned char *body_fixed, int njoint,
                           const int *joint_type, const int *joint_a, const int *joint_b);

#endif
