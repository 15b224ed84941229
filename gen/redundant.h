/* redundant.h -- redundant equality rows, made visible (issue 16): the rank
 * of the equality rows at the initial pose and the constraints whose rows
 * the others already impose (a hinge on a planar loop whose partners
 * already fix its axis, for example). Results of the solver do not change:
 * H~'s regularization keeps it positive definite either way; this only
 * tells the author, who can pick a joint type with fewer rows.
 *
 * Scales with the mechanism: H = J J^T at the initial pose (unit masses:
 * the rank of J W J^T is J's for any positive definite W, and the masses'
 * conditioning stays out of the test) is factored with the mechanism's own
 * program (the interpreter on its tables, double) at two tiny
 * regularizations, H + eps diag(H): a row that depends on the rows
 * eliminated before it has a pivot D_i proportional to eps (its part of H
 * is only the regularization), an independent one a pivot that eps barely
 * moves. Which constraint shows a dependency follows the pivot order (the
 * last rows of a loop are the ones named), of the mechanism unshattered
 * when the program shattered a body: shard welds are the solver's, and the
 * rank is the same (welds tying k shards in a tree add 6 (k - 1)
 * independent rows). */
#ifndef LDLPGS_GEN_REDUNDANT_H
#define LDLPGS_GEN_REDUNDANT_H

#include "arena.h"
#include "program.h"

/* The regularizations of the rank test, eps and RED_EPSILON_STEP times
 * eps, and the growth of D_i between them above which a row counts as
 * redundant (a dependent row's: RED_EPSILON_STEP; an independent one's:
 * about 1). If rounding makes a pivot negative the test runs again with
 * 100 times the regularizations, twice at most. Against the dense rank
 * of J (complete pivoting, tests/test_redundant.c) on random mechanisms
 * 1-2500 of the sweep, with mass ratios up to 10^4: one differs (2135, by
 * a row whose pivot grew 3.0x: dependent through rows that are nearly
 * dependent themselves). A single factorization at 1e-14 with the
 * bodies' masses, its pivots against a tolerance of 1e-9 of their
 * diagonal, differed on 49 of seeds 1-300: dependent rows' pivots reach
 * far above the regularization through the rows they combine. */
#define RED_EPSILON 1e-12
#define RED_EPSILON_STEP 10.0
#define RED_GROWTH 3.16

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
static inline int redundant_count(unsigned rows) {
  int n = 0;
  for (; rows; rows &= rows - 1) n++;
  return n;
}

#endif
