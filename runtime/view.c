/* view.c -- the solver view of a world created without a program
 * (rt_world_create with program NULL, rt_world.h): what a program says
 * about the solver's bodies and constraints, without its pivots. Every
 * body is its own solver body (no shards), the equality joints in
 * mechanism order are the solver constraints, their rows one after the
 * other. With no pivot order, no workspace and no factor, such a world
 * solves its block step with PCR (pcr.c), which needs only this view. It
 * calls joint_type.c (the degrees). */
#include <stdlib.h>

#include "world.h"

/* Bytes for n ints, rounded up to keep what follows aligned for pointers. */
static size_t ints(int n) {
  const size_t a = sizeof(void *), b = sizeof(int) * (size_t)(n > 0 ? n : 1);
  return (b + a - 1) / a * a;
}

rt_program *rt__view_build(const rt_world_desc *d) {
  int ncons = 0, dim = 0;
  for (int j = 0; j < d->njoint; j++) {
    const int deg = rt_joint_degree(d->joints[j].type); /* 0 for an invalid type: check_desc refuses it */
    ncons += deg > 0;
    dim += deg;
  }
  const int nb = d->nbody;
  rt_program *p = calloc(1, sizeof *p + 3 * ints(nb) + 5 * ints(ncons));
  if (p == NULL) return NULL;
  char *next = (char *)(p + 1);
  int *arr[8];
  for (int k = 0; k < 8; k++) {
    arr[k] = (int *)next;
    next += ints(k < 3 ? nb : ncons);
  }
  int *sbody_body = arr[0], *shard_adr = arr[1], *shard_num = arr[2], *cons_joint = arr[3], *cons_a = arr[4],
      *cons_b = arr[5], *cons_degree = arr[6], *cons_row = arr[7];
  for (int i = 0; i < nb; i++) {
    sbody_body[i] = shard_adr[i] = i;
    shard_num[i] = 1;
  }
  for (int j = 0, c = 0, row = 0; j < d->njoint; j++) {
    const int deg = rt_joint_degree(d->joints[j].type);
    if (deg <= 0) continue;
    cons_joint[c] = c; /* the c-th equality joint */
    cons_a[c] = d->joints[j].body_a;
    cons_b[c] = d->joints[j].body_b;
    cons_degree[c] = deg;
    cons_row[c] = row;
    row += deg;
    c++;
  }
  p->name = "(no program)";
  p->precision = RT_DOUBLE;
  p->nbody = p->nsbody = nb;
  p->ncons = ncons;
  p->dim = dim;
  p->sbody_body = sbody_body;
  p->shard_adr = shard_adr;
  p->shard_num = shard_num;
  p->cons_joint = cons_joint;
  p->cons_a = cons_a;
  p->cons_b = cons_b;
  p->cons_degree = cons_degree;
  p->cons_row = cons_row;
  return p;
}
