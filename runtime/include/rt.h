/* rt.h -- public interface of the ldlpgs runtime.
 *
 * The runtime is the small C library a game links next to generated solver
 * files. It depends on nothing but the C standard library: not on gen/, not on
 * Lua. Everything here is prefixed rt_; helpers shared between runtime files
 * but not part of this header use rt__.
 */
#ifndef LDLPGS_RT_H
#define LDLPGS_RT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RT_WORLD (-1) /* body index of the fixed world */

/* Constraint types: the table of every type, one line each, X(ID, name):
 * RT_<ID> is its enum value and "name" its type in mechanism files. Each
 * type lives in one file, runtime/joints/<name>.c, which defines its
 * rt_joint_type_def (rt_joint_type.h: degree, rows, schema fields, DOT
 * style, documentation); docs/adding-a-constraint-type.md is the checklist.
 * The enum values enter the structure hash, so new types go at the end.
 * Equality types (degree > 0) take part in the LDL block; inequality types
 * are rows of projected Gauss-Seidel only. */
#define RT_JOINT_TYPES(X)                                                                                   \
  X(BALL, ball)                                                                                             \
  X(HINGE, hinge)                                                                                           \
  X(ROD, rod)                                                                                               \
  X(PRISMATIC, prismatic)                                                                                   \
  X(CYLINDRICAL, cylindrical)                                                                               \
  X(UNIVERSAL, universal)                                                                                   \
  X(WELD, weld)                                                                                             \
  X(ANGULAR_LIMIT, angular_limit)                                                                           \
  X(POSITIONAL_LIMIT, positional_limit)                                                                     \
  X(ROPE, rope)                                                                                             \
  X(MOTOR, motor)                                                                                           \
  X(SPRING, spring)

#define RT__JOINT_ENUM(id, name) RT_##id,
typedef enum rt_joint_type { RT_JOINT_TYPES(RT__JOINT_ENUM) RT_JOINT_NTYPES } rt_joint_type;
#undef RT__JOINT_ENUM

/* The seven equality types come first (RT_BALL .. RT_WELD); a type added
 * later is told apart by rt_joint_degree, not by this bound. */
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

/* The free coordinate of a hinge, cylindrical or prismatic joint that a
 * motor or spring acts on ("axis" in mechanism files). */
typedef enum rt_free_axis {
  RT_AXIS_DEFAULT = 0, /* the joint's rotation; a prismatic joint's travel */
  RT_AXIS_ANGULAR,     /* "angular": rotation about the axis (rad) */
  RT_AXIS_LINEAR       /* "linear": travel along the axis (m) */
} rt_free_axis;

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
  double length;          /* rod: rest distance between the pivots; rope: maximum */
  /* drives, limits and motors (rt_world.h); limits and motors act on
   * another joint */
  int target;             /* index of the joint they act on; -1 for other types */
  double lower, upper;    /* limits: bounds of the angle (rad) or travel (m);
                             driven rod: bounds of its length */
  double speed;           /* motor: target relative velocity (rad/s or m/s);
                             driven rod: rate of change of its length (m/s) */
  double max_force;       /* motor: largest force (N) or torque (N m) */
  /* motors and springs: which free coordinate of the target they act on */
  rt_free_axis free_axis; /* RT_AXIS_DEFAULT: the target's first (a hinge's or
                             cylindrical's rotation, a prismatic's travel) */
  double stiffness;       /* spring: N/m or N m/rad, >= 0 */
  double damping;         /* spring: N s/m or N m s/rad, >= 0 */
  double rest;            /* spring: the coordinate where it exerts no force
                             (m or rad; 0 is the initial pose) */
} rt_joint_desc;

/* Whether a motor or spring with free axis `axis` acts on the rotation (1)
 * or the travel (0) of a joint of type target; -1 if that joint does not
 * free that axis (a hinge has no travel, a prismatic joint no rotation) or
 * is not a hinge, cylindrical or prismatic joint. */
int rt_joint_free_angular(rt_free_axis axis, rt_joint_type target);

/* Evaluates an equality constraint at poses pa, pb (pass NULL for RT_WORLD):
 * c receives rt_joint_degree(type) values of the constraint function (zero
 * when satisfied) and J, if not NULL, the row-major degree x 12 Jacobian
 * acting on (v_a, w_a, v_b, w_b) with world-frame linear and angular
 * velocities. Returns the degree, or -1 for an inequality type. */
