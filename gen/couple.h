/* couple.h -- the rows the runtime solves against the block through the
 * Schur complement (runtime/schur.c, docs/DESIGN.md section 9), and what
 * building that complement costs in an elimination order.
 *
 * Each coupled row c costs a column y_c = D^-1 L^-1 A_Ec of the step's
 * factor, and A_Ec is nonzero only on the equality constraints that share a
 * solver body with c: the forward solve runs along the elimination-tree
 * paths from their pivots to the root, and S's entries are products over
 * where two paths meet. A wheel's hinge is a leaf of the tree, eliminated
 * first at no fill, so each contact under it pays for the whole path up
 * through the mechanism; eliminated last, it pays for a few pivots (the
 * sample scissor lift's 8 ground contacts: the S build went from 216k to
 * 94k instructions a step for 5 % more factor flops).
 *
 * The sources of coupled rows, estimated from the mechanism as the runtime
 * couples them with its default settings:
 *   - joints: each limit, motor, spring and rope (one row on the bodies of
 *     the joint it names), the first RT default coupled_rows of them;
 *   - contacts: each body with a collision shape when the mechanism has a
 *     ground (three rows a contact; a sphere rests on 1 point, a cylinder
 *     or capsule on 2, a box on 4), all of them only if their contacts
 *     number at most the default coupled_contacts (the runtime couples all
 *     or none).
 *
 * couple_order then offers, besides an order, the same order with the
 * pivots the sources start on moved to the end (relative order kept), and
 * keeps whichever costs fewer flops for the factor and the S build
 * together. */
#ifndef LDLPGS_GEN_COUPLE_H
#define LDLPGS_GEN_COUPLE_H

#include <stdint.h>

#include "arena.h"
#include "graph.h"
#include "shatter.h"
#include "symbolic.h"

typedef struct couple_set {
  int n;          /* sources */
  int *adr;       /* graph nodes source i starts on: node[adr[i] .. adr[i+1]) */
  int *node;      /* (constraints on the source's solver bodies) */
  int *cols;      /* coupled rows of source i */
  unsigned char *contact; /* 1: a contact body, 0: a joint's row */
} couple_set;

/* The sources of s's mechanism (an empty set when it has none). */
void couple_sources(arena *a, const smech *s, couple_set *out);

/* 3 x the flops of building S in order perm (pivot p -> node): the forward
 * solves of the sources' columns along their paths and the products of
 * every pair of columns over the rows their paths share. */
int64_t couple_flops3(const cgraph *g, const couple_set *c, const int *perm);

/* Of perm and its variants with the sources' pivots last, the order whose
 * factor and S build cost fewer flops together, into perm; returns how
 * many pivots moved (0: perm kept). *totals holds perm's on entry
 * (symbolic_totals_of) and the chosen order's on return; *schur3 receives
 * the chosen order's couple_flops3. */
int couple_order(const cgraph *g, const couple_set *c, int *perm, symbolic_totals *totals, int64_t *schur3);

#endif
