/* redundant.h -- redundant equality rows, made visible (issue 16): the rank
 * of the equality rows at the initial pose and the constraints whose rows
 * the others already impose (a hinge on a planar loop whose partners
 * already fix its axis, for example). Results of the solver do not change:
 * H~'s regularization keeps it positive definite either way; this only
 * tells the author, who can pick a joint type with fewer rows.
 *
 * Scales with the mechanism: H = J W J^T at the initial pose is factored
 * with the mechanism's own program (the interpreter on its tables, double)
 * at a tiny regularization; a pivot D_i that falls below a tolerance times its
 * row's diagonal belongs to a row that depends on the rows eliminated
 * before it. Which constraint shows a dependency follows the program's
 * pivot order (the last rows of a loop are the ones named). */
#ifndef LDLPGS_GEN_REDUNDANT_H
#define LDLPGS_GEN_REDUNDANT_H

#include "arena.h"
#include "program.h"

/* Relative regularization of the rank test, and the relative pivot below
 * which a row counts as redundant: RED_TOL_FACTOR times the regularization.
 * On the samples a redundant row's pivot comes out within 10^3 of the
 * regularization (rounding), an independent one at 10^-6 of its diagonal or
 * more (1000:1 mass ratios included). If rounding makes a pivot negative
 * the test runs again with 100 times the regularization, twice at most. */
#define RED_EPSILON 1e-14
#define RED_TOL_FACTOR 1e5

typedef struct redundant {
  int dim, rank;      /* equality rows, and their rank at the initial pose */
  int ncons;          /* solver constraints with a redundant row */
  int *cons;          /* those constraints, in mechanism order (ncons) */
  unsigned *rows;     /* bit i: row i of that constraint is redundant (ncons) */
} redundant;

/* Fills out (arrays in a). Returns 0, or -1 if the factorization failed
 * even so (then out->rank is dim and nothing is listed). */
int redundant_analyze(arena *a, const program *p, redundant *out);

/* A joint type that would drop redundant rows of the rows `rows` of a
 * constraint of type t with `degree` rows, as a phrase ("a ball joint would
 * drop its two angular rows"), with how many of them it drops in *drops
 * (the others would stay redundant: the positional row of a hinge that
 * closes a planar loop), or NULL (*drops 0) if no type of the table drops
 * any. A constraint whose rows are all redundant could be left out. */
const char *redundant_suggestion(rt_joint_type t, unsigned rows, int degree, int *drops);

/* Number of redundant rows (bits) in a mask. */
int redundant_count(unsigned rows);

#endif