int rt_joint_eval(const rt_joint_desc *joint, const rt_pose *pa, const rt_pose *pb,
                  double *c, double *J);

/* The weld that joins two shards of mechanism body `body` (a solver
 * constraint with cons_joint -1): anchored at the body's centre of mass,
 * both frames the body frame, so c = 0 while the shards share the body's
 * pose. */
void rt_shard_weld_desc(int body, rt_joint_desc *out);

/* World-frame inverse inertia R(q) diag(scale / inertia) R(q)^T, row-major:
 * a body's with scale 1, one of its k shards' with scale k. */
void rt_inv_inertia_world(const double q[4], const double inertia[3], double scale, double out[9]);

/* The free coordinate of a hinge, cylindrical or prismatic joint along its
 * axis, as limits and motors use it. angular = 1: the rotation of b relative
 * to a about a's axis A_0, theta = atan2(B_1 . A_2, B_1 . A_1) (0 at the
 * initial pose); angular = 0: the travel of b's anchor along A_0,
 * d . A_0 (0 at the initial pose). *coord receives it and J (if not NULL)
 * the 12-number Jacobian row of its rate: (w_b - w_a) . A_0 for rotation,
 * the linear row of T = A_0 for travel. Returns 0, or -1 if joint is not a
 * hinge, cylindrical or prismatic joint. */
int rt_joint_axis_eval(const rt_joint_desc *joint, int angular, const rt_pose *pa, const rt_pose *pb,
                       double *coord, double *J);

/* Structure hash of a mechanism's equality block: FNV-1a 64 over the body
 * count, each body's fixed flag, and each equality constraint's type and
 * bodies, in mechanism order. Generated programs record it; the runtime
 * refuses a mechanism whose hash differs. Numeric data (masses, anchors)
 * does not enter it. */
uint64_t rt_structure_hash(int nbody, const unsigned char *body_fixed, int njoint,
                           const int *joint_type, const int *joint_a, const int *joint_b);

