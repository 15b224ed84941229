/* interp.c -- the program interpreter: factor and solve of a program's
 * packed workspace from its tables (rt.h, "programs"), performing the
 * reference arithmetic operation by operation.
 *
 * The kernels are written once, in interp_kernel.h, and compiled here once
 * per precision: float kernels end in _f, double kernels in _d. */
#include "rt.h"

#include <stddef.h>

#define RT_REAL float
#define RT_KERNEL(name) interp_##name##_f
#include "interp_kernel.h"

#define RT_REAL double
#define RT_KERNEL(name) interp_##name##_d
#include "interp_kernel.h"

int rt_interp_factor(const rt_program *p, void *work, void *temp) {
  if (p->precision == RT_FLOAT) return interp_factor_f(p, (float *)work, (float *)temp);
  return interp_factor_d(p, (double *)work, (double *)temp);
}

void rt_interp_solve(const rt_program *p, const void *work, void *x) {
  if (p->precision == RT_FLOAT)
    interp_solve_f(p, (const float *)work, (float *)x);
  else
    interp_solve_d(p, (const double *)work, (double *)x);
}

void rt_interp_solve_forward(const rt_program *p, const void *work, void *x) {
  if (p->precision == RT_FLOAT)
    interp_solve_forward_f(p, (const float *)work, (float *)x);
  else
    interp_solve_forward_d(p, (const double *)work, (double *)x);
}

void rt_interp_solve_backward(const rt_program *p, const void *work, void *x) {
  if (p->precision == RT_FLOAT)
    interp_solve_backward_f(p, (const float *)work, (float *)x);
  else
    interp_solve_backward_d(p, (const double *)work, (double *)x);
}
