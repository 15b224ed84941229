/* program.c -- entry points of a program: its generated unrolled code when
 * it has some, else the interpreter (interp.c). Both perform the same
 * arithmetic (rt.h, "Reference arithmetic"). */
#include "rt.h"

#include <stddef.h>

int rt_program_factor(const rt_program *p, void *work, void *temp) {
  if (p->factor != NULL) return p->factor(work, temp);
  return rt_interp_factor(p, work, temp);
}

void rt_program_solve(const rt_program *p, const void *work, void *x) {
  if (p->solve != NULL)
    p->solve(work, x);
  else
    rt_interp_solve(p, work, x);
}