/*---- programs: the factor/solve of one mechanism's H -------------------------
 *
 * A program is what ldlgen's symbolic phase decided for one mechanism: the
 * solver view (shards of shattered bodies and their welds), the pivot order,
 * the packed workspace layout and the RSI. It comes either from a generated
 * file (unrolled code or const tables) or from gen in memory.
 *
 * Vectors (right-hand sides, solutions) are in solver-constraint order: the
 * rows of solver constraint c are [cons_row[c], cons_row[c] + cons_degree[c]).
 *
 * Workspace: for each pivot p in order, its node block N_p (d x d, row-major,
 * full square; only the lower triangle is read after assembly) at
 * piv_node[p], then its edge column at piv_edge[p]: the blocks of every row
 * pivot q below p in pivot order, each d_q x d row-major, at blk_off[k] for
 * k in [piv_blk_adr[p], piv_blk_adr[p+1]).
 *
 * Reference arithmetic. Unrolled code and the interpreter perform exactly
 * these operations in exactly this order, so their results are bitwise
 * identical. "sum(a_k * b_k, k = m..n)" means s = a_m*b_m; s += a_(m+1)*b_(m+1);
 * ... in the order written (m > n counts down; a sum has at least one term;
 * an empty sum is not computed and nothing is subtracted). "x -= a * b over
 * k = ..." means x = x - a_k * b_k, one subtraction per k, in that order.
 *
 * The factor is H = L D L^T with L unit lower triangular and D diagonal,
 * stored block by block: each node block holds its own l (strict lower
 * triangle) and D (diagonal); each edge block L_k holds the scalar factor's
 * entries below it, E l^-T D^-1 for the assembled edge block E.
 *
 * factor, for each pivot p (degree d, height h, N its node block, E its
 * edge column seen as an h x d row-major matrix, Y a temporary h x d):
 *   1. dense LDL^T of N in place, right-looking, j = 0..d-1:
 *        D = N[j][j]
 *        if !(D > 0) the factorization fails at pivot p
 *        rinv_j = 1 / D
 *        u_i = N[i][j], N[i][j] = u_i * rinv_j                i = j+1..d-1
 *        for i = j+1..d-1:
 *          N[i][i] = N[i][i] - (u_i * u_i) * rinv_j
 *          N[i][k] = N[i][k] - N[i][j] * u_k                 k = j+1..i-1
 *      (u_i: the column's values before scaling)
 *   2. for r = 0..h-1, i = 0..d-1 (forward substitution with l, then D^-1):
 *        y = E[r][i],  y -= N[i][k] * Y[r][k] over k = 0..i-1
 *        Y[r][i] = y,  E[r][i] = y * rinv_i
 *   3. for r = 0..h-1, c = 0..r, with rsi the pivot's RSI read in order:
 *        work[*rsi++] -= sum(E[r][k] * Y[c][k], k = 0..d-1)
 * (The order is chosen for the latency of the chain that runs from one
 * node block through the panel of the next pivot's rows to the next node
 * block: one division per column, multiplications by reciprocals, each
 * new value subtracted last, sums that end with the last-computed term.
 * Step 3 pairs E's finished row r with Y's row c so that unrolled code can
 * vectorize across c. E Y^T = E l^-T D^-1 l^-1 E^T = E N^-1 E^T: the
 * update of block LDL^T, without its backward substitution.)
 *
 * solve(x) for H x = b, x holding b on entry (R_p = rows of pivot p, N_p
 * its node block, blocks k of p with row pivot q):
 *   forward, p = 0..n-1:
 *        x[R_p+i] -= N_p[i][k] * x[R_p+k] over k = 0..i-1      i = 1..d_p-1
 *        x[R_q + r] -= sum(L_k[r][c] * x[R_p + c], c = 0..d_p-1)
 *                                          each block k of p, r = 0..d_q-1
 *        x[R_p+i] = x[R_p+i] / N_p[i][i]                       i = 0..d_p-1
 *   backward, p = n-1..0:
 *        x[R_p + c] -= sum(L_k[r][c] * x[R_q + r], blocks k of p from the
 *                          last to the first, r = d_q-1..0)   c = 0..d_p-1
 *        (the first block's x, final last, enters the sum last)
 *        x[R_p+i] -= N_p[k][i] * x[R_p+k] over k = d_p-1..i+1  i = d_p-2..0
 */

typedef enum rt_precision { RT_FLOAT = 0, RT_DOUBLE = 1 } rt_precision;

typedef struct rt_program rt_program;

/* Entry points of a generated unrolled program. work and temp point to
 * float or double arrays per the program's precision. factor returns -1 on
 * success or the pivot index (>= 0) whose node block was not positive
 * definite. */
typedef int (*rt_factor_fn)(void *work, void *temp);
typedef void (*rt_solve_fn)(const void *work, void *x);

/* The equality rows [0, dim) as a generated sweep reads them (double, in
 * solver-constraint order): row i's Jacobian J[12 i .. 12 i + 11] over
 * (v_a, w_a, v_b, w_b), its W J^T at WJ[12 i ..], its target rhs[i], its
 * inverse diagonal inv_diag[i] and its impulse lambda[i]. */
typedef struct rt_sweep_rows {
  const double *J, *WJ, *rhs, *inv_diag;
  double *lambda;
} rt_sweep_rows;

/* A generated sweep: one projected Gauss-Seidel sweep over the equality
 * rows [0, dim), constraint after constraint in program order, on the
 * velocities vel (6 per solver body: v, w). Per row i, with the sides of
 * its constraint (sweep_side below; a side on the world contributes
 * nothing):
 *   jv = 0.0, += J[k] v_a[k] (k = 0..5), += J[6 + k] v_b[k] (k = 0..5),
 *   one by one in that order;  l = lambda[i] + (rhs[i] - jv) inv_diag[i];
 *   dl = l - lambda[i];  lambda[i] = l;
 *   v_a[k] += WJ[k] dl, v_b[k] += WJ[6 + k] dl  (k = 0..5)
 * -- the runtime's generic sweep's operations on an unbounded row, so the
 * results are bitwise its. The runtime calls it only when its assumptions
 * hold for the step (every equality row's sides are sweep_side's, its
 * bounds -inf and +inf, not soft, inv_diag != 0) and sweeps generically
 * otherwise. Rows of constraints that share no body commute exactly, so
 * the code may interleave them. */
