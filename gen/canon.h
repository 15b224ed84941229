/* canon.h -- the mechanism's constraints numbered in name order.
 *
 * A mechanism file lists its constraints in whatever order its author wrote
 * them; the generated program, the runtime's rows and the sweeps number them
 * in name order instead (digit runs compared as numbers, so joint2 comes
 * before joint10), so that swapping two declarations changes nothing in a
 * generated file. Each constraint keeps its declaration index (decl) for the
 * natural elimination order. */
#ifndef LDLPGS_GEN_CANON_H
#define LDLPGS_GEN_CANON_H

#include "arena.h"
#include "mech.h"

/* < 0, 0, > 0 as a sorts before, with, after b: runs of digits compare by
 * value (then by length, so "01" and "1" still differ), everything else
 * byte by byte. 0 only for equal strings. */
int canon_name_cmp(const char *a, const char *b);

/* Puts m's constraints in name order, remapping every target; decl keeps
 * each one's position in the file. Scratch from a. */
void canon_constraints(arena *a, mech *m);

#endif
