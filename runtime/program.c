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

/* The halves of rt_program_solve: a program generated before it had them
 * runs the interpreter's (the same arithmetic, so the same bits). */
void rt_program_solve_forward(const rt_program *p, const void *work, void *x) {
  if (p->solve_forward != NULL)
    p->solve_forward(work, x);
  else
    rt_interp_solve_forward(p, work, x);
}

void rt_program_solve_backward(const rt_program *p, const void *work, void *x) {
  if (p->solve_backward != NULL)
    p->solve_backward(work, x);
  else
    rt_interp_solve_backward(p, work, x);
}