typedef void (*rt_sweep_fn)(const rt_sweep_rows *rows, double *vel);

/* A generated assembly: H~ = J W J^T + epsilon diag(J W J^T) of the
 * equality rows into work (the program's precision), from the rows' J and
 * W J^T (12 doubles a row, as rt_sweep_rows; W J^T zero on a side that is
 * the world or a fixed body), with the runtime's operations in its order
 * (each entry from +0, the terms of the bodies its two constraints share,
 * each term's six products added one by one; a node block's lower triangle
 * mirrored, its diagonal d made d + epsilon d; rounded once when stored;
 * fill-in and padding zeroed), so its bits. It leaves out the products
 * of entries of J that are +-0 at every pose (rt_joint_type_def.rows),
 * which change no bit of a sum from +0 while W J^T is finite, and the terms of
 * bodies fixed in the mechanism, as the runtime's plan does with the fixed
 * flags the world was created with (the structure hash makes them the
 * same). */
typedef void (*rt_assemble_fn)(const double *J, const double *WJ, double epsilon, void *work);

struct rt_program {
  const char *name;          /* mechanism name */
  rt_precision precision;
  uint64_t structure_hash;   /* rt_structure_hash of the mechanism */
  int nbody;                 /* mechanism bodies */
  int nsbody;                /* solver bodies: whole bodies and shards */
  int ncons;                 /* solver equality constraints = pivots */
  int dim;                   /* rows of H */
  int work_size;             /* scalars in the packed workspace */
  int temp_size;             /* scalars of the temporary: at least the largest
                                h*d (the interpreter's need); unrolled code
                                lays out its own and may need more */
  int nblk;                  /* edge blocks (original and fill-in) */
  int64_t nrsi;              /* RSI entries */
  /* solver bodies */
  const int *sbody_body;     /* mechanism body of each solver body   (nsbody) */
  const int *shard_adr;      /* first solver body of mechanism body i (nbody) */
  const int *shard_num;      /* its number of solver bodies (1 = whole) (nbody) */
  /* solver constraints */
  const int *cons_joint;     /* the mechanism's k-th equality joint (inequality
                                joints are not counted); -1 = shard weld (ncons) */
  const int *cons_a;         /* solver body or RT_WORLD                 (ncons) */
  const int *cons_b;         /*                                          (ncons) */
  const int *cons_degree;    /*                                          (ncons) */
  const int *cons_row;       /* first row in solver-constraint order     (ncons) */
  const char *const *cons_name; /*                                       (ncons) */
  /* pivots */
  const int *piv_cons;       /* solver constraint of pivot p              (ncons) */
  const int *piv_node;       /* workspace offset of N_p                  (ncons) */
  const int *piv_edge;       /* workspace offset of p's edge column      (ncons) */
  const int *piv_height;     /* h                                         (ncons) */
  const int *piv_blk_adr;    /* p's blocks: [adr[p], adr[p+1])            (ncons+1) */
  const int *blk_piv;        /* row pivot of each edge block              (nblk) */
  const int *blk_off;        /* workspace offset of each edge block       (nblk) */
  const unsigned char *blk_fill; /* 1 = fill-in (zero in H)               (nblk) */
  const int64_t *piv_rsi_adr; /* p's RSI: rsi[adr[p] .. adr[p+1])          (ncons+1) */
  const int32_t *rsi;        /* workspace offsets                         (nrsi) */
  /* unrolled entry points; NULL for table-driven programs */
  rt_factor_fn factor;
  rt_solve_fn solve;
  /* the generated sweep of the equality rows (rt_sweep_fn); NULL for
   * table-driven and batch programs (and programs generated before it) */
  rt_sweep_fn sweep;
  const int *sweep_side;     /* the sides it assumes: 2c side a, 2c + 1 side b
                                of constraint c, a solver body or RT_WORLD (the
                                world, or a body fixed in the mechanism) (2 ncons) */
  rt_assemble_fn assemble;   /* the generated assembly of H~; NULL as sweep */
  /* solve's two halves (unrolled programs; NULL for table-driven programs
   * and programs generated before them): solve_forward(x) is solve's
   * forward part above (x = D^-1 L^-1 x), solve_backward(x) its backward
   * part (x = L^-T x); one after the other they are solve, to the bit */
  rt_solve_fn solve_forward;
  rt_solve_fn solve_backward;
};

