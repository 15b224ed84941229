/* shatter.h -- the solver's view of a mechanism, with body shattering.
 *
 * A body whose attached equality constraints' degrees sum above a threshold
 * makes the constraint graph dense (every pair of its constraints shares it).
 * Shattering splits it into k shards at the same pose (mass m/k, inertia
 * I/k) joined by a chain of welds, with its constraints distributed evenly
 * (in name order) over the shards. Shards exist only inside the
 * solver; the shard map tells the runtime how to gather and scatter them. */
#ifndef LDLPGS_GEN_SHATTER_H
#define LDLPGS_GEN_SHATTER_H

#include "arena.h"
#include "mech.h"

typedef struct smech {
  const mech *m;
  int nbody;              /* solver bodies: unshattered bodies and shards */
  int *body_orig;         /* original body of each solver body     (nbody) */
  int *body_shard;        /* shard number within that body          (nbody) */
  const char **body_name; /* "chassis", or "chassis#3" for a shard (nbody) */
  unsigned char *body_fixed; /*                                      (nbody) */
  int *shard_adr;         /* first solver body of original body i   (m->nbody) */
  int *shard_num;         /* number of solver bodies of body i (1 = whole) */
  int ncons;              /* equality constraints, including shard welds */
  int *cons_orig;         /* mechanism constraint, or -1 for a shard weld (ncons) */
  int *cons_a, *cons_b;   /* solver bodies, or MECH_WORLD             (ncons) */
  int *cons_degree;       /*                                          (ncons) */
  const char **cons_name; /* shard welds are named "body#weld1"...    (ncons) */
  int nshattered;         /* bodies split into more than one shard */
  int nshards;            /* solver bodies that are shards of a shattered body */
  int dim;                /* sum of degrees */
} smech;

/* Sum of the degrees of the equality constraints attached to body i. */
int shatter_body_load(const mech *m, int i);

/* Builds the solver view with shards[i] shards for body i (NULL = no body
 * shattered; shards[i] <= 1 leaves body i whole), each constraint on the
 * shard shatter_assign gives it. */
void smech_build(arena *a, const mech *m, const int *shards, smech *out);
/* The same with each equality constraint c's ends on the shards
 * assign[2c] (end a) and assign[2c + 1] (end b) of their bodies (0 on a
 * whole body; < the body's shards). */
void smech_build_assigned(arena *a, const mech *m, const int *shards, const int *assign, smech *out);
/* The default shards (shards as smech_build's) of every equality
 * constraint's ends into assign (2 m->ncons, as smech_build_assigned's): on
 * a body in k shards, its t-th of the n equality constraints on it in name
 * order on shard t*k/n. */
void shatter_assign(const mech *m, const int *shards, int *assign);

#endif
