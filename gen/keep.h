/* keep.h -- an elimination order that keeps a previous program's (ldlgen
 * --keep-order OLD.c): the pivots the mechanism still has in OLD.c's
 * order, each new one just before the first of its neighbours there. */
#ifndef LDLPGS_GEN_KEEP_H
#define LDLPGS_GEN_KEEP_H

#include <stdint.h>

#include "graph.h"

/* perm (g->n) receives the kept order of g, given the previous program's
 * pivot names in order (names of g not among them are new; names among
 * them that g does not have are gone). Returns 3 x flops of perm. `fresh`
 * is g's order without the previous program (the best order): new pivots
 * no old one leads to come last, in its order. *kept receives how many of
 * g's pivots the previous program had. */
int64_t keep_order(const cgraph *g, const char *const *names, int nnames, const int *fresh, int *perm, int *kept);

#endif