/* Factors the assembled workspace (unrolled entry point if the program has
 * one, else the interpreter). temp must hold temp_size scalars. Returns -1 on
 * success, or the failing pivot index. */
int rt_program_factor(const rt_program *p, void *work, void *temp);
/* Solves H x = b in place after rt_program_factor. */
void rt_program_solve(const rt_program *p, const void *work, void *x);
/* Its forward and backward halves (rt_program.solve_forward, solve_backward;
 * the interpreter's where the program has none): the backward after the
 * forward is rt_program_solve, to the bit. */
void rt_program_solve_forward(const rt_program *p, const void *work, void *x);
void rt_program_solve_backward(const rt_program *p, const void *work, void *x);
/* The interpreter alone (used by table programs, and by tests to compare). */
int rt_interp_factor(const rt_program *p, void *work, void *temp);
void rt_interp_solve(const rt_program *p, const void *work, void *x);
void rt_interp_solve_forward(const rt_program *p, const void *work, void *x);
void rt_interp_solve_backward(const rt_program *p, const void *work, void *x);

/* Assembles H~ = J W J^T + epsilon * diag(J W J^T) into work (the program's
 * precision), node and edge blocks at their workspace offsets, fill-in blocks
 * zeroed. J: for each solver constraint c (program order) a cons_degree[c] x 12
 * row-major Jacobian over (v_a, w_a, v_b, w_b) of its solver bodies, packed
 * one after the other (double); inv_mass[b] and inv_inertia[9*b] (world-frame
 * 3x3, row-major) for each solver body b; RT_WORLD/fixed sides contribute
 * nothing (their inv mass 0). */
void rt_assemble(const rt_program *p, const double *J, const double *inv_mass, const double *inv_inertia,
                 double epsilon, void *work);

/* Mixed-precision iterative refinement (docs/DESIGN.md section 8), for a
 * program used without a world: x = H~^-1 b with the factor in work
 * (rt_assemble with these J, inv_mass, inv_inertia and epsilon, then
 * rt_program_factor), then at most `steps` refinement steps, each a
 * residual r = b - H~ x computed in double from J and the masses (H~ is
 * never assembled: 24 multiply-adds a row) and a correction x += H~^-1 r
 * solved with the factor. A float program so gets a double-accurate
 * solution where its factor has any digit right (redundant mechanisms:
 * README, "Precision presets"). A step after which the residual has not
 * fallen is undone and ends the refinement; the last step is checked so
 * only when info is not NULL (that costs one more product with H~). b and
 * x (dim doubles each) must not overlap; scratch holds
 * rt_program_refine_scratch(p) doubles (5 dim + 6 nsbody). Returns the
 * steps kept. */
typedef struct rt_refine_info {
  int steps;        /* refinement steps kept */
  double residual0; /* ||b - H~ x|| / ||b|| after the factor's solve alone */
  double residual;  /* the same after the refinement */
} rt_refine_info;
size_t rt_program_refine_scratch(const rt_program *p);
int rt_program_solve_refined(const rt_program *p, const double *J, const double *inv_mass, const double *inv_inertia,
                             double epsilon, const void *work, const double *b, double *x, int steps, double *scratch,
                             rt_refine_info *info);

/* The preconditioned conjugate residual solver of the block system
 * (docs/DESIGN.md section 8), for a program's solver view used without a
 * world: solves H~ x = b (H~ as rt_assemble would assemble it from these
 * J, inv_mass, inv_inertia and epsilon, but never assembled, and no factor
 * needed) from x as the first guess (zeros for none), preconditioned with
 * diag(H~)^-1, until ||b - H~ x|| <= tol ||b|| or max_iter iterations.
 * scratch holds rt_program_pcr_scratch(p) doubles (8 dim + 6 nsbody).
 * Returns the iterations run; *residual (if not NULL) receives the final
 * relative residual. */
size_t rt_program_pcr_scratch(const rt_program *p);
int rt_program_solve_pcr(const rt_program *p, const double *J, const double *inv_mass, const double *inv_inertia,
                         double epsilon, const double *b, double *x, double tol, int max_iter, double *scratch,
                         double *residual);

#ifdef __cplusplus
}
#endif

#endif
